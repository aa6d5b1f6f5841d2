/**
 * Node agent (issue 12): the last 200 lines of a 2 GB log, and follow latency from append to the
 * console's socket event. The agent runs as its own process (dist/src/agent/main.js, as `npm run agent`
 * starts it) so its RSS is its own. Results in bench/README.md under "Node agent".
 */
import { spawn } from 'node:child_process';
import { appendFileSync, closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { io } from 'socket.io-client';
import { machine, percentile, ROOT, startBenchApp, writeSection } from './lib.js';

const TMP = join(ROOT, 'bench', '.tmp', 'agent');
const LOGS = join(TMP, 'logs');
const BIG = join(LOGS, 'big.log');
const KEY = 'bench-cluster-key-0123456789';
const SIZE = 2 * 1024 ** 3;
const TAIL_RUNS = 200;
const FOLLOW_RUNS = 100;

const freePort = () => new Promise<number>((resolve) => { const s = createServer(); s.listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => resolve(p)); }); });
const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
const ms = (n: number) => n.toFixed(2);

/** 2 GB: a sparse hole of ~1.99 GB, then 16 MB of real log lines (what the tail reads is real data). */
function makeBigLog() {
  rmSync(TMP, { recursive: true, force: true });
  mkdirSync(LOGS, { recursive: true });
  const tail = 16 * 1024 * 1024;
  const fd = openSync(BIG, 'w');
  const line = (i: number) => `2026-11-22T04:00:00.000Z INFO request ${i} GET /some/page?id=${i} 200 ${'x'.repeat(60)}\n`;
  let pos = SIZE - tail;
  let i = 0;
  let chunk = '';
  while (pos < SIZE) {
    chunk += line(i++);
    if (chunk.length > 1024 * 1024) { pos += writeSync(fd, chunk, pos); chunk = ''; }
  }
  closeSync(fd);
  return statSync(BIG).size;
}

async function main() {
  const size = makeBigLog();
  const port = await freePort();
  const agent = spawn(process.execPath, [join(ROOT, 'dist', 'src', 'agent', 'main.js')], {
    env: { ...process.env, AGENT_PORT: String(port), AGENT_HOST: '127.0.0.1', AGENT_CLUSTER_KEY: KEY, AGENT_LOG_DIRS: LOGS, AGENT_HOSTNAME: 'bench-node' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the agent did not start in 20 s')), 20_000);
    agent.stdout!.once('data', () => { clearTimeout(timer); resolve(); });
    agent.once('exit', (code) => reject(new Error(`the agent exited (${code})`)));
  });
  const url = `http://127.0.0.1:${port}`;
  const headers = { 'x-cluster-key': KEY };
  const rssStart = rssKb(agent.pid!);

  // 1. The last 200 lines, straight from the agent.
  const times: number[] = [];
  let rssMax = rssStart;
  for (let i = 0; i < TAIL_RUNS; i++) {
    const t0 = performance.now();
    const r = await fetch(`${url}/sync/logs/open/big.log?lines=200&_front_=1`, { headers });
    const body = (await r.json()) as { r: { res: string[] } };
    times.push(performance.now() - t0);
    if (body.r.res.length !== 200) throw new Error(`expected 200 lines, got ${body.r.res.length}`);
    if (i % 20 === 0) rssMax = Math.max(rssMax, rssKb(agent.pid!));
  }
  const rssEnd = rssKb(agent.pid!);
  times.sort((a, b) => a - b);

  // 2. Through the console: RPC logs.open, and follow latency (append -> socket event `logs.lines`).
  const app = await startBenchApp();
  const call = async (method: string, args: unknown) => {
    const r = await fetch(`${app.url}/api`, { method: 'POST', headers: { 'content-type': 'application/json', User: app.hash }, body: JSON.stringify({ methods: [method], args: [args], host: 0 }) });
    const [env] = (await r.json()) as Array<{ status: string; result: any; message?: string }>;
    if (env.status !== 'ok') throw new Error(`${method}: ${env.message}`);
    return env.result;
  };
  const { Id: clusterId } = await call('srv.save_server', { name: 'bench-cluster', type: 2, cluster_key: KEY });
  const { Id } = await call('srv.save_server', { name: 'bench-node', type: 9, agent_url: url });
  void clusterId;
  const rpcTimes: number[] = [];
  for (let i = 0; i < 50; i++) {
    const t0 = performance.now();
    const r = await call('logs.open', { Id, name: 'big.log' });
    rpcTimes.push(performance.now() - t0);
    if (r.lines.length !== 200) throw new Error('expected 200 lines');
  }
  rpcTimes.sort((a, b) => a - b);

  const s = io(app.url, { transports: ['websocket'], auth: { hash: app.hash, status: 'moder' }, reconnection: false });
  await new Promise<void>((r, j) => { s.on('connect', () => r()); s.on('connect_error', j); });
  const ack = (await s.timeout(10_000).emitWithAck('logs.follow', { Id, name: 'big.log' })) as { status: string };
  if (ack.status !== 'ok') throw new Error(`follow: ${JSON.stringify(ack)}`);
  const lat: number[] = [];
  for (let i = 0; i < FOLLOW_RUNS; i++) {
    const tag = `follow-probe-${i}`;
    const got = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no logs.lines event for ${tag} in 10 s`)), 10_000);
      const h = (e: { lines: string[] }) => { if (e.lines.some((l) => l.includes(tag))) { clearTimeout(timer); s.off('logs.lines', h); resolve(performance.now()); } };
      s.on('logs.lines', h);
    });
    const t0 = performance.now();
    appendFileSync(BIG, `${new Date().toISOString()} ${tag}\n`);
    lat.push((await got) - t0);
    await new Promise((r) => setTimeout(r, 20));
  }
  lat.sort((a, b) => a - b);
  s.disconnect();
  await app.close();
  agent.kill('SIGTERM');
  rmSync(TMP, { recursive: true, force: true });

  writeSection('agent', `
## Node agent

${machine()}. Run: \`npm run bench -- agent\`. The agent runs as its own process (\`dist/src/agent/main.js\`); the log is ${(size / 1024 ** 3).toFixed(2)} GB (a sparse hole, then 16 MB of real lines), in bench/.tmp.

| measure | median ms | p99 ms | max ms | other |
|---|---|---|---|---|
| agent \`GET /sync/logs/open/big.log?lines=200\`, ${TAIL_RUNS} in a row (goal < 50 ms) | ${ms(percentile(times, 0.5))} | ${ms(percentile(times, 0.99))} | ${ms(times.at(-1)!)} | agent RSS ${Math.round(rssStart / 1024)} MB at start, ${Math.round(rssMax / 1024)} MB max, ${Math.round(rssEnd / 1024)} MB after |
| console RPC \`logs.open\` (200 lines) through the agent client, 50 in a row | ${ms(percentile(rpcTimes, 0.5))} | ${ms(percentile(rpcTimes, 0.99))} | ${ms(rpcTimes.at(-1)!)} | |
| follow: append a line -> \`logs.lines\` socket event at the client, ${FOLLOW_RUNS} appends | ${ms(percentile(lat, 0.5))} | ${ms(percentile(lat, 0.99))} | ${ms(lat.at(-1)!)} | fs.watch wakes the agent; a 250 ms poll is the fallback |

The tail reads the file backwards in 64 KiB chunks until it has 200 line ends (here one chunk of the 2 GB), so the time and memory do not grow with the file; RSS stays flat over the ${TAIL_RUNS} requests.
`);
}

main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
