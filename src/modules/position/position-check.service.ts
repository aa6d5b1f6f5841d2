/**
 * Checking search positions (issue 23 "Checking"; docs/position.md "Checking"):
 *
 * - `tick()` (the position-check job, every minute, lease `position-check` so one instance spends the
 *   quota): takes the queries due (next_check_at reached, oldest first) and checks them through their
 *   project's source within the tick's request budget (schedule.ts), a few at a time; each good check
 *   moves the query to its slot in the next period. Once an hour it also removes history older than
 *   POSITION_RETENTION_DAYS.
 * - `position.checkNow {id_project}`: checks all of a project's queries now (paced by the same pacer).
 * - A good check writes the query's current position and the day's history row; "not in the top N" is
 *   a position of its own (null with its depth). A failed check writes nothing of the position: the
 *   last good one stays, marked stale with the time and the error, and is tried again later.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { LessThan } from 'typeorm';
import type { z } from 'zod';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { NOT_CONFIGURED, type NotConfigured } from '../../contracts/outside.js';
import { POSITION_MSG, PositionProjectArgs, type PositionCheckResult, type PositionStatus } from '../../contracts/position.js';
import { Role } from '../../contracts/roles.js';
import { auditTarget } from '../../core/audit/audit-target.js';
import { LeaseService } from '../../core/lease.service.js';
import { Rpc, type RpcContext } from '../../core/rpc/rpc.decorator.js';
import { PositionHistoryEntity, PositionQueryEntity } from './position.entities.js';
import { PositionService } from './position.service.js';
import { CLAIM_MS, dayMinus, dayOf, nextCheckAt, pagesFor, retryAt, TickBudget, tickBudget } from './schedule.js';

export const CHECK_LEASE = 'position-check';
export const CHECK_WORKER = 'position-check';
const LEASE_MS = 5 * 60_000;
/** Queries checked at once (the pacer keeps the service's per-second quota). */
export const CHECK_CONCURRENCY = 4;
/** Queries "check now" checks while the caller waits; a larger project's others are made due for the job at once. */
export const CHECK_NOW_MAX = 300;
const ERRORS_MAX = 10;
const RETENTION_EVERY_MS = 3_600_000;
const RETENTION_BATCH = 5000;

interface DueRow {
  id_query: number;
  id_project: number;
  query_text: string;
  domain: string;
  engine: string;
  region: number;
  depth: number;
  schedule_hours: number;
}

export interface TickResult {
  checked: number;
  failed: number;
  requests: number;
  budget: number;
  removed: number;
  errors: string[];
}

@Injectable()
export class PositionCheckService {
  private readonly log = new Logger('PositionCheck');
  private running: Promise<TickResult> | null = null;
  private lastRetention = 0;
  /** Queries checked while "check now" waits (tests lower it). */
  checkNowMax = CHECK_NOW_MAX;

  constructor(
    private readonly positions: PositionService,
    private readonly lease: LeaseService,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {}

  private get db() {
    return this.positions.db;
  }

  /** Claims a query for a check (not taken by another check for CLAIM_MS); false when someone else has it. */
  private async claim(id: number, now: number): Promise<boolean> {
    const r = await this.db.getRepository(PositionQueryEntity).update({ id_query: id, claim_until: LessThan(now) }, { claim_until: now + CLAIM_MS });
    return (r.affected ?? 0) > 0;
  }

  /** Checks one query; records the position or the stale mark. Answers the requests spent and the error, if any. */
  async checkOne(q: DueRow, opts: { signal?: AbortSignal; patient?: boolean } = {}): Promise<{ ok: boolean; requests: number; error?: string }> {
    const source = this.positions.source(q.engine);
    if (!source?.configured) return { ok: false, requests: 0, error: POSITION_MSG.notConfigured };
    const now = Date.now();
    if (!(await this.claim(q.id_query, now))) return { ok: false, requests: 0, error: 'being checked' };
    let requests = 0;
    try {
      const found = await source.find({ text: q.query_text, domain: q.domain, region: q.region, depth: q.depth }, opts);
      requests = found.requests;
      const done = Date.now();
      const day = dayOf(done);
      await this.db.query(
        'UPDATE position_queries SET checked = ?, pos = ?, pos_top = ?, pos_date = ?, stale = 0, error = NULL, error_at = 0, next_check_at = ?, claim_until = 0 WHERE id_query = ?',
        [done, found.pos, found.top, day, nextCheckAt(done, q.id_query, q.schedule_hours), q.id_query],
      );
      const repo = this.db.getRepository(PositionHistoryEntity);
      const fields = { id_project: q.id_project, pos: found.pos, top: found.top, url: found.url.slice(0, 500), checked_at: done };
      const u = await repo.update({ id_query: q.id_query, day }, fields);
      if (!(u.affected ?? 0)) {
        try {
          await repo.insert({ id_query: q.id_query, day, ...fields });
        } catch {
          await repo.update({ id_query: q.id_query, day }, fields);
        }
      }
      return { ok: true, requests };
    } catch (err) {
      const message = (err as Error).message || 'error';
      const at = Date.now();
      await this.db.query('UPDATE position_queries SET stale = 1, error = ?, error_at = ?, next_check_at = ?, claim_until = 0 WHERE id_query = ?', [message.slice(0, 2000), at, retryAt(at, q.schedule_hours), q.id_query]);
      this.log.warn(`query ${q.id_query}: ${message}`);
      return { ok: false, requests, error: message };
    }
  }

  private due(now: number, limit: number, projectId?: number): Promise<DueRow[]> {
    const where = projectId ? 'q.id_project = ?' : 'q.next_check_at <= ? AND q.claim_until < ?';
    const params = projectId ? [projectId] : [now, now];
    return this.db.query(
      `SELECT q.id_query, q.id_project, q.query_text, p.domain, p.engine, p.region, p.depth, p.schedule_hours
         FROM position_queries q JOIN position_projects p ON p.id_project = q.id_project
        WHERE ${where} ORDER BY ${projectId ? 'q.id_query ASC' : 'q.next_check_at ASC, q.id_query ASC'} LIMIT ${limit}`,
      params,
    ) as Promise<DueRow[]>;
  }

  @Rpc('position.checkNow', {
    role: Role.content, write: true, input: PositionProjectArgs,
    summary: '{id_project}: checks the project\'s queries now (paced to the search service\'s quotas; the first 300 while the call waits, the others made due for the check job at once) and answers {id_project, checked, failed, requests, queued, errors}; a failed query keeps its last position, marked stale; `{configured: false}` without YANDEX_SEARCH_API_KEY and YANDEX_SEARCH_FOLDER_ID',
  })
  async checkNow(a: z.output<typeof PositionProjectArgs>, ctx?: RpcContext): Promise<PositionCheckResult | NotConfigured> {
    const p = await this.positions.project(a.id_project);
    auditTarget('position_project', p.name, p.id_project);
    if (!this.positions.configured(p.engine)) return NOT_CONFIGURED;
    const all = await this.due(Date.now(), 100_000, a.id_project);
    const queue = all.slice(0, this.checkNowMax);
    const rest = all.slice(this.checkNowMax).map((q) => q.id_query);
    for (let i = 0; i < rest.length; i += 500) {
      const part = rest.slice(i, i + 500);
      await this.db.query(`UPDATE position_queries SET next_check_at = 0 WHERE id_query IN (${part.map(() => '?').join(', ')})`, part);
    }
    const res: PositionCheckResult = { id_project: a.id_project, checked: 0, failed: 0, requests: 0, queued: rest.length, errors: [] };
    await pool(queue, CHECK_CONCURRENCY, async (q) => {
      if (ctx?.signal?.aborted) return;
      const r = await this.checkOne(q, { signal: ctx?.signal });
      res.requests += r.requests;
      if (r.ok) res.checked++;
      else {
        res.failed++;
        if (r.error && res.errors.length < ERRORS_MAX && !res.errors.includes(r.error)) res.errors.push(r.error);
      }
    });
    return res;
  }

  @Rpc('position.getStatus', {
    role: Role.user,
    summary: '{}: {configured, engines: [{engine, configured, per_second, per_hour, page_size}], due (queries due now), retention_days}',
  })
  async status(): Promise<PositionStatus> {
    const [{ n }] = (await this.db.query('SELECT COUNT(*) AS n FROM position_queries WHERE next_check_at <= ?', [Date.now()])) as Array<{ n: number | string }>;
    const y = this.positions.source('yandex');
    return {
      configured: !!y?.configured,
      engines: y ? [{ engine: y.engine, configured: y.configured, per_second: y.limits.perSecond, per_hour: y.limits.perHour, page_size: y.pageSize }] : [],
      due: Number(n),
      retention_days: this.cfg.position.retentionDays,
    };
  }

  /** The job's run: nothing when no source is configured; null when another instance holds the lease. */
  async scheduledTick(): Promise<TickResult | null> {
    if (!this.positions.configured('yandex')) return null;
    if (this.running) return null;
    if (!(await this.lease.acquire(CHECK_LEASE, LEASE_MS))) return null;
    if (this.running) return null;
    this.running = this.tick().finally(() => {
      this.running = null;
      void this.lease.release(CHECK_LEASE).catch(() => undefined);
    });
    return this.running;
  }

  /** One tick (module comment): due queries within the request budget, then retention once an hour. */
  async tick(now = Date.now()): Promise<TickResult> {
    const source = this.positions.source('yandex')!;
    const budget = new TickBudget(tickBudget(source.limits));
    const res: TickResult = { checked: 0, failed: 0, requests: 0, budget: budget.total, removed: 0, errors: [] };
    const seen = new Set<number>();
    for (;;) {
      const rows = (await this.due(now, 50)).filter((r) => !seen.has(r.id_query));
      if (!rows.length) break;
      let started = 0;
      await pool(rows, CHECK_CONCURRENCY, async (q) => {
        seen.add(q.id_query);
        const worst = pagesFor(q.depth, source.pageSize);
        if (!budget.reserve(worst)) return;
        started++;
        const r = await this.checkOne(q, { patient: true });
        budget.settle(worst, r.requests);
        if (r.ok) res.checked++;
        else {
          res.failed++;
          if (r.error && res.errors.length < ERRORS_MAX && !res.errors.includes(r.error)) res.errors.push(r.error);
        }
      });
      if (!started || budget.left <= 0) break;
    }
    res.requests = budget.spent;
    if (now - this.lastRetention >= RETENTION_EVERY_MS) {
      this.lastRetention = now;
      res.removed = await this.retention(now);
    }
    return res;
  }

  /** Removes history older than POSITION_RETENTION_DAYS (0: kept forever), in batches. */
  async retention(now = Date.now()): Promise<number> {
    const days = this.cfg.position.retentionDays;
    if (!days) return 0;
    const cutoff = dayMinus(now, days);
    let removed = 0;
    for (;;) {
      const rows = (await this.db.query(`SELECT id_query, day FROM position_history WHERE day < ? LIMIT ${RETENTION_BATCH}`, [cutoff])) as Array<{ id_query: number; day: string }>;
      if (!rows.length) break;
      const days = [...new Set(rows.map((r) => r.day))];
      await this.db.query(`DELETE FROM position_history WHERE day IN (${days.map(() => '?').join(', ')})`, days);
      removed += rows.length;
      if (rows.length < RETENTION_BATCH) break;
    }
    return removed;
  }
}

/** Runs `fn` over `items`, `n` at a time. */
async function pool<T>(items: T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let i = 0;
  const worker = async () => {
    while (i < items.length) await fn(items[i++]);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}
