/**
 * Deploy and the server console (issue 11) against real OpenSSH on loopback: two sshd instances are the
 * web servers of one host, a closed port is a dead node, a 'dev' server is left out. A test pass that
 * exits 0 goes green (test marker) and one that fails goes red; lines stream over the socket as
 * deploy_logs_{server name} between start and end markers; each deploy is a history row; a dead node
 * does not stop the others; a cron task accepts the action; the socket message checks the role. The
 * server console tails 150 lines of an app's log on each node, live, and stops the remote tail when
 * the console closes or the socket goes.
 * One pass: the subject is SSH deploys and their streams; deploy_runs rows are plain inserts.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { io, type Socket } from 'socket.io-client';
import type { ConsoleDataEvent, ConsoleOpenResult, ConsoleStatusEvent, DeployLogEvent, DeployResult, DeployRunView } from '../../src/contracts/deploy.js';
import type { Envelope } from '../../src/contracts/envelope.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { freePort, startSshd, type Sshd } from '../helpers/sshd.js';
import { sleep, waitFor } from '../helpers/wait.js';

let t: TestApp;
let a: Sshd;
let b: Sshd;
let admin: string;
let dir: string;
const ids: Record<string, number> = {};
const db = process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite';

beforeAll(async () => {
  [a, b] = await Promise.all([startSshd(), startSshd()]);
  t = await startApp({ CRON_ENABLED: '0' });
  admin = (await t.session(1)).hash;
  const save = async (name: string, fields: Record<string, unknown>) =>
    (ids[name] = (await t.ok<{ Id: number }>(admin, 'srv.save_server', { name, ip: '127.0.0.1', ...fields })).Id);
  const host = await save('dp-host', { type: 0 });
  const node = (s: Sshd | null, port?: number) => ({ type: 8, cod: host, sshport: s?.port ?? port, sshlogin: s?.user ?? 'nobody', sshpass: s?.password ?? 'x' });
  await save('dp-web1', node(a));
  await save('dp-web2', node(b));
  await save('dp-web-dev', node(a));
  await save('dp-dead', node(null, await freePort()));
  // A log file both sshd users can read, for the console.
  dir = mkdtempSync(join(tmpdir(), 'dp-log-'));
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, 'app.log'), Array.from({ length: 200 }, (_, i) => `old line ${i + 1}`).join('\n') + '\n', { mode: 0o644 });
  await t.ok(admin, 'cfg.insertConfigsBatch', [
    { type: 'deploy_web', value: 'echo pulling; echo "warn: on stderr" >&2; echo built' },
    { type: 'deploy_web_test', value: `echo checking; [ "$(whoami)" != "${b.user}" ] || { echo "test failed here"; exit 2; }` },
    { type: 'console_app', value: `shop|${join(dir, 'app.log')}|8` },
  ]);
}, 60_000);
afterAll(async () => {
  await t?.close();
  await Promise.all([a?.stop(), b?.stop()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function connect(hash: string): Promise<Socket> {
  const s = io(t.url, { transports: ['websocket'], auth: { hash }, reconnection: false });
  await waitFor('socket connected', () => s.connected);
  return s;
}
function collect(sock: Socket, names: string[]) {
  const logs: Record<string, DeployLogEvent[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (const n of names) sock.on(`deploy_logs_${n}`, (e: DeployLogEvent) => logs[n].push(e));
  return logs;
}

describe(`deploy (${db})`, () => {
  test('hosts list the web servers, dev ones hidden', async () => {
    const hosts = await t.ok<Array<{ name: string; nodes: Array<{ name: string }> }>>(admin, 'deploy.getHosts');
    expect(hosts.find((h) => h.name === 'dp-host')?.nodes.map((n) => n.name)).toEqual(['dp-dead', 'dp-web1', 'dp-web2']);
  });

  test('a test pass over the socket: green (test marker) where it exits 0, red where it fails; the dead node does not stop the others', async () => {
    const sock = await connect(admin);
    const logs = collect(sock, ['dp-web1', 'dp-web2', 'dp-dead', 'dp-web-dev']);
    try {
      const env = (await sock.timeout(60_000).emitWithAck('deploy', { type: 'web_test', host: 'dp-host' })) as Envelope<DeployResult>;
      expect(env.status).toBe('ok');
      const r = (env as { result: DeployResult }).result;
      expect(r.nodes).toEqual([
        { name: 'dp-dead', ok: false, code: null, error: expect.stringMatching(/refused/i) },
        { name: 'dp-web1', ok: true, code: 0 },
        { name: 'dp-web2', ok: false, code: 2, error: 'exit code 2' },
      ]);
      await waitFor('end markers', () => ['dp-web1', 'dp-web2', 'dp-dead'].every((n) => logs[n].some((e) => e.marker === 'end')));
      const text = (n: string) => logs[n].map((e) => e.marker ?? e.line);
      expect(text('dp-web1')).toEqual(['start', 'checking', 'test', 'end']);
      expect(text('dp-web2')).toEqual(['start', 'checking', 'test failed here', 'end']);
      expect(text('dp-dead')[0]).toBe('start');
      expect(text('dp-dead').at(-1)).toBe('end');
      expect(logs['dp-dead'].some((e) => !e.marker && /refused/i.test(e.line))).toBe(true);
      expect(logs['dp-web1'].at(-1)).toMatchObject({ marker: 'end', ok: true, code: 0, type: 'web_test', host: 'dp-host' });
      expect(logs['dp-web2'].at(-1)).toMatchObject({ marker: 'end', ok: false, code: 2 });
      expect(logs['dp-web-dev']).toEqual([]);
    } finally {
      sock.close();
    }
  });

  test('a deploy over RPC streams stdout and stderr lines; history and audit record it', async () => {
    const sock = await connect(admin);
    const logs = collect(sock, ['dp-web1', 'dp-web2']);
    try {
      const r = await t.ok<DeployResult>(admin, 'srv/action.deploy', { type: 'web', host: 'dp-host' });
      expect(r.nodes.map((n) => [n.name, n.ok, n.code])).toEqual([['dp-dead', false, null], ['dp-web1', true, 0], ['dp-web2', true, 0]]);
      await waitFor('end markers', () => logs['dp-web1'].some((e) => e.marker === 'end') && logs['dp-web2'].some((e) => e.marker === 'end'));
      for (const n of ['dp-web1', 'dp-web2']) expect(logs[n].map((e) => e.marker ?? e.line)).toEqual(['start', 'pulling', 'warn: on stderr', 'built', 'end']);
      const hist = await t.ok<{ list: DeployRunView[]; count: number }>(admin, 'deploy.getHistory', { host: 'dp-host' });
      expect(hist.list[0]).toMatchObject({ Id: r.Id, type: 'web', host: 'dp-host', login: 'admin', ok: 0, duration_ms: expect.any(Number), nodes: r.nodes });
      expect(hist.list[1]).toMatchObject({ type: 'web_test', ok: 0 });
      expect((await t.ok<{ list: DeployRunView[] }>(admin, 'deploy.getHistory', { type: 'web_test' })).list.every((x) => x.type === 'web_test')).toBe(true);
      const audit = await t.ok<{ list: Array<{ method: string; args: string; target: string | null }> }>(admin, 'audit.getList', { method: 'deploy', limit: 50 });
      expect(audit.list.filter((x) => x.method === 'srv/action.deploy').map((x) => x.target)).toContain('host dp-host (#' + ids['dp-host'] + ')');
      const ssh = await t.ok<{ list: Array<{ args: string }> }>(admin, 'audit.getList', { method: 'ssh.exec', limit: 200 });
      expect(ssh.list.filter((x) => x.args.includes('echo pulling')).map((x) => JSON.parse(x.args).server).sort()).toEqual(['dp-dead', 'dp-web1', 'dp-web2']);
    } finally {
      sock.close();
    }
  });

  test('refusals: unknown host 404, no command 422, bad type 422, role 10 403 over RPC and socket; a cron task accepts the action', async () => {
    expect((await t.rpc(admin, 'srv/action.deploy', { type: 'web', host: 'nope' })).env).toMatchObject({ status: 'empty', code: 404 });
    expect((await t.rpc(admin, 'srv/action.deploy', { type: 'prod', host: 'dp-host' })).env).toMatchObject({ status: 'rules', code: 422 });
    expect((await t.rpc(admin, 'srv/action.deploy', { type: 'web' })).env).toMatchObject({ status: 'rules', code: 422 });
    const other = (await t.ok<{ Id: number }>(admin, 'srv.save_server', { name: 'dp-host2', type: 0 })).Id;
    await t.ok(admin, 'srv.save_server', { name: 'dp-lone', type: 8, cod: other, ip: '127.0.0.1', sshport: a.port, sshlogin: a.user, sshpass: a.password });
    const rows = await t.ok<Array<{ Id: number; type: string }>>(admin, 'cfg.getConfigs', { type: 'deploy_web' });
    await t.ok(admin, 'cfg.removeConfigs', rows.map((r) => r.Id));
    expect((await t.rpc(admin, 'srv/action.deploy', { type: 'web', host: 'dp-host2' })).env).toMatchObject({ status: 'rules', code: 422, message: expect.stringMatching(/deploy_web/) });
    // A host's own row ({type}.{host}) overrides the general one.
    await t.ok(admin, 'cfg.insertConfigsBatch', [{ type: 'deploy_web.dp-host2', value: 'echo host2 only' }]);
    expect((await t.ok<DeployResult>(admin, 'srv/action.deploy', { type: 'web', host: 'dp-host2' })).nodes).toEqual([{ name: 'dp-lone', ok: true, code: 0 }]);

    const content = (await t.session(10, 'dp-content')).hash;
    expect((await t.rpc(content, 'srv/action.deploy', { type: 'web', host: 'dp-host' })).env).toMatchObject({ code: 403 });
    expect((await t.rpc(content, 'deploy.getHistory', {})).env).toMatchObject({ code: 403 });
    const sock = await connect(content);
    const seen: unknown[] = [];
    sock.on('deploy_logs_dp-web1', (e) => seen.push(e));
    try {
      const refused = new Promise<{ message: string }>((r) => sock.once('exception', r));
      sock.emit('deploy', { type: 'web_test', host: 'dp-host' });
      expect((await refused).message).toMatch(/Forbidden/);
      const refused2 = new Promise<{ message: string }>((r) => sock.once('exception', r));
      sock.emit('server_console.write', { app: 'shop' });
      expect((await refused2).message).toMatch(/Forbidden/);
      await sleep(300);
      expect(seen).toEqual([]);
    } finally {
      sock.close();
    }

    const actions = await t.ok<Array<{ name: string; cmd: string }>>(admin, 'cron.getActions');
    expect(actions.find((x) => x.name === 'srv/action.deploy')?.cmd).toBe('path=srv/action|method=deploy');
    expect((await t.rpc(admin, 'cfg.saveAppCron', { name: 'nightly deploy', cmd: 'path=srv/action|method=deploy|arg=type=web&&host=dp-host', second: '0', minute: '0', hour: '4' })).env).toMatchObject({ status: 'ok' });
    expect((await t.rpc(admin, 'cfg.saveAppCron', { name: 'bad deploy', cmd: 'path=srv/action|method=deploy|arg=type=prod&&host=dp-host' })).env).toMatchObject({ status: 'rules', code: 422 });
  });
});

describe(`server console (${db})`, () => {
  const tails = (s: Sshd) => {
    try { return execFileSync('pgrep', ['-u', s.user, '-x', 'tail'], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).length; } catch { return 0; }
  };

  test('tails the last 150 lines on each node, live, and stops the remote tail on unsubscribe and on disconnect', async () => {
    expect(await t.ok(admin, 'deploy.getConsoleApps')).toEqual([{ name: 'shop', path: join(dir, 'app.log'), types: [8] }]);
    const sock = await connect(admin);
    const data: Record<string, string> = {};
    const states: ConsoleStatusEvent[] = [];
    sock.on('server_console.data', (e: ConsoleDataEvent) => { data[e.node] = (data[e.node] ?? '') + e.data; });
    sock.on('server_console.status', (e: ConsoleStatusEvent) => states.push(e));
    const env = (await sock.timeout(20_000).emitWithAck('server_console.write', { app: 'shop' })) as Envelope<ConsoleOpenResult>;
    expect(env.status).toBe('ok');
    const open = (env as { result: ConsoleOpenResult }).result;
    // Every on web server, dev included (the console is not a deploy); the dead one reports an error.
    expect(open.nodes.map((n) => n.name)).toEqual(['dp-dead', 'dp-lone', 'dp-web-dev', 'dp-web1', 'dp-web2']);
    await waitFor('150 lines on web1 and web2', () => ['dp-web1', 'dp-web2'].every((n) => (data[n] ?? '').includes('old line 200')), 15_000);
    for (const n of ['dp-web1', 'dp-web2']) {
      const lines = data[n].trim().split('\n');
      expect(lines).toHaveLength(150);
      expect(lines[0]).toBe('old line 51');
    }
    await waitFor('dead node error', () => states.some((s) => s.node === 'dp-dead' && s.state === 'error'));
    appendFileSync(join(dir, 'app.log'), 'fresh line\n');
    await waitFor('the new line live', () => ['dp-web1', 'dp-web2'].every((n) => data[n].includes('fresh line')), 10_000);
    await waitFor('tails running', () => tails(a) >= 2 && tails(b) >= 1);

    const other = await connect(admin);
    expect(await other.timeout(5000).emitWithAck('server_console.unsubscribe', { key: open.key })).toMatchObject({ status: 'empty', code: 404 });
    other.close();
    expect(await sock.timeout(5000).emitWithAck('server_console.unsubscribe', { key: open.key })).toEqual({ status: 'ok', result: { key: open.key, closed: true } });
    await waitFor('remote tails stopped', () => tails(a) === 0 && tails(b) === 0, 10_000);

    // Again, then the socket goes away: the tails stop too.
    expect((await sock.timeout(20_000).emitWithAck('server_console.write', { app: 'shop' })) as Envelope).toMatchObject({ status: 'ok' });
    await waitFor('tails running again', () => tails(a) >= 2 && tails(b) >= 1, 15_000);
    sock.close();
    await waitFor('remote tails stopped after disconnect', () => tails(a) === 0 && tails(b) === 0, 10_000);
  });

  test('bad input and unknown apps are refused; a bad console_app row is refused', async () => {
    const sock = await connect(admin);
    try {
      expect(await sock.timeout(5000).emitWithAck('server_console.write', { app: 'nope' })).toMatchObject({ status: 'empty', code: 404 });
      expect(await sock.timeout(5000).emitWithAck('server_console.write', { app: 5 })).toMatchObject({ status: 'rules', code: 422 });
      expect(await sock.timeout(5000).emitWithAck('server_console.unsubscribe', {})).toMatchObject({ status: 'rules', code: 422 });
    } finally {
      sock.close();
    }
    expect((await t.rpc(admin, 'cfg.insertConfigsBatch', [{ type: 'console_app', value: 'x|relative/path' }])).env).toMatchObject({ status: 'rules', code: 422 });
  });
});
