/**
 * Soak: two console instances under faults (issue 26), on the cluster harness of the tests
 * (test/helpers/cluster.ts: two instances from one build behind Debian's nginx, one MariaDB database,
 * their own Redis behind one TCP proxy per instance). For SOAK_SECONDS (600) it keeps up:
 * - a task every second (`curl=` to a local node:http server in this process, which records each hit
 *   and answers after SOAK_TICK_MS, 700 ms, so a crash can land mid-run);
 * - 1,000 tasks once a minute each, task i at second i mod 60 (`S * * * * *`: 16-17 start every
 *   second); their endpoint records (task, time), a hit belongs to the latest second S at or before it,
 *   so the same task hit twice for one scheduled minute is a duplicate; the run history in the database
 *   is checked for the same (task, scheduled) recorded twice as well;
 * - a `srv.save_server` through nginx every second (a new name each time) and sockets on both
 *   instances and through nginx (reconnecting) waiting for each `srv.changed`: latency from the call,
 *   losses, and the first delivery after each fault's recovery;
 * - 8 loops of calls through nginx (`srv.servers_map` and `cron.getStatus` in turn, 100 ms pause):
 *   failures with their time against the faults, latency p50/p99.
 * Faults (positions and lengths scale with SOAK_SECONDS/600, lengths at least 3 s; each at half a
 * second past a whole second): at 30% SIGKILL of the instance running the every-second task at that
 * moment (told by `ss` from the hit's connection), restarted 10 s later; at 60% Redis SIGKILLed,
 * started again 15 s later; at 80% the Redis proxy of the other instance resets every connection for
 * 20 s (SOAK_RESET=0 leaves it out).
 * Then each instance gets SIGTERM (its stop time is reported) and the harness closes everything.
 * The whole run is bounded (a watchdog closes the cluster and exits), and close() runs on failure too.
 *
 * Run: `npm run bench -- soak` (about 12 minutes; writes its section of bench/README.md only for a run
 * of 600 s or more, or with SOAK_WRITE=1). Short check: `SOAK_SECONDS=90 node dist/bench/soak.js`.
 * Raw figures: bench/.tmp/soak-<time>.json.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import { startCluster, type Cluster, type ClusterSocket } from '../test/helpers/cluster.js';
import { machine, percentile, ROOT, writeSection } from './lib.js';

const T = Number(process.env.SOAK_SECONDS ?? 600);
const TASKS = Number(process.env.SOAK_TASKS ?? 1000);
const LOOPS = Number(process.env.SOAK_LOOPS ?? 8);
const PAUSE_MS = Number(process.env.SOAK_PAUSE_MS ?? 100);
const SAVE_MS = Number(process.env.SOAK_SAVE_MS ?? 1000);
const TICK_MS = Number(process.env.SOAK_TICK_MS ?? 700);
const SOCKETS_PER_INSTANCE = Number(process.env.SOAK_SOCKETS ?? 3);
const NGINX_SOCKETS = Number(process.env.SOAK_NGINX_SOCKETS ?? 2);
const WITH_RESET = process.env.SOAK_RESET !== '0';
const WRITE = T >= 600 || process.env.SOAK_WRITE === '1';
const CALL_TIMEOUT_MS = 20_000;
/** A delivery later than this after the save was sent counts as late. */
const LATE_MS = 5_000;
const scale = Math.min(1, T / 600);
const dur = (s: number) => Math.max(3, Math.round(s * scale));
// Half a second off the whole seconds the tasks fire on, so a tick falls clearly before or after a fault.
const FAULTS = {
  killAt: Math.round(0.3 * T) + 0.5, killDown: dur(10),
  redisAt: Math.round(0.6 * T) + 0.5, redisDown: dur(15),
  resetAt: Math.round(0.8 * T) + 0.5, resetDown: dur(20),
};
/** Hard bound on the whole run: set-up (perhaps a build), the soak, the drain and close. */
const WATCHDOG_MS = (T + 900) * 1000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));
const run = (cmd: string, args: string[]) => new Promise<string>((res) => execFile(cmd, args, { timeout: 5000 }, (_e, out) => res(String(out ?? ''))));
const cpuTicks = () => {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return { idle: f[3] + f[4], total: f.reduce((a, b) => a + b, 0) };
};

// ---------------------------------------------------------------- what is recorded

interface Hit { at: number }
interface MinuteHit { task: number; at: number }
interface Call { at: number; method: string; ms: number; ok: boolean; via: number | null; reason: string }
interface Save { seq: number; at: number; ms: number; ok: boolean; reason: string }
interface Mark { what: string; at: number }
interface SockRec { group: string; sock: ClusterSocket; down: Array<[number, number]> }
interface RunRow { Id: number; task_id: number; scheduled: Date | null; started: Date; status: string; message: string | null; instance: string; source: string }

const tickHits: Hit[] = [];
const minuteHits: MinuteHit[] = [];
const inflightTicks = new Set<IncomingMessage>();
const calls: Call[] = [];
const saves: Save[] = [];
const marks: Mark[] = [];
const socks: SockRec[] = [];
const runs = new Map<number, RunRow>();
const loadSamples: number[] = [];
const mark = (what: string) => { marks.push({ what, at: Date.now() }); console.log(`[soak] +${((Date.now() - t0) / 1000).toFixed(1)} s ${what}`); };

const peer = createServer((req: IncomingMessage, res: ServerResponse) => {
  const at = Date.now();
  if (req.url === '/tick') {
    tickHits.push({ at });
    inflightTicks.add(req);
    setTimeout(() => { inflightTicks.delete(req); res.end('ok'); }, TICK_MS);
    return;
  }
  const m = /^\/m\/(\d+)$/.exec(req.url ?? '');
  if (m) minuteHits.push({ task: Number(m[1]), at });
  res.end('ok');
});
peer.keepAliveTimeout = 65_000;

let c: Cluster | undefined;
let db: Connection | undefined;
let running = false;
let t0 = Date.now();
let closing: Promise<void> | undefined;


const closeAll = () => (closing ??= (async () => {
  running = false;
  await db?.end().catch(() => undefined);
  await c?.close().catch((e: Error) => console.error(`[soak] close: ${e.message}`));
  peer.closeAllConnections();
  await new Promise((r) => peer.close(r));
})());

const watchdog = setTimeout(() => {
  console.error(`[soak] watchdog: still running after ${WATCHDOG_MS / 1000} s, stopping`);
  void Promise.race([closeAll(), sleep(60_000)]).finally(() => process.exit(2));
}, WATCHDOG_MS);
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    console.error(`[soak] ${sig}: stopping`);
    void Promise.race([closeAll(), sleep(60_000)]).finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------- helpers on the cluster

/** The harness index of the instance that made the request (its connection's process, by `ss`), or null. */
async function instanceOfRequest(cl: Cluster, req: IncomingMessage): Promise<number | null> {
  const pidOf = (out: string) => Number(/pid=(\d+)/.exec(out)?.[1]) || null;
  const pid = pidOf(await run('ss', ['-Htnp', 'state', 'established', `( sport = :${req.socket.remotePort} )`]));
  if (!pid) return null;
  for (let i = 0; i < cl.instances; i++) {
    const port = new URL(cl.instanceUrl(i)).port;
    if (pidOf(await run('ss', ['-Htlnp', `( sport = :${port} )`])) === pid) return i;
  }
  return null;
}

async function readRuns(conn: Connection) {
  const maxId = Math.max(0, ...runs.keys());
  // From a little below the last Id seen: rows of two instances' batches may commit out of Id order.
  const [rows] = await conn.query<RowDataPacket[]>('SELECT Id, task_id, scheduled, started, status, message, instance, source FROM cron_runs WHERE Id > ?', [Math.max(0, maxId - 5000)]);
  for (const r of rows) runs.set(r.Id as number, r as unknown as RunRow);
}

// ---------------------------------------------------------------- the run

const load0 = loadavg();
const redisVersion = /v=([\d.]+)/.exec(await run('redis-server', ['--version']))?.[1] ?? '?';
const nginxVersion = /nginx\/([\d.]+)/.exec(await new Promise<string>((res) => execFile('/usr/sbin/nginx', ['-v'], (_e, o, e2) => res(`${o}${e2}`))))?.[1] ?? '?';
const started = new Date();
let loadAtT0: number[] = [];
let loadEnd: number[] = [];
let cpu0 = cpuTicks();
let cpuBusy = NaN;
const sigterm: number[] = [];
let victim: number | null = null;
let victimFound = false;
let resetProxy = 1;
let failure: Error | null = null;
let tickTaskId = 0;
const taskOfId = new Map<number, number>();

try {
  await new Promise<void>((r) => peer.listen(0, '127.0.0.1', r));
  const peerUrl = `http://127.0.0.1:${(peer.address() as { port: number }).port}`;
  console.log(`[soak] ${T} s, ${TASKS} minute tasks, ${LOOPS} call loops, faults ${JSON.stringify(FAULTS)}; load ${load0.map((x) => x.toFixed(2)).join(' ')}`);
  c = await startCluster();
  const cl = c;
  const { hash } = await cl.signIn();

  // The every-second task through the API (the contract's path), then the 1,000 straight into the table and one reload.
  const saved = await cl.rest<{ status: string; result: { Id: number } }>(hash, 'POST', '/cfg/save_app_cron', { name: 'soak every second', second: '*', cmd: `curl=${peerUrl}/tick` });
  if (saved.body.status !== 'ok') throw new Error(`save_app_cron: ${JSON.stringify(saved.body)}`);
  tickTaskId = saved.body.result.Id;
  db = await createConnection({ uri: cl.databaseUrl.replace(/^mariadb:/, 'mysql:'), timezone: 'Z' });
  const [[{ uid }]] = await db.query<RowDataPacket[]>('SELECT uid FROM cron_tasks WHERE Id = ?', [tickTaskId]);
  const now = new Date();
  const rows = Array.from({ length: TASKS }, (_, i) => [`soak minute ${i}`, String(i % 60), '*', '*', '*', '*', '*', `curl=${peerUrl}/m/${i}`, 0, uid, now]);
  for (let i = 0; i < rows.length; i += 250) {
    await db.query('INSERT INTO cron_tasks (name, second, minute, hour, day, month, week, cmd, suspended, uid, added) VALUES ?', [rows.slice(i, i + 250)]);
  }
  const [ids] = await db.query<RowDataPacket[]>("SELECT Id, cmd FROM cron_tasks WHERE cmd LIKE '%/m/%'");
  for (const r of ids) taskOfId.set(r.Id as number, Number(/\/m\/(\d+)$/.exec(r.cmd as string)![1]));
  await cl.ok(hash, 'cron.reload');
  for (const i of [0, 1]) {
    const st = await cl.ok<{ tasks: unknown[] }>(hash, 'cron.getStatus', undefined, { via: i });
    if (st.tasks.length !== TASKS + 1) throw new Error(`instance ${i} has ${st.tasks.length} tasks after the reload, not ${TASKS + 1}`);
  }
  const { Id: serverId } = await cl.ok<{ Id: number }>(hash, 'srv.save_server', { name: 'soak-0', type: 0 });

  // Sockets: a few on each instance, a few through nginx; all reconnect (a killed instance comes back).
  const addSocket = async (group: string, via: 0 | 1 | 'nginx') => {
    const sock = await cl.socket(hash, via, { reconnection: true });
    const rec: SockRec = { group, sock, down: [] };
    sock.s.on('disconnect', (reason) => {
      rec.down.push([Date.now(), Infinity]);
      // As the UI does (src/ui/api/socket.ts): a disconnect by the server is retried by hand.
      if (reason === 'io server disconnect' && running) setTimeout(() => sock.s.connect(), 1000);
    });
    sock.s.on('connect', () => { const d = rec.down.at(-1); if (d && d[1] === Infinity) d[1] = Date.now(); });
    socks.push(rec);
  };
  for (let k = 0; k < SOCKETS_PER_INSTANCE; k++) { await addSocket('instance 0', 0); await addSocket('instance 1', 1); }
  for (let k = 0; k < NGINX_SOCKETS; k++) await addSocket('nginx', 'nginx');

  // Start on a whole second once the schedules run.
  const firstHits = tickHits.length;
  for (let k = 0; k < 100 && tickHits.length === firstHits; k++) await sleep(100);
  if (tickHits.length === firstHits) throw new Error('the every-second task did not run within 10 s of the reload');
  t0 = Math.ceil(Date.now() / 1000) * 1000 + 1000;
  await sleep(t0 - Date.now());
  loadAtT0 = loadavg();
  cpu0 = cpuTicks();
  running = true;
  const end = t0 + T * 1000;
  mark('start');

  const saver = (async () => {
    let next = t0;
    let seq = 0;
    while (running && Date.now() < end) {
      await sleep(next - Date.now());
      next = Math.max(next + SAVE_MS, Date.now());
      const s: Save = { seq: ++seq, at: Date.now(), ms: 0, ok: false, reason: '' };
      try {
        const r = await cl.rpc(hash, 'srv.save_server', { Id: serverId, name: `soak-${s.seq}` }, { timeoutMs: CALL_TIMEOUT_MS });
        s.ok = r.status === 200 && r.env?.status === 'ok';
        if (!s.ok) s.reason = `${r.status} ${JSON.stringify(r.env).slice(0, 160)}`;
      } catch (e) {
        s.reason = (e as Error).message.slice(0, 160);
      }
      s.ms = Date.now() - s.at;
      saves.push(s);
    }
  })();
  const loops = Array.from({ length: LOOPS }, (_, k) => (async () => {
    let j = k;
    while (running && Date.now() < end) {
      const method = j++ % 2 ? 'cron.getStatus' : 'srv.servers_map';
      const at = Date.now();
      const call: Call = { at, method, ms: 0, ok: false, via: null, reason: '' };
      try {
        const r = await cl.rpc(hash, method, undefined, { timeoutMs: CALL_TIMEOUT_MS });
        call.via = r.via;
        call.ok = r.status === 200 && r.env?.status === 'ok';
        if (!call.ok) call.reason = `${r.status} ${typeof r.body === 'string' ? (/<title>([^<]*)<\/title>/.exec(r.body as string)?.[1] ?? (r.body as string).slice(0, 80)) : JSON.stringify(r.env).slice(0, 160)}`;
      } catch (e) {
        call.reason = (e as Error).message.slice(0, 160);
      }
      call.ms = Date.now() - at;
      calls.push(call);
      await sleep(PAUSE_MS);
    }
  })());
  const sampler = (async () => {
    while (running && Date.now() < end) {
      loadSamples.push(loadavg()[0]);
      await sleep(5000);
    }
  })();
  const poller = (async () => {
    while (running && Date.now() < end) {
      await sleep(20_000);
      await readRuns(db!).catch((e: Error) => console.error(`[soak] reading cron_runs: ${e.message}`));
    }
  })();
  const faults = (async () => {
    // 1. SIGKILL of the instance running the every-second task now, restarted killDown s later.
    await sleep(t0 + FAULTS.killAt * 1000 - Date.now());
    let req: IncomingMessage | undefined;
    for (let k = 0; k < 40 && !req; k++) { req = [...inflightTicks][0]; if (!req) await sleep(50); }
    const found = req ? await instanceOfRequest(cl, req) : null;
    const v = found ?? 0;
    victim = v;
    victimFound = found !== null;
    resetProxy = 1 - v;
    mark(`kill instance ${v} (SIGKILL${victimFound ? ', mid-run of the every-second task' : ', its run not found'})`);
    await cl.kill(v, 'SIGKILL');
    const killed = marks.at(-1)!.at;
    await sleep(killed + FAULTS.killDown * 1000 - Date.now());
    mark(`restart instance ${v}`);
    await cl.restart(v);
    mark(`instance ${v} healthy`);
    // 2. Redis SIGKILLed, started again redisDown s later (empty: no persistence).
    await sleep(t0 + FAULTS.redisAt * 1000 - Date.now());
    mark('kill Redis');
    await cl.killRedis();
    await sleep(marks.at(-1)!.at + FAULTS.redisDown * 1000 - Date.now());
    mark('start Redis');
    await cl.startRedis();
    mark('Redis answers');
    // 3. One instance's Redis connections reset on every attempt for resetDown s.
    if (!WITH_RESET) return;
    await sleep(t0 + FAULTS.resetAt * 1000 - Date.now());
    mark(`proxy ${resetProxy} reset`);
    cl.proxy(resetProxy).set('reset');
    await sleep(marks.at(-1)!.at + FAULTS.resetDown * 1000 - Date.now());
    cl.proxy(resetProxy).set('forward');
    mark(`proxy ${resetProxy} forward`);
  })();
  try {
    await faults;
  } catch (e) {
    failure = e as Error;
    running = false;
    console.error(`[soak] a fault step failed: ${failure.message}`);
  }
  await sleep(end - Date.now());
  running = false;
  mark('end');
  loadEnd = loadavg();
  const cpu1 = cpuTicks();
  cpuBusy = 1 - (cpu1.idle - cpu0.idle) / (cpu1.total - cpu0.total);
  await Promise.all([saver, sampler, poller, ...loops]);
  await sleep(LATE_MS + 2000); // late deliveries, runs in flight end, history batches are written
  await readRuns(db);
  for (let i = 0; i < cl.instances; i++) sigterm.push(cl.alive(i) ? await cl.kill(i, 'SIGTERM') : NaN);
} catch (e) {
  failure = e as Error;
  console.error(`[soak] failed: ${failure.stack ?? failure.message}`);
  if (c) console.error(c.tail(15));
} finally {
  await closeAll();
  clearTimeout(watchdog);
}

// ---------------------------------------------------------------- figures

const rel = (at: number) => (at - t0) / 1000;
const markAt = (prefix: string) => marks.find((m) => m.what.startsWith(prefix))?.at ?? NaN;
const faultList = [
  { short: 'instance SIGKILL', name: `SIGKILL of instance ${victim ?? '?'}${victimFound ? ' mid-run of the every-second task' : ''}, restarted after ${FAULTS.killDown} s`, start: markAt('kill instance'), recovered: markAt(`instance ${victim} healthy`) },
  { short: 'Redis SIGKILL', name: `Redis SIGKILLed, started after ${FAULTS.redisDown} s`, start: markAt('kill Redis'), recovered: markAt('Redis answers') },
  ...(WITH_RESET ? [{ short: 'Redis proxy reset', name: `the Redis proxy of instance ${resetProxy} resets every connection for ${FAULTS.resetDown} s`, start: markAt(`proxy ${resetProxy} reset`), recovered: markAt(`proxy ${resetProxy} forward`) }] : []),
];
const endAt = t0 + T * 1000;
const bounds = [t0, ...faultList.map((f) => f.start).filter(Number.isFinite), endAt];
const segments = bounds.slice(0, -1).map((from, k) => ({ name: k === 0 ? 'before the faults' : `from the ${faultList[k - 1].short}`, from, to: bounds[k + 1] }));
const segOf = (at: number) => segments.findIndex((s) => at >= s.from && at < s.to);
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '-');
const f0 = (n: number) => (Number.isFinite(n) ? String(Math.round(n)) : '-');
const pct = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return { p50: percentile(s, 0.5), p99: percentile(s, 0.99), max: s.length ? s[s.length - 1] : NaN, n: s.length }; };

// The every-second task: hits, gaps (a gap belongs to the segment where it ends: a run cut by a fault starts before it).
const ticks = tickHits.map((h) => h.at).filter((a) => a >= t0 && a < endAt).sort((a, b) => a - b);
const gaps = ticks.slice(1).map((a, k) => ({ from: ticks[k], to: a, ms: a - ticks[k] }));
const longest = (g: typeof gaps) => g.reduce<(typeof gaps)[number] | null>((m, x) => (!m || x.ms > m.ms ? x : m), null);
const closeHits = gaps.filter((g) => g.ms < 500).length;
const tickRuns = [...runs.values()].filter((r) => r.task_id === tickTaskId && r.source === 'tick');
const dupKeys = (rs: RunRow[]) => {
  const seen = new Map<string, number>();
  for (const r of rs) if (r.status !== 'skipped' && r.scheduled) seen.set(`${r.task_id}:${r.scheduled.getTime()}`, (seen.get(`${r.task_id}:${r.scheduled.getTime()}`) ?? 0) + 1);
  return [...seen.values()].filter((n) => n > 1).length;
};

// The 1,000 tasks: a hit belongs to the latest second (i mod 60) at or before it.
const schedOf = (task: number, at: number) => { const s = (task % 60) * 1000; return Math.floor((at - s) / 60_000) * 60_000 + s; };
const perTick = new Map<string, number>();
const lateness: Array<{ at: number; ms: number }> = [];
for (const h of minuteHits) {
  const sched = schedOf(h.task, h.at);
  const key = `${h.task}:${sched}`;
  perTick.set(key, (perTick.get(key) ?? 0) + 1);
  if (sched >= t0 && sched < endAt) lateness.push({ at: sched, ms: h.at - sched });
}
const hitDups = [...perTick.values()].filter((n) => n > 1).length;
const expectedTicks: Array<{ task: number; at: number }> = [];
for (let task = 0; task < TASKS; task++) for (let at = schedOf(task, t0 - 1) + 60_000; at < endAt - 5000; at += 60_000) expectedTicks.push({ task, at });
const missed = expectedTicks.filter((e) => !perTick.has(`${e.task}:${e.at}`));
const minuteRuns = [...runs.values()].filter((r) => taskOfId.has(r.task_id) && r.source === 'tick');
const dbDups = dupKeys(minuteRuns) + dupKeys(tickRuns);
const statusTally = (rs: RunRow[]) => {
  const t = new Map<string, number>();
  for (const r of rs) {
    const k = r.status === 'ok' ? 'ok' : `${r.status}: '${(r.message ?? '').replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '…').replace(/\b[0-9a-f]{8}\b/g, 'X').slice(0, 130)}'`;
    t.set(k, (t.get(k) ?? 0) + 1);
  }
  return [...t.entries()].sort((a, b) => b[1] - a[1]);
};

// Deliveries: save seq -> per socket receipt time.
const received = socks.map((r) => {
  const m = new Map<number, number>();
  for (const g of r.sock.got) {
    if (g.event !== 'srv.changed') continue;
    const seq = Number(/^soak-(\d+)$/.exec((g.payload as { name?: string }).name ?? '')?.[1]);
    if (seq && !m.has(seq)) m.set(seq, g.at);
  }
  return m;
});
const resyncs = socks.map((r) => r.sock.got.filter((g) => g.event === 'realtime.resync').map((g) => g.at));
const wasDown = (r: SockRec, from: number, to: number) => r.down.some(([a, b]) => a < to && b > from);
interface Delivery { seg: number; group: string; state: 'ok' | 'late' | 'lost' | 'down'; ms: number; at: number; sentAt: number }
const deliveries: Delivery[] = [];
for (const s of saves) {
  if (!s.ok || s.at >= endAt) continue;
  socks.forEach((r, k) => {
    const got = received[k].get(s.seq);
    const base = { seg: segOf(s.at), group: r.group, at: got ?? NaN, sentAt: s.at };
    if (got !== undefined) deliveries.push({ ...base, state: got - s.at > LATE_MS ? 'late' : 'ok', ms: got - s.at });
    else deliveries.push({ ...base, state: wasDown(r, s.at - 1000, s.at + LATE_MS) ? 'down' : 'lost', ms: NaN });
  });
}
const groups = [...new Set(socks.map((r) => r.group))];

// Calls.
const inWindow = (at: number) => at >= t0 && at < endAt;
const okCalls = calls.filter((x) => x.ok && inWindow(x.at + x.ms));
const failed = calls.filter((x) => !x.ok && inWindow(x.at + x.ms));
const failedSaves = saves.filter((s) => !s.ok && inWindow(s.at));

// ---------------------------------------------------------------- report

const segRows = segments.map((s, k) => {
  const g = longest(gaps.filter((x) => segOf(x.to) === k));
  const segTicks = ticks.filter((a) => segOf(a) === k).length;
  const lat = pct(lateness.filter((l) => segOf(l.at) === k).map((l) => l.ms));
  const segMissed = missed.filter((m) => segOf(m.at) === k).length;
  const segExpected = expectedTicks.filter((m) => segOf(m.at) === k).length;
  const cs = calls.filter((x) => segOf(x.at + x.ms) === k);
  const cl = pct(cs.filter((x) => x.ok).map((x) => x.ms));
  const d = deliveries.filter((x) => x.seg === k);
  const dl = pct(d.filter((x) => x.state === 'ok' || x.state === 'late').map((x) => x.ms));
  const n = (st: Delivery['state']) => d.filter((x) => x.state === st).length;
  return `| ${s.name} (+${f0(rel(s.from))}..${f0(rel(s.to))} s) | ${segTicks} / ${g ? `${f1(g.ms / 1000)} s at +${f1(rel(g.from))}` : '-'} | ${segExpected - segMissed} / ${segExpected} (missed ${segMissed}); late p50 ${f0(lat.p50)} / p99 ${f0(lat.p99)} / max ${f0(lat.max)} ms | ${cs.length} / ${cs.filter((x) => !x.ok).length}; ${f0(cl.p50)} / ${f0(cl.p99)} / ${f0(cl.max)} ms | ${n('ok') + n('late')} / ${d.length} (late ${n('late')}, lost ${n('lost')}, socket down ${n('down')}); ${f0(dl.p50)} / ${f0(dl.p99)} / ${f0(dl.max)} ms |`;
});

const faultRows = faultList.map((f, k) => {
  const seg = k + 1;
  const segFailed = failed.filter((x) => segOf(x.at + x.ms) === seg);
  // When each failed call ended (its answer or its error), against the fault's start.
  const ends = segFailed.map((x) => rel(x.at + x.ms) - rel(f.start)).sort((x, y) => x - y);
  const failedText = segFailed.length ? `${segFailed.length}, ended ${f1(ends[0])} .. ${f1(ends.at(-1)!)} s after the fault (${[...new Set(segFailed.map((x) => x.reason.slice(0, 60)))].slice(0, 3).join('; ')})` : '0';
  const savesFailed = failedSaves.filter((s) => segOf(s.at) === seg).length;
  const g = longest(gaps.filter((x) => x.to >= f.start && x.from < Math.min(f.start + 60_000, segments[seg + 1]?.from ?? endAt)));
  const firsts = groups.map((grp) => {
    const worst = socks.map((r, i) => ({ r, i })).filter((x) => x.r.group === grp).map(({ i }) => {
      const after = [...received[i].entries()].filter(([seq, at]) => at >= f.recovered && (saves.find((s) => s.seq === seq)?.at ?? 0) >= f.recovered).map(([, at]) => at);
      return after.length ? Math.min(...after) - f.recovered : NaN;
    });
    return `${grp} ${worst.some((x) => !Number.isFinite(x)) ? 'none' : `${f1(Math.max(...worst) / 1000)} s`}`;
  });
  const d = deliveries.filter((x) => x.seg === seg);
  const lostBy = groups.map((grp) => `${grp} ${d.filter((x) => x.group === grp && x.state === 'lost').length}`).join(', ');
  const rs = resyncs.map((xs) => xs.some((a) => a >= f.start && segOf(a) === seg));
  const rsBy = groups.map((grp) => `${grp} ${socks.filter((r, i) => r.group === grp && rs[i]).length} of ${socks.filter((r) => r.group === grp).length}`).join(', ');
  return `| ${f.name} | +${f1(rel(f.start))} s | +${f1(rel(f.recovered))} s | ${g ? `${f1(g.ms / 1000)} s (+${f1(rel(g.from))} to +${f1(rel(g.to))})` : '-'} | ${failedText}; saves failed ${savesFailed} | ${firsts.join(', ')} | lost: ${lostBy}; \`realtime.resync\` received: ${rsBy} |`;
});

const cAll = pct(okCalls.map((x) => x.ms));
const byMethod = ['srv.servers_map', 'cron.getStatus'].map((m) => ({ m, p: pct(okCalls.filter((x) => x.method === m).map((x) => x.ms)) }));
const gAll = longest(gaps);
const dAll = deliveries;
const dLat = pct(dAll.filter((x) => x.state === 'ok' || x.state === 'late').map((x) => x.ms));
const warnCount = (i: number) => (c ? c.warnings(i).filter((l) => l.at >= t0).length : 0);
const plainStderr = (i: number) => (c ? c.logs(i).filter((l) => l.at >= t0 && l.stream === 'stderr' && !l.json && !l.text.startsWith('[harness]')).length : 0);
const loadDuring = loadSamples.length ? { mean: loadSamples.reduce((a, b) => a + b, 0) / loadSamples.length, max: Math.max(...loadSamples) } : { mean: NaN, max: NaN };
const la = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' / ');
const when = `${started.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

const md = [
  '## Soak: two instances under faults',
  '',
  `${machine()}, started ${when}; \`nproc\` ${availableParallelism()}. Load average (1 / 5 / 15 min) before the set-up ${la(load0)}, at the start ${la(loadAtT0)}, at the end ${la(loadEnd)}; during the run the 1-minute figure averaged ${f1(loadDuring.mean)} (max ${f1(loadDuring.max)}, sampled every 5 s), and all cores were ${Math.round(cpuBusy * 100)}% busy (/proc/stat), the soak's own processes included. ` +
  `Run: \`npm run bench -- soak\` (${T} s; \`SOAK_SECONDS=90\` for a short check with the faults scaled).`,
  '',
  `Set-up (bench/soak.ts on test/helpers/cluster.ts): two instances from one build behind Debian's nginx ${nginxVersion} (round robin, WebSocket upgrade), one MariaDB database, Redis ${redisVersion} behind one TCP proxy per instance, \`CRON_ENABLED=1\` on both. ` +
  `Load: a task every second (its endpoint answers in ${TICK_MS} ms); ${TASKS.toLocaleString('en-US')} tasks once a minute each (task i at second i mod 60, so 16-17 start every second); ` +
  `a \`srv.save_server\` through nginx every ${SAVE_MS / 1000} s, each awaited as \`srv.changed\` by ${socks.length} sockets (${SOCKETS_PER_INSTANCE} on each instance, ${NGINX_SOCKETS} through nginx, reconnecting); ` +
  `${LOOPS} loops of calls through nginx (\`srv.servers_map\` and \`cron.getStatus\` in turn, ${PAUSE_MS} ms pause). Faults: ${faultList.map((f) => f.name).join('; ')}.`,
  '',
  `**Duplicates: ${hitDups + dbDups}** (the same task and scheduled second run twice: ${hitDups} by the endpoints' hits, ${dbDups} in the run history). ` +
  `Every-second task: ${ticks.length} hits in ${T} s, longest gap ${gAll ? `${f1(gAll.ms / 1000)} s (from +${f1(rel(gAll.from))} s)` : '-'}, ${closeHits} hits less than 0.5 s after the one before. ` +
  `Calls through nginx: ${okCalls.length + failed.length}, failed ${failed.length}; latency p50 ${f0(cAll.p50)} ms, p99 ${f0(cAll.p99)} ms, max ${f0(cAll.max)} ms (${byMethod.map((b) => `${b.m} ${f0(b.p.p50)} / ${f0(b.p.p99)}`).join(', ')}). ` +
  `Saves: ${saves.filter((s) => inWindow(s.at)).length}, failed ${failedSaves.length}. srv.changed: ${dAll.filter((x) => x.state === 'ok' || x.state === 'late').length} of ${dAll.length} (save, socket) pairs delivered, p50 ${f0(dLat.p50)} ms, p99 ${f0(dLat.p99)} ms; late (> ${LATE_MS / 1000} s) ${dAll.filter((x) => x.state === 'late').length}, lost ${dAll.filter((x) => x.state === 'lost').length}, not expected (the socket was down) ${dAll.filter((x) => x.state === 'down').length}.`,
  '',
  '| window | every-second task: hits / longest gap | minute tasks: ticks run / due; start lateness | calls: n / failed; p50 / p99 / max ms | srv.changed delivered / expected; latency p50 / p99 / max |',
  '|---|---|---|---|---|',
  ...segRows,
  '',
  '| fault | at | recovered | longest every-second gap (ending after the fault, starting within 60 s of it and before the next) | failed calls (time after the fault) | first srv.changed after recovery (slowest socket of each group) | srv.changed in the window |',
  '|---|---|---|---|---|---|---|',
  ...faultRows,
  '',
  `Run history (database, the window's ticks): every-second task ${statusTally(tickRuns.filter((r) => inWindow((r.scheduled ?? r.started).getTime()))).map(([k, n]) => `${k} ${n}`).join('; ')}. ` +
  `Minute tasks ${statusTally(minuteRuns.filter((r) => inWindow((r.scheduled ?? r.started).getTime()))).slice(0, 6).map(([k, n]) => `${k} ${n}`).join('; ')}. ` +
  `Warnings logged (JSON, level >= warn) per instance: ${[0, 1].map(warnCount).join(' / ')}; plain-text stderr lines: ${[0, 1].map(plainStderr).join(' / ')}. SIGTERM at the end: instances stopped in ${sigterm.map((x) => `${f0(x)} ms`).join(' / ')}.`,
  failure ? `\n**The run failed**: ${failure.message.split('\n')[0]}` : '',
].join('\n');

mkdirSync(join(ROOT, 'bench', '.tmp'), { recursive: true });
const rawFile = join(ROOT, 'bench', '.tmp', `soak-${started.toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(rawFile, JSON.stringify({
  T, FAULTS, t0, marks: marks.map((m) => ({ ...m, rel: rel(m.at) })), victim, victimFound, load0, loadAtT0, loadEnd, loadSamples, cpuBusy, sigterm,
  failed: failed.map((x) => ({ ...x, rel: rel(x.at) })), failedSaves: failedSaves.map((s) => ({ ...s, rel: rel(s.at) })),
  gaps: gaps.filter((g) => g.ms > 1500).map((g) => ({ rel: rel(g.from), ms: g.ms })),
  missed: missed.map((m) => ({ task: m.task, rel: rel(m.at) })).slice(0, 3000),
  lostOrLate: deliveries.filter((d) => d.state === 'lost' || d.state === 'late').map((d) => ({ group: d.group, state: d.state, sent: rel(d.sentAt), ms: d.ms })),
  socketsDown: socks.map((r) => ({ group: r.group, down: r.down.map(([a, b]) => [rel(a), rel(b)]) })),
  resyncs: resyncs.map((xs) => xs.map(rel)),
  tickRuns: tickRuns.filter((r) => r.status !== 'ok').map((r) => ({ ...r, scheduled: r.scheduled && rel(r.scheduled.getTime()), started: rel(r.started.getTime()), instance: c?.indexOfCronInstance(r.instance) ?? r.instance })),
  minuteStatus: statusTally(minuteRuns),
  plainStderr: [0, 1].map((i) => [...new Set((c?.logs(i) ?? []).filter((l) => l.stream === 'stderr' && !l.json).map((l) => l.text))].slice(0, 20)),
  warnings: [0, 1].map((i) => (c?.warnings(i) ?? []).map((l) => ({ rel: rel(l.at), msg: l.json?.msg, context: l.json?.context }))),
}, null, 1));
if (WRITE && !failure) writeSection('soak', md);
else console.log(md);
console.log(`[soak] raw figures: ${rawFile}${WRITE && !failure ? '' : ' (bench/README.md not written: short or failed run)'}`);
process.exit(failure ? 1 : 0);
