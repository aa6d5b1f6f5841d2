/**
 * Search positions: projects, queries and their reads (001 §2 "Position tracking", §3, §7, §9; issue 23;
 * docs/position.md). Checking is position-check.service.ts. Every signed-in user reads; editing and
 * "check now" (which spends the search quota) need role 10 (content) or stronger.
 */
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { z } from 'zod';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import {
  POSITION_DEPTH_MAX, POSITION_MSG, POSITION_PAGE, POSITION_QUERY_DAYS, POSITION_REGION_DEFAULT, POSITION_SCHEDULE_DEFAULT, POSITION_TOP_DAYS, POSITION_TOP_N,
  PositionProjectArgs, PositionQueryIdArgs, PositionQueryListArgs, PositionSaveProjectArgs, PositionSaveQueriesArgs, PositionTopArgs, PositionUpdateQueryArgs,
  type PositionEngine, type PositionPoint, type PositionProject, type PositionQueryList, type PositionQueryRow, type PositionTopStats,
} from '../../contracts/position.js';
import { Role } from '../../contracts/roles.js';
import { auditTarget } from '../../core/audit/audit-target.js';
import { conflict, notFound } from '../../core/errors.js';
import { Rpc } from '../../core/rpc/rpc.decorator.js';
import { PositionProjectEntity, PositionQueryEntity } from './position.entities.js';
import { dayMinus } from './schedule.js';
import { POSITION_SOURCES, type PositionSource } from './sources/source.js';

/** The normalised key of a query text: one query per text (any case, spacing) per project. */
export const queryKey = (text: string) => createHash('sha256').update(text.replace(/\s+/g, ' ').trim().toLowerCase()).digest('hex');

const iso = (ms: number | string | null | undefined) => (ms && Number(ms) > 0 ? new Date(Number(ms)).toISOString() : null);
const numOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));

interface ProjectAgg {
  id_project: number;
  name: string;
  domain: string;
  engine: string;
  region: number;
  schedule_hours: number;
  depth: number;
  queries: number | string;
  avg_pos: number | string | null;
  found: number | string | null;
  stale: number | string | null;
  checked: number | string | null;
}

@Injectable()
export class PositionService {
  constructor(
    @InjectDataSource() readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
    @Inject(POSITION_SOURCES) private readonly sources: PositionSource[],
  ) {}

  /** The source of an engine (undefined: none in this build). */
  source(engine: string): PositionSource | undefined {
    return this.sources.find((s) => s.engine === engine);
  }

  configured(engine: string): boolean {
    return !!this.source(engine)?.configured;
  }

  // -------------------------------------------------------------------------------------------
  // Reads

  private async projects(id?: number): Promise<PositionProject[]> {
    const rows = (await this.db.query(
      `SELECT p.id_project, p.name, p.domain, p.engine, p.region, p.schedule_hours, p.depth,
              COUNT(q.id_query) AS queries,
              AVG(CASE WHEN q.pos_top > 0 AND q.pos IS NOT NULL THEN q.pos END) AS avg_pos,
              SUM(CASE WHEN q.pos_top > 0 AND q.pos IS NOT NULL THEN 1 ELSE 0 END) AS found,
              SUM(CASE WHEN q.stale = 1 THEN 1 ELSE 0 END) AS stale,
              MAX(q.checked) AS checked
         FROM position_projects p LEFT JOIN position_queries q ON q.id_project = p.id_project
        ${id ? 'WHERE p.id_project = ?' : ''}
        GROUP BY p.id_project, p.name, p.domain, p.engine, p.region, p.schedule_hours, p.depth
        ORDER BY p.name ASC, p.id_project ASC`,
      id ? [id] : [],
    )) as ProjectAgg[];
    return rows.map((r) => ({
      id_project: Number(r.id_project),
      name: r.name,
      domain: r.domain,
      engine: r.engine as PositionEngine,
      region: Number(r.region),
      schedule_hours: Number(r.schedule_hours),
      depth: Number(r.depth),
      queries: Number(r.queries),
      avg_pos: r.avg_pos === null ? null : Math.round(Number(r.avg_pos) * 10) / 10,
      found: Number(r.found ?? 0),
      stale: Number(r.stale ?? 0),
      checked: iso(r.checked),
    }));
  }

  async project(id: number): Promise<PositionProject> {
    const [p] = await this.projects(id);
    if (!p) throw notFound(POSITION_MSG.projectNotFound);
    return p;
  }

  @Rpc('position.getProjects', {
    role: Role.user,
    summary: '{}: the projects {list: [{id_project, name, domain, engine, region, schedule_hours, depth, queries, avg_pos (average current place of the queries found; null: none), found, stale, checked}], configured}; REST GET /api/position/projects',
  })
  async listProjects(): Promise<{ list: PositionProject[]; configured: boolean }> {
    return { list: await this.projects(), configured: this.configured('yandex') };
  }

  @Rpc('position.getQueries', {
    role: Role.user, input: PositionQueryListArgs,
    summary: `{id_project, p_? (1), limit? (${POSITION_PAGE}), days? (${POSITION_QUERY_DAYS}), id_query? (one query)}: {project, list: [{id_query, query_text, cat_id, checked, pos: [{pos (null: not in the top), date, top, url?}] newest first, current, change (previous place minus current: positive moved up), stale, stale_at, error}], count, page, limit, configured}; REST GET /api/position/project/query`,
  })
  async queries(a: z.output<typeof PositionQueryListArgs>): Promise<PositionQueryList> {
    const project = await this.project(a.id_project);
    const limit = a.limit ?? POSITION_PAGE;
    const page = a.p_ ?? 1;
    const days = a.days ?? POSITION_QUERY_DAYS;
    const where = a.id_query ? 'id_project = ? AND id_query = ?' : 'id_project = ?';
    const params = a.id_query ? [a.id_project, a.id_query] : [a.id_project];
    const [{ n }] = (await this.db.query(`SELECT COUNT(*) AS n FROM position_queries WHERE ${where}`, params)) as Array<{ n: number | string }>;
    if (a.id_query && Number(n) === 0) throw notFound(POSITION_MSG.queryNotFound);
    const rows = (await this.db.query(
      `SELECT id_query, id_project, query_text, cat_id, checked, pos, pos_top, pos_date, stale, error, error_at FROM position_queries WHERE ${where} ORDER BY id_query ASC LIMIT ${limit} OFFSET ${(page - 1) * limit}`,
      params,
    )) as Array<Record<string, unknown>>;
    const ids = rows.map((r) => Number(r.id_query));
    const history = new Map<number, PositionPoint[]>();
    if (ids.length) {
      const since = dayMinus(Date.now(), days - 1);
      const hs = (await this.db.query(
        `SELECT id_query, day, pos, top, url FROM position_history WHERE id_query IN (${ids.map(() => '?').join(', ')}) AND day >= ? ORDER BY day DESC`,
        [...ids, since],
      )) as Array<{ id_query: number; day: string; pos: number | null; top: number; url: string }>;
      for (const h of hs) {
        const list = history.get(Number(h.id_query)) ?? [];
        list.push({ pos: numOrNull(h.pos), date: h.day, top: Number(h.top), ...(h.url ? { url: h.url } : {}) });
        history.set(Number(h.id_query), list);
      }
    }
    const list: PositionQueryRow[] = rows.map((r) => {
      const pos = history.get(Number(r.id_query)) ?? [];
      const top = Number(r.pos_top);
      const current: PositionPoint | null = top > 0 ? { pos: numOrNull(r.pos), date: String(r.pos_date), top } : null;
      const prev = pos.find((p) => current && p.date < current.date);
      const change = current?.pos != null && prev?.pos != null ? prev.pos - current.pos : null;
      return {
        id_query: Number(r.id_query),
        id_project: Number(r.id_project),
        query_text: String(r.query_text),
        cat_id: Number(r.cat_id),
        checked: iso(r.checked as number),
        pos,
        current,
        change,
        stale: Number(r.stale) === 1,
        stale_at: Number(r.stale) === 1 ? iso(r.error_at as number) : null,
        error: Number(r.stale) === 1 ? ((r.error as string | null) ?? null) : null,
      };
    });
    return { project, list, count: Number(n), page, limit, configured: this.configured(project.engine) };
  }

  @Rpc('position.getTopStats', {
    role: Role.user, input: PositionTopArgs,
    summary: `{id_project, days? (${POSITION_TOP_DAYS}), top? (${POSITION_TOP_N})}: the project's best queries over the days (lowest average place found) with their daily places, oldest first: {id_project, days, top, series: [{id_query, query_text, data: [{date, pos}]}]}; REST GET /api/position/project/top`,
  })
  async topStats(a: z.output<typeof PositionTopArgs>): Promise<PositionTopStats> {
    await this.project(a.id_project);
    const days = a.days ?? POSITION_TOP_DAYS;
    const top = a.top ?? POSITION_TOP_N;
    const since = dayMinus(Date.now(), days - 1);
    const best = (await this.db.query(
      `SELECT h.id_query, q.query_text, AVG(h.pos) AS a FROM position_history h JOIN position_queries q ON q.id_query = h.id_query
        WHERE h.id_project = ? AND h.day >= ? AND h.pos IS NOT NULL
        GROUP BY h.id_query, q.query_text ORDER BY a ASC, h.id_query ASC LIMIT ${top}`,
      [a.id_project, since],
    )) as Array<{ id_query: number; query_text: string }>;
    const ids = best.map((b) => Number(b.id_query));
    const pts = ids.length
      ? ((await this.db.query(`SELECT id_query, day, pos FROM position_history WHERE id_query IN (${ids.map(() => '?').join(', ')}) AND day >= ? ORDER BY day ASC`, [...ids, since])) as Array<{ id_query: number; day: string; pos: number | null }>)
      : [];
    return {
      id_project: a.id_project, days, top,
      series: best.map((b) => ({
        id_query: Number(b.id_query),
        query_text: b.query_text,
        data: pts.filter((p) => Number(p.id_query) === Number(b.id_query)).map((p) => ({ date: p.day, pos: numOrNull(p.pos) })),
      })),
    };
  }

  // -------------------------------------------------------------------------------------------
  // Writes

  @Rpc('position.saveProject', {
    role: Role.content, write: true, input: PositionSaveProjectArgs,
    summary: `{id_project? (none: a new project), name, domain (a host name; a pasted URL is reduced to its host), engine? ('yandex'), region? (Yandex region id, ${POSITION_REGION_DEFAULT}), schedule_hours? (6, 12, 24, 48, 168; ${POSITION_SCHEDULE_DEFAULT}), depth? (10-${POSITION_DEPTH_MAX}; POSITION_DEPTH)}: {id_project, message: '${POSITION_MSG.saveOk}'}`,
  })
  async saveProject(a: z.output<typeof PositionSaveProjectArgs>): Promise<{ id_project: number; message: string }> {
    const repo = this.db.getRepository(PositionProjectEntity);
    const now = Date.now();
    if (a.id_project) {
      const row = await repo.findOne({ where: { id_project: a.id_project } });
      if (!row) throw notFound(POSITION_MSG.projectNotFound);
      await repo.update({ id_project: a.id_project }, {
        name: a.name, domain: a.domain, engine: a.engine ?? row.engine, region: a.region ?? row.region,
        schedule_hours: a.schedule_hours ?? row.schedule_hours, depth: a.depth ?? row.depth, updated_at: now,
      });
      auditTarget('position_project', a.name, a.id_project);
      return { id_project: a.id_project, message: POSITION_MSG.saveOk };
    }
    const saved = await repo.save(repo.create({
      name: a.name, domain: a.domain, engine: a.engine ?? 'yandex', region: a.region ?? POSITION_REGION_DEFAULT,
      schedule_hours: a.schedule_hours ?? POSITION_SCHEDULE_DEFAULT, depth: a.depth ?? this.cfg.position.depth, created_at: now, updated_at: now,
    }));
    auditTarget('position_project', saved.name, saved.id_project);
    return { id_project: saved.id_project, message: POSITION_MSG.saveOk };
  }

  @Rpc('position.removeProject', {
    role: Role.content, write: true, input: PositionProjectArgs,
    summary: `{id_project}: removes the project, its queries and their history: {message: '${POSITION_MSG.deleteOk}'}`,
  })
  async removeProject(a: z.output<typeof PositionProjectArgs>): Promise<{ message: string }> {
    const p = await this.project(a.id_project);
    await this.db.transaction(async (em) => {
      await em.query('DELETE FROM position_history WHERE id_project = ?', [a.id_project]);
      await em.query('DELETE FROM position_queries WHERE id_project = ?', [a.id_project]);
      await em.query('DELETE FROM position_projects WHERE id_project = ?', [a.id_project]);
    });
    auditTarget('position_project', p.name, p.id_project);
    return { message: POSITION_MSG.deleteOk };
  }

  @Rpc('position.saveQueries', {
    role: Role.content, write: true, input: PositionSaveQueriesArgs,
    summary: `{id_project, queries: [text, ...] or one text with a query per line (at most 1000), cat_id? (0)}: adds the queries the project does not have yet (any case and spacing counts as the same); new queries are due for a check at once: {added, skipped, message: '${POSITION_MSG.insertOk}'}`,
  })
  async saveQueries(a: z.output<typeof PositionSaveQueriesArgs>): Promise<{ added: number; skipped: number; message: string }> {
    const p = await this.project(a.id_project);
    const byKey = new Map<string, string>();
    for (const t of a.queries) if (!byKey.has(queryKey(t))) byKey.set(queryKey(t), t);
    const keys = [...byKey.keys()];
    const existing = new Set<string>();
    for (let i = 0; i < keys.length; i += 200) {
      const part = keys.slice(i, i + 200);
      const rows = (await this.db.query(`SELECT query_key FROM position_queries WHERE id_project = ? AND query_key IN (${part.map(() => '?').join(', ')})`, [a.id_project, ...part])) as Array<{ query_key: string }>;
      for (const r of rows) existing.add(r.query_key);
    }
    const now = Date.now();
    const fresh = keys.filter((k) => !existing.has(k)).map((k) => ({ id_project: a.id_project, query_text: byKey.get(k)!, query_key: k, cat_id: a.cat_id ?? 0, created_at: now, next_check_at: 0 }));
    const repo = this.db.getRepository(PositionQueryEntity);
    for (let i = 0; i < fresh.length; i += 200) await repo.insert(fresh.slice(i, i + 200));
    auditTarget('position_project', p.name, p.id_project);
    return { added: fresh.length, skipped: a.queries.length - fresh.length, message: POSITION_MSG.insertOk };
  }

  @Rpc('position.updateQuery', {
    role: Role.content, write: true, input: PositionUpdateQueryArgs,
    summary: `{id_query, query_text?, cat_id?}: changes a query (a new text keeps the history): {message: '${POSITION_MSG.updateOk}'}`,
  })
  async updateQuery(a: z.output<typeof PositionUpdateQueryArgs>): Promise<{ message: string }> {
    const repo = this.db.getRepository(PositionQueryEntity);
    const row = await repo.findOne({ where: { id_query: a.id_query } });
    if (!row) throw notFound(POSITION_MSG.queryNotFound);
    const fields: Partial<PositionQueryEntity> = {};
    if (a.query_text !== undefined) {
      const key = queryKey(a.query_text);
      const dup = await repo.findOne({ where: { id_project: row.id_project, query_key: key } });
      if (dup && dup.id_query !== row.id_query) throw conflict('The project already has this query');
      fields.query_text = a.query_text.replace(/\s+/g, ' ').trim();
      fields.query_key = key;
    }
    if (a.cat_id !== undefined) fields.cat_id = a.cat_id;
    if (Object.keys(fields).length) await repo.update({ id_query: a.id_query }, fields);
    auditTarget('position_query', fields.query_text ?? row.query_text, row.id_query);
    return { message: POSITION_MSG.updateOk };
  }

  @Rpc('position.removeQuery', {
    role: Role.content, write: true, input: PositionQueryIdArgs,
    summary: `{id_query}: removes a query and its history: {message: '${POSITION_MSG.deleteOk}'}`,
  })
  async removeQuery(a: z.output<typeof PositionQueryIdArgs>): Promise<{ message: string }> {
    const repo = this.db.getRepository(PositionQueryEntity);
    const row = await repo.findOne({ where: { id_query: a.id_query } });
    if (!row) throw notFound(POSITION_MSG.queryNotFound);
    await this.db.transaction(async (em) => {
      await em.query('DELETE FROM position_history WHERE id_query = ?', [a.id_query]);
      await em.query('DELETE FROM position_queries WHERE id_query = ?', [a.id_query]);
    });
    auditTarget('position_query', row.query_text, row.id_query);
    return { message: POSITION_MSG.deleteOk };
  }
}
