import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import type { z } from 'zod';
import { Role } from '../../contracts/roles.js';
import {
  attributeNames, parseSourceConnect, SEARCH_MSG, SourceGetArgs, SourceIdArgs, SourceInsertArgs, SourceUpdateArgs, SOURCE_TTL_DEFAULT,
  type RotateNodeResult, type RotateResult, type SourceAction, type SourceView, type SourceWorking,
} from '../../contracts/search-nodes.js';
import { auditTarget } from '../../core/audit/audit-target.js';
import { AppError, conflict, invalid, notFound } from '../../core/errors.js';
import { LeaseService } from '../../core/lease.service.js';
import { Rpc, type RpcContext } from '../../core/rpc/rpc.decorator.js';
import { SearchHostsService } from './search-hosts.service.js';
import { SearchSourceEntity } from './search-nodes.entities.js';
import { SphinxControlService } from './sphinx-control.service.js';

/** A rotation holds its source's lease this long, renewed every fifth of it while indexer runs. */
const ROTATE_LEASE_MS = 5 * 60_000;
const leaseName = (Id: number) => `sphinx.rotate.${Id}`;

const workingOf = (s: SearchSourceEntity): SourceWorking | null => {
  if (!s.working) return null;
  try { return JSON.parse(s.working) as SourceWorking; } catch { return null; }
};
const nextRunOf = (s: SearchSourceEntity, now = Date.now()) => (s.time_run ? s.time_run.getTime() + s.ttl_min * 60_000 : now);
const view = (s: SearchSourceEntity): SourceView => ({
  Id: s.Id, source: s.source, connect: s.connect, ttl_min: s.ttl_min, query: s.query ?? '', attribute: s.attribute, index: s.index,
  working: workingOf(s), time_run: s.time_run ? s.time_run.toISOString() : null, next_run: new Date(nextRunOf(s)).toISOString(),
});

/** A scheduled rotation's outcome (the worker's run record lists the failures). */
export interface ScheduledRotation {
  Id: number;
  source: string;
  errors: string[];
}

/**
 * Sources (001 §2 /search/sources, /search/add_source, /search/edit_source/{Id}; §3 Source; §4 Sources
 * Rotate; §5; §7 source.*; §8 source errors; §9 TTL 120): one Sphinx source + index pair each.
 * Reads for every signed-in user, writes and rotate for admins. A rotation runs `indexer --rotate`
 * on every Search server and stores `working` {docs, bytes, timeStart, timeEnd, errors}; one rotation
 * per source at a time across instances (a lease per source, plus this instance's own set); the job
 * (src/jobs/sphinx-rotate.job.ts) rotates each source whose ttl_min passed since its last run.
 */
@Injectable()
export class SearchSourcesService {
  private readonly log = new Logger('SearchSources');
  /** Sources this instance is rotating. */
  private readonly running = new Set<number>();

  constructor(
    @InjectRepository(SearchSourceEntity) private readonly sources: Repository<SearchSourceEntity>,
    private readonly hosts: SearchHostsService,
    private readonly control: SphinxControlService,
    private readonly leases: LeaseService,
  ) {}

  private async entity(Id: number): Promise<SearchSourceEntity> {
    const s = await this.sources.findOneBy({ Id });
    if (!s) throw notFound(SEARCH_MSG.sourceNotFound);
    auditTarget('source', s.source, s.Id);
    return s;
  }

  @Rpc('source.get', {
    role: Role.user, input: SourceGetArgs,
    summary: '{live?: 0|1}: every source by name [{Id, source, connect, ttl_min, query, attribute, index, working: {docs, bytes, timeStart, timeEnd, errors} | null, time_run, next_run}]; live 1 adds live: [{Id, node, ok, indexed_documents, indexed_bytes, ram_bytes, disk_bytes, message?}] read over SphinxQL from each Search server',
  })
  async get(a: z.output<typeof SourceGetArgs> = {}): Promise<SourceView[]> {
    const rows = (await this.sources.find({ order: { source: 'ASC', Id: 'ASC' } })).map(view);
    if (a.live && rows.length) {
      const nodes = await this.control.searchNodes();
      const live = await this.control.live(nodes, await this.control.settings(), rows.map((r) => r.index));
      for (const r of rows) r.live = live.get(r.index) ?? [];
    }
    return rows;
  }

  @Rpc('source.getById', { role: Role.user, input: SourceIdArgs, summary: `{Id}: one source (as source.get); 404 '${SEARCH_MSG.sourceNotFound}'` })
  async getById(a: z.output<typeof SourceIdArgs>): Promise<SourceView> {
    return view(await this.entity(a.Id));
  }

  @Rpc('source.getSourceAction', {
    role: Role.user, input: SourceIdArgs,
    summary: '{Id}: the source right now: {Id, source, index, working, time_run, next_run, running (a rotation under way on this instance), live: [{Id, node, ok, indexed_documents, indexed_bytes, ram_bytes, disk_bytes, message?}]} (SHOW INDEX <index> STATUS over SphinxQL on each Search server)',
  })
  async getSourceAction(a: z.output<typeof SourceIdArgs>): Promise<SourceAction> {
    const s = await this.entity(a.Id);
    const nodes = await this.control.searchNodes();
    const live = nodes.length ? (await this.control.live(nodes, await this.control.settings(), [s.index])).get(s.index) ?? [] : [];
    const v = view(s);
    return { Id: v.Id, source: v.source, index: v.index, working: v.working, time_run: v.time_run, next_run: v.next_run, running: this.running.has(s.Id), live };
  }

  @Rpc('source.insert', {
    role: Role.admin, write: true, input: SourceInsertArgs,
    summary: `{source, connect: '{hostId}-{connName}', ttl_min? (${SOURCE_TTL_DEFAULT}), query (sql_query), attribute ('a,b': sql_attr_uint), index}: a new source; names are Sphinx identifiers, unique; answers {Id, message: '${SEARCH_MSG.insertOk}'}`,
  })
  async insert(a: z.output<typeof SourceInsertArgs>): Promise<{ Id: number; message: string }> {
    await this.checkConnect(a.connect);
    await this.checkNamesFree(a.source, a.index);
    const saved = await this.sources.save(this.sources.create({
      source: a.source, connect: a.connect, ttl_min: a.ttl_min ?? SOURCE_TTL_DEFAULT, query: a.query, attribute: this.attrs(a.attribute), index: a.index, working: null, time_run: null,
    }));
    auditTarget('source', saved.source, saved.Id);
    return { Id: saved.Id, message: SEARCH_MSG.insertOk };
  }

  @Rpc('source.update', {
    role: Role.admin, write: true, input: SourceUpdateArgs,
    summary: "{Id, source?, connect?, ttl_min?, query?, attribute?, index?}: changes what is given (checked as on insert); answers 'ok'. The Search servers see it after the next createSphinxConf",
  })
  async update(a: z.output<typeof SourceUpdateArgs>): Promise<'ok'> {
    const s = await this.entity(a.Id);
    if (a.connect !== undefined) await this.checkConnect(a.connect);
    if (a.source !== undefined || a.index !== undefined) await this.checkNamesFree(a.source, a.index, s.Id);
    const patch: Partial<SearchSourceEntity> = {};
    if (a.source !== undefined) patch.source = a.source;
    if (a.connect !== undefined) patch.connect = a.connect;
    if (a.ttl_min !== undefined) patch.ttl_min = a.ttl_min;
    if (a.query !== undefined) patch.query = a.query;
    if (a.attribute !== undefined) patch.attribute = this.attrs(a.attribute);
    if (a.index !== undefined) patch.index = a.index;
    if (Object.keys(patch).length) await this.sources.update({ Id: s.Id }, patch);
    return 'ok';
  }

  @Rpc('source.rotate', {
    role: Role.admin, write: true, input: SourceIdArgs,
    summary: `{Id}: runs indexer --rotate <index> on every Search server (type 3, on) and stores what it reported; answers {working: {docs, bytes, timeStart, timeEnd, errors: ['<server>: <message>']}, nodes: [{Id, node, ok, code, docs, bytes, message}]}; searchd down: '${SEARCH_MSG.searchdDown}'; 409 while the source is rotating`,
  })
  async rotate(a: z.output<typeof SourceIdArgs>, ctx?: Pick<RpcContext, 'actor' | 'signal'>): Promise<RotateResult> {
    const s = await this.entity(a.Id);
    const nodes = await this.control.searchNodes();
    if (!nodes.length) throw invalid(SEARCH_MSG.noSearchServers);
    const settings = await this.control.settings();
    const r = await this.exclusive(s.Id, async () => this.run(s, nodes, settings, ctx?.actor ?? null, ctx?.signal));
    if (!r) throw conflict(SEARCH_MSG.busy(s.source));
    auditTarget('source', s.source, s.Id); // the nodes' lookups named themselves meanwhile
    return r;
  }

  /**
   * The job's pass: every source whose ttl_min has passed since its last run (or never run), one after
   * another, each under its lease (a source another instance is rotating is left to it). Answers null
   * when nothing was due here (no Search server, nothing due).
   */
  async scheduledRotate(): Promise<ScheduledRotation[] | null> {
    const now = Date.now();
    const due = (await this.sources.find({ order: { Id: 'ASC' } })).filter((s) => nextRunOf(s, now) <= now);
    if (!due.length) return null;
    const nodes = await this.control.searchNodes();
    if (!nodes.length) return null;
    const settings = await this.control.settings();
    const out: ScheduledRotation[] = [];
    for (const d of due) {
      const r = await this.exclusive(d.Id, async () => {
        // Re-read under the lease: another instance may have rotated it since the list was read.
        const s = await this.sources.findOneBy({ Id: d.Id });
        if (!s || nextRunOf(s) > Date.now()) return null;
        return this.run(s, nodes, settings, null);
      });
      if (r) out.push({ Id: d.Id, source: d.source, errors: r.working.errors });
    }
    return out.length ? out : null;
  }

  /** Runs `fn` holding the source's lease and this instance's mark; null (fn not run) when either is taken. */
  private async exclusive<T>(Id: number, fn: () => Promise<T | null>): Promise<T | null> {
    if (this.running.has(Id)) return null;
    this.running.add(Id);
    let leased = false;
    let renew: NodeJS.Timeout | undefined;
    try {
      leased = await this.leases.acquire(leaseName(Id), ROTATE_LEASE_MS);
      if (!leased) return null;
      renew = setInterval(() => void this.leases.acquire(leaseName(Id), ROTATE_LEASE_MS).catch(() => undefined), ROTATE_LEASE_MS / 5);
      return await fn();
    } finally {
      clearInterval(renew);
      this.running.delete(Id);
      if (leased) await this.leases.release(leaseName(Id)).catch((err) => this.log.warn(`lease ${leaseName(Id)}: ${(err as Error).message}`));
    }
  }

  /** One rotation on every node, stored on the source. */
  private async run(s: SearchSourceEntity, nodes: Awaited<ReturnType<SphinxControlService['searchNodes']>>, settings: Awaited<ReturnType<SphinxControlService['settings']>>, actor: RpcContext['actor'] | null, signal?: AbortSignal): Promise<RotateResult> {
    const started = new Date();
    const results = await this.control.rotateOn(nodes, settings, s.index, { actor, signal });
    const working = aggregate(results, started, new Date());
    await this.sources.update({ Id: s.Id }, { working: JSON.stringify(working), time_run: started });
    if (working.errors.length) this.log.warn(`rotate ${s.source}: ${working.errors.join('; ')}`);
    return { working, nodes: results };
  }

  private attrs(v: string): string {
    const r = attributeNames(v);
    return 'names' in r ? r.names.join(',') : v;
  }

  private async checkConnect(connect: string) {
    const c = parseSourceConnect(connect);
    if (!c || !(await this.hosts.hasConnection(c.hostId, c.name))) {
      const msg = `Connection '${connect}' does not exist: choose a connection of a search host`;
      throw invalid(`connect: ${msg}`, { connect: msg });
    }
  }

  /** Names are compared ignoring case (MariaDB's _ci collation would refuse the pair at the unique key anyway). */
  private async checkNamesFree(source: string | undefined, index: string | undefined, exceptId?: number) {
    const others = (await this.sources.find()).filter((r) => r.Id !== exceptId);
    for (const [col, v] of [['source', source], ['index', index]] as const) {
      if (v === undefined) continue;
      if (others.some((r) => r[col].toLowerCase() === v.toLowerCase())) {
        const msg = `A source already uses the ${col} name '${v}'`;
        throw new AppError(409, `${col}: ${msg}`, 'rules', { [col]: msg });
      }
    }
  }
}

/**
 * The source's working info from each node's result: documents and bytes of the first node that
 * reported them (every node indexes the same database), the whole run's start and end, and each
 * failing node's message as `<node>: <message>`.
 */
export function aggregate(results: RotateNodeResult[], started: Date, ended: Date): SourceWorking {
  const withTotal = results.find((r) => r.ok && r.docs !== null) ?? results.find((r) => r.docs !== null);
  return {
    docs: withTotal?.docs ?? 0,
    bytes: withTotal?.bytes ?? 0,
    timeStart: started.toISOString(),
    timeEnd: ended.toISOString(),
    errors: results.filter((r) => !r.ok).map((r) => `${r.node}: ${r.message}`),
  };
}
