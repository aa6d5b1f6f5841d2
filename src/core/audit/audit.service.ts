import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, type Repository } from 'typeorm';
import type { AuditRow, Paged } from '../../contracts/auth.js';
import type { Actor } from '../auth/actor.js';
import { isDbUnreachable } from '../database/db-errors.js';
import { hydratedRow, persisted } from '../database/hydrate.js';
import { containsPattern } from '../database/like.js';
import { dbOutage } from '../database/db-outage.js';
import { notFound } from '../errors.js';
import { AUDIT_TARGET_MAX } from './audit-target.js';
import { AuditEntity } from './audit.entity.js';
import { maskSecrets, maskSecretText } from './mask.js';

const MAX_ARGS = 2000;
/** Entries removed per statement by the retention (short statements: the writers are never held up long). */
const PRUNE_BATCH = 5000;

/** A copy of the arguments with every secret masked (mask.ts, shared with the logger), as a bounded JSON string. */
export function summarizeArgs(args: unknown): string {
  const text = JSON.stringify(maskSecrets(args, { maxString: 300, maxItems: 50, maxDepth: 6 })) ?? '';
  return text.length > MAX_ARGS ? text.slice(0, MAX_ARGS) + '…' : text;
}

export interface AuditInput {
  actor?: Pick<Actor, 'uid' | 'login' | 'ip'> | null;
  method: string;
  args?: unknown;
  /** The object acted on (see audit-target.ts); the registry and the interceptor fill it from the call's audit scope. */
  target?: string | null;
  outcome: 'ok' | 'error';
  message?: string | null;
  started?: number;
  ip?: string;
}

@Injectable()
export class AuditService {
  private readonly log = new Logger('Audit');

  constructor(@InjectRepository(AuditEntity) private readonly repo: Repository<AuditEntity>) {}

  /** Records one entry. Never throws: a failed audit write is logged, not shown to the user. */
  async record(e: AuditInput): Promise<void> {
    try {
      // One INSERT: no read-back of the defaults (repo.insert reads duration_ms back on MariaDB), nothing uses the new row.
      await this.repo.createQueryBuilder().insert().updateEntity(false).values({
        ts: new Date(),
        uid: e.actor?.uid ?? null,
        login: e.actor?.login?.slice(0, 64) ?? null,
        method: e.method.slice(0, 190),
        args: e.args === undefined ? null : summarizeArgs(e.args),
        target: e.target?.slice(0, AUDIT_TARGET_MAX) || null,
        outcome: e.outcome,
        message: e.message ? maskSecretText(e.message).slice(0, 1000) : null,
        ip: (e.ip ?? e.actor?.ip ?? null)?.slice(0, 64) ?? null,
        duration_ms: e.started ? Date.now() - e.started : 0,
      }).execute();
    } catch (err) {
      // An unreachable database is logged once per outage (db-outage.ts), not once per call.
      if (isDbUnreachable(err)) dbOutage.noteUnreachable(err);
      else this.log.error(`audit write failed for ${e.method}: ${(err as Error).message}`);
    }
  }

  async list(q: { page: number; limit: number; method?: string; login?: string; outcome?: 'ok' | 'error'; from?: Date; to?: Date }): Promise<Paged<AuditRow>> {
    // Plain queries hydrated as the ORM hydrates them (core/database/hydrate.ts): what the query
    // builder's getManyAndCount answered, without its query building (bench/README.md "Platform").
    const where: string[] = [];
    const params: unknown[] = [];
    if (q.method) { where.push("method LIKE ? ESCAPE '!'"); params.push(containsPattern(q.method)); }
    if (q.login) { where.push('login = ?'); params.push(q.login); }
    if (q.outcome) { where.push('outcome = ?'); params.push(q.outcome); }
    // Both bounds inclusive, on the indexed ts column.
    if (q.from) { where.push('ts >= ?'); params.push(persisted(this.repo, 'ts', q.from)); }
    if (q.to) { where.push('ts <= ?'); params.push(persisted(this.repo, 'ts', q.to)); }
    const filter = where.length ? ` WHERE ${where.join(' AND ')}` : '';
    const raw = (await this.repo.manager.query(`${SELECT_ROWS}${filter} ORDER BY Id DESC LIMIT ? OFFSET ?`, [...params, q.limit, (q.page - 1) * q.limit])) as Array<Record<string, unknown>>;
    const [{ n }] = (await this.repo.manager.query(`SELECT COUNT(*) AS n FROM audit_log${filter}`, params)) as Array<{ n: unknown }>;
    return { list: raw.map((r) => toRow(hydratedRow(this.repo, ROW_COLUMNS, r))), count: Number(n), page: q.page, limit: q.limit };
  }

  /**
   * Removes the entries older than `days` (0: keeps everything), oldest first, PRUNE_BATCH per statement
   * by Id, so that a year of backlog never runs as one long delete. Answers how many were removed.
   */
  async prune(days: number, now = Date.now()): Promise<number> {
    if (days <= 0) return 0;
    const before = new Date(now - days * 86_400_000);
    let removed = 0;
    for (;;) {
      const ids = (await this.repo.find({ select: { Id: true }, where: { ts: LessThan(before) }, order: { Id: 'ASC' }, take: PRUNE_BATCH })).map((r) => r.Id);
      if (!ids.length) return removed;
      await this.repo.delete(ids);
      removed += ids.length;
      if (ids.length < PRUNE_BATCH) return removed;
    }
  }

  /** One entry by Id (the audit page's detail view and its ?id= deep link); 404 when it is gone. */
  async get(Id: number): Promise<AuditRow> {
    const r = await this.repo.findOne({ where: { Id } });
    if (!r) throw notFound(`Audit entry ${Id} not found`);
    return toRow(r);
  }
}

/** An audit row's columns (all of the entity's), for the list's plain query. */
const ROW_COLUMNS = ['Id', 'ts', 'uid', 'login', 'method', 'args', 'target', 'outcome', 'message', 'ip', 'duration_ms'] as const;
const SELECT_ROWS = `SELECT ${ROW_COLUMNS.join(', ')} FROM audit_log`;

const toRow = (r: AuditEntity): AuditRow => ({ ...r, args: r.args ?? '', target: r.target ?? null, ts: r.ts.toISOString() });
