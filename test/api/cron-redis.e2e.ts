/**
 * Cron with REDIS_URL and two instances on one database: each tick runs on one instance only (a lock
 * in Redis), a running task is not started by the other, kill / the service switch / saves reach both.
 * Each test database gets its own random lock namespace, so runs never meet on the shared Redis.
 * One pass: the subject is the Redis lock between two instances; cron on both databases is cron.e2e.ts.
 */
import { jest } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Paged } from '../../src/contracts/auth.js';
import type { CronRunView, CronStatus } from '../../src/contracts/cron.js';
import type { Envelope } from '../../src/contracts/envelope.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { sleep, waitFor } from '../helpers/wait.js';

jest.setTimeout(60_000);

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

let a: TestApp;
let b: TestApp;
let ha: string;
let hb: string;
const hits: Array<{ at: number; path: string }> = [];
const pending = new Set<ServerResponse>();
const peer = createServer((req, res) => {
  hits.push({ at: Date.now(), path: req.url ?? '' });
  if ((req.url ?? '').startsWith('/never')) { pending.add(res); return; }
  res.end('ok');
});
let peerUrl = '';

beforeAll(async () => {
  await new Promise<void>((r) => peer.listen(0, '127.0.0.1', r));
  peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
  const shared = { SECRET_KEY: 'k'.repeat(40), REDIS_URL };
  a = await startApp(process.env.TEST_DATABASE_URL ? shared : { ...shared, DATABASE_URL: `sqlite:${join(mkdtempSync(join(tmpdir(), 'cron-')), 'shared.sqlite')}` });
  const db = a.cfg.database;
  b = await startApp({ ...shared, DATABASE_URL: db.type === 'mariadb' ? db.url : `sqlite:${db.database}` });
  ha = (await a.session(1)).hash;
  hb = (await b.session(1)).hash;
});
afterAll(async () => {
  await b?.close();
  await a?.close();
  for (const r of pending) r.destroy();
  peer.closeAllConnections();
  await new Promise((r) => peer.close(r));
});

const ok = <T>(env: Envelope<T>): T => {
  if (env.status !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(env)}`);
  return env.result;
};
const rpc = async <T>(app: TestApp, method: string, args?: unknown) => ok((await app.rpc<T>(app === a ? ha : hb, method, args)).env);
const count = (p: string) => hits.filter((h) => h.path.startsWith(p)).length;

test('each tick of a task runs on one instance only', async () => {
  const { Id } = await rpc<{ Id: number }>(a, 'saveAppCron', { name: 'once', second: '*', cmd: `curl=${peerUrl}/once` });
  // B learned of the task through Redis and schedules it too.
  await waitFor('B to schedule it', async () => (await rpc<CronStatus>(b, 'cron.getStatus')).tasks.find((s) => s.Id === Id)?.next_run);
  await sleep(5_000);
  await rpc(b, 'saveAppCron', { Id, suspended: 1 });
  await sleep(1_500); // both instances' history batches are written
  const all = (await rpc<Paged<CronRunView>>(a, 'cron.getRuns', { Id, limit: 100 })).list;
  // The instance that lost a tick's claim does nothing (no skip either: the task was not running).
  expect(all.filter((r) => r.status === 'skipped')).toEqual([]);
  const runs = all.filter((r) => r.status === 'ok');
  const times = hits.filter((h) => h.path === '/once').map((h) => h.at).sort((x, y) => x - y);
  expect(times.length).toBeGreaterThanOrEqual(4);
  // One request per scheduled second: never two close together, one run row per request.
  for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThan(500);
  expect(runs).toHaveLength(times.length);
  const seconds = runs.map((r) => r.scheduled);
  expect(new Set(seconds).size).toBe(seconds.length);
  expect(new Set(runs.map((r) => r.instance)).size).toBeGreaterThanOrEqual(1);
  await rpc(a, 'cfg.appCronDelete', { Id });
});

test('a task running on A is not started by B; B kills it; the history says killed', async () => {
  const { Id } = await rpc<{ Id: number }>(a, 'saveAppCron', { name: 'hang', cmd: `curl=${peerUrl}/never`, suspended: 1 });
  await waitFor('B to know the task', async () => (await rpc<CronStatus>(b, 'cron.getStatus')).tasks.some((s) => s.Id === Id));
  await rpc(a, 'cron.executeTask', { Id });
  await waitFor('the request', () => count('/never') === 1);
  const onB = (await rpc<CronStatus>(b, 'cron.getStatus')).tasks.find((s) => s.Id === Id)!;
  expect(onB.running).toBe(true);
  expect((await b.rpc(hb, 'cron.executeTask', { Id })).env).toMatchObject({ status: 'rules', code: 409, message: expect.stringMatching(/already running on another instance/) });
  const killed = await rpc<{ killed: boolean; message: string }>(b, 'cron.kill', { Id });
  expect(killed).toMatchObject({ killed: true, message: expect.stringMatching(/^Kill sent to instance /) });
  const [r] = await waitFor('the killed run', async () => {
    const l = (await rpc<Paged<CronRunView>>(a, 'cron.getRuns', { Id })).list;
    return l.length > 0 && l;
  }, 5_000);
  expect(r).toMatchObject({ status: 'killed', source: 'manual' });
  expect(count('/never')).toBe(1);
  await rpc(a, 'cfg.appCronDelete', { Id });
});

test('the service switch set on B stops the schedules of A too', async () => {
  const { Id } = await rpc<{ Id: number }>(a, 'saveAppCron', { name: 'svc', second: '*', cmd: `curl=${peerUrl}/svc` });
  await waitFor('ticks', () => count('/svc') >= 2, 5_000);
  expect(await rpc(b, 'cron.setServiceStatus', { service: 0 })).toEqual({ service: 0, scheduling: true });
  await waitFor('A to see the switch', async () => (await rpc<{ service: number }>(a, 'cron.getServiceStatus')).service === 0, 3_000);
  await sleep(300);
  const n = count('/svc');
  await sleep(2_500);
  expect(count('/svc')).toBe(n);
  await rpc(a, 'cron.setServiceStatus', { service: 1 });
  await waitFor('ticks again', () => count('/svc') >= n + 2, 5_000);
  await rpc(b, 'cfg.appCronDelete', { Id });
});
