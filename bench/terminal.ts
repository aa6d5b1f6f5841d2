/**
 * Terminals (issue 11) on loopback against real OpenSSH: keystroke-to-echo latency (one shell, one key
 * at a time: the time from `node_control.write` to the `node_control.data` carrying the echo), then 20
 * terminals (20 sockets, like 20 tabs) streaming output at full speed (`yes | head -c 20M` each) while
 * GET /api/health is probed every 50 ms (p50/p99, beside the same probe with the terminals idle).
 * The app runs on the main thread; the socket clients and the probes run in worker threads, so their
 * own work does not sit on the server's event loop. Run: `npm run bench -- terminal`.
 *
 * The nodes are pinned to CPU 1 and this process to CPU 0 (taskset), as in production, where the
 * fleet's shells do not run on the console's cores: unpinned, the 20 `yes | head` pipelines and their
 * sshd spend most of both cores in the kernel's tty layer and starve the app for seconds at a time,
 * which measures the machine, not the app. The clients and the probe stay on the app's core (worker
 * threads inherit its CPU), which is harder on the app than browsers on other machines.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { io, type Socket } from 'socket.io-client';
import { machine, percentile, startBenchApp, writeSection } from './lib.js';

const KEYSTROKES = 300;
const STREAMS = 20;
const STREAM_BYTES = 10 * 1024 * 1024;
const PROBE_MS = 50;
const BASELINE_PROBES = 100;
const STREAM_LIMIT_MS = 180_000;

interface Job { url: string; hash: string; ids: number[] }
interface Results {
  echo: number[];
  idle: number[];
  busy: number[];
  streamMs: number;
  bytes: number;
  finished: number;
}

const ms = (from: bigint) => Number(process.hrtime.bigint() - from) / 1e6;
const sleep = (n: number) => new Promise((r) => setTimeout(r, n));

async function clients(job: Job, phase: 'echo' | 'stream'): Promise<Partial<Results>> {
  const connect = () => new Promise<Socket>((resolve, reject) => {
    const s = io(job.url, { transports: ['websocket'], auth: { hash: job.hash, status: 'moder' }, reconnection: false });
    s.on('connect', () => resolve(s));
    s.on('connect_error', reject);
  });
  const ask = async (s: Socket, event: string, body: unknown) => {
    const env = (await s.timeout(30_000).emitWithAck(event, body)) as { status: string; message?: string; result?: unknown };
    if (env.status !== 'ok') throw new Error(`${event}: ${env.message}`);
    return env.result;
  };

  if (phase === 'echo') {
    // Keystroke to echo, one shell.
    const s = await connect();
    let waiting: ((d: string) => void) | null = null;
    s.on('node_control.data', (e: { data: string }) => waiting?.(e.data));
    const id = job.ids[0];
    await ask(s, 'node_control.connect', { Id: id, cols: 200, rows: 50 });
    await sleep(500); // the banner and the prompt
    const echo: number[] = [];
    for (let i = 0; i < KEYSTROKES; i++) {
      const ch = String.fromCharCode(97 + (i % 26));
      const t0 = process.hrtime.bigint();
      const got = new Promise<void>((resolve) => { waiting = (d) => { if (d.includes(ch)) { waiting = null; resolve(); } }; });
      s.emit('node_control.write', { key: id, str: ch });
      await got;
      echo.push(ms(t0));
      if (i % 60 === 59) { s.emit('node_control.write', { key: id, str: '\x15' }); await sleep(50); } // kill the line
    }
    await ask(s, 'node_control.unsubscribe', { key: id });
    s.close();
    return { echo };
  }

  // 20 terminals at full speed.
  const socks = await Promise.all(Array.from({ length: STREAMS }, connect));
  let bytes = 0;
  let finished = 0;
  // All 20 shells open first (the SSH handshakes are not what is measured), then the probe starts and the floods begin.
  await Promise.all(socks.map((sock, i) => ask(sock, 'node_control.connect', { Id: job.ids[i % job.ids.length], cols: 200, rows: 50 })));
  await sleep(1000);
  const done = socks.map((sock, i) => new Promise<void>((resolve) => {
    const key = job.ids[i % job.ids.length];
    let tail = '';
    sock.on('node_control.data', (e: { data: string }) => {
      bytes += e.data.length;
      tail = (tail + e.data).slice(-64);
      if (tail.includes('STREAM-END')) { tail = ''; finished++; sock.off('node_control.data'); resolve(); }
    });
  }));
  parentPort!.postMessage({ started: true });
  await sleep(500);
  const t0 = process.hrtime.bigint();
  for (const [i, sock] of socks.entries()) sock.emit('node_control.write', { key: job.ids[i % job.ids.length], str: `yes | head -c ${STREAM_BYTES}; echo; echo STREAM-''END\r` });
  await Promise.race([Promise.all(done), sleep(STREAM_LIMIT_MS)]);
  const streamMs = ms(t0);
  for (const sock of socks) sock.close();
  return { streamMs, bytes, finished };
}

/** GET /api/health every PROBE_MS: `n` times, or until the main thread says stop. */
async function probe(job: Job, n: number | null): Promise<number[]> {
  let stop = false;
  parentPort!.on('message', () => { stop = true; });
  const out: number[] = [];
  for (let i = 0; n === null ? !stop : i < n; i++) {
    const t0 = process.hrtime.bigint();
    const r = await fetch(`${job.url}/api/health`);
    await r.arrayBuffer();
    out.push(ms(t0));
    await sleep(PROBE_MS);
  }
  return out;
}

/** The nodes (each sshd with the sessions it starts later) on CPU 1, this process (all its threads) on CPU 0. */
function pin(sshdPids: Array<number | undefined>): boolean {
  if (availableParallelism() < 2) return false;
  try {
    for (const pid of sshdPids) if (pid) execFileSync('taskset', ['-a', '-p', '-c', '1', String(pid)], { stdio: 'ignore' });
    execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

if (!isMainThread) {
  const w = workerData as Job & { role: 'echo' | 'stream' | 'probe'; n: number | null };
  parentPort!.postMessage({ result: w.role === 'probe' ? { probes: await probe(w, w.n) } : await clients(w, w.role) });
} else {
  const { startSshd } = await import('../test/helpers/sshd.js');
  const sshds = await Promise.all([startSshd(), startSshd()]);
  const pinned = pin(sshds.map((d) => d.pid()));
  const s = await startBenchApp({ TERMINAL_MAX_PER_USER: '30', TERMINAL_MAX_TOTAL: '40' });
  const ids: number[] = [];
  for (const [i, d] of sshds.entries()) {
    const r = await fetch(`${s.url}/api`, {
      method: 'POST', headers: { 'content-type': 'application/json', User: s.hash },
      body: JSON.stringify({ methods: ['srv.save_server'], args: [{ name: `bench-node-${i + 1}`, type: 9, ip: '127.0.0.1', sshport: d.port, sshlogin: d.user, sshpass: d.password }], host: 0 }),
    });
    ids.push(((await r.json()) as Array<{ result: { Id: number } }>)[0].result.Id);
  }
  const job: Job = { url: s.url, hash: s.hash, ids };
  /** Starts a worker; resolves with its result. `onStarted` runs when a streaming worker has its terminals going. */
  const spawn = <T>(role: string, n: number | null, onStarted?: () => void): { worker: Worker; result: Promise<T> } => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { ...job, role, n } });
    const result = new Promise<T>((resolve, reject) => {
      worker.on('message', (m: { result?: T; started?: boolean }) => { if (m.result) resolve(m.result); else if (m.started) onStarted?.(); });
      worker.once('error', reject);
    });
    return { worker, result };
  };
  const { echo: echoRaw } = await spawn<{ echo: number[] }>('echo', null).result;
  const { probes: idleRaw } = await spawn<{ probes: number[] }>('probe', BASELINE_PROBES).result;
  // The probe runs in a worker of its own while another worker holds the 20 streaming terminals.
  let prober: { worker: Worker; result: Promise<{ probes: number[] }> } | null = null;
  // The server's own event-loop delay while the terminals stream (the app runs on this thread).
  const lag = monitorEventLoopDelay({ resolution: 10 });
  let elu0 = performance.eventLoopUtilization();
  const stream = await spawn<{ streamMs: number; bytes: number; finished: number }>('stream', null, () => { prober = spawn('probe', null); lag.enable(); elu0 = performance.eventLoopUtilization(); }).result;
  lag.disable();
  const elu = performance.eventLoopUtilization(elu0).utilization;
  const p = prober as { worker: Worker; result: Promise<{ probes: number[] }> } | null;
  p?.worker.postMessage('stop');
  const r: Results = { echo: echoRaw, idle: idleRaw, busy: p ? (await p.result).probes : [], ...stream };
  await s.close();
  await Promise.all(sshds.map((d) => d.stop()));

  const f = (v: number) => v.toFixed(1);
  const sorted = (a: number[]) => [...a].sort((x, y) => x - y);
  const [echo, idle, busy] = [sorted(r.echo), sorted(r.idle), sorted(r.busy)];
  const mb = r.bytes / 1024 / 1024;
  writeSection('terminal', `
## Terminals

${machine()}. Real OpenSSH on loopback (two sshd as nodes), socket.io over WebSocket, recording on (asciicast to DATA_DIR, capped at 50 MB a session). ${pinned ? 'The nodes (sshd and the shells) pinned to CPU 1; the app, and the clients and probes in worker threads beside it, on CPU 0.' : 'NOT pinned (one core, or taskset failed): nodes, app and clients share the cores.'}

| measure | p50 | p99 | n |
|---|---|---|---|
| keystroke to echo (write -> node_control.data) | ${f(percentile(echo, 0.5))} ms | ${f(percentile(echo, 0.99))} ms | ${echo.length} |
| GET /api/health, terminals idle | ${f(percentile(idle, 0.5))} ms | ${f(percentile(idle, 0.99))} ms | ${idle.length} |
| GET /api/health, ${STREAMS} terminals streaming | ${f(percentile(busy, 0.5))} ms | ${f(percentile(busy, 0.99))} ms | ${busy.length} |
| the app's event-loop delay while streaming | ${f(lag.percentile(50) / 1e6)} ms | ${f(lag.percentile(99) / 1e6)} ms (max ${f(lag.max / 1e6)} ms) | ${lag.count} |

The app's event loop was busy ${f(elu * 100)}% of the time while the terminals streamed (event-loop utilisation).

${STREAMS} terminals each ran \`yes | head -c ${STREAM_BYTES / 1024 / 1024}M\`: ${r.finished}/${STREAMS} finished, ${f(mb)} MB delivered to the clients in ${f(r.streamMs / 1000)} s (${f(mb / (r.streamMs / 1000))} MB/s in all).
`);
  process.exit(0);
}
