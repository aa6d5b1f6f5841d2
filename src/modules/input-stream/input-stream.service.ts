import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { LessThan, type DataSource, type EntityManager, type Repository } from 'typeorm';
import { z } from 'zod';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import {
  ctrOf, MetricsArgs, STREAM_CAT_BOOKS_PAGE, STREAM_DEFAULT_DAYS, STREAM_ITEMS_PAGE, STREAM_MAX_AGE_DAYS, STREAM_MAX_AHEAD_MIN,
  StreamBatch, StreamCatArgs, StreamCatsArgs, StreamItemsArgs, StreamSiteId, StreamSiteSave, ViewsDataQuery,
  type MetricsView, type StreamCatRow, type StreamCatView, type StreamIngestResult, type StreamItemRow, type StreamPoint,
  type StreamSiteToken, type StreamSiteView, type StreamTotals,
} from '../../contracts/input-stream.js';
import type { Paged } from '../../contracts/auth.js';
import { MSG } from '../../contracts/messages.js';
import { Role } from '../../contracts/roles.js';
import { auditTarget } from '../../core/audit/audit-target.js';
import { SecretBox, sha256 } from '../../core/crypto/secret-box.js';
import { AppError, conflict, fromZod, notFound, unauthorized } from '../../core/errors.js';
import { RESERVED_BATCH_KEYS, type IngestKind, type KindRecords } from './ingest-kinds.js';
import { containsPattern, LIKE_CONTAINS } from '../../core/database/like.js';
import { deleteBelow } from '../../core/database/prune.js';
import { LeaseService } from '../../core/lease.service.js';
import { Rpc } from '../../core/rpc/rpc.decorator.js';
import { StreamBatchEntity, StreamSiteEntity } from './input-stream.entities.js';

const HOUR = 3600;
const DAY = 86_400;
/** Aggregate rows per INSERT statement. */
const UPSERT_CHUNK = 400;
/**
 * Batch ids are kept this long: a batch sent again later could not be counted twice anyway, since its
 * events would be older than STREAM_MAX_AGE_DAYS and the whole batch is refused (422).
 */
const BATCH_KEEP_DAYS = STREAM_MAX_AGE_DAYS + 1;
const PRUNE_LEASE = 'input-stream.prune';

/** A batch as parsed by parseBatch: the book events and the records of each registered kind it carries. */
export type ParsedBatch = z.output<typeof StreamBatch> & { kinds?: KindRecords[] };

interface Bucket { Id_cat: number; Id_book: number; ts: number; shows: number; clicks: number; pos_sum: number; pos_n: number }
interface SumRow { shows: unknown; clicks: unknown; pos_sum: unknown; pos_n: unknown }

const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));
/** Totals of a summed row: shows, clicks, CTR (%), average position. */
export function totalsOf(r: SumRow): StreamTotals {
  const shows = num(r.shows);
  const clicks = num(r.clicks);
  const n = num(r.pos_n);
  return { shows, clicks, ctr: ctrOf(shows, clicks), pos: n > 0 ? Math.round((num(r.pos_sum) / n) * 10) / 10 : null };
}

/** Sums the events of a batch into hour and day buckets (one row per category, book and bucket). */
export function bucketsOf(events: z.output<typeof StreamBatch>['events'], size: number): Bucket[] {
  const map = new Map<string, Bucket>();
  for (const e of events) {
    const ts = Math.floor(e.time / size);
    const key = `${e.cat}|${e.book}|${ts}`;
    let b = map.get(key);
    if (!b) map.set(key, (b = { Id_cat: e.cat, Id_book: e.book, ts, shows: 0, clicks: 0, pos_sum: 0, pos_n: 0 }));
    b.shows += e.shows;
    b.clicks += e.clicks;
    b.pos_sum += e.pos;
    b.pos_n += 1;
  }
  return [...map.values()];
}

/**
 * Input stream (001 §2 "/input_stream", §7 metrics.get, /stats/get_views_data; docs/input-stream.md):
 * site tokens (admins), batch ingestion (sites, by token), and the reads behind the screens (every
 * signed-in user, as the menu's /input_stream item has no role).
 */
@Injectable()
export class InputStreamService {
  readonly dialect: 'sqlite' | 'mariadb';

  private readonly log = new Logger('InputStream');
  /** Record kinds other areas registered (ingest-kinds.ts), by batch key. */
  private readonly kinds = new Map<string, IngestKind>();

  constructor(
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
    @InjectDataSource() private readonly db: DataSource,
    @InjectRepository(StreamSiteEntity) private readonly sites: Repository<StreamSiteEntity>,
    @InjectRepository(StreamBatchEntity) private readonly batches: Repository<StreamBatchEntity>,
    private readonly box: SecretBox,
    private readonly leases: LeaseService,
  ) {
    this.dialect = db.options.type === 'better-sqlite3' ? 'sqlite' : 'mariadb';
  }

  // ------------------------------------------------------------------------------------------
  // Sites and tokens

  private static newToken(): string {
    return 'ist_' + randomBytes(24).toString('base64url');
  }

  private view(s: StreamSiteEntity): StreamSiteView {
    return {
      Id: s.Id, name: s.name, active: s.active, created_at: s.created_at.toISOString(),
      last_seen_at: s.last_seen_at ? s.last_seen_at.toISOString() : null, batches: s.batches, events: s.events,
    };
  }

  private async site(Id: number): Promise<StreamSiteEntity> {
    const s = await this.sites.findOne({ where: { Id } });
    if (!s) throw notFound(`Site ${Id} not found`);
    auditTarget('stream_site', s.name, s.Id);
    return s;
  }

  @Rpc('stream.sites', { role: Role.admin, summary: 'The reporting sites: [{Id, name, active, created_at, last_seen_at, batches, events}] (never a token)' })
  async listSites(): Promise<StreamSiteView[]> {
    return (await this.sites.find({ order: { name: 'ASC' } })).map((s) => this.view(s));
  }

  @Rpc('stream.siteSave', {
    role: Role.admin, write: true, input: StreamSiteSave,
    summary: '{Id?, name?, active?}: without Id makes a site (name required) and answers {Id, name, token} — the token is shown this once; with Id renames or (de)activates it and answers {Id, name}',
  })
  async saveSite(a: z.output<typeof StreamSiteSave>): Promise<StreamSiteToken | { Id: number; name: string }> {
    if (a.name !== undefined) {
      const other = await this.sites.findOne({ where: { name: a.name } });
      if (other && other.Id !== a.Id) throw conflict(`A site named ${a.name} already exists`);
    }
    if (a.Id === undefined) {
      // name is required here by StreamSiteSave (requiredOnCreate).
      const token = InputStreamService.newToken();
      const saved = await this.sites.save(this.sites.create({
        name: a.name, active: a.active ?? 1, token_digest: sha256(token), token_sealed: this.box.seal(token),
        created_at: new Date(), last_seen_at: null, batches: 0, events: 0,
      }));
      auditTarget('stream_site', saved.name, saved.Id);
      return { Id: saved.Id, name: saved.name, token };
    }
    const s = await this.site(a.Id);
    const patch: Partial<StreamSiteEntity> = {};
    if (a.name !== undefined) patch.name = a.name;
    if (a.active !== undefined) patch.active = a.active;
    if (Object.keys(patch).length) await this.sites.update({ Id: s.Id }, patch);
    return { Id: s.Id, name: patch.name ?? s.name };
  }

  @Rpc('stream.siteRotate', { role: Role.admin, write: true, input: StreamSiteId, summary: '{Id}: a new token for the site (the old one stops working at once): {Id, name, token}, shown this once' })
  async rotateSite(a: z.output<typeof StreamSiteId>): Promise<StreamSiteToken> {
    const s = await this.site(a.Id);
    const token = InputStreamService.newToken();
    await this.sites.update({ Id: s.Id }, { token_digest: sha256(token), token_sealed: this.box.seal(token) });
    return { Id: s.Id, name: s.name, token };
  }

  @Rpc('stream.siteRemove', { role: Role.admin, write: true, input: StreamSiteId, summary: '{Id}: removes a site (its token stops working; counted statistics stay): {Id, message}' })
  async removeSite(a: z.output<typeof StreamSiteId>): Promise<{ Id: number; message: string }> {
    const s = await this.site(a.Id);
    await this.sites.delete({ Id: s.Id });
    return { Id: s.Id, message: MSG.deleteOk };
  }

  // ------------------------------------------------------------------------------------------
  // Ingestion

  /**
   * Lets a batch carry records of another kind under `kind.key` (ingest-kinds.ts; docs/input-stream.md
   * "Record kinds"). Called once per kind at start, by the area that owns the records.
   */
  registerKind<S extends z.ZodType>(kind: IngestKind<S>): void {
    if (RESERVED_BATCH_KEYS.has(kind.key) || this.kinds.has(kind.key)) throw new Error(`ingest kind '${kind.key}' is reserved or registered twice`);
    this.kinds.set(kind.key, kind as unknown as IngestKind);
  }

  /**
   * Reads a batch body: `batch_id`, the book `events` and the list of every registered kind present
   * (other keys are ignored). Refusals of all of them answer one 422 naming each field
   * (`events.3.clicks`, `banners.0.Idb`); a batch with no record at all is refused too.
   */
  parseBatch(body: unknown): ParsedBatch {
    const issues: z.core.$ZodIssue[] = [];
    const base = StreamBatch.safeParse(body);
    if (!base.success) issues.push(...base.error.issues);
    const kinds: KindRecords[] = [];
    if (body && typeof body === 'object' && !Array.isArray(body)) {
      for (const kind of this.kinds.values()) {
        const raw = (body as Record<string, unknown>)[kind.key];
        if (raw === undefined) continue;
        const list = z.array(kind.record, { error: `${kind.key} must be a list` }).max(kind.max, `${kind.key} has at most ${kind.max} items`).safeParse(raw);
        if (list.success) { if (list.data.length) kinds.push({ kind, records: list.data }); }
        else issues.push(...list.error.issues.map((i) => ({ ...i, path: [kind.key, ...i.path] })));
      }
    }
    if (issues.length) throw fromZod(new z.ZodError(issues));
    const batch = base.data!;
    if (!batch.events.length && !kinds.length) {
      const keys = ['events', ...this.kinds.keys()].join(', ');
      throw new AppError(422, `events must not be empty: a batch carries at least one record (${keys})`, 'rules', { events: `must not be empty (or send one of ${keys})` });
    }
    return { ...batch, kinds };
  }

  /** The active site a token belongs to; 401 otherwise (same answer for unknown, inactive and missing). */
  async siteByToken(token: string | undefined): Promise<StreamSiteEntity> {
    if (!token || token.length > 200) throw unauthorized('Site token required');
    const s = await this.sites.findOne({ where: { token_digest: sha256(token) } });
    if (!s || !s.active) throw unauthorized('Unknown or inactive site token');
    return s;
  }

  /**
   * Counts one batch of a site, once: the batch row (site, batch id) and every hour and day bucket are
   * written in one transaction; a batch id seen before answers `duplicate: true` and counts nothing.
   */
  async ingest(site: StreamSiteEntity, batch: ParsedBatch, now = Date.now()): Promise<StreamIngestResult> {
    const nowSec = Math.floor(now / 1000);
    const oldest = nowSec - STREAM_MAX_AGE_DAYS * DAY;
    const newest = nowSec + STREAM_MAX_AHEAD_MIN * 60;
    const fields: Record<string, string> = {};
    batch.events.forEach((e, i) => {
      if (e.time < oldest || e.time > newest) fields[`events.${i}.time`] ??= `time must be within the last ${STREAM_MAX_AGE_DAYS} days`;
      if (e.clicks > e.shows) fields[`events.${i}.clicks`] ??= 'clicks must not exceed shows';
    });
    const kinds = batch.kinds ?? [];
    for (const { kind, records } of kinds) {
      const refused = (await kind.check?.(records, now)) ?? {};
      for (const [k, v] of Object.entries(refused)) fields[`${kind.key}.${k}`] ??= v;
    }
    const records = batch.events.length + kinds.reduce((n, k) => n + k.records.length, 0);
    const bad = Object.entries(fields);
    if (bad.length) throw new AppError(422, bad.slice(0, 5).map(([k, v]) => `${k}: ${v}`).join('; '), 'rules', Object.fromEntries(bad.slice(0, 50)));

    const seen = await this.db.getRepository(StreamBatchEntity).exists({ where: { site_id: site.Id, batch_id: batch.batch_id } });
    if (seen) return { batch_id: batch.batch_id, accepted: 0, duplicate: true };
    try {
      await this.db.transaction(async (m) => {
        await m.insert(StreamBatchEntity, { site_id: site.Id, batch_id: batch.batch_id, events: records, received_at: new Date(now) });
        await this.upsert(m, 'stream_hours', bucketsOf(batch.events, HOUR));
        await this.upsert(m, 'stream_days', bucketsOf(batch.events, DAY));
        for (const { kind, records: list } of kinds) await kind.apply(m, site, list, now);
        await m.createQueryBuilder().update(StreamSiteEntity)
          .set({ batches: () => 'batches + 1', events: () => `events + ${records}`, last_seen_at: new Date(now) })
          .where('Id = :Id', { Id: site.Id }).execute();
      });
    } catch (err) {
      // The same batch sent twice at once: the second insert of its batch row fails, nothing of it was counted.
      const code = (err as { code?: string; driverError?: { code?: string } }).code ?? (err as { driverError?: { code?: string } }).driverError?.code;
      if (code && /DUP_ENTRY|CONSTRAINT_PRIMARYKEY|CONSTRAINT_UNIQUE/.test(code)) return { batch_id: batch.batch_id, accepted: 0, duplicate: true };
      throw err;
    }
    return { batch_id: batch.batch_id, accepted: records, duplicate: false };
  }

  private async upsert(m: EntityManager, table: 'stream_hours' | 'stream_days', rows: Bucket[]): Promise<void> {
    const cols = ['Id_cat', 'Id_book', 'ts', 'shows', 'clicks', 'pos_sum', 'pos_n'] as const;
    const add = ['shows', 'clicks', 'pos_sum', 'pos_n'];
    const tail = this.dialect === 'sqlite'
      ? ` ON CONFLICT(Id_cat, Id_book, ts) DO UPDATE SET ${add.map((c) => `${c} = ${c} + excluded.${c}`).join(', ')}`
      : ` ON DUPLICATE KEY UPDATE ${add.map((c) => `${c} = ${c} + VALUES(${c})`).join(', ')}`;
    for (let i = 0; i < rows.length; i += UPSERT_CHUNK) {
      const chunk = rows.slice(i, i + UPSERT_CHUNK);
      const values = chunk.map(() => `(${cols.map(() => '?').join(', ')})`).join(', ');
      await m.query(`INSERT INTO ${table} (${cols.join(', ')}) VALUES ${values}${tail}`, chunk.flatMap((r) => cols.map((c) => r[c])));
    }
  }

  // ------------------------------------------------------------------------------------------
  // Retention

  /**
   * Removes what is past its retention (docs/input-stream.md "Retention"): batch ids older than
   * BATCH_KEEP_DAYS, hour rows older than STREAM_HOURS_RETENTION_DAYS and day rows older than
   * STREAM_DAYS_RETENTION_DAYS (0: forever), oldest first, a day of buckets (or of batches) per
   * statement. Answers how many rows each table lost.
   */
  async prune(now = Date.now()): Promise<{ batches: number; hours: number; days: number }> {
    const out = { batches: 0, hours: 0, days: 0 };
    const keepFrom = now - BATCH_KEEP_DAYS * DAY * 1000;
    const oldest = await this.batches.findOne({ where: { received_at: LessThan(new Date(keepFrom)) }, order: { received_at: 'ASC' } });
    if (oldest) {
      for (let t = oldest.received_at.getTime() + DAY * 1000; ; t += DAY * 1000) {
        const bound = Math.min(t, keepFrom);
        out.batches += (await this.batches.delete({ received_at: LessThan(new Date(bound)) })).affected ?? 0;
        if (bound === keepFrom) break;
      }
    }
    const { hoursRetentionDays: h, daysRetentionDays: d } = this.cfg.stream;
    const today = Math.floor(now / 1000 / DAY);
    if (h) out.hours = await deleteBelow(this.db, 'stream_hours', 'ts', (today - h) * 24, 24);
    if (d) out.days = await deleteBelow(this.db, 'stream_days', 'ts', today - d, 1);
    return out;
  }

  /** The retention of the registered record kinds (each kind's `prune`): rows removed in all. */
  async pruneKinds(now = Date.now()): Promise<number> {
    let n = 0;
    for (const kind of this.kinds.values()) n += (await kind.prune?.(now)) ?? 0;
    return n;
  }

  /** The retention job's call: only where scheduled work runs, one instance at a time (the lease). */
  async scheduledPrune(): Promise<{ batches: number; hours: number; days: number; kinds: number } | null> {
    if (!this.cfg.cronEnabled) return null;
    if (!(await this.leases.acquire(PRUNE_LEASE, 30 * 60_000))) return null;
    const r = { ...(await this.prune()), kinds: await this.pruneKinds() };
    if (r.batches || r.hours || r.days || r.kinds) this.log.log(`retention: ${r.batches} batch ids, ${r.hours} hour rows, ${r.days} day rows and ${r.kinds} rows of other record kinds removed`);
    return r;
  }

  // ------------------------------------------------------------------------------------------
  // Reading

  /** The first epoch day of a window of `days` days ending today. */
  private static fromDay(days: number, now = Date.now()): number {
    return Math.floor(now / 1000 / DAY) - days + 1;
  }

  private async titles(table: 'book_cats' | 'books', ids: number[]): Promise<Map<number, string>> {
    if (!ids.length) return new Map();
    const [idCol, titleCol] = table === 'book_cats' ? ['Id_cat', 'cat_title'] : ['Id_book', 'book_title'];
    const rows: Record<string, unknown>[] = await this.db.query(`SELECT ${idCol} AS id, ${titleCol} AS title FROM ${table} WHERE ${idCol} IN (${ids.map(() => '?').join(', ')})`, ids);
    return new Map(rows.map((r) => [Number(r.id), String(r.title ?? '')]));
  }

  @Rpc('stream.cats', { role: Role.user, input: StreamCatsArgs, summary: `{p_?, days? (${STREAM_DEFAULT_DAYS}), Id_cat?, q?}: categories with shows, clicks, ctr, pos and books counted over the last days, most shown first, ${STREAM_ITEMS_PAGE} per page: {list, count, page, limit}` })
  async cats(a: z.output<typeof StreamCatsArgs> = {}): Promise<Paged<StreamCatRow>> {
    const page = a.p_ ?? 1;
    const where = ['s.ts >= ?'];
    const params: unknown[] = [InputStreamService.fromDay(a.days ?? STREAM_DEFAULT_DAYS)];
    if (a.Id_cat) { where.push('s.Id_cat = ?'); params.push(a.Id_cat); }
    if (a.q) { where.push(`s.Id_cat IN (SELECT Id_cat FROM book_cats WHERE cat_title ${LIKE_CONTAINS})`); params.push(containsPattern(a.q)); }
    const w = where.join(' AND ');
    const [{ n }] = await this.db.query(`SELECT COUNT(DISTINCT s.Id_cat) AS n FROM stream_days s WHERE ${w}`, params);
    const rows: Record<string, unknown>[] = await this.db.query(
      `SELECT s.Id_cat AS Id_cat, SUM(s.shows) AS shows, SUM(s.clicks) AS clicks, SUM(s.pos_sum) AS pos_sum, SUM(s.pos_n) AS pos_n, COUNT(DISTINCT s.Id_book) AS books
       FROM stream_days s WHERE ${w} GROUP BY s.Id_cat ORDER BY shows DESC, s.Id_cat LIMIT ? OFFSET ?`,
      [...params, STREAM_ITEMS_PAGE, (page - 1) * STREAM_ITEMS_PAGE],
    );
    const titles = await this.titles('book_cats', rows.map((r) => Number(r.Id_cat)));
    const list = rows.map((r) => ({ Id_cat: Number(r.Id_cat), cat_title: titles.get(Number(r.Id_cat)) ?? '', books: num(r.books), ...totalsOf(r as unknown as SumRow) }));
    return { list, count: num(n), page, limit: STREAM_ITEMS_PAGE };
  }

  @Rpc('stream.items', { role: Role.user, input: StreamItemsArgs, summary: `{p_?, days?, Id_cat?, Id_book?}: books per category with shows, clicks, ctr, pos over the last days, ${STREAM_ITEMS_PAGE} per page: {list, count, page, limit}` })
  async items(a: z.output<typeof StreamItemsArgs> = {}): Promise<Paged<StreamItemRow>> {
    const page = a.p_ ?? 1;
    const where = ['s.ts >= ?'];
    const params: unknown[] = [InputStreamService.fromDay(a.days ?? STREAM_DEFAULT_DAYS)];
    if (a.Id_cat) { where.push('s.Id_cat = ?'); params.push(a.Id_cat); }
    if (a.Id_book) { where.push('s.Id_book = ?'); params.push(a.Id_book); }
    const w = where.join(' AND ');
    const [{ n }] = await this.db.query(`SELECT COUNT(*) AS n FROM (SELECT s.Id_cat, s.Id_book FROM stream_days s WHERE ${w} GROUP BY s.Id_cat, s.Id_book) g`, params);
    const rows: Record<string, unknown>[] = await this.db.query(
      `SELECT s.Id_cat AS Id_cat, s.Id_book AS Id_book, SUM(s.shows) AS shows, SUM(s.clicks) AS clicks, SUM(s.pos_sum) AS pos_sum, SUM(s.pos_n) AS pos_n
       FROM stream_days s WHERE ${w} GROUP BY s.Id_cat, s.Id_book ORDER BY shows DESC, s.Id_book, s.Id_cat LIMIT ? OFFSET ?`,
      [...params, STREAM_ITEMS_PAGE, (page - 1) * STREAM_ITEMS_PAGE],
    );
    const cats = await this.titles('book_cats', [...new Set(rows.map((r) => Number(r.Id_cat)))]);
    const books = await this.titles('books', [...new Set(rows.map((r) => Number(r.Id_book)))]);
    const list = rows.map((r) => ({
      Id_book: Number(r.Id_book), book_title: books.get(Number(r.Id_book)) ?? '',
      Id_cat: Number(r.Id_cat), cat_title: cats.get(Number(r.Id_cat)) ?? '', ...totalsOf(r as unknown as SumRow),
    }));
    return { list, count: num(n), page, limit: STREAM_ITEMS_PAGE };
  }

  @Rpc('stream.cat', { role: Role.user, input: StreamCatArgs, summary: `{id, p_?, days?}: one category's books, most shown first, ${STREAM_CAT_BOOKS_PAGE} per page, each with its series (hours when days is 1, else days) of pos, shows, clicks, ctr: {Id_cat, cat_title, step, list, count, page, limit}; 'Cat not found!' for an unknown category` })
  async cat(a: z.output<typeof StreamCatArgs>): Promise<StreamCatView> {
    const now = Date.now();
    const page = a.p_ ?? 1;
    const days = a.days ?? STREAM_DEFAULT_DAYS;
    const cat = await this.titles('book_cats', [a.id]);
    if (!cat.has(a.id)) throw notFound('Cat not found!');
    const fromDay = InputStreamService.fromDay(days, now);
    const [{ n }] = await this.db.query('SELECT COUNT(DISTINCT Id_book) AS n FROM stream_days WHERE Id_cat = ? AND ts >= ?', [a.id, fromDay]);
    const rows: Record<string, unknown>[] = await this.db.query(
      `SELECT Id_book, SUM(shows) AS shows, SUM(clicks) AS clicks, SUM(pos_sum) AS pos_sum, SUM(pos_n) AS pos_n
       FROM stream_days WHERE Id_cat = ? AND ts >= ? GROUP BY Id_book ORDER BY shows DESC, Id_book LIMIT ? OFFSET ?`,
      [a.id, fromDay, STREAM_CAT_BOOKS_PAGE, (page - 1) * STREAM_CAT_BOOKS_PAGE],
    );
    const ids = rows.map((r) => Number(r.Id_book));
    const step: 'hour' | 'day' = days === 1 ? 'hour' : 'day';
    const series = new Map<number, StreamPoint[]>(ids.map((id) => [id, []]));
    if (ids.length) {
      const [table, size, from] = step === 'hour' ? ['stream_hours', HOUR, Math.floor(now / 1000 / HOUR) - 23] : ['stream_days', DAY, fromDay];
      const pts: Record<string, unknown>[] = await this.db.query(
        `SELECT Id_book, ts, shows, clicks, pos_sum, pos_n FROM ${table} WHERE Id_cat = ? AND ts >= ? AND Id_book IN (${ids.map(() => '?').join(', ')}) ORDER BY ts`,
        [a.id, from, ...ids],
      );
      for (const p of pts) series.get(Number(p.Id_book))!.push({ time: Number(p.ts) * size, ...totalsOf(p as unknown as SumRow) });
    }
    const titles = await this.titles('books', ids);
    return {
      Id_cat: a.id, cat_title: cat.get(a.id)!, step,
      list: rows.map((r) => ({ Id_book: Number(r.Id_book), book_title: titles.get(Number(r.Id_book)) ?? '', ...totalsOf(r as unknown as SumRow), series: series.get(Number(r.Id_book))! })),
      count: num(n), page, limit: STREAM_CAT_BOOKS_PAGE,
    };
  }

  @Rpc('metrics.get', { role: Role.user, input: MetricsArgs, summary: '{days? (7), Id_cat?, Id_book?}: input-stream totals (shows, clicks, ctr, pos) over the last days and the daily series: {days, shows, clicks, ctr, pos, series: [{time, shows, clicks, ctr, pos}]}' })
  async metrics(a: z.output<typeof MetricsArgs> = {}): Promise<MetricsView> {
    const days = a.days ?? STREAM_DEFAULT_DAYS;
    const where = ['ts >= ?'];
    const params: unknown[] = [InputStreamService.fromDay(days)];
    if (a.Id_cat) { where.push('Id_cat = ?'); params.push(a.Id_cat); }
    if (a.Id_book) { where.push('Id_book = ?'); params.push(a.Id_book); }
    const rows: Record<string, unknown>[] = await this.db.query(
      `SELECT ts, SUM(shows) AS shows, SUM(clicks) AS clicks, SUM(pos_sum) AS pos_sum, SUM(pos_n) AS pos_n FROM stream_days WHERE ${where.join(' AND ')} GROUP BY ts ORDER BY ts`,
      params,
    );
    const series = rows.map((r) => ({ time: Number(r.ts) * DAY, ...totalsOf(r as unknown as SumRow) }));
    const sum = rows.reduce<SumRow>((s, r) => ({ shows: num(s.shows) + num(r.shows), clicks: num(s.clicks) + num(r.clicks), pos_sum: num(s.pos_sum) + num(r.pos_sum), pos_n: num(s.pos_n) + num(r.pos_n) }), { shows: 0, clicks: 0, pos_sum: 0, pos_n: 0 });
    return { days, ...totalsOf(sum), series };
  }

  /**
   * GET /stats/get_views_data (001 §7): the books shown since `time_more_than` (unix seconds, counted by
   * the hour it falls in; default the last 24 hours), most shown first, with the columns `select` names
   * ('object, count' by default: object = Id_book, count = shows; clicks on request).
   */
  async viewsData(a: z.output<typeof ViewsDataQuery>, now = Date.now()): Promise<Record<string, number>[]> {
    const since = a.time_more_than ?? Math.floor(now / 1000) - DAY;
    const cols = (a.select ?? 'object, count').split(',').map((c) => c.trim()).filter(Boolean);
    const rows: Record<string, unknown>[] = await this.db.query(
      'SELECT Id_book AS object, SUM(shows) AS count, SUM(clicks) AS clicks FROM stream_hours WHERE ts >= ? GROUP BY Id_book ORDER BY count DESC, Id_book LIMIT ?',
      [Math.floor(since / HOUR), a.limit ?? 100],
    );
    return rows.map((r) => Object.fromEntries(cols.map((c) => [c, num(r[c])])));
  }
}
