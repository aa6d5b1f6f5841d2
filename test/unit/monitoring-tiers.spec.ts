/**
 * Monitoring tiers on a real database (SQLite in memory, or a fresh MariaDB database when
 * TEST_DATABASE_URL is set) over a simulated clock: minute rows written hour by hour with rollups in
 * between give the right min/avg/max/samples in the hour, day and week tiers (against the same figures
 * computed here from the minutes); rollups never rescan; reads merge the newest, not yet rolled-up
 * buckets from the finer tiers; pruning keeps each tier's window and never removes what is not rolled
 * up. Also the tier choice, bucket bounds and the collector's parsing.
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { createConnection } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { MONITOR_MAX_POINTS, MONITOR_QUALITIES, MONITOR_RANGES, type MonitorTier } from '../../src/contracts/monitoring.js';
import { MIGRATIONS } from '../../src/core/database/migrations/index.js';
import { cpuBusyPct, parseCollect } from '../../src/modules/monitoring/monitoring-collector.service.js';
import { bucketCount, bucketOf, MonitoringStore, TIER_MINUTES, tierFor, type MinuteRow } from '../../src/modules/monitoring/monitoring-store.service.js';

const T0 = Date.UTC(2024, 0, 1) / 60_000; // a Monday, 00:00 UTC, as an epoch minute
const DAYS = 16;
const IDS = [1, 2];
const RET = { minute: 14, hour: 730, day: 0, week: 0 };

let ds: DataSource;
let drop: (() => Promise<void>) | undefined;
let nowMin = T0;
const store = (ret: Record<MonitorTier, number> = RET) => new MonitoringStore(ds, { monitoring: { retentionDays: ret } } as never, () => nowMin * 60_000);

/** The la1 value written for a server and minute; null (a gap) every 37th minute. */
const la1 = (id: number, ts: number) => (ts % 37 === 0 ? null : ((ts * 7 + id * 13) % 101) / 10);
const cores = (id: number, ts: number) => (ts % 37 === 0 ? null : 1 + ((ts + id) % 8));

beforeAll(async () => {
  if (process.env.TEST_DATABASE_URL) {
    const u = new URL(process.env.TEST_DATABASE_URL.replace(/^mariadb:/, 'mysql:'));
    const name = `mont_${randomBytes(4).toString('hex')}`;
    const opts = { host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username), password: decodeURIComponent(u.password) };
    const c = await createConnection(opts);
    await c.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await c.end();
    u.pathname = `/${name}`;
    ds = new DataSource({ type: 'mariadb', url: u.toString(), timezone: 'Z', migrations: MIGRATIONS });
    drop = async () => {
      const d = await createConnection(opts);
      await d.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await d.end();
    };
  } else ds = new DataSource({ type: 'better-sqlite3', database: ':memory:', migrations: MIGRATIONS });
  await ds.initialize();
  await ds.runMigrations();
}, 60_000);
afterAll(async () => {
  await ds?.destroy();
  await drop?.();
});

type Exp = { min: number; max: number; sum: number; n: number };
function expected(tier: MonitorTier, metric: (id: number, ts: number) => number | null, until: number) {
  const out = new Map<string, Exp>();
  for (const id of IDS) {
    for (let ts = T0; ts < until; ts++) {
      const key = `${id}|${bucketOf(tier, ts)}`;
      const v = metric(id, ts);
      const e = out.get(key) ?? { min: Infinity, max: -Infinity, sum: 0, n: 0 };
      if (v !== null) { e.min = Math.min(e.min, v); e.max = Math.max(e.max, v); e.sum += v; e.n++; }
      out.set(key, e);
    }
  }
  return out;
}

describe(`monitoring tiers (${process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite'})`, () => {
  test('tier choice: automatic per range, quality as the floor, never more than 2,000 buckets', () => {
    const auto = MONITOR_RANGES.map((r) => `${r}:${tierFor(r, undefined, RET, T0)}`);
    expect(auto).toEqual(['180:minute', '720:minute', '1440:minute', '10080:hour', '302400:day', '907200:day', '1814400:day', '3628800:week']);
    expect(tierFor(3628800, 0, RET, T0)).toBe('week'); // minutes asked, but 3.6M points: coarsened
    expect(tierFor(180, 1, RET, T0)).toBe('day');
    expect(tierFor(10080, 3, RET, T0)).toBe('week');
    expect(tierFor(1440, undefined, { ...RET, minute: 0.5 }, T0)).toBe('hour'); // minutes not kept a whole day
    for (const r of MONITOR_RANGES) {
      for (const q of [undefined, ...MONITOR_QUALITIES]) {
        for (const now of [T0, T0 + 59, T0 + 1439, T0 + 5 * 1440 + 17]) expect(bucketCount(tierFor(r, q, RET, now), now - r, now)).toBeLessThanOrEqual(MONITOR_MAX_POINTS);
      }
    }
    expect(bucketOf('week', T0 + 3 * 1440 + 5)).toBe(T0); // Monday
    expect(bucketOf('week', T0 - 1)).toBe(T0 - TIER_MINUTES.week);
    expect(bucketOf('hour', T0 + 61)).toBe(T0 + 60);
  });

  test('rollups over a simulated clock: min, avg, max and samples per tier; incremental; reads merge the newest buckets', async () => {
    const s = store();
    const STEP = 180; // write 3 hours of minutes, then roll up
    const end = T0 + DAYS * 1440 + 7 * 60 + 30; // mid-hour of day 17
    for (let from = T0; from < end; from += STEP) {
      const rows: MinuteRow[] = [];
      for (const id of IDS) {
        for (let ts = from; ts < Math.min(end, from + STEP); ts++) {
          const v = la1(id, ts);
          rows.push({ server_id: id, ts, la1: v, la5: v === null ? null : v / 2, la15: v, procs_running: v === null ? null : 1, procs_total: v === null ? null : 100, cores: cores(id, ts), mem_used_pct: v, cpu_busy_pct: null });
        }
      }
      await s.writeMinutes(rows);
      nowMin = Math.min(end, from + STEP);
      await s.rollup();
    }
    const wm = await s.watermarks();
    expect(wm.hour).toBe(bucketOf('hour', end - 2)); // grace of 2 minutes; the hour going on is not final
    expect(wm.day).toBe(bucketOf('day', end));
    expect(wm.week).toBe(bucketOf('week', end));

    for (const tier of ['hour', 'day', 'week'] as const) {
      const table = { hour: 'mon_hours', day: 'mon_days', week: 'mon_weeks' }[tier];
      const rows = (await ds.query(`SELECT server_id, ts, la1_min, la1_avg, la1_max, la1_n, cores_min, cores_avg, cores_max, cores_n FROM ${table} ORDER BY server_id, ts`)) as any[];
      const exp = expected(tier, la1, wm[tier]!);
      const expCores = expected(tier, cores, wm[tier]!);
      expect(rows.length).toBe(exp.size);
      for (const r of rows) {
        const e = exp.get(`${r.server_id}|${r.ts}`)!;
        expect(e).toBeDefined();
        expect(Number(r.la1_n)).toBe(e.n);
        expect(Number(r.la1_min)).toBeCloseTo(e.min, 4);
        expect(Number(r.la1_max)).toBeCloseTo(e.max, 4);
        expect(Number(r.la1_avg)).toBeCloseTo(e.sum / e.n, 4);
        const c = expCores.get(`${r.server_id}|${r.ts}`)!;
        expect([Number(r.cores_min), Number(r.cores_max), Number(r.cores_n)]).toEqual([c.min, c.max, c.n]);
        expect(Number(r.cores_avg)).toBeCloseTo(c.sum / c.n, 4);
      }
    }
    expect((await s.counts()).week).toBe(2 * IDS.length); // the two complete weeks; the third is going on
  });

  test('rollups never rescan: a minute written behind the watermark changes nothing; a second rollup writes nothing', async () => {
    const s = store();
    const before = (await ds.query('SELECT la1_min, la1_max, la1_n FROM mon_hours WHERE server_id = 1 AND ts = ?', [T0])) as any[];
    await s.writeMinutes([{ server_id: 1, ts: T0 + 37, la1: 99, la5: 99, la15: 99, procs_running: 1, procs_total: 1, cores: 1, mem_used_pct: 1, cpu_busy_pct: 1 }]);
    expect(await s.rollup()).toEqual({ hour: 0, day: 0, week: 0 });
    expect(await ds.query('SELECT la1_min, la1_max, la1_n FROM mon_hours WHERE server_id = 1 AND ts = ?', [T0])).toEqual(before);
    await s.writeMinutes([{ server_id: 1, ts: T0 + 37, la1: null, la5: null, la15: null, procs_running: null, procs_total: null, cores: null, mem_used_pct: null, cpu_busy_pct: null }]);
  });

  test('reads: stored buckets before the watermark, the newest made from finer tiers; equal to the figures from the minutes', async () => {
    const s = store();
    const end = nowMin;
    for (const tier of ['minute', 'hour', 'day', 'week'] as const) {
      const rows = await s.read(tier, IDS, 'la1', T0, end);
      const exp = expected(tier, (id, ts) => (id === 1 && ts === T0 + 37 ? 99 : la1(id, ts)), end); // minutes were written up to end - 1
      // the minute tier answers the gap minutes as rows with n 0 (null); every bucket up to now is there
      expect(rows.length).toBe(exp.size);
      const bad: string[] = [];
      const near = (a: number | null, b: number) => a !== null && Math.abs(a - b) < 1e-4;
      for (const r of rows) {
        const e = exp.get(`${r.server_id}|${r.ts}`);
        if (!e) { bad.push(`${tier} ${r.server_id}|${r.ts}: not expected`); continue; }
        // the bucket of the late minute was rolled up before it came: kept as it was
        if (tier !== 'minute' && r.server_id === 1 && r.ts === bucketOf(tier, T0)) continue;
        const ok = r.m.n === e.n && (e.n ? near(r.m.min, e.min) && near(r.m.max, e.max) && near(r.m.avg, e.sum / e.n) : r.m.avg === null);
        if (!ok) bad.push(`${tier} ${r.server_id}|${r.ts}: ${JSON.stringify(r.m)} vs ${JSON.stringify(e)}`);
      }
      expect(bad.slice(0, 5)).toEqual([]);
    }
    // the week going on (not rolled up yet) is there, made from days, hours and minutes
    const weeks = await s.read('week', [2], 'la1', T0, end);
    expect(weeks.map((w) => w.ts)).toEqual([T0, T0 + 7 * 1440, T0 + 14 * 1440]);
    expect(weeks[2].m.n).toBe(expected("week", la1, end).get(`2|${T0 + 14 * 1440}`)!.n);
  });

  test('pruning keeps each tier its window and never removes rows a coarser tier has not rolled up', async () => {
    const s = store({ minute: 2, hour: 7, day: 0, week: 0 });
    const counts = await s.counts();
    const removed = await s.prune();
    const after = await s.counts();
    const minTs = async (t: string) => Number(((await ds.query(`SELECT MIN(ts) AS ts FROM ${t}`)) as any[])[0].ts);
    expect(await minTs('mon_minutes')).toBeGreaterThanOrEqual(nowMin - 2 * 1440);
    expect(await minTs('mon_minutes')).toBeLessThan(nowMin - 2 * 1440 + 60);
    expect(await minTs('mon_hours')).toBeGreaterThanOrEqual(nowMin - 7 * 1440);
    expect(await minTs('mon_hours')).toBeLessThan(nowMin - 7 * 1440 + 60);
    expect(await minTs('mon_days')).toBe(T0);
    expect(await minTs('mon_weeks')).toBe(T0);
    expect(after.day).toBe(counts.day);
    expect(after.week).toBe(counts.week);
    expect(counts.minute - after.minute).toBe(removed.minute);
    expect(counts.hour - after.hour).toBe(removed.hour);
    expect(removed.minute).toBeGreaterThan(0);

    // a lagging rollup: with the hour watermark held back, minutes past it stay whatever their age
    await ds.query("UPDATE mon_rollups SET done_until = ? WHERE tier = 'hour'", [nowMin - 3 * 1440]);
    const keep = await minTs('mon_minutes');
    const lag = store({ minute: 1, hour: 7, day: 0, week: 0 });
    await lag.prune();
    expect(await minTs('mon_minutes')).toBe(keep);
  });

  test('the collector reads /proc output; CPU busy share from two readings', () => {
    const out = '0.52 0.58 0.59 2/345 12345\n4\nMemTotal:        8000000 kB\nMemAvailable:    6000000 kB\ncpu  100 0 100 700 100 0 0 0 0 0\n';
    const p = parseCollect(out);
    expect(p.sample).toEqual({ la1: 0.52, la5: 0.58, la15: 0.59, procs_running: 2, procs_total: 345, cores: 4, mem_used_pct: 25 });
    expect(p.cpu).toEqual({ busy: 200, total: 1000 });
    expect(cpuBusyPct(undefined, p.cpu)).toBeNull();
    expect(cpuBusyPct({ busy: 100, total: 600 }, p.cpu)).toBe(25);
    expect(cpuBusyPct({ busy: 300, total: 2000 }, p.cpu)).toBeNull(); // counters went back: a reboot
    expect(() => parseCollect('sh: 1: cat: not found')).toThrow(/no \/proc\/loadavg/);
  });
});
