/**
 * Run once (issue 11) against real OpenSSH on loopback: two sshd instances act as nodes (two servers on
 * the first, one on the second), a closed port is a dead node. Identical outputs are grouped with their
 * hosts and exit codes, the dead node is in `failed`, progress arrives over the socket, each host is
 * audited once (who, the server's name, the command), role and bad input are refused, and a cron task
 * accepts the method.
 * One pass: the subject is commands over SSH and their grouping.
 */
import { io, type Socket } from 'socket.io-client';
import type { RunOnceProgressEvent, RunOnceResult } from '../../src/contracts/deploy.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { freePort, startSshd, type Sshd } from '../helpers/sshd.js';
import { waitFor } from '../helpers/wait.js';

let t: TestApp;
let a: Sshd;
let b: Sshd;
let admin: string;
const ids: Record<string, number> = {};

beforeAll(async () => {
  [a, b] = await Promise.all([startSshd(), startSshd()]);
  t = await startApp({ CRON_ENABLED: '0' });
  admin = (await t.session(1)).hash;
  const save = async (name: string, s: Sshd | null, port?: number) =>
    (ids[name] = (await t.ok<{ Id: number }>(admin, 'srv.save_server', {
      name, type: 9, ip: '127.0.0.1', sshport: s?.port ?? port, sshlogin: s?.user ?? 'nobody', sshpass: s?.password ?? 'x',
    })).Id);
  await save('ro-node1', a);
  await save('ro-node2', a);
  await save('ro-node3', b);
  await save('ro-dead', null, await freePort());
}, 60_000);
afterAll(async () => {
  await t?.close();
  await Promise.all([a?.stop(), b?.stop()]);
});

const db = process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite';

describe(`srv.runOnce (${db})`, () => {
  test('identical outputs are one group with every host and code; a dead node is in failed; progress over the socket', async () => {
    const sock: Socket = io(t.url, { transports: ['websocket'], auth: { hash: admin }, reconnection: false });
    const events: RunOnceProgressEvent[] = [];
    sock.on('srv.run_once', (e: RunOnceProgressEvent) => events.push(e));
    await waitFor('socket connected', () => sock.connected);
    try {
      const r = await t.ok<RunOnceResult>(admin, 'srv.runOnce', {
        ids: [ids['ro-node3'], ids['ro-node1'], ids['ro-dead'], ids['ro-node2']], cmd: 'echo hello', timeout: 20, run: 'r1',
      });
      expect(r.groups).toEqual([{ output: 'hello', hosts: ['ro-node1', 'ro-node2', 'ro-node3'], codes: [0, 0, 0] }]);
      expect(r.failed).toEqual([{ name: 'ro-dead', error: expect.stringMatching(/refused/i) }]);
      const last = await waitFor('last progress event', () => events.find((e) => e.done === 4));
      expect(last).toMatchObject({ run: 'r1', total: 4 });
      expect(events[0]).toMatchObject({ run: 'r1', done: 0, total: 4 });
    } finally {
      sock.close();
    }
  });

  test('different outputs make different groups, each with its hosts and exit codes (stderr included)', async () => {
    const r = await t.ok<RunOnceResult>(admin, 'srv.runOnce', {
      ids: [ids['ro-node1'], ids['ro-node2'], ids['ro-node3']],
      cmd: `whoami; echo err >&2; [ "$(whoami)" = "${b.user}" ] && exit 3; exit 0`,
    });
    expect(r.failed).toEqual([]);
    expect(r.groups).toEqual([
      { output: `${a.user}\nerr`, hosts: ['ro-node1', 'ro-node2'], codes: [0, 0] },
      { output: `${b.user}\nerr`, hosts: ['ro-node3'], codes: [3] },
    ]);
  });

  test('a host that runs past the time-out fails with a time-out, the others answer', async () => {
    const r = await t.ok<RunOnceResult>(admin, 'srv.runOnce', {
      ids: [ids['ro-node1'], ids['ro-node3']], cmd: `if [ "$(whoami)" = "${b.user}" ]; then sleep 30; fi; echo done`, timeout: 2,
    });
    expect(r.groups).toEqual([{ output: 'done', hosts: ['ro-node1'], codes: [0] }]);
    expect(r.failed).toEqual([{ name: 'ro-node3', error: expect.stringMatching(/timed out/i) }]);
  });

  test('each host is audited once with who, the server name and the command', async () => {
    const cmd = `echo audit-${Date.now()}`;
    await t.ok(admin, 'srv.runOnce', { ids: [ids['ro-node1'], ids['ro-node3'], ids['ro-dead']], cmd });
    const rows = (await t.ok<{ list: Array<{ login: string; args: string; outcome: string }> }>(admin, 'audit.getList', { method: 'ssh.exec', limit: 200 })).list
      .filter((row) => row.args.includes(cmd));
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row.login).toBe('admin');
    const servers = rows.map((row) => JSON.parse(row.args).server).sort();
    expect(servers).toEqual(['ro-dead', 'ro-node1', 'ro-node3']);
    expect(rows.find((row) => row.args.includes('ro-dead'))!.outcome).toBe('error');
  });

  test('refusals: role 10 and 100 get 403, no session 401; bad input 4xx naming the field; unknown ids 404', async () => {
    for (const role of [10, 100]) {
      const s = (await t.session(role, `ro-user-${role}`)).hash;
      const r = await t.rpc(s, 'srv.runOnce', { ids: [ids['ro-node1']], cmd: 'id' });
      expect(r.env).toMatchObject({ status: 'error', code: 403 });
    }
    expect((await t.rpc(null, 'srv.runOnce', { ids: [ids['ro-node1']], cmd: 'id' })).env).toMatchObject({ code: 401 });
    const bad = async (args: unknown, field: RegExp) => {
      const r = (await t.rpc<any>(admin, 'srv.runOnce', args)) as { env: any };
      expect(r.env.status).toBe('rules');
      expect(r.env.code).toBe(422);
      expect(r.env.message).toMatch(field);
    };
    await bad({ ids: [], cmd: 'id' }, /ids/);
    await bad({ ids: ['x'], cmd: 'id' }, /ids/);
    await bad({ ids: [ids['ro-node1']], cmd: '' }, /cmd/);
    await bad({ ids: [ids['ro-node1']], cmd: 'id', timeout: 0 }, /timeout/);
    await bad({ cmd: 'id' }, /ids/);
    const unknown = await t.rpc<any>(admin, 'srv.runOnce', { ids: [999_999], cmd: 'id' });
    expect(unknown.env).toMatchObject({ status: 'empty', code: 404 });
  });

  test('a cron task accepts srv.runOnce as its action', async () => {
    const actions = await t.ok<Array<{ name: string; cmd: string }>>(admin, 'cron.getActions');
    expect(actions.find((x) => x.name === 'srv.runOnce')?.cmd).toBe('path=srv|method=runOnce');
    const saved = await t.rpc<any>(admin, 'cfg.saveAppCron', {
      name: 'run once uptime', cmd: `path=srv|method=runOnce|arg={"ids":[${ids['ro-node1']}],"cmd":"uptime"}`, second: '0', minute: '0', hour: '3',
    });
    expect(saved.env).toMatchObject({ status: 'ok' });
    const refused = await t.rpc<any>(admin, 'cfg.saveAppCron', { name: 'run once bad', cmd: 'path=srv|method=runOnce|arg={"ids":[]}' });
    expect(refused.env).toMatchObject({ status: 'rules', code: 422 });
  });
});
