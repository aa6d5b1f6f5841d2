/**
 * Terminals (issue 11, docs/terminals.md) against two real OpenSSH servers on loopback, over
 * socket.io with the handshake `auth: {hash}`: a shell opens and echoes, the mass terminal writes one
 * line to both nodes with one audit row per host, refusals (role 100, a key not opened, bad input,
 * the per-user limit), sign-out closes the shells, and the recording holds what was typed and echoed.
 */
import { io, type Socket } from 'socket.io-client';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import type { Envelope } from '../../src/contracts/envelope.js';
import type { MassWriteResult, RecordingRow, TerminalDataEvent, TerminalStatus } from '../../src/contracts/terminal.js';
import { TerminalService } from '../../src/modules/terminal/terminal.service.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { startSshd, type Sshd } from '../helpers/sshd.js';
import { waitFor } from '../helpers/wait.js';

const PER_USER = 3;

interface Client {
  s: Socket;
  out: Map<number, string>;
  statuses: TerminalStatus[];
  ask<T = unknown>(event: string, body?: unknown): Promise<Envelope<T>>;
}

let t: TestApp;
let admin: string;
let a: Sshd;
let b: Sshd;
const ids = { n1: 0, n2: 0 };
const clients: Client[] = [];

function client(hash: string): Promise<Client> {
  return new Promise((resolve, reject) => {
    const s = io(t.url, { transports: ['websocket'], auth: { hash, status: 'moder' }, reconnection: false });
    const c: Client = {
      s, out: new Map(), statuses: [],
      ask: (event, body) => s.timeout(20_000).emitWithAck(event, body ?? {}) as Promise<Envelope<never>>,
    };
    s.on('node_control.data', (e: TerminalDataEvent) => c.out.set(e.key, (c.out.get(e.key) ?? '') + e.data));
    s.on('node_control.status', (e: TerminalStatus) => c.statuses.push(e));
    s.on('connect', () => { clients.push(c); resolve(c); });
    s.on('connect_error', reject);
  });
}

const ok = <T>(env: Envelope<T>): T => {
  if (env.status !== 'ok') throw new Error(JSON.stringify(env));
  return env.result;
};

beforeAll(async () => {
  [a, b] = await Promise.all([startSshd(), startSshd()]);
  t = await startApp({ CRON_ENABLED: '0', TERMINAL_MAX_PER_USER: String(PER_USER) });
  admin = (await t.session(1)).hash;
  const save = async (name: string, d: Sshd) =>
    (await t.ok<{ Id: number }>(admin, 'srv.save_server', { name, type: 9, ip: '127.0.0.1', sshport: d.port, sshlogin: d.user, sshpass: d.password })).Id;
  ids.n1 = await save('term-n1', a);
  ids.n2 = await save('term-n2', b);
}, 60_000);

afterAll(async () => {
  for (const c of clients) c.s.close();
  await t?.close();
  await Promise.all([a?.stop(), b?.stop()]);
});

describe(`terminals (${process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite'})`, () => {
  let A: Client;
  let firstRecording = 0;

  test('connect, write `echo hello`, hello comes back as node_control.data; live status', async () => {
    A = await client(admin);
    const st = ok(await A.ask<TerminalStatus>('node_control.connect', { Id: ids.n1, cols: 100, rows: 30 }));
    expect(st).toMatchObject({ key: ids.n1, name: 'term-n1', status: 'open', cols: 100, rows: 30, recording: expect.any(Number) });
    firstRecording = st.recording!;
    expect(A.statuses.map((s) => s.status)).toContain('open');

    // Typed before the shell's first prompt, the line would be echoed by the pty and the prompt printed before the output.
    await waitFor('the first prompt', () => /[$#] $/.test(A.out.get(ids.n1) ?? ''));
    expect(ok(await A.ask('node_control.write', { key: ids.n1, str: 'echo hello\r' }))).toEqual({ key: ids.n1 });
    // The command's output line, not only the echo of what was typed.
    await waitFor('hello on its own line', () => /\r\nhello\r\n/.test(A.out.get(ids.n1) ?? ''));

    // Resize is clamped, not refused.
    expect(ok(await A.ask<TerminalStatus>('node_control.resize', { key: ids.n1, cols: 100_000, rows: 1 }))).toMatchObject({ cols: 500, rows: 2 });
    ok(await A.ask('node_control.resize', { key: ids.n1, cols: 90, rows: 40 }));
    ok(await A.ask('node_control.write', { key: ids.n1, str: 'stty size\r' }));
    await waitFor('the new size inside the shell', () => (A.out.get(ids.n1) ?? '').includes('40 90'));

    const status = ok(await A.ask<TerminalStatus[]>('node_control.get_status'));
    expect(status).toEqual([expect.objectContaining({ key: ids.n1, status: 'open', name: 'term-n1' })]);

    const audit = await t.ok<{ list: Array<{ method: string; args: string; target: string }> }>(admin, 'audit.getList', { method: 'node_control.connect', limit: 10 });
    expect(audit.list).toHaveLength(1);
    expect(JSON.parse(audit.list[0].args)).toMatchObject({ Id: ids.n1, server: 'term-n1', recording: firstRecording });
    expect(audit.list[0].target).toBe(`server term-n1 (#${ids.n1})`);
  });

  test('refusals: a key not opened, another socket\'s key, bad input, a role-100 socket', async () => {
    const notOpen = await A.ask('node_control.write', { key: ids.n2, str: 'id\r' });
    expect(notOpen).toMatchObject({ status: 'rules', message: `Terminal ${ids.n2} is not open on this connection` });

    const B = await client(admin); // the same admin, another tab: n1 is A's, not B's
    expect(await B.ask('node_control.write', { key: ids.n1, str: 'id\r' })).toMatchObject({ status: 'rules', message: `Terminal ${ids.n1} is not open on this connection` });
    expect(await B.ask('node_control.unsubscribe', { key: ids.n1 })).toMatchObject({ status: 'rules' });
    expect(await B.ask('node_control.connect', { Id: 'x' })).toMatchObject({ status: 'rules', message: expect.stringContaining('Id must be a number') });
    expect(await B.ask('node_control.connect', { Id: 999_999 })).toMatchObject({ status: 'empty', message: 'Server 999999 not found' });
    expect(await A.ask('node_control.write', { key: ids.n1, str: 5 })).toMatchObject({ status: 'rules', message: expect.stringContaining('str must be text') });
    expect(await A.ask('node_control.mass_write', { keys: [ids.n1], line: 'a\nb' })).toMatchObject({ status: 'rules', message: expect.stringContaining('line must be one line') });
    B.s.close();

    const user = await client((await t.session(100)).hash);
    const got: TerminalDataEvent[] = [];
    user.s.on('node_control.data', (e: TerminalDataEvent) => got.push(e));
    for (const msg of ['node_control.connect', 'node_control.write', 'node_control.mass_write']) {
      const refused = new Promise<{ message: string }>((r) => user.s.once('exception', r));
      user.s.emit(msg, { Id: ids.n1, key: ids.n1, keys: [ids.n1], str: 'id\r', line: 'id' });
      expect((await refused).message).toMatch(/Forbidden/);
    }
    expect(got).toEqual([]);
    expect(t.app.get(TerminalService).count()).toBe(1);
    user.s.close();
  });

  test('mass write: one line to two nodes, each answers in its own stream, one audit row per host', async () => {
    ok(await A.ask('node_control.connect', { Id: ids.n2 }));
    const r = ok(await A.ask<MassWriteResult>('node_control.mass_write', { keys: [ids.n1, ids.n2, 777], line: 'echo mass-$((6*7)) $(whoami)' }));
    expect(r.written.sort()).toEqual([ids.n1, ids.n2].sort());
    expect(r.refused).toEqual([{ key: 777, message: 'Terminal 777 is not open on this connection' }]);
    await waitFor('both nodes answered', () => (A.out.get(ids.n1) ?? '').includes(`mass-42 ${a.user}`) && (A.out.get(ids.n2) ?? '').includes(`mass-42 ${b.user}`));
    expect(A.out.get(ids.n1)).not.toContain(b.user);

    const audit = await t.ok<{ list: Array<{ args: string; target: string; login: string }> }>(admin, 'audit.getList', { method: 'node_control.mass_write', limit: 10 });
    expect(audit.list).toHaveLength(2);
    expect(audit.list.map((x) => x.target).sort()).toEqual([`server term-n1 (#${ids.n1})`, `server term-n2 (#${ids.n2})`]);
    for (const row of audit.list) {
      expect(row.login).toBe('admin');
      expect(JSON.parse(row.args)).toMatchObject({ line: 'echo mass-$((6*7)) $(whoami)' });
    }
  });

  test('the per-user limit counts every socket of the user and answers a clear 429', async () => {
    const B = await client(admin);
    ok(await B.ask('node_control.connect', { Id: ids.n1 })); // third shell of this user (A has two)
    const over = await B.ask('node_control.connect', { Id: ids.n2 });
    expect(over).toMatchObject({ status: 'error', code: 429, message: `Too many terminals: at most ${PER_USER} per user are open at once (close one first)` });
    ok(await B.ask('node_control.unsubscribe', { key: ids.n1 }));
    await waitFor('B closed', () => t.app.get(TerminalService).count() === 2);
    ok(await B.ask('node_control.connect', { Id: ids.n2 })); // a slot is free again
    B.s.close(); // closing the tab closes its shells
    await waitFor('the tab closed its shell', () => t.app.get(TerminalService).count() === 2);
  });

  test('the recording holds what was typed and echoed; listed per server and per user; replayable', async () => {
    ok(await A.ask('node_control.unsubscribe', { key: ids.n1 }));
    expect(A.statuses.filter((s) => s.key === ids.n1).at(-1)).toMatchObject({ status: 'closed', message: 'Closed' });
    const row = await waitFor('the recording closed', async () => {
      const r = await t.ok<RecordingRow>(admin, 'terminal.recording', { Id: firstRecording });
      return r.ended_at ? r : undefined;
    });
    expect(row).toMatchObject({ server_id: ids.n1, server_name: 'term-n1', login: 'admin', end_reason: 'Closed', truncated: 0 });
    expect(row.bytes).toBeGreaterThan(100);

    const cast = await fetch(`${t.url}/api/terminal/recordings/${firstRecording}/cast`, { headers: { User: admin } });
    expect(cast.status).toBe(200);
    expect(cast.headers.get('content-type')).toContain('application/x-asciicast');
    const lines = (await cast.text()).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ version: 2, width: 100, height: 30, env: { TERM: 'xterm-256color' } });
    const events = lines.slice(1) as Array<[number, string, string]>;
    const output = events.filter((e) => e[1] === 'o').map((e) => e[2]).join('');
    expect(output).toContain('echo hello');
    expect(output).toMatch(/\r\nhello\r\n/);
    expect(output).toContain('mass-42');
    expect(events).toContainEqual([expect.any(Number), 'r', '90x40']);
    for (let i = 1; i < events.length; i++) expect(events[i][0]).toBeGreaterThanOrEqual(events[i - 1][0]);

    const byServer = await t.ok<{ list: RecordingRow[]; count: number }>(admin, 'terminal.recordings', { server_id: ids.n1 });
    expect(byServer.list.map((r) => r.server_id)).toEqual(byServer.list.map(() => ids.n1));
    expect(byServer.list.map((r) => r.Id)).toContain(firstRecording);
    const byUser = await t.ok<{ list: RecordingRow[] }>(admin, 'terminal.recordings', { uid: 999_999 });
    expect(byUser.list).toEqual([]);

    // Without a session, or below admin, the cast is refused.
    expect((await fetch(`${t.url}/api/terminal/recordings/${firstRecording}/cast`)).status).toBe(401);
    const user = (await t.session(100)).hash;
    expect((await fetch(`${t.url}/api/terminal/recordings/${firstRecording}/cast`, { headers: { User: user } })).status).toBe(403);
    expect((await t.rpc(user, 'terminal.recordings', {})).status).toBe(403);
    expect((await fetch(`${t.url}/api/terminal/recordings/999999/cast`, { headers: { User: admin } })).status).toBe(404);
  });

  test('signing out closes the shells of the session', async () => {
    const other = await t.session(1, 'termadmin');
    const C = await client(other.hash);
    const st = ok(await C.ask<TerminalStatus>('node_control.connect', { Id: ids.n1 }));
    const svc = t.app.get(TerminalService);
    const uid = other.uid;
    expect(svc.count(uid)).toBe(1);
    const ended = new Promise((r) => C.s.once('disconnect', r));
    expect((await t.rest(other.hash, 'POST', '/user/logout')).status).toBe(200);
    await ended;
    await waitFor('the shell closed', () => svc.count(uid) === 0);
    const row = await waitFor('its recording ended', async () => {
      const r = await t.ok<RecordingRow>(admin, 'terminal.recording', { Id: st.recording });
      return r.ended_at ? r : undefined;
    });
    expect(row).toMatchObject({ login: 'termadmin', end_reason: 'Session ended' });
    const mine = await t.ok<{ list: RecordingRow[] }>(admin, 'terminal.recordings', { uid });
    expect(mine.list.map((r) => r.Id)).toEqual([st.recording]);
  });

  test('a shell without input is closed at the idle time-out; input keeps it open', async () => {
    const cfg = t.app.get<AppConfig>(APP_CONFIG);
    const before = cfg.terminal.idleMs;
    cfg.terminal.idleMs = 1500; // read at each input: this shell gets 1.5 s
    try {
      const D = await client(admin);
      ok(await D.ask('node_control.connect', { Id: ids.n2 }));
      for (let i = 0; i < 3; i++) {
        await new Promise((r) => setTimeout(r, 700));
        ok(await D.ask('node_control.write', { key: ids.n2, str: ' ' })); // input within the time-out
      }
      expect(D.statuses.filter((s) => s.key === ids.n2).at(-1)?.status).toBe('open');
      const closed = await waitFor('the idle close', () => D.statuses.find((s) => s.key === ids.n2 && s.status === 'closed'), 10_000);
      expect(closed.message).toBe('Closed after 2 s without input');
      expect(await D.ask('node_control.write', { key: ids.n2, str: 'id\r' })).toMatchObject({ status: 'rules' });
      D.s.close();
    } finally {
      cfg.terminal.idleMs = before;
    }
  });

  test('backpressure: a client that stops reading pauses its shell; nothing is lost when it reads again', async () => {
    const E = await client(admin);
    ok(await E.ask('node_control.connect', { Id: ids.n2 }));
    const svc = t.app.get(TerminalService) as unknown as { sockets: Map<{ id: string }, { paused: boolean; shells: Map<number, { stream?: { isPaused(): boolean } }> }> };
    const mine = () => [...svc.sockets.entries()].find(([sock]) => sock.id === E.s.id)?.[1];
    // Stop reading the WebSocket's TCP stream on the client side: the server's send buffer fills.
    const tcp = (E.s.io.engine as unknown as { transport: { ws: { _socket: { pause(): void; resume(): void } } } }).transport.ws._socket;
    tcp.pause();
    E.s.emit('node_control.write', { key: ids.n2, str: "yes | head -c 5000000; echo FLOOD-''DONE\r" });
    await waitFor('the server paused the shell', () => mine()?.paused === true && mine()?.shells.get(ids.n2)?.stream?.isPaused() === true, 20_000);
    tcp.resume();
    await waitFor('all of the flood arrived', () => (E.out.get(ids.n2) ?? '').includes('FLOOD-DONE'), 40_000);
    expect((E.out.get(ids.n2) ?? '').split('y\r\n').length - 1).toBeGreaterThanOrEqual(2_500_000);
    expect(mine()?.paused).toBe(false);
    E.s.close();
  }, 60_000);

  test('retention removes old recordings and their files', async () => {
    const svc = t.app.get(TerminalService);
    expect(await svc.prune(1)).toBe(0); // all are from today
    const before = (await t.ok<{ count: number }>(admin, 'terminal.recordings', {})).count;
    const removed = await svc.prune(1, Date.now() + 2 * 86_400_000);
    expect(removed).toBeGreaterThan(0);
    expect((await t.ok<{ count: number }>(admin, 'terminal.recordings', {})).count).toBe(before - removed);
    expect((await fetch(`${t.url}/api/terminal/recordings/${firstRecording}/cast`, { headers: { User: admin } })).status).toBe(404);
  });
});
