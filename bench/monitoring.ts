/**
 * Monitoring (issue 10), SQLite, one process:
 * 1. History: 200 servers with 7 years in the tiers as the collector leaves them: minute rows for the
 *    minute tier's retention (14 days), hour rollup rows back to the hour tier's retention (2 years), day
 *    rows before that, written with the store's own writers (writeMinutes, writeRollupRows), then the
 *    store's real rollup makes hours from the minutes, days from the hours and weeks from the days. One
 *    more server ("raw") gets 7 years of raw minute rows (3.68M), rolled up by the same rollup.
 * 2. The 3628800-minute (7-year) query over HTTP: monitoring.getSeries for one server (p50/p95 over
 *    BENCH_QUERIES requests, servers in turn) and GET /monitoring/srv/chart for all 200 servers; beside
 *    it the same answer computed from the raw minute rows of the "raw" server (the week buckets' min,
 *    avg, max by GROUP BY over its 3.68M minutes, in-process through the DataSource: no HTTP, which
 *    favours raw), and a check that both answers are equal.
 * 3. One collection round over 200 server rows pointing at one loopback OpenSSH (cold: every connection
 *    new; warm: the pooled ones reused): wall time and peak connections.
 * Run: `npm run bench -- monitoring`. BENCH_MON_SERVERS (200), BENCH_QUERIES (60) scale it down.
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import { loadavg } from 'node:os';
import type { DataSource } from 'typeorm';
import { MONITOR_METRICS } from '../src/contracts/monitoring.js';
import { MonitoringCollector } from '../src/modules/monitoring/monitoring-collector.service.js';
import { bucketOf, MonitoringStore, WEEK_OFFSET_MIN, type MinuteRow, type RollupRow } from '../src/modules/monitoring/monitoring-store.service.js';
import { startSshd } from '../test/helpers/sshd.js';
import { machine, percentile, startBenchApp, writeSection } from './lib.js';

const SERVERS = Number(process.env.BENCH_MON_SERVERS ?? 200);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 60);
const YEARS = 7;
const RANGE = 3628800;
const load0 = loadavg();
const t0 = Date.now();

const sshd = await startSshd();
const s = await startBenchApp();
const ds = s.app.get<DataSource>(getDataSourceToken() as never);
const store = s.app.get(MonitoringStore);
const collector = s.app.get(MonitoringCollector);
/** fetch, once more on a reset: a keep-alive socket left idle through a long generation step may have been closed by the server. */
const fetch = async (url: string, init?: RequestInit): Promise<Response> => {
  try {
    return await globalThis.fetch(url, init);
  } catch {
    return globalThis.fetch(url, init);
  }
};
const step = (what: string) => console.error(`[${((Date.now() - t0) / 1000).toFixed(0)} s] ${what}`);
const rpc = async (method: string, args: unknown) => {
  const r = await fetch(`${s.url}/api`, { method: 'POST', headers: { 'content-type': 'application/json', User: s.hash }, body: JSON.stringify({ methods: [method], args: [args], host: 0 }) });
  const body = (await r.json()) as Array<{ status: string; result?: any; message?: string }>;
  if (body[0].status !== 'ok') throw new Error(`${method}: ${JSON.stringify(body[0])}`);
  return body[0].result;
};

// ---- servers: 200 pointing at the one sshd, and the "raw" one (no credentials: never collected)
const ids: number[] = [];
for (let i = 0; i < SERVERS; i++) {
  ids.push((await rpc('srv.save_server', { name: `mon-${String(i + 1).padStart(3, '0')}`, type: 9, ip: '127.0.0.1', sshport: sshd.port, sshlogin: sshd.user, sshpass: sshd.password })).Id);
}
const rawId = (await rpc('srv.save_server', { name: 'mon-raw', type: 6 })).Id as number;

// ---- history
const now = store.nowMin();
const minuteFrom = bucketOf('hour', now - 14 * 1440);
const hourFrom = bucketOf('day', now - 730 * 1440);
const dayFrom = bucketOf('day', now - YEARS * 365 * 1440 - 7 * 1440);
const wave = (id: number, ts: number) => 1 + (id % 7) + 3 * Math.sin((2 * Math.PI * ts) / 1440) + ((ts * 2654435761 + id) % 1000) / 1000;
const aggs = (id: number, ts: number, size: number): RollupRow['aggs'] => {
  const v = wave(id, ts + size / 2);
  const a = { min: Math.round((v - 1) * 100) / 100, avg: Math.round(v * 100) / 100, max: Math.round((v + 1.5) * 100) / 100, n: size };
  return Object.fromEntries(MONITOR_METRICS.map((m) => [m, a])) as RollupRow['aggs'];
};
const minuteRow = (id: number, ts: number): MinuteRow => {
  const v = ts % 997 === 0 ? null : Math.round(wave(id, ts) * 100) / 100;
  return { server_id: id, ts, la1: v, la5: v, la15: v, procs_running: v === null ? null : 2, procs_total: v === null ? null : 300, cores: v === null ? null : 8, mem_used_pct: v === null ? null : 40, cpu_busy_pct: v === null ? null : 12.5 };
};
/** Writes through a transaction per batch (one commit per batch, as a round's writes are one statement per 200 rows). */
async function inTx(fn: (q: { query: DataSource['query'] }) => Promise<void>) {
  const r = ds.createQueryRunner();
  await r.connect();
  await r.startTransaction();
  try {
    await fn({ query: (sql: string, p?: unknown[]) => r.query(sql, p) } as never);
    await r.commitTransaction();
  } catch (e) {
    await r.rollbackTransaction();
    throw e;
  } finally {
    await r.release();
  }
}

step('servers saved; generating history');
const gen = Date.now();
let rows = { day: 0, hour: 0, minute: 0, raw: 0 };
for (const id of ids) {
  await inTx(async (q) => {
    const days: RollupRow[] = [];
    for (let ts = dayFrom; ts < hourFrom; ts += 1440) days.push({ server_id: id, ts, aggs: aggs(id, ts, 1440) });
    await store.writeRollupRows('day', days, q);
    rows.day += days.length;
    let hours: RollupRow[] = [];
    for (let ts = hourFrom; ts < minuteFrom; ts += 60) {
      hours.push({ server_id: id, ts, aggs: aggs(id, ts, 60) });
      if (hours.length >= 2000) { await store.writeRollupRows('hour', hours, q); rows.hour += hours.length; hours = []; }
    }
    await store.writeRollupRows('hour', hours, q);
    rows.hour += hours.length;
    let mins: MinuteRow[] = [];
    for (let ts = minuteFrom; ts < now; ts++) {
      mins.push(minuteRow(id, ts));
      if (mins.length >= 2000) { await store.writeMinutes(mins, q); rows.minute += mins.length; mins = []; }
    }
    await store.writeMinutes(mins, q);
    rows.minute += mins.length;
  });
}
const rawFrom = dayFrom;
for (let from = rawFrom; from < now; from += 30 * 1440) {
  await inTx(async (q) => {
    const mins: MinuteRow[] = [];
    for (let ts = from; ts < Math.min(now, from + 30 * 1440); ts++) mins.push(minuteRow(rawId, ts));
    await store.writeMinutes(mins, q);
    rows.raw += mins.length;
  });
}
const genMs = Date.now() - gen;
step('history written; rolling up');
const ru = Date.now();
const rolled = await store.rollup();
const rollupMs = Date.now() - ru;
const counts = await store.counts();
step('rolled up; querying');

// ---- the 7-year query over HTTP
const timeIt = async (fn: () => Promise<unknown>) => { const a = performance.now(); await fn(); return performance.now() - a; };
const series = async (Id: number) => {
  const r = await fetch(`${s.url}/api`, { method: 'POST', headers: { 'content-type': 'application/json', User: s.hash }, body: JSON.stringify({ methods: ['monitoring.getSeries'], args: [{ Id, minutes: RANGE }], host: 0 }) });
  return ((await r.json()) as Array<{ result: { tier: string; points: Array<Array<number | null>> } }>)[0].result;
};
for (let i = 0; i < 5; i++) await series(ids[i]); // warm-up
const tSeries: number[] = [];
for (let i = 0; i < QUERIES; i++) tSeries.push(await timeIt(() => series(ids[i % ids.length])));
tSeries.sort((a, b) => a - b);
const chart = async () => {
  const r = await fetch(`${s.url}/api/monitoring/srv/chart?type=9&minutes=${RANGE}`, { headers: { User: s.hash } });
  return ((await r.json()) as { result: unknown[] }).result;
};
const chartItems = (await chart()).length;
const tChart: number[] = [];
for (let i = 0; i < Math.max(5, Math.round(QUERIES / 6)); i++) tChart.push(await timeIt(chart));
tChart.sort((a, b) => a - b);
const tiered = await series(rawId);

// the same answer from raw minutes (in-process SQL over the raw server's 3.68M minute rows)
const nowQ = store.nowMin();
const rawSql = `SELECT (ts - ((ts - ${WEEK_OFFSET_MIN}) % 10080)) AS b, MIN(la1) AS mn, AVG(la1) AS av, MAX(la1) AS mx FROM mon_minutes WHERE server_id = ? AND ts >= ? AND ts <= ? GROUP BY b ORDER BY b`;
let rawAnswer: Array<{ b: number; mn: number; av: number; mx: number }> = [];
const tRaw: number[] = [];
for (let i = 0; i < 5; i++) tRaw.push(await timeIt(async () => { rawAnswer = await ds.query(rawSql, [rawId, bucketOf('week', nowQ - RANGE), nowQ]); }));
tRaw.sort((a, b) => a - b);
let mismatches = 0;
const tieredByTs = new Map(tiered.points.map((p) => [p[0], p]));
for (const r of rawAnswer) {
  const p = tieredByTs.get(Number(r.b) * 60_000);
  const close = (a: number | null | undefined, b: number) => a !== null && a !== undefined && Math.abs(a - b) < 0.002;
  if (!p || !close(p[1], Number(r.av)) || !close(p[2], Number(r.mn)) || !close(p[3], Number(r.mx))) mismatches++;
}

step('queries done; collecting');
// ---- collection rounds over 200 server rows on one loopback sshd
const c1 = Date.now();
const r1 = await collector.run();
const cold = Date.now() - c1;
const peakCold = collector.stats.peak;
const connectsCold = collector.stats.connects;
const c2 = Date.now();
const r2 = await collector.run();
const warm = Date.now() - c2;
const okCold = r1.filter((r) => r.ok).length;
const okWarm = r2.filter((r) => r.ok).length;
const reusedWarm = collector.stats.reused;
const load1 = loadavg();

await s.close();
await sshd.stop();

const p50 = percentile(tSeries, 0.5);
const p95 = percentile(tSeries, 0.95);
const rawP50 = percentile(tRaw, 0.5);
const f = (n: number) => (n >= 100 ? Math.round(n).toString() : n.toFixed(1));
writeSection('monitoring', `
## Monitoring: 7 years of history in tiers, and a collection round (\`bench/monitoring.ts\`)

${machine()}; SQLite; one process. **The machine was busy**: load average ${load0.map((x) => x.toFixed(1)).join(' / ')} at the start, ${load1.map((x) => x.toFixed(1)).join(' / ')} at the end (other workers' tests and builds share its 2 cores), so every figure is pessimistic and noisy.

History of ${SERVERS} servers over ${YEARS} years, written as the collector and rollups leave it: ${rows.minute.toLocaleString('en')} minute rows (14 days), ${rows.hour.toLocaleString('en')} hour rows (14 days to 2 years back), ${rows.day.toLocaleString('en')} day rows (before that); one more server with ${rows.raw.toLocaleString('en')} raw minute rows over the whole 7 years for the comparison. Generated in ${f(genMs / 1000)} s; the store's rollup then made hours, days and weeks in ${f(rollupMs / 1000)} s (${rolled.hour.toLocaleString('en')} hour, ${rolled.day.toLocaleString('en')} day, ${rolled.week.toLocaleString('en')} week rows). Tables after it: minutes ${counts.minute.toLocaleString('en')}, hours ${counts.hour.toLocaleString('en')}, days ${counts.day.toLocaleString('en')}, weeks ${counts.week.toLocaleString('en')}.

| 3628800-minute (7-year) query | p50 | p95 | goal |
|---|---|---|---|
| \`monitoring.getSeries\` over HTTP, one server (tier ${tiered.tier}, ${tiered.points.length} points), ${QUERIES} requests one at a time | ${f(p50)} ms | ${f(p95)} ms | p95 < 100 ms: ${p95 < 100 ? 'met' : '**missed**'} |
| \`GET /monitoring/srv/chart?type=9\` over HTTP, all ${chartItems} servers in one answer | ${f(percentile(tChart, 0.5))} ms | ${f(percentile(tChart, 0.95))} ms | |
| the same week buckets from raw minutes (GROUP BY over one server's ${rows.raw.toLocaleString('en')} minute rows, in-process SQL, 5 runs) | ${f(rawP50)} ms | ${f(percentile(tRaw, 0.95))} ms | |

Tiers vs raw, one server, p50 against p50: **${f(rawP50 / p50)}x faster** (goal at least 20x: ${rawP50 / p50 >= 20 ? 'met' : '**missed**'}); the raw figure leaves out HTTP, the tiered one includes it. The two answers were compared bucket by bucket (avg, min, max within 0.002): ${mismatches} of ${rawAnswer.length} week buckets differ.

| collection round, ${SERVERS} server rows on one loopback OpenSSH, concurrency 10, pool ${collector.poolLimit} | wall time | read ok | connections |
|---|---|---|---|
| cold (every connection new) | ${f(cold / 1000)} s | ${okCold}/${SERVERS} | ${connectsCold} opened, peak ${peakCold} open at once |
| warm (pooled connections reused) | ${f(warm / 1000)} s | ${okWarm}/${SERVERS} | ${reusedWarm} reused, peak ${collector.stats.peak} open at once |

Each round also writes its minute rows and runs the incremental rollup. Total bench time ${f((Date.now() - t0) / 1000)} s.
`);
process.exit(0);
