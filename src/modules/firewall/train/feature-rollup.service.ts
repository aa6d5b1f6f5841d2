/**
 * The rollup of the neural score's feature counters (docs/firewall.md "Feature counters"): fw_access_log
 * rows counted per (host, minute, address) into fw_ip_feature_minutes up to a watermark Id (fw_settings
 * row `feature_rollup_id`), the same way as the traffic report's summary (firewall-traffic.service.ts):
 * compare-and-set on the watermark, 20,000 Ids per transaction, on MariaDB only Ids seen a minute ago
 * (id-rollup.ts, shared with the traffic rollup). The counting itself (SQL and JS) is ip-features.ts's (rollupChunkSteps), the same
 * code that counts loadFeatures's raw tail. Called by the traffic job every minute
 * (FirewallTrafficService.scheduledRollup), then pruned down to what retention left of the raw rows. Each
 * run also moves the per-address sums (fw_ip_feature_sums) along with the scoring window.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../../../config/config.js';
import { BOOK_URL_CONFIG_TYPE, DEFAULT_BOOK_URL_PATTERN } from '../../../contracts/firewall.js';
import { CfgConfigsService } from '../../cfg-configs/cfg-configs.service.js';
import {
  advanceSumsSteps, ensureSettingSteps, FEATURE_ROLLUP_SETTING, resetOnPatternSteps, rollupChunkSteps, runAsync, runSync, SUMS_LAG_MINUTES, windowMinutes,
  type Step, type Steps,
} from './ip-features.js';
import { ROLLUP_CHUNK_IDS, ROLLUP_SETTLE_MS, Serial, SettleWindow, type SqliteHandle, type SqliteStatement } from '../traffic/id-rollup.js';

/** Minutes of counters removed per statement when pruning. */
const PRUNE_STEP_MINUTES = 5;

const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));

@Injectable()
export class FeatureRollupService {
  private readonly log = new Logger('FeatureRollup');
  readonly dialect: 'sqlite' | 'mariadb';
  private readonly settle = new SettleWindow();
  private readonly serial = new Serial();
  private readonly stmts = new Map<string, SqliteStatement>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly configs: CfgConfigsService,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {
    this.dialect = db.options.type === 'better-sqlite3' ? 'sqlite' : 'mariadb';
  }

  private q<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.db.query(sql, params) as Promise<T[]>;
  }

  /** The book URL pattern of the cluster config (as FirewallTrafficService.bookPattern; an invalid one: the default). */
  async bookPattern(): Promise<RegExp> {
    const value = (await this.configs.firstValue(BOOK_URL_CONFIG_TYPE))?.trim() || DEFAULT_BOOK_URL_PATTERN;
    try {
      return new RegExp(value);
    } catch {
      return new RegExp(DEFAULT_BOOK_URL_PATTERN);
    }
  }

  /** The highest fw_access_log Id counted (0: none). */
  async watermark(): Promise<number> {
    const [row] = await this.q<{ value: string }>('SELECT value FROM fw_settings WHERE name = ?', [FEATURE_ROLLUP_SETTING]);
    return row ? Number(row.value) || 0 : 0;
  }

  /**
   * Counts new fw_access_log rows into fw_ip_feature_minutes, ROLLUP_CHUNK_IDS Ids per transaction, then
   * moves the sums' cut with the window of `now` (epoch seconds, default the clock); answers the Ids covered.
   */
  rollup(opts: { settleMs?: number; chunkIds?: number; now?: number } = {}): Promise<{ from: number; to: number }> {
    // one at a time per process; a second call waits for the first and runs after it
    return this.serial.run(() => this.rollupNow(opts.settleMs ?? (this.dialect === 'sqlite' ? 0 : ROLLUP_SETTLE_MS), opts.chunkIds ?? ROLLUP_CHUNK_IDS, opts.now));
  }

  private async rollupNow(settleMs: number, chunkIds: number, now?: number): Promise<{ from: number; to: number }> {
    const pattern = await this.bookPattern();
    await this.transaction(ensureSettingSteps(this.dialect));
    if (await this.transaction(resetOnPatternSteps(pattern))) this.log.log('book pattern changed: feature counters are counted again');
    const [m] = await this.q<{ m: unknown }>('SELECT MAX(Id) AS m FROM fw_access_log');
    const target = this.settle.settled(num(m?.m), settleMs);
    const start = await this.watermark();
    let from = start;
    while (from < target) {
      const to = Math.min(target, from + chunkIds);
      if (!(await this.transaction(rollupChunkSteps(this.dialect, from, to, pattern)))) break;
      from = to;
      await new Promise((r) => setImmediate(r));
    }
    // the per-address sums follow the window (ip-features.ts "Sums")
    await this.transaction(advanceSumsSteps(windowMinutes({ now }).first - SUMS_LAG_MINUTES));
    return { from: start, to: from };
  }

  /** Runs step functions in one transaction: SQLite synchronously on the raw handle, MariaDB READ COMMITTED (no gap locks holding up the store). */
  private async transaction<T>(steps: Steps<T>): Promise<T> {
    if (this.dialect === 'sqlite') {
      const raw = (this.db.driver as unknown as { databaseConnection: SqliteHandle }).databaseConnection;
      return raw.transaction(() => runSync(steps, (s: Step) => (s.write ? this.stmt(raw, s.sql).run(...s.params).changes : this.stmt(raw, s.sql).all(...s.params))))();
    }
    const qr = this.db.createQueryRunner();
    try {
      await qr.connect();
      await qr.startTransaction('READ COMMITTED');
      try {
        const out = await runAsync(steps, async (s: Step) => {
          const r = await qr.query(s.sql, s.params, true);
          return s.write ? (r.affected ?? 0) : r.records;
        });
        await qr.commitTransaction();
        return out;
      } catch (e) {
        await qr.rollbackTransaction().catch(() => undefined);
        throw e;
      }
    } finally {
      await qr.release();
    }
  }

  private stmt(raw: SqliteHandle, sql: string) {
    let st = this.stmts.get(sql);
    if (!st) {
      st = raw.prepare(sql);
      this.stmts.set(sql, st);
      if (this.stmts.size > 50) this.stmts.delete(this.stmts.keys().next().value!);
    }
    return st;
  }

  /**
   * Counter minutes before the oldest stored line's minute are gone from the raw rows too (retention):
   * removed, PRUNE_STEP_MINUTES minutes per statement. Answers the rows removed.
   */
  async prune(): Promise<number> {
    const [row] = await this.q<{ s: unknown }>('SELECT MIN(stime) AS s FROM fw_access_log');
    const before = row?.s === null || row?.s === undefined ? Math.floor(Date.now() / 60_000) : Math.floor(Number(row.s) / 60);
    // sums over minutes about to go are made anew from what stays (a cut before `before` is left as it is)
    await this.transaction(advanceSumsSteps(before, { onlyIfSet: true }));
    const [old] = await this.q<{ m: unknown }>('SELECT MIN(minute) AS m FROM fw_ip_feature_minutes');
    if (old?.m === null || old?.m === undefined) return 0;
    let removed = 0;
    for (let upTo = Number(old.m) + PRUNE_STEP_MINUTES; ; upTo += PRUNE_STEP_MINUTES) {
      const bound = Math.min(upTo, before);
      const r = await this.db.createQueryBuilder().delete().from('fw_ip_feature_minutes').where('minute < :bound', { bound }).execute();
      removed += r.affected ?? 0;
      if (bound >= before) return removed;
      await new Promise((r) => setImmediate(r));
    }
  }

  /** The job's step (where CRON_ENABLED is on): rollup, then prune. Failures are logged, never thrown. */
  async scheduledRollup(): Promise<void> {
    if (!this.cfg.cronEnabled) return;
    try {
      await this.rollup();
      await this.prune();
    } catch (e) {
      this.log.warn(`feature rollup failed: ${(e as Error).message}`);
    }
  }
}
