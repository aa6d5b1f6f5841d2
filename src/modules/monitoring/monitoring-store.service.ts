/**
 * The monitoring tiers (docs/monitoring.md "Tiers"): raw minute rows written by the collector, rolled
 * up into hour, day and week rows that keep min, avg, max and the sample count per metric. Rollups are
 * incremental: each rollup tier has a watermark (`mon_rollups.done_until`, an epoch minute): every
 * bucket before it is final, and a rollup reads only the source rows from the watermark to the last
 * complete bucket, writes those buckets and moves the watermark in one transaction (never a rescan).
 * Pruning removes rows older than each tier's retention, never rows a coarser tier has not rolled up yet.
 *
 * Reads pick a tier (tierFor) and answer the stored buckets before the tier's watermark plus the
 * buckets after it made on the fly from the next finer tier (itself read the same way), so the newest
 * hour, day or week is never missing and never more than a few dozen finer rows are merged in memory.
 *
 * Time is an epoch minute everywhere (`ts`); the clock is injected (MONITOR_CLOCK) so tests can run
 * rollups and pruning over a simulated clock. Plain SQL on the DataSource: the same statements run on
 * SQLite and MariaDB, except the minute upsert (dialect clause).
 */
import { Inject, Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { deleteBelow } from '../../core/database/prune.js';
import {
  MONITOR_MAX_POINTS, MONITOR_METRICS, MONITOR_TIERS, QUALITY_TIER, TIER_SECONDS,
  type MonitorMetric, type MonitorQuality, type MonitorTier,
} from '../../contracts/monitoring.js';

/** Injection token of the clock (epoch ms); Date.now unless a test gives its own. */
export const MONITOR_CLOCK = Symbol('MONITOR_CLOCK');
export type Clock = () => number;

/** Minutes per bucket of each tier. */
export const TIER_MINUTES: Record<MonitorTier, number> = {
  minute: TIER_SECONDS.minute / 60, hour: TIER_SECONDS.hour / 60, day: TIER_SECONDS.day / 60, week: TIER_SECONDS.week / 60,
};
/** Weeks start on Monday 00:00 UTC: epoch minute 0 was a Thursday, the first Monday is 4 days later. */
export const WEEK_OFFSET_MIN = 4 * 1440;
export const TABLE: Record<MonitorTier, string> = { minute: 'mon_minutes', hour: 'mon_hours', day: 'mon_days', week: 'mon_weeks' };
/** The tier each rollup tier is made from. */
export const SOURCE: Record<Exclude<MonitorTier, 'minute'>, MonitorTier> = { hour: 'minute', day: 'hour', week: 'day' };
const ROLLUP_TIERS = ['hour', 'day', 'week'] as const;
type RollupTier = (typeof ROLLUP_TIERS)[number];
/** A minute is rolled up into its hour this long after the hour ends (a late round's row still counts). */
export const ROLLUP_GRACE_MIN = 2;
/** Source rows of a rollup per transaction at most, measured in buckets of the target tier. */
const ROLLUP_STEP_BUCKETS: Record<RollupTier, number> = { hour: 24 * 7, day: 31 * 3, week: 52 };
/** Rows per multi-row INSERT. */
const SLICE = 200;
/** Minutes removed per DELETE statement window by pruning. */
const PRUNE_WINDOW_MIN = 1440;

/** The start of the bucket of `tier` holding epoch minute `ts`. */
export function bucketOf(tier: MonitorTier, ts: number): number {
  const size = TIER_MINUTES[tier];
  const off = tier === 'week' ? WEEK_OFFSET_MIN : 0;
  return ts - ((((ts - off) % size) + size) % size);
}

/** Buckets of `tier` touched by [from, to] (epoch minutes, both ends inclusive). */
export function bucketCount(tier: MonitorTier, from: number, to: number): number {
  return Math.max(0, (bucketOf(tier, to) - bucketOf(tier, from)) / TIER_MINUTES[tier] + 1);
}

/**
 * The tier a range is read from: the quality's tier (or the minute tier when none is asked), made
 * coarser while its bucket count over the range would pass MONITOR_MAX_POINTS; without a quality also
 * while the tier's retention does not reach back over the whole range. The week tier always fits (7
 * years are 366 weeks); past 2,000 weeks the caller buckets further (see coarsen).
 */
export function tierFor(rangeMinutes: number, quality: MonitorQuality | undefined, retentionDays: Record<MonitorTier, number>, nowMin = 0): MonitorTier {
  const start = quality === undefined ? 0 : MONITOR_TIERS.indexOf(QUALITY_TIER[quality]);
  for (let i = start; i < MONITOR_TIERS.length; i++) {
    const t = MONITOR_TIERS[i];
    const fits = bucketCount(t, nowMin - rangeMinutes, nowMin) <= MONITOR_MAX_POINTS;
    const kept = quality !== undefined || !retentionDays[t] || retentionDays[t] * 1440 >= rangeMinutes;
    if (fits && kept) return t;
  }
  return 'week';
}

/** One metric of one bucket: min, avg, max and how many minute samples were read (0: a gap, all null). */
export interface Agg {
  min: number | null;
  avg: number | null;
  max: number | null;
  n: number;
}
/** A bucket of one server: the aggregates of the metrics read. */
export interface BucketRow {
  server_id: number;
  ts: number;
  m: Agg;
}

/** What the collector writes per server and minute (null: not read). */
export type MinuteSample = Record<MonitorMetric, number | null>;
export interface MinuteRow extends MinuteSample {
  server_id: number;
  ts: number;
}

/** One row of a rollup tier as stored: every metric's min, avg, max and n. */
export interface RollupRow {
  server_id: number;
  ts: number;
  aggs: Record<MonitorMetric, Agg>;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
/** Adds bucket `a` into `into` (min of mins, max of maxes, mean weighted by samples). */
export const mergeAgg = (into: Agg, a: Agg) => {
  if (!a.n || a.avg === null) return;
  into.min = into.min === null || (a.min !== null && a.min < into.min) ? a.min : into.min;
  into.max = into.max === null || (a.max !== null && a.max > into.max) ? a.max : into.max;
  into.avg = ((into.avg ?? 0) * into.n + a.avg * a.n) / (into.n + a.n);
  into.n += a.n;
};

/** Columns of a rollup table in insert order. */
const ROLLUP_COLS = ['server_id', 'ts', ...MONITOR_METRICS.flatMap((m) => [`${m}_min`, `${m}_avg`, `${m}_max`, `${m}_n`])];
const MINUTE_COLS = ['server_id', 'ts', ...MONITOR_METRICS];

@Injectable()
export class MonitoringStore {
  readonly dialect: 'sqlite' | 'mariadb';
  private readonly clock: Clock;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly cfg: Pick<AppConfig, 'monitoring'>,
    @Optional() @Inject(MONITOR_CLOCK) clock?: Clock,
  ) {
    this.dialect = db.options.type === 'better-sqlite3' ? 'sqlite' : 'mariadb';
    this.clock = clock ?? Date.now;
  }

  /** The current epoch minute (of the injected clock). */
  nowMin(): number {
    return Math.floor(this.clock() / 60_000);
  }

  get retentionDays(): Record<MonitorTier, number> {
    return this.cfg.monitoring.retentionDays;
  }

  // ------------------------------------------------------------------------------------------
  // Writing

  /**
   * Stores minute rows (one per server and round). A second write of the same server and minute (a
   * round by hand in the same minute) keeps the values it read over the ones it could not read.
   */
  async writeMinutes(rows: MinuteRow[], runner: { query: DataSource['query'] } = this.db): Promise<void> {
    const conflict = this.dialect === 'sqlite'
      ? ` ON CONFLICT (server_id, ts) DO UPDATE SET ${MONITOR_METRICS.map((m) => `${m} = COALESCE(excluded.${m}, mon_minutes.${m})`).join(', ')}`
      : ` ON DUPLICATE KEY UPDATE ${MONITOR_METRICS.map((m) => `${m} = COALESCE(VALUES(${m}), ${m})`).join(', ')}`;
    for (let i = 0; i < rows.length; i += SLICE) {
      const part = rows.slice(i, i + SLICE);
      const params: unknown[] = [];
      for (const r of part) params.push(r.server_id, r.ts, ...MONITOR_METRICS.map((m) => r[m]));
      const ph = `(${MINUTE_COLS.map(() => '?').join(', ')})`;
      await runner.query(`INSERT INTO mon_minutes (${MINUTE_COLS.join(', ')}) VALUES ${part.map(() => ph).join(', ')}${conflict}`, params);
    }
  }

  /** Stores rollup rows as they are (the rollup's own format; the bench generates history with it). */
  async writeRollupRows(tier: RollupTier, rows: RollupRow[], runner: { query: DataSource['query'] } = this.db): Promise<void> {
    for (let i = 0; i < rows.length; i += SLICE) {
      const part = rows.slice(i, i + SLICE);
      const params: unknown[] = [];
      for (const r of part) {
        params.push(r.server_id, r.ts);
        for (const m of MONITOR_METRICS) {
          const a = r.aggs[m];
          params.push(a.min, a.avg, a.max, a.n);
        }
      }
      const ph = `(${ROLLUP_COLS.map(() => '?').join(', ')})`;
      await runner.query(`INSERT INTO ${TABLE[tier]} (${ROLLUP_COLS.join(', ')}) VALUES ${part.map(() => ph).join(', ')}`, params);
    }
  }

  // ------------------------------------------------------------------------------------------
  // Rollups

  async watermark(tier: RollupTier): Promise<number | null> {
    const r = (await this.db.query('SELECT done_until FROM mon_rollups WHERE tier = ?', [tier])) as Array<{ done_until: unknown }>;
    return r.length ? Number(r[0].done_until) : null;
  }

  async watermarks(): Promise<Record<RollupTier, number | null>> {
    const rows = (await this.db.query('SELECT tier, done_until FROM mon_rollups')) as Array<{ tier: string; done_until: unknown }>;
    const out = { hour: null, day: null, week: null } as Record<RollupTier, number | null>;
    for (const r of rows) if (r.tier in out) out[r.tier as RollupTier] = Number(r.done_until);
    return out;
  }

  /**
   * Rolls every tier up to its last complete bucket (hours, then days from hours, then weeks from
   * days). Answers the buckets written per tier. Call it from one instance at a time (the collector's lease).
   */
  async rollup(): Promise<Record<RollupTier, number>> {
    const out = { hour: 0, day: 0, week: 0 };
    for (const tier of ROLLUP_TIERS) out[tier] = await this.rollupTier(tier);
    return out;
  }

  private async rollupTier(tier: RollupTier): Promise<number> {
    const src = SOURCE[tier];
    const size = TIER_MINUTES[tier];
    // complete buckets only; a coarser tier never passes what its source has made final
    let upTo = bucketOf(tier, this.nowMin() - ROLLUP_GRACE_MIN);
    if (src !== 'minute') {
      const srcWm = await this.watermark(src as RollupTier);
      if (srcWm === null) return 0;
      upTo = Math.min(upTo, bucketOf(tier, srcWm));
    }
    let from = await this.watermark(tier);
    if (from === null) {
      const first = (await this.db.query(`SELECT MIN(ts) AS ts FROM ${TABLE[src]}`)) as Array<{ ts: unknown }>;
      const ts = num(first[0]?.ts);
      from = ts === null ? upTo : bucketOf(tier, ts);
      await this.setWatermark(tier, from, true);
    }
    let written = 0;
    while (from < upTo) {
      const stop = Math.min(upTo, from + ROLLUP_STEP_BUCKETS[tier] * size); // from is a bucket start: so is stop
      written += await this.rollupRange(tier, from, stop);
      from = stop;
    }
    return written;
  }

  /** One transaction: buckets of [from, to) made from the source tier (replacing any stored), and the watermark moved to `to`. */
  private async rollupRange(tier: RollupTier, from: number, to: number): Promise<number> {
    const src = SOURCE[tier];
    const bucket = tier === 'week' ? `(ts - ((ts - ${WEEK_OFFSET_MIN}) % ${TIER_MINUTES.week}))` : `(ts - (ts % ${TIER_MINUTES[tier]}))`;
    const aggs = MONITOR_METRICS.map((m) =>
      src === 'minute'
        ? `MIN(${m}), AVG(${m}), MAX(${m}), COUNT(${m})`
        : `MIN(${m}_min), SUM(${m}_avg * ${m}_n) / NULLIF(SUM(${m}_n), 0), MAX(${m}_max), SUM(${m}_n)`,
    ).join(', ');
    const runner = this.db.createQueryRunner();
    try {
      await runner.connect();
      await runner.startTransaction();
      // REPLACE (both dialects): a bucket made again (a rebuild after the watermarks were forgotten)
      // replaces the stored one; stored buckets of servers without source rows here stay as they are.
      const r = await runner.query(
        `REPLACE INTO ${TABLE[tier]} (${ROLLUP_COLS.join(', ')}) SELECT server_id, ${bucket} AS b, ${aggs} FROM ${TABLE[src]} WHERE ts >= ? AND ts < ? GROUP BY server_id, b`,
        [from, to], true,
      );
      await runner.query('UPDATE mon_rollups SET done_until = ? WHERE tier = ?', [to, tier]);
      await runner.commitTransaction();
      return Number((r as { affected?: number }).affected ?? 0);
    } catch (err) {
      await runner.rollbackTransaction().catch(() => undefined);
      throw err;
    } finally {
      await runner.release();
    }
  }

  /** Sets a tier's watermark (insert when `create`); the bench uses it after writing generated history. */
  async setWatermark(tier: RollupTier, doneUntil: number, create = false): Promise<void> {
    if (create) {
      try {
        await this.db.query('INSERT INTO mon_rollups (tier, done_until) VALUES (?, ?)', [tier, doneUntil]);
        return;
      } catch {
        /* made meanwhile: update */
      }
    }
    await this.db.query('UPDATE mon_rollups SET done_until = ? WHERE tier = ?', [doneUntil, tier]);
  }

  // ------------------------------------------------------------------------------------------
  // Pruning

  /**
   * Removes each tier's rows older than its retention (days; 0 keeps forever), never a row its coarser
   * tier has not rolled up yet. Deletes in windows of a day of `ts` so one statement stays short.
   */
  async prune(): Promise<Record<MonitorTier, number>> {
    const out = { minute: 0, hour: 0, day: 0, week: 0 };
    const wm = await this.watermarks();
    const next: Record<MonitorTier, RollupTier | null> = { minute: 'hour', hour: 'day', day: 'week', week: null };
    for (const tier of MONITOR_TIERS) {
      const days = this.retentionDays[tier];
      if (!days) continue;
      let before = this.nowMin() - days * 1440;
      const coarser = next[tier];
      if (coarser) before = Math.min(before, wm[coarser] ?? -Infinity);
      if (!Number.isFinite(before)) continue;
      out[tier] = await deleteBelow(this.db, TABLE[tier], 'ts', before, PRUNE_WINDOW_MIN);
    }
    return out;
  }

  // ------------------------------------------------------------------------------------------
  // Reading

  /**
   * Buckets of `tier` for the servers over [from, to] (epoch minutes, inclusive), one metric, ordered by
   * server then time. Stored buckets before the tier's watermark; later ones made from the finer tier.
   */
  async read(tier: MonitorTier, ids: number[], metric: MonitorMetric, from: number, to: number): Promise<BucketRow[]> {
    if (!ids.length || to < from) return [];
    const out: BucketRow[] = [];
    const idList = ids.map((n) => Math.trunc(n)).join(', ');
    const start = bucketOf(tier, from);
    if (tier === 'minute') {
      const rows = (await this.db.query(`SELECT server_id, ts, ${metric} AS v FROM mon_minutes WHERE server_id IN (${idList}) AND ts >= ? AND ts <= ? ORDER BY server_id, ts`, [start, to])) as Array<Record<string, unknown>>;
      for (const r of rows) {
        const v = num(r.v);
        out.push({ server_id: Number(r.server_id), ts: Number(r.ts), m: { min: v, avg: v, max: v, n: v === null ? 0 : 1 } });
      }
      return out;
    }
    const wm = (await this.watermark(tier)) ?? start;
    if (start < wm) {
      const rows = (await this.db.query(
        `SELECT server_id, ts, ${metric}_min AS mn, ${metric}_avg AS av, ${metric}_max AS mx, ${metric}_n AS n FROM ${TABLE[tier]} WHERE server_id IN (${idList}) AND ts >= ? AND ts < ? AND ts <= ? ORDER BY server_id, ts`,
        [start, wm, to],
      )) as Array<Record<string, unknown>>;
      for (const r of rows) out.push({ server_id: Number(r.server_id), ts: Number(r.ts), m: { min: num(r.mn), avg: num(r.av), max: num(r.mx), n: Number(r.n) || 0 } });
    }
    if (to >= wm) {
      // the newest buckets (after the watermark): made now from the finer tier
      const finer = await this.read(SOURCE[tier as RollupTier], ids, metric, Math.max(wm, start), to);
      const tail = new Map<string, BucketRow>();
      for (const r of finer) {
        const b = bucketOf(tier, r.ts);
        const key = `${r.server_id}|${b}`;
        let row = tail.get(key);
        if (!row) tail.set(key, (row = { server_id: r.server_id, ts: b, m: { min: null, avg: null, max: null, n: 0 } }));
        mergeAgg(row.m, r.m);
      }
      out.push(...tail.values());
      out.sort((a, b) => a.server_id - b.server_id || a.ts - b.ts);
    }
    return out;
  }

  /** The latest minute row's value of `metric` per server, among rows since `sinceMin`. */
  async latest(metric: MonitorMetric, sinceMin: number): Promise<Map<number, number | null>> {
    const rows = (await this.db.query(
      `SELECT m.server_id AS server_id, m.${metric} AS v FROM mon_minutes m JOIN (SELECT server_id, MAX(ts) AS ts FROM mon_minutes WHERE ts >= ? GROUP BY server_id) l ON l.server_id = m.server_id AND l.ts = m.ts`,
      [sinceMin],
    )) as Array<Record<string, unknown>>;
    return new Map(rows.map((r) => [Number(r.server_id), num(r.v)]));
  }

  /** Rows per tier (tests, bench). */
  async counts(): Promise<Record<MonitorTier, number>> {
    const out = { minute: 0, hour: 0, day: 0, week: 0 };
    for (const t of MONITOR_TIERS) out[t] = Number(((await this.db.query(`SELECT COUNT(*) AS n FROM ${TABLE[t]}`)) as Array<{ n: unknown }>)[0].n);
    return out;
  }
}
