/**
 * A role change is a session change for every live channel (issue 18, "Sessions"): an admin holds a
 * terminal (and writes to it through the mass terminal), a server console and a log follow; another
 * admin sets their role to 100. At once every stream ends with its end event (the terminal's closed
 * status, `server_console.end`, `logs.follow_end`), the remote tails and the agent stream stop, and
 * nothing more of them reaches the socket, while another admin's follow of the same file goes on. The
 * room channels (firewall worker, deploy logs, training progress) no longer reach the demoted socket
 * either, while the other admin still gets them. Across two instances on Redis: the role change made
 * on instance A ends a terminal held on instance B.
 * One pass: the subject is live streams ending on a role change.
 */
import { jest } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { io, type Socket } from 'socket.io-client';
import type { SessionValues } from '../../src/contracts/auth.js';
import type { Envelope } from '../../src/contracts/envelope.js';
import { CHANNEL_ROLE_MESSAGE, LiveChannels } from '../../src/core/realtime/live-channels.js';
import { RealtimeService } from '../../src/core/realtime/realtime.service.js';
import { seedLines } from '../helpers/access-log-seed.js';
import { startTestAgent, type TestAgent } from '../helpers/agents.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { startSshd, type Sshd } from '../helpers/sshd.js';
import { sleep, waitFor } from '../helpers/wait.js';

jest.setTimeout(90_000);

const DB = process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const KEY = 'live-channels-cluster-key-0123456789';

let sshd: Sshd;
let agent: TestAgent;
let dir: string;

beforeAll(async () => {
  [sshd, agent] = await Promise.all([startSshd(), startTestAgent({ hostname: 'lc-node', key: KEY, extraDirs: ['app'] })]);
  dir = mkdtempSync(join(tmpdir(), 'lc-log-'));
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, 'app.log'), 'console line 1\n', { mode: 0o644 });
  writeFileSync(join(agent.logs, 'live.log'), 'old\n');
}, 60_000);
afterAll(async () => {
  await Promise.all([sshd?.stop(), agent?.close()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A client socket recording every event it receives, in order. */
interface Client { s: Socket; got: Array<{ event: string; payload: any }>; of(event: string): any[] }
async function connect(url: string, hash: string): Promise<Client> {
  const s = io(url, { transports: ['websocket'], auth: { hash, status: 'moder' }, reconnection: false, forceNew: true });
  const c: Client = { s, got: [], of: (event) => c.got.filter((g) => g.event === event).map((g) => g.payload) };
  s.onAny((event: string, payload: unknown) => c.got.push({ event, payload }));
  await waitFor('socket connected', () => s.connected);
  return c;
}
const ack = async <T = any>(c: Client, event: string, body?: unknown): Promise<T> => {
  const env = (await c.s.timeout(20_000).emitWithAck(event, body).catch((e: Error) => { throw new Error(`${event}: ${e.message}`); })) as Envelope<T>;
  if (env.status !== 'ok') throw new Error(`${event}: ${JSON.stringify(env)}`);
  return (env as { result: T }).result;
};
const tails = () => {
  try { return execFileSync('pgrep', ['-u', sshd.user, '-x', 'tail'], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).length; } catch { return 0; }
};
const agentConnections = () => new Promise<number>((r) => agent.server.getConnections((_e, n) => r(n)));

/** Servers and configs on a fresh app: a web host with one node on the test sshd, an agent node, the console app and a deploy command. */
async function seed(t: TestApp, admin: string) {
  const save = async (fields: Record<string, unknown>) => (await t.ok<{ Id: number }>(admin, 'srv.save_server', fields)).Id;
  const host = await save({ name: 'lc-host', type: 0, ip: '127.0.0.1' });
  const web = await save({ name: 'lc-web1', type: 8, cod: host, ip: '127.0.0.1', sshport: sshd.port, sshlogin: sshd.user, sshpass: sshd.password });
  const node = await save({ name: 'lc-node', type: 9, agent_url: agent.url, cluster_key: KEY });
  await t.ok(admin, 'cfg.insertConfigsBatch', [
    { type: 'console_app', value: `lcapp|${join(dir, 'app.log')}|8` },
    { type: 'deploy_web', value: 'echo deploying' },
  ]);
  return { web, node };
}

describe(`live channels end when the role no longer allows them (${DB})`, () => {
  let t: TestApp;
  let admin: SessionValues;
  let ops: SessionValues;
  let ids: { web: number; node: number };

  beforeAll(async () => {
    t = await startApp({ CRON_ENABLED: '0' });
    admin = await t.session(1);
    ops = await t.session(1, 'ops-demoted');
    ids = await seed(t, admin.hash);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  test('terminal, mass terminal, server console and log follow end at once with their end events; room channels stop reaching the socket', async () => {
    const channels = t.app.get(LiveChannels);
    const a = await connect(t.url, ops.hash);
    const b = await connect(t.url, admin.hash);
    try {
      // The demoted-to-be admin opens every kind of stream.
      await ack(a, 'node_control.connect', { Id: ids.web, cols: 80, rows: 24 });
      await ack(a, 'node_control.write', { key: ids.web, str: 'echo term-$((40+2))\r' });
      await waitFor('terminal output', () => a.of('node_control.data').map((d) => d.data).join('').includes('term-42'));
      expect(await ack(a, 'node_control.mass_write', { keys: [ids.web], line: 'echo mass-$((40+3))' })).toEqual({ written: [ids.web], refused: [] });
      await waitFor('mass terminal output', () => a.of('node_control.data').map((d) => d.data).join('').includes('mass-43'));
      const con = await ack<{ key: string }>(a, 'server_console.write', { app: 'lcapp' });
      await waitFor('console output', () => a.of('server_console.data').some((d) => d.data.includes('console line 1')), 15_000);
      const fa = await ack<{ fid: string }>(a, 'logs.follow', { Id: ids.node, name: 'logs/live.log' });
      const fb = await ack<{ fid: string }>(b, 'logs.follow', { Id: ids.node, name: 'logs/live.log' });
      appendFileSync(join(agent.logs, 'live.log'), 'before\n');
      await waitFor('both follows live', () => [a, b].every((c) => c.of('logs.lines').some((e) => e.lines.includes('before'))));
      expect(channels.count('terminal')).toBe(1);
      expect(channels.count('server_console')).toBe(1);
      expect(channels.count('logs.follow')).toBe(2);
      await waitFor('remote tail running', () => tails() >= 1);
      // Every part bound to the socket (a 'disconnect' listener per gateway, the session tracker, the channels, the
      // terminal) stays within its listener bound, so Node does not warn of a leak.
      const held = [...t.app.get(RealtimeService).io!.sockets.sockets.values()].find((s) => s.data.actor?.uid === ops.uid)!;
      expect(held.listenerCount('disconnect')).toBeGreaterThan(10);
      expect(held.listenerCount('disconnect')).toBeLessThanOrEqual(held.getMaxListeners());
      const agentConnsBefore = await agentConnections();

      // Another admin takes the role away.
      await t.ok(admin.hash, 'user.save', { uid: ops.uid, role: 100 });

      await waitFor('terminal closed with the reason', () => a.of('node_control.status').some((s) => s.key === ids.web && s.status === 'closed' && s.message === CHANNEL_ROLE_MESSAGE), 5000);
      await waitFor('server console ended', () => a.of('server_console.end').some((e) => e.key === con.key && e.reason === CHANNEL_ROLE_MESSAGE), 5000);
      await waitFor('follow ended', () => a.of('logs.follow_end').some((e) => e.fid === fa.fid && e.error === CHANNEL_ROLE_MESSAGE), 5000);
      expect(channels.count('terminal')).toBe(0);
      expect(channels.count('server_console')).toBe(0);
      expect(channels.count('logs.follow')).toBe(1); // the other admin's
      await waitFor('remote tail stopped', () => tails() === 0, 10_000);
      await waitFor('agent stream of the demoted follow closed', async () => (await agentConnections()) < agentConnsBefore, 10_000);
      expect(a.s.connected).toBe(true); // still signed in, as a role-100 user
      expect(a.of('session.changed').at(-1)).toEqual({ role: 100, name: expect.any(String) });

      // Nothing of those streams reaches the socket any more; the other admin's follow goes on.
      const seen = a.got.length;
      appendFileSync(join(agent.logs, 'live.log'), 'after\n');
      appendFileSync(join(dir, 'app.log'), 'console line 2\n');
      await waitFor('the other admin still follows', () => b.of('logs.lines').some((e) => e.lines.includes('after')));
      // Room channels: firewall worker switch, a deploy's logs, a training's progress.
      await ack(b, 'firewall.setWorkerStatus', { status: 1 });
      await waitFor('worker event to the admin', () => b.of('firewall.worker').length > 0);
      const deployed = (await b.s.timeout(30_000).emitWithAck('deploy', { type: 'web', host: 'lc-host' }).catch((e: Error) => { throw new Error(`deploy: ${e.message}`); })) as Envelope;
      expect(deployed.status).toBe('ok');
      await waitFor('deploy logs to the admin', () => b.of('deploy_logs_lc-web1').some((e) => e.line.includes('deploying')));
      const now = new Date();
      const clf = now.toUTCString().replace(/^\w+, (\d\d) (\w+) (\d{4}) (\S+) GMT$/, '$1/$2/$3:$4 +0000');
      await seedLines(t.app, ['203.0.113.10', '203.0.113.11'].map((ip) => `${ip} - - [${clf}] "GET /book/1/page/1 HTTP/1.1" 200 900 "-" "Mozilla/5.0" "-" "lc.example" 0.010 0.010`), 1, '10.9.0.1');
      await t.ok(admin.hash, 'firewall.setTrainDataLog', { ip: '203.0.113.10', host: 'lc.example', bal: 0 });
      await t.ok(admin.hash, 'firewall.setTrainDataLog', { ip: '203.0.113.11', host: 'lc.example', bal: 1 });
      await ack(b, 'firewall.train', { host: 'lc.example' });
      await waitFor('training progress to the admin', () => b.of('firewall.train').some((e) => e.state === 'start'));
      await sleep(500);
      const late = a.got.slice(seen).map((g) => g.event);
      expect(late.filter((e) => /^(node_control|server_console|logs\.|firewall\.|deploy_logs_)/.test(e))).toEqual([]);
      // And the demoted socket cannot open a new one.
      const refused = (await a.s.timeout(10_000).emitWithAck('node_control.connect', { Id: ids.web }).catch((e: Error) => { throw new Error(`refused connect: ${e.message}`); })) as Envelope;
      expect(refused).toMatchObject({ status: 'error', code: 403 });
      await ack(b, 'logs.unfollow', { fid: fb.fid });
      await waitFor('training over', async () => !(await t.ok<{ running: boolean }>(admin.hash, 'firewall.getTrainStatus', { host: 'lc.example' })).running, 60_000);
    } finally {
      a.s.close();
      b.s.close();
    }
  });
});

describe(`two instances on Redis: a role change on one ends a terminal on the other (${DB})`, () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    const shared = { SECRET_KEY: 'k'.repeat(40), REDIS_URL, CRON_ENABLED: '0' };
    a = await startApp(process.env.TEST_DATABASE_URL ? shared : { ...shared, DATABASE_URL: `sqlite:${join(mkdtempSync(join(tmpdir(), 'lc-')), 'shared.sqlite')}` });
    const db = a.cfg.database;
    b = await startApp({ ...shared, DATABASE_URL: db.type === 'mariadb' ? db.url : `sqlite:${db.database}` });
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  test('the shell held on instance B closes at once (not at the next sweep)', async () => {
    const admin = await a.session(1);
    const ops = await a.session(1, 'ops-remote');
    const ids = await seed(a, admin.hash);
    const s = await connect(b.url, ops.hash);
    try {
      await ack(s, 'node_control.connect', { Id: ids.web });
      expect(b.app.get(LiveChannels).count('terminal')).toBe(1);
      await a.ok(admin.hash, 'user.save', { uid: ops.uid, role: 10 });
      await waitFor('closed on instance B', () => s.of('node_control.status').some((st) => st.status === 'closed' && st.message === CHANNEL_ROLE_MESSAGE), 5000);
      expect(b.app.get(LiveChannels).count('terminal')).toBe(0);
    } finally {
      s.s.close();
    }
  });
});
