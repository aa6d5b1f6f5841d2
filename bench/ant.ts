/**
 * The ant hub (issue 24, docs/ant.md "Benchmark"): 200 simulated ants on one console while tasks are
 * queued at 10,000 a minute. Goals: p99 hand-out latency < 50 ms, event-loop p99 < 50 ms, the /ant page
 * live with 200 rows.
 *
 * The real app (startBenchApp, SQLite; then a scratch MariaDB database when 127.0.0.1:3306 answers) runs
 * in this process, with monitorEventLoopDelay on it. The ants run in a forked child process (this file
 * again, ANT_BENCH_CHILD=1) so their CPU is not the console's: each is a socket.io client on the hub's
 * namespace speaking the reference ant's protocol (src/ant/ant.ts): auth {token, name, host},
 * ant.status reports, hub.start / hub.stop / hub.reload / hub.get_log / hub.wake obeyed, ant.next to ask
 * for a task, ant.done at once on receipt (empty output), the 5 s idle poll. The child also queues the
 * tasks: ant.addTask over POST /api (there is no bulk path; up to 50 calls per POST, the RPC batch), paced
 * at the rate. The token comes from ant.createToken, the worker switch from ant.worker_start, each ant is
 * started with ant.ant_start (the operator's RPC methods).
 *
 * Measured: hand-out latency (ant.next sent → its answer carrying a task, in the ant process), tasks
 * handed out per minute, the console's event-loop delay during the window, and /ant in Debian's Chromium
 * (playwright-core): time from the ants' first connect until their 200 rows are in the DOM, and the
 * count_send column moving while tasks flow. A second window on the same app and ants takes a backlog
 * queued up front (no ant.addTask during it, so no wake-ups): the hand-out path's own capacity.
 * Run: `npm run bench -- ant`. Knobs: ANT_BENCH_ANTS (200), ANT_BENCH_RATE (tasks a minute, 10000),
 * ANT_BENCH_SECONDS (each measured window, 60), ANT_BENCH_WARMUP (s, 5), ANT_BENCH_BACKLOG (tasks, a
 * minute's worth), ANT_BENCH_ONLY=sqlite|mariadb, BENCH_UI_DIR.
 */
import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { io, type Socket } from 'socket.io-client';
import { ANT_IMPLEMENTED_STEPS, ANT_NAMESPACE, type AntLeasedTask } from '../src/contracts/ant.js';

const ANTS = Number(process.env.ANT_BENCH_ANTS ?? 200);
const RATE = Number(process.env.ANT_BENCH_RATE ?? 10_000);
const SECONDS = Number(process.env.ANT_BENCH_SECONDS ?? 60);
const WARMUP = Number(process.env.ANT_BENCH_WARMUP ?? 5);
/** Tasks queued up front for the second window (default: a minute's worth). */
const BACKLOG = Number(process.env.ANT_BENCH_BACKLOG ?? RATE);
/** As src/ant/ant.ts: without a wake-up, an idle ant asks again after this long. */
const IDLE_POLL_MS = 5_000;
const STEP = 4;

// ------------------------------------------------------------------------------------------------
// The ants' process

type ToChild =
  | { type: 'connect'; url: string; token: string; ants: number }
  | { type: 'feed'; url: string; hash: string; rate: number; run: string }
  | { type: 'window' }
  | { type: 'report' }
  | { type: 'stop' };
interface Stats {
  handed: number[]; done: number[]; empty: number; nextErrors: number; doneRefused: number; queued: number; feedErrors: number; feedLagMax: number; windowMs: number;
}
type FromChild =
  | { type: 'connected'; ms: number; ids: string[]; failed: number }
  | { type: 'report'; stats: Stats }
  | { type: 'error'; message: string };

function antsProcess() {
  const send = (m: FromChild) => process.send!(m);
  const sockets: Socket[] = [];
  let stats: Stats = { handed: [], done: [], empty: 0, nextErrors: 0, doneRefused: 0, queued: 0, feedErrors: 0, feedLagMax: 0, windowMs: 0 };
  let windowAt = performance.now();
  let closed = false;
  let feeding = false;

  /** One ant, as src/ant/ant.ts does it, with the work itself left out (answered at once). */
  const ant = (url: string, token: string, name: string) => {
    const socket = io(`${url}${ANT_NAMESPACE}`, { auth: { token, name, host: 'bench' }, transports: ['websocket'], forceNew: true, reconnectionDelay: 500, reconnectionDelayMax: 5_000 });
    sockets.push(socket);
    let running = false;
    let current: AntLeasedTask | null = null;
    let loop: Promise<void> | null = null;
    let wake: (() => void) | null = null;
    const steps = [...ANT_IMPLEMENTED_STEPS];
    const report = () => {
      if (socket.connected) socket.emit('ant.status', { isStop: !running, status: !running ? 'stop' : current ? 'work' : 'wait', steps });
    };
    const ask = <T>(event: string, args: unknown) => socket.timeout(10_000).emitWithAck(event, args) as Promise<T>;
    const idle = () => new Promise<void>((r) => {
      const t = setTimeout(r, IDLE_POLL_MS);
      wake = () => { clearTimeout(t); r(); };
    }).then(() => { wake = null; });
    const run = async () => {
      while (running && !closed) {
        if (!socket.connected) { await idle(); continue; }
        let task: AntLeasedTask | null = null;
        const t0 = performance.now();
        try {
          task = (await ask<{ task: AntLeasedTask | null }>('ant.next', { steps })).task;
        } catch {
          stats.nextErrors++;
        }
        const handedMs = performance.now() - t0;
        if (!running || closed) {
          if (task) await ask('ant.fail', { Id: task.Id, lease: task.lease, error: 'stopped before start' }).catch(() => undefined);
          break;
        }
        if (!task) { stats.empty++; await idle(); continue; }
        stats.handed.push(handedMs);
        current = task;
        report();
        const d0 = performance.now();
        const r = await ask<{ ok: boolean }>('ant.done', { Id: task.Id, lease: task.lease, out: {}, ms: 0 }).catch(() => ({ ok: false }));
        stats.done.push(performance.now() - d0);
        if (!r.ok) stats.doneRefused++;
        current = null;
        report();
      }
    };
    socket.on('hub.start', (_a: unknown, ack?: (r: unknown) => void) => {
      const was = running;
      running = true;
      report();
      loop ??= run().finally(() => { loop = null; });
      ack?.({ ok: true, message: was ? 'Already running' : 'Started' });
    });
    socket.on('hub.stop', (_a: unknown, ack?: (r: unknown) => void) => {
      running = false;
      wake?.();
      report();
      ack?.({ ok: true, message: 'Stopped' });
    });
    socket.on('hub.reload', (_a: unknown, ack?: (r: unknown) => void) => { wake?.(); report(); ack?.({ ok: true, message: 'Reloaded' }); });
    socket.on('hub.get_log', (_a: unknown, ack?: (r: unknown) => void) => ack?.({ ok: true, lines: [`${name}: simulated ant`] }));
    socket.on('hub.wake', () => wake?.());
    return new Promise<string | null>((resolve) => {
      socket.once('connect', () => { report(); resolve(socket.id ?? null); });
      socket.once('connect_error', (e) => { if (!socket.active) resolve(null); else send({ type: 'error', message: `${name}: ${e.message}` }); });
    });
  };

  /** ant.addTask over POST /api, up to 50 per request (the RPC batch), paced at `rate` a minute. */
  const feed = async (url: string, hash: string, rate: number, run: string) => {
    feeding = true;
    const t0 = performance.now();
    let sent = 0;
    while (feeding && !closed) {
      const due = Math.floor((rate * (performance.now() - t0)) / 60_000) - sent;
      if (due <= 0) { await new Promise((r) => setTimeout(r, 20)); continue; }
      stats.feedLagMax = Math.max(stats.feedLagMax, due);
      const n = Math.min(50, due);
      const args = Array.from({ length: n }, (_, i) => ({ step: STEP, item: `https://bench.invalid/${run}/item/${sent + i}` }));
      try {
        const res = await fetch(`${url}/api`, { method: 'POST', headers: { 'content-type': 'application/json', User: hash }, body: JSON.stringify({ methods: args.map(() => 'ant.addTask'), args, host: 0 }) });
        const body = (await res.json()) as Array<{ status: string }>;
        const ok = body.filter((e) => e.status === 'ok').length;
        stats.queued += ok;
        stats.feedErrors += n - ok;
      } catch {
        stats.feedErrors += n;
      }
      sent += n;
    }
  };

  process.on('message', (m: ToChild) => {
    void (async () => {
      if (m.type === 'connect') {
        const t0 = performance.now();
        const ids = await Promise.all(Array.from({ length: m.ants }, (_, i) => ant(m.url, m.token, `bench-ant-${String(i + 1).padStart(3, '0')}`)));
        send({ type: 'connected', ms: performance.now() - t0, ids: ids.filter((x): x is string => !!x), failed: ids.filter((x) => !x).length });
      } else if (m.type === 'feed') {
        void feed(m.url, m.hash, m.rate, m.run);
      } else if (m.type === 'window') {
        stats = { handed: [], done: [], empty: 0, nextErrors: 0, doneRefused: 0, queued: 0, feedErrors: 0, feedLagMax: 0, windowMs: 0 };
        windowAt = performance.now();
      } else if (m.type === 'report') {
        feeding = false;
        stats.windowMs = performance.now() - windowAt;
        send({ type: 'report', stats });
      } else if (m.type === 'stop') {
        closed = true;
        feeding = false;
        for (const s of sockets) s.disconnect();
        setTimeout(() => process.exit(0), 200);
      }
    })().catch((e: Error) => send({ type: 'error', message: e.message }));
  });
}

/**
 * The backlog window measures capacity: every ant asks again the moment it is answered, so the hand-out
 * latency is about the ants' number over the rate (Little's law), not a figure the goals (set for 10,000
 * tasks a minute) apply to.
 */
const CAPACITY = 'none: capacity (every ant always asking: latency ≈ ants ÷ rate; the goals are for the window above)';

/** What the earlier runs showed, and what changed; kept with the figures. */
const WHERE_TIME_GOES = [
  '### Where the time goes',
  '',
  'The first version of the hub (2026-11-27 05:10 UTC, load 8-17: SQLite 1,644 tasks a minute fed, 7,652 from a backlog; MariaDB 80 and 8) woke every ant for every task queued, '
    + 'read three settings per hand-out through the ORM, let every ant race for the same 8 oldest candidates, and sorted the whole backlog on every request for several steps; '
    + 'a `node --cpu-prof` run (50 ants, SQLite) gave TypeORM about a third of the console\'s CPU and WebSocket frame writes 10 %. '
    + 'The second (05:57 UTC): a queued task woke as many idle ants as there were new tasks, the settings one plain query, 32 candidates read per hand-out and tried in random order: '
    + 'SQLite fed 10,004 a minute (p99 85 ms), MariaDB 884 a minute (p99 800 ms), where the candidate query spent 30-300 ms in "Sending data" (information_schema.PROCESSLIST) on a table of a few hundred live rows: '
    + 'the queue index\'s entries of just-leased rows stay delete-marked until InnoDB purges them, and every scan walked them. '
    + 'Now (docs/ant.md "Queue"): each instance reads 256 due tasks ahead and hands them out from memory (a hand-out is one UPDATE by primary key), tasks queued on the instance are appended to a read-ahead that holds the whole queue, '
    + 'and a read that found nothing holds until another instance\'s wake-up; queuing (ant.addTask) is one INSERT and its audit entry one more (a look-up, a transaction and read-backs of defaults before).',
].join('\n');

// ------------------------------------------------------------------------------------------------
// The console's process

async function consoleProcess() {
  const { createHash, randomBytes } = await import('node:crypto');
  const { loadavg } = await import('node:os');
  const { join } = await import('node:path');
  const { monitorEventLoopDelay } = await import('node:perf_hooks');
  const { getDataSourceToken } = await import('@nestjs/typeorm');
  const { chromium } = await import('playwright-core');
  const { encodeAuthKey } = await import('../src/contracts/auth-key.js');
  const { ROOT, machine, onScratchMariaDb, percentile, rpcCaller, startBenchApp, writeSection } = await import('./lib.js');
  type DataSource = import('typeorm').DataSource;

  const uiDir = process.env.BENCH_UI_DIR ?? join(ROOT, 'dist', 'ui');
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });

  /** A delay sample of monitorEventLoopDelay includes its 10 ms resolution: the delay is the rest (as bench/cron.ts). */
  const elMs = (ns: number) => Math.max(0, ns / 1e6 - 10);

  async function measure(db: string, env: Record<string, string>) {
    const s = await startBenchApp({ ...env, UI_DIR: uiDir });
    const child = fork(import.meta.filename, [], { execArgv: [], env: { ...process.env, ANT_BENCH_CHILD: '1' }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const waitFor = <T extends FromChild['type']>(type: T) => new Promise<Extract<FromChild, { type: T }>>((resolve, reject) => {
      const on = (m: FromChild) => {
        if (m.type === 'error') console.error(`[ants] ${m.message}`);
        if (m.type === type) { child.off('message', on); resolve(m as Extract<FromChild, { type: T }>); }
      };
      child.on('message', on);
      child.once('exit', (code) => reject(new Error(`the ants' process exited (${code})`)));
    });
    const toChild = (m: ToChild) => child.send(m);
    const page = await (await browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
    try {
      const call = rpcCaller(s.url, s.hash);
      const { token } = (await call('ant.createToken', { name: 'bench ants' })).result as { token: string };

      // /ant open and signed in (the sign-in's stored values, as bench/ui.ts) before any ant connects.
      const signIn = await fetch(`${s.url}/api/user/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: encodeAuthKey('admin', 'bench-password-1') }) });
      const session = ((await signIn.json()) as { result: Record<string, string | number> }).result;
      await page.goto(`${s.url}/auth`);
      await page.evaluate((v) => {
        const ls = (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage;
        for (const [k, x] of Object.entries(v)) ls.setItem(k, String(x));
      }, session);
      await page.goto(`${s.url}/ant`);
      await page.locator('[data-testid="ant-connections"]').waitFor({ timeout: 30_000 });
      // The bench ants' rows in the connections table, and the sum of their count_send column (8th).
      // Functions, not strings: the page's CSP forbids eval.
      type Doc = { querySelectorAll(q: string): ArrayLike<{ children: ArrayLike<{ textContent: string | null }> }> };
      const rowCount = () => page.evaluate(() => (globalThis as unknown as { document: Doc }).document
        .querySelectorAll('table.app-ant-connections tbody tr[data-ant^="bench-ant-"]').length);
      const countSend = () => page.evaluate(() => Array.from((globalThis as unknown as { document: Doc }).document
        .querySelectorAll('table.app-ant-connections tbody tr[data-ant^="bench-ant-"]'))
        .reduce((a, tr) => a + Number((tr.children[7]?.textContent ?? '').replace(/\D/g, '') || 0), 0));

      const c0 = Date.now();
      toChild({ type: 'connect', url: s.url, token, ants: ANTS });
      const rowsSeen = page.waitForFunction((n) => (globalThis as unknown as { document: Doc }).document
        .querySelectorAll('table.app-ant-connections tbody tr[data-ant^="bench-ant-"]').length >= n, ANTS, { timeout: 120_000, polling: 50 }).then(() => Date.now() - c0);
      const connected = await waitFor('connected');
      if (connected.failed) throw new Error(`${connected.failed} ant(s) refused at connect`);
      const rowsMs = await rowsSeen;
      console.log(`[${db}] ${ANTS} ants connected in ${connected.ms.toFixed(0)} ms; ${ANTS} rows on /ant after ${rowsMs} ms`);

      await call('ant.worker_start', {});
      const run = randomBytes(4).toString('hex');
      toChild({ type: 'feed', url: s.url, hash: s.hash, rate: RATE, run });
      // Every ant started by the operator's message (50 per POST /api).
      for (let i = 0; i < connected.ids.length; i += 50) {
        const ids = connected.ids.slice(i, i + 50);
        const body = JSON.stringify({ methods: ids.map(() => 'ant.ant_start'), args: ids.map((id) => ({ id })), host: 0 });
        const res = (await (await fetch(`${s.url}/api`, { method: 'POST', headers: { 'content-type': 'application/json', User: s.hash }, body })).json()) as Array<{ status: string; result?: { ok: boolean } }>;
        const bad = res.filter((e) => e.status !== 'ok' || !e.result?.ok).length;
        if (bad) throw new Error(`${bad} ant_start answer(s) not ok`);
      }
      await new Promise((r) => setTimeout(r, WARMUP * 1000));

      const load0 = loadavg();
      const h = monitorEventLoopDelay({ resolution: 10 });
      toChild({ type: 'window' });
      h.enable();
      const sends: number[] = [await countSend()];
      const rowsDuring: number[] = [];
      const until = Date.now() + SECONDS * 1000;
      while (Date.now() < until) {
        await new Promise((r) => setTimeout(r, Math.min(2000, until - Date.now())));
        sends.push(await countSend());
        rowsDuring.push(await rowCount());
      }
      toChild({ type: 'report' });
      const { stats } = await waitFor('report');
      h.disable();
      const load1 = loadavg();
      const ds = s.app.get<DataSource>(getDataSourceToken());
      const states = (await ds.query('SELECT state, COUNT(*) AS n FROM ant_tasks GROUP BY state')) as Array<{ state: number | string; n: number | string }>;
      const byState = Object.fromEntries(states.map((r) => [Number(r.state), Number(r.n)]));
      const handed = [...stats.handed].sort((a, b) => a - b);
      const done = [...stats.done].sort((a, b) => a - b);
      const minutes = stats.windowMs / 60_000;
      const changes = sends.slice(1).filter((v, i) => v !== sends[i]).length;
      const r = {
        db, rowsMs, connectMs: connected.ms,
        queuedPerMin: stats.queued / minutes, handedPerMin: handed.length / minutes,
        p50: percentile(handed, 0.5), p99: percentile(handed, 0.99), max: handed.at(-1) ?? NaN,
        doneP99: percentile(done, 0.99), empty: stats.empty, nextErrors: stats.nextErrors, doneRefused: stats.doneRefused,
        feedErrors: stats.feedErrors, feedLagMax: stats.feedLagMax,
        elP50: elMs(h.percentile(50)), elP99: elMs(h.percentile(99)), elMax: elMs(h.max),
        sendFirst: sends[0], sendLast: sends.at(-1)!, samples: sends.length, changes, rowsMin: Math.min(...rowsDuring),
        backlog: byState[0] ?? 0, leased: byState[1] ?? 0, doneTotal: byState[2] ?? 0, failed: byState[3] ?? 0,
        load0, load1,
      };
      console.log(`[${db}]`, JSON.stringify(r));

      // Second window: a backlog queued up front (worker off meanwhile), then the worker switched on:
      // every ant.next finds a task and no ant.addTask wakes the ants, so this is the hub's own
      // hand-out capacity, apart from the feed's cost.
      await call('ant.worker_stop', {});
      await new Promise((res) => setTimeout(res, 1000));
      const now = Date.now();
      for (let i = 0; i < BACKLOG; i += 500) {
        const rows = Array.from({ length: Math.min(500, BACKLOG - i) }, (_, k) => {
          const item = `https://bench.invalid/${run}/backlog/${i + k}`;
          return [STEP, item, createHash('sha256').update(item).digest('hex'), now, 0, 0];
        });
        await ds.query(`INSERT INTO ant_tasks (step, item, item_key, time, state, due) VALUES ${rows.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`, rows.flat());
      }
      const bLoad0 = loadavg();
      const h2 = monitorEventLoopDelay({ resolution: 10 });
      toChild({ type: 'window' });
      h2.enable();
      await call('ant.worker_start', {});
      const bUntil = Date.now() + SECONDS * 1000;
      while (Date.now() < bUntil) {
        await new Promise((res) => setTimeout(res, 500));
        const [q] = (await ds.query('SELECT COUNT(*) AS n FROM ant_tasks WHERE state = 0')) as Array<{ n: number | string }>;
        if (Number(q.n) === 0) break;
      }
      toChild({ type: 'report' });
      const b = (await waitFor('report')).stats;
      h2.disable();
      const bHanded = [...b.handed].sort((x, y) => x - y);
      const backlogRun = {
        tasks: BACKLOG, seconds: b.windowMs / 1000, handedPerMin: bHanded.length / (b.windowMs / 60_000),
        p50: percentile(bHanded, 0.5), p99: percentile(bHanded, 0.99), max: bHanded.at(-1) ?? NaN, doneP99: percentile([...b.done].sort((x, y) => x - y), 0.99),
        empty: b.empty, elP50: elMs(h2.percentile(50)), elP99: elMs(h2.percentile(99)), elMax: elMs(h2.max), load0: bLoad0, load1: loadavg(),
      };
      console.log(`[${db}] backlog`, JSON.stringify(backlogRun));
      return { ...r, backlogRun };
    } finally {
      toChild({ type: 'stop' });
      await new Promise((r) => { if (child.exitCode !== null) r(null); else child.once('exit', r); setTimeout(r, 3000).unref(); });
      await page.context().close();
      await s.close();
    }
  }

  type Result = Awaited<ReturnType<typeof measure>>;
  const ms = (x: number) => (x < 10 ? x.toFixed(1) : x.toFixed(0));
  const met = (ok: boolean) => (ok ? 'met' : '**not met**');
  const loads = (l: number[]) => l.map((x) => x.toFixed(1)).join(' ');
  const block = (r: Result) => [
    `Load average ${loads(r.load0)} at the window's start, ${loads(r.load1)} at its end${r.load0[0] > 1.5 ? ' (**noisy**: other work shared the cores)' : ''}.`,
    '',
    '| measure | value | goal |',
    '|---|---|---|',
    `| tasks queued (ant.addTask) | ${Math.round(r.queuedPerMin).toLocaleString('en-US')} a minute${r.feedErrors ? `, ${r.feedErrors} refused` : ''} (largest lag of the feed: ${r.feedLagMax} tasks) | ${RATE.toLocaleString('en-US')} a minute |`,
    `| tasks handed out | **${Math.round(r.handedPerMin).toLocaleString('en-US')} a minute** | ${met(r.handedPerMin >= RATE * 0.95)} (≥ 95 % of the rate) |`,
    `| hand-out latency (ant.next → task), p50 / p99 / max | ${ms(r.p50)} / **${ms(r.p99)}** / ${ms(r.max)} ms | p99 < 50 ms: ${met(r.p99 < 50)} |`,
    `| ant.done answered, p99 | ${ms(r.doneP99)} ms | |`,
    `| ant.next answered without a task (idle ants asking after a wake-up or the 5 s poll) | ${r.empty.toLocaleString('en-US')}${r.nextErrors ? `; ${r.nextErrors} time-outs` : ''} | |`,
    `| console event-loop delay, p50 / p99 / max | ${ms(r.elP50)} / **${ms(r.elP99)}** / ${ms(r.elMax)} ms | p99 < 50 ms: ${met(r.elP99 < 50)} |`,
    `| /ant: ${ANTS} rows in the DOM after the ants' first connect | ${(r.rowsMs / 1000).toFixed(1)} s (the ants themselves: ${(r.connectMs / 1000).toFixed(1)} s); never fewer than ${r.rowsMin} rows during the window | ${met(r.rowsMin >= ANTS)} |`,
    `| /ant: sum of count_send over the rows | ${r.sendFirst.toLocaleString('en-US')} → ${r.sendLast.toLocaleString('en-US')}, changed in ${r.changes} of ${r.samples - 1} samples (every 2 s) | live: ${met(r.changes >= (r.samples - 1) * 0.8)} |`,
    `| after the window (tasks in the database) | ${r.doneTotal.toLocaleString('en-US')} done, ${r.leased} leased, ${r.backlog.toLocaleString('en-US')} queued, ${r.failed} failed; ${r.doneRefused} ant.done refused | none done twice, none refused |`,
    '',
    `Then a backlog: ${r.backlogRun.tasks.toLocaleString('en-US')} tasks queued up front (the worker off meanwhile), then ant.worker_start: no ant.addTask during the window, every ant.next finds a task, so this is the hand-out path alone. Load average ${loads(r.backlogRun.load0)} → ${loads(r.backlogRun.load1)}.`,
    '',
    '| measure | value | goal |',
    '|---|---|---|',
    `| tasks handed out | **${Math.round(r.backlogRun.handedPerMin).toLocaleString('en-US')} a minute** (over ${r.backlogRun.seconds.toFixed(1)} s) | ${met(r.backlogRun.handedPerMin >= RATE)} (≥ ${RATE.toLocaleString('en-US')}) |`,
    `| hand-out latency, p50 / p99 / max | ${ms(r.backlogRun.p50)} / **${ms(r.backlogRun.p99)}** / ${ms(r.backlogRun.max)} ms | ${CAPACITY} |`,
    `| ant.done answered, p99 | ${ms(r.backlogRun.doneP99)} ms | |`,
    `| console event-loop delay, p50 / p99 / max | ${ms(r.backlogRun.elP50)} / **${ms(r.backlogRun.elP99)}** / ${ms(r.backlogRun.elMax)} ms | ${CAPACITY} |`,
  ].join('\n');

  const sqlite = process.env.ANT_BENCH_ONLY === 'mariadb' ? null : await measure('SQLite', {});
  const maria = process.env.ANT_BENCH_ONLY === 'sqlite' ? { skipped: 'ANT_BENCH_ONLY=sqlite' } : await onScratchMariaDb((url) => measure('MariaDB', { DATABASE_URL: url }));
  const chromiumVersion = browser.version();
  await browser.close();
  writeSection('ant', [
    `## Ant hub: ${ANTS} simulated ants, ${RATE.toLocaleString('en-US')} tasks a minute (\`bench/ant.ts\`)`,
    '',
    `${machine()}. The real app in the bench's process (its event-loop delay measured with monitorEventLoopDelay every 10 ms, minus those 10 ms); ${ANTS} simulated ants in a forked process, each a socket.io client of the hub speaking the reference ant's protocol (src/ant/ant.ts) and answering ant.done at once on each task (empty output), so the hand-out is bounded by the hub; ` +
      `tasks (step ${STEP}) queued by the same process with ant.addTask over POST /api at ${RATE.toLocaleString('en-US')} a minute (no bulk path exists: up to 50 calls per request); the worker switched on with ant.worker_start and every ant started with ant.ant_start. ` +
      `Hand-out latency is measured in the ants' process, from sending ant.next to its answer carrying a task. ${WARMUP} s warm-up, then a ${SECONDS} s window. ` +
      `/ant open in Chromium ${chromiumVersion} headless (playwright-core, /usr/bin/chromium) on the same 2 cores during the whole run. Run: \`npm run bench -- ant\` (ANT_BENCH_ANTS, ANT_BENCH_RATE, ANT_BENCH_SECONDS, ANT_BENCH_BACKLOG, ANT_BENCH_ONLY=sqlite|mariadb).`,
    '',
    '### SQLite',
    '',
    sqlite ? block(sqlite) : 'Skipped: ANT_BENCH_ONLY=mariadb',
    '',
    '### MariaDB',
    '',
    'value' in maria ? block(maria.value) : `Skipped: ${maria.skipped}`,
    '',
    WHERE_TIME_GOES,
  ].join('\n'));
}

if (process.env.ANT_BENCH_CHILD === '1') antsProcess();
else void consoleProcess().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
