/**
 * /api/health says whether Redis is reachable when REDIS_URL is set (issue 18): `redis: 'up'` beside
 * `db: 'up'`; with Redis gone still 200 (this instance serves on) with `redis: 'down', degraded: true`;
 * the socket adapter's Redis clients log ONE warning for the outage (not one per retry) and one info
 * line when Redis is back. A redis-server of the test's own on a loopback port, killed and restarted.
 * One pass: the subject is Redis going away and coming back.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { JsonLogger } from '../../src/core/logger.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { sleep, waitFor } from '../helpers/wait.js';
import { onlyIn } from '../helpers/passes.js';

interface LogLine { level: number; msg?: string; context?: string }

let port = 0;
let redis: ChildProcess | null = null;
let t: TestApp | undefined;
const lines: LogLine[] = [];

async function startRedis() {
  const p = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  redis = p;
  await waitFor('own redis-server to listen', () => new Promise<boolean>((r) => {
    const c = createServer();
    // The port taken means redis listens.
    c.once('error', () => r(p.exitCode === null));
    c.listen(port, '127.0.0.1', () => c.close(() => r(false)));
  }), 10_000);
}
async function killRedis() {
  const p = redis;
  redis = null;
  if (!p || p.exitCode !== null || p.signalCode !== null) return;
  const exited = new Promise((r) => p.once('exit', r));
  p.kill('SIGKILL');
  await exited;
}

beforeAll(async () => {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  await startRedis();
  const logger = new JsonLogger('info', { write: (s: string) => { for (const l of s.split('\n')) if (l.trim()) lines.push(JSON.parse(l) as LogLine); } });
  t = await startApp({ REDIS_URL: `redis://127.0.0.1:${port}`, CRON_ENABLED: '0' }, { logger });
}, 60_000);
afterAll(async () => {
  // The server goes even when closing the app fails or hangs.
  try {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([t?.close(), new Promise((r) => { timer = setTimeout(r, 20_000); })]).finally(() => clearTimeout(timer));
  } finally {
    await killRedis();
  }
}, 40_000);

const health = async () => (await t!.rest<any>(null, 'GET', '/health'));
const redisLines = (from: number, level: number, re: RegExp) => lines.slice(from).filter((l) => l.context === 'Redis' && l.level === level && re.test(l.msg ?? ''));

onlyIn('sqlite')('health: redis up, then down (200, degraded) with one warning for the outage, then up again with one info line', async () => {
  expect(await health()).toEqual({ status: 200, body: { status: 'ok', result: expect.objectContaining({ db: 'up', redis: 'up', degraded: false }) } });
  const from = lines.length;

  await killRedis();
  await waitFor('health to see Redis down', async () => (await health()).body.result?.redis === 'down');
  // The client retries several times a second meanwhile: still one warning.
  await sleep(2000);
  expect(await health()).toEqual({ status: 200, body: { status: 'ok', result: expect.objectContaining({ db: 'up', redis: 'down', degraded: true }) } });
  expect(redisLines(from, 40, /^Redis unreachable \(socket\.io adapter\)/)).toHaveLength(1);

  await startRedis();
  await waitFor('health to see Redis up again', async () => (await health()).body.result?.redis === 'up', 20_000);
  expect(await health()).toEqual({ status: 200, body: { status: 'ok', result: expect.objectContaining({ db: 'up', redis: 'up', degraded: false }) } });
  expect(redisLines(from, 30, /^Redis reachable again \(socket\.io adapter\)/)).toHaveLength(1);
  // (Other Redis users, e.g. cron, watch their own clients and log their own line.)
  expect(redisLines(from, 40, /\(socket\.io adapter\)/)).toHaveLength(1);
}, 60_000);
