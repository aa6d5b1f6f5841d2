import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { In, type DataSource, type EntityManager } from 'typeorm';
import type { z } from 'zod';
import {
  COMPILATION_AUTO_COUNT, COMPILATION_HISTORY_LIMIT, COMPILATION_MSG, COMPILATION_NEW_MAX_VIEWS, COMPILATIONS_PAGE, CompilationAutoArgs,
  CompilationGetArgs, CompilationIdArgs, CompilationItemsArgs, CompilationSaveArgs, CompilationVersionArgs,
  type CompilationBook, type CompilationHistoryEntry, type CompilationItem, type CompilationList, type CompilationRelay, type CompilationSort,
  type CompilationView,
} from '../../contracts/compilations.js';
import { Role } from '../../contracts/roles.js';
import { auditTarget } from '../../core/audit/audit-target.js';
import { cleanHtml } from '../../core/content/sanitize.js';
import { containsPattern, LIKE_CONTAINS } from '../../core/database/like.js';
import { invalid, notFound } from '../../core/errors.js';
import { Rpc } from '../../core/rpc/rpc.decorator.js';
import { CompilationEntity, CompilationHistoryEntity } from './compilations.entities.js';

const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));
const str = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const SORT: Record<CompilationSort, string> = {
  time_desc: 'time_update DESC, Id_compilation DESC', time_asc: 'time_update ASC, Id_compilation ASC',
  id_desc: 'Id_compilation DESC', id_asc: 'Id_compilation ASC',
};
/** The same orders reversed: a page past the middle is read from the other end. */
const REVERSE: Record<CompilationSort, CompilationSort> = { time_desc: 'time_asc', time_asc: 'time_desc', id_desc: 'id_asc', id_asc: 'id_desc' };
/** Rows per multi-row INSERT of items. */
const CHUNK = 500;
/** List counts are kept this long per filter (dropped on every save, restore and delete made here). */
const COUNT_TTL_MS = 30_000;
const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

type SaveInput = z.output<typeof CompilationSaveArgs>;
/** A version as the history keeps it. */
interface Snapshot {
  meta_title: string; meta_description: string; meta_h1: string; title_short: string; type: number;
  body_top: string; body_bottom: string; items: number[]; relay: number[]; time_update: string | null;
}

function view(e: CompilationEntity): CompilationView {
  return {
    Id_compilation: e.Id_compilation, meta_title: e.meta_title, meta_description: str(e.meta_description), meta_h1: e.meta_h1,
    title_short: e.title_short, type: e.type, body_top: str(e.body_top), body_bottom: str(e.body_bottom),
    time_update: e.time_update ? new Date(e.time_update).toISOString() : null, items_count: e.items_count,
  };
}

/**
 * Compilations (001 §2 "Compilations", §7 /compilation/*; docs/content.md "Compilations"): the list
 * (20 per page, newest first), one compilation with its items in the saved order and its category
 * relays, save (every save keeps the version it replaces), delete, the history and its restore, the
 * auto compilation from the input stream's statistics, and the item-id lookup. Role 10 (content).
 */
@Injectable()
export class CompilationsService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** COUNT(*) of the list per filter: an InnoDB count of 100,000 rows costs more than the page itself. */
  private readonly counts = new Map<string, { n: number; at: number }>();

  private async count(where: string, params: unknown[]): Promise<number> {
    const key = `${where}\u0000${JSON.stringify(params)}`;
    const hit = this.counts.get(key);
    if (hit && Date.now() - hit.at < COUNT_TTL_MS) return hit.n;
    const [{ n }] = await this.db.query(`SELECT COUNT(*) AS n FROM compilations ${where}`, params);
    if (this.counts.size > 500) this.counts.clear();
    this.counts.set(key, { n: num(n), at: Date.now() });
    return num(n);
  }

  /** GET /compilation/get_list: with Id_compilation one compilation, else a page of the list. */
  async get(a: z.output<typeof CompilationGetArgs>): Promise<CompilationView | CompilationList> {
    if (a.Id_compilation) return this.one(a.Id_compilation, a.joinItems !== 0, a.joinRelay !== 0);
    const limit = a.limit ?? COMPILATIONS_PAGE;
    const page = a.page ?? 1;
    const where: string[] = [];
    const params: unknown[] = [];
    if (a.q) {
      const p = containsPattern(a.q);
      const byId = /^\d{1,9}$/.test(a.q) ? ' OR Id_compilation = ?' : '';
      where.push(`(meta_title ${LIKE_CONTAINS} OR title_short ${LIKE_CONTAINS} OR meta_h1 ${LIKE_CONTAINS}${byId})`);
      params.push(p, p, p, ...(byId ? [Number(a.q)] : []));
    }
    const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const total = a.getCount !== 0 ? await this.count(w, params) : undefined;
    // The page's ids come from the (time_update, Id_compilation) index alone; the rows are read by id.
    // Past the middle (count known) the index is walked from the other end, so the last page costs what the first does.
    const sort = a.sort ?? 'time_desc';
    const offset = (page - 1) * limit;
    const fromEnd = total !== undefined && offset > total / 2 && offset < total;
    const idRows: { id: unknown }[] = fromEnd
      ? await this.db.query(`SELECT Id_compilation AS id FROM compilations ${w} ORDER BY ${SORT[REVERSE[sort]]} LIMIT ? OFFSET ?`,
        [...params, Math.min(limit, total - offset), Math.max(0, total - offset - limit)])
      : await this.db.query(`SELECT Id_compilation AS id FROM compilations ${w} ORDER BY ${SORT[sort]} LIMIT ? OFFSET ?`, [...params, limit, offset]);
    const ids = idRows.map((r) => num(r.id));
    if (fromEnd) ids.reverse();
    const rows = ids.length ? await this.db.getRepository(CompilationEntity).findBy({ Id_compilation: In(ids) }) : [];
    const byId = new Map(rows.map((r) => [r.Id_compilation, view(r)]));
    const list = ids.map((id) => byId.get(id)).filter((v): v is CompilationView => !!v);
    if (a.joinItems === 1 && list.length) {
      const items = await this.itemsOf(ids);
      for (const v of list) v.items = items.get(v.Id_compilation) ?? [];
    }
    if (a.joinRelay === 1 && list.length) {
      const relay = await this.relayOf(ids);
      for (const v of list) v.relay = relay.get(v.Id_compilation) ?? [];
    }
    return total !== undefined ? { list, count: total, page, limit } : { list, page, limit };
  }

  async one(Id_compilation: number, joinItems = true, joinRelay = true): Promise<CompilationView> {
    const row = await this.db.getRepository(CompilationEntity).findOneBy({ Id_compilation });
    if (!row) throw notFound(COMPILATION_MSG.notFound);
    const v = view(row);
    if (joinItems) v.items = (await this.itemsOf([Id_compilation])).get(Id_compilation) ?? [];
    if (joinRelay) v.relay = (await this.relayOf([Id_compilation])).get(Id_compilation) ?? [];
    return v;
  }

  private async itemsOf(ids: number[]): Promise<Map<number, CompilationItem[]>> {
    const rows: Record<string, unknown>[] = await this.db.query(
      `SELECT i.id_compilation AS c, i.item_id AS item_id, i.pos AS pos, b.book_title AS book_title, b.views AS views
       FROM compilation_items i LEFT JOIN books b ON b.Id_book = i.item_id
       WHERE i.id_compilation IN (${marks(ids.length)}) ORDER BY i.id_compilation, i.pos`, ids,
    );
    const out = new Map<number, CompilationItem[]>();
    for (const r of rows) {
      const list = out.get(num(r.c)) ?? [];
      list.push({ item_id: num(r.item_id), pos: num(r.pos), book_title: str(r.book_title), views: num(r.views) });
      out.set(num(r.c), list);
    }
    return out;
  }

  private async relayOf(ids: number[]): Promise<Map<number, CompilationRelay[]>> {
    const rows: Record<string, unknown>[] = await this.db.query(
      `SELECT r.id_compilation AS c, r.Id_cat AS id, c.cat_title AS label FROM compilation_relay r LEFT JOIN book_cats c ON c.Id_cat = r.Id_cat
       WHERE r.id_compilation IN (${marks(ids.length)}) ORDER BY r.id_compilation, r.Id_cat`, ids,
    );
    const out = new Map<number, CompilationRelay[]>();
    for (const r of rows) {
      const list = out.get(num(r.c)) ?? [];
      list.push({ id: num(r.id), label: str(r.label) });
      out.set(num(r.c), list);
    }
    return out;
  }

  /** The ids of `ids` that `table` has no row for, in the order given. */
  private async missing(m: EntityManager, table: 'books' | 'book_cats', ids: number[]): Promise<number[]> {
    if (!ids.length) return [];
    const col = table === 'books' ? 'Id_book' : 'Id_cat';
    const found = new Set<number>();
    for (let i = 0; i < ids.length; i += CHUNK) {
      const part = ids.slice(i, i + CHUNK);
      const rows: { id: unknown }[] = await m.query(`SELECT ${col} AS id FROM ${table} WHERE ${col} IN (${marks(part.length)})`, part);
      for (const r of rows) found.add(num(r.id));
    }
    return ids.filter((id) => !found.has(id));
  }

  /**
   * POST /compilation/save: creates (no Id_compilation; type 1 unless given) or replaces the whole
   * compilation; the version it replaces goes to the history. Items keep the order sent (a repeated id
   * counts once, at its first place); unknown book or category ids are refused and listed.
   */
  async save(a: SaveInput): Promise<{ Id_compilation: number; message: string }> {
    const items = [...new Set(a.items ?? [])];
    const relay = [...new Set(a.relay ?? [])];
    const Id_compilation = await this.db.transaction(async (m) => {
      const badItems = await this.missing(m, 'books', items);
      const badCats = await this.missing(m, 'book_cats', relay);
      if (badItems.length || badCats.length) {
        const fields: Record<string, string> = {};
        if (badItems.length) fields.items = `Unknown item ids: ${badItems.join(', ')}`;
        if (badCats.length) fields.relay = `Unknown category ids: ${badCats.join(', ')}`;
        throw invalid(Object.values(fields).join('; '), fields);
      }
      const repo = m.getRepository(CompilationEntity);
      let cur: CompilationEntity | null = null;
      if (a.Id_compilation !== undefined) {
        cur = await repo.findOneBy({ Id_compilation: a.Id_compilation });
        if (!cur) throw notFound(COMPILATION_MSG.notFound);
        await m.getRepository(CompilationHistoryEntity).insert({
          Id_compilation: cur.Id_compilation, ts_update: cur.time_update, snapshot: JSON.stringify(await this.snapshot(m, cur)),
        });
      }
      const fields = {
        meta_title: a.meta_title, meta_description: a.meta_description, meta_h1: a.meta_h1, title_short: a.title_short,
        type: a.type ?? cur?.type ?? 1, body_top: cleanHtml(a.body_top), body_bottom: cleanHtml(a.body_bottom),
        time_update: new Date(), items_count: items.length,
      };
      let id: number;
      if (cur) {
        id = cur.Id_compilation;
        await repo.update({ Id_compilation: id }, fields);
        await m.query('DELETE FROM compilation_items WHERE id_compilation = ?', [id]);
        await m.query('DELETE FROM compilation_relay WHERE id_compilation = ?', [id]);
      } else id = (await repo.save(repo.create(fields))).Id_compilation;
      for (let i = 0; i < items.length; i += CHUNK) {
        const part = items.slice(i, i + CHUNK);
        await m.query(`INSERT INTO compilation_items (id_compilation, item_id, pos) VALUES ${part.map(() => '(?, ?, ?)').join(', ')}`,
          part.flatMap((item, j) => [id, item, i + j + 1]));
      }
      if (relay.length) await m.query(`INSERT INTO compilation_relay (id_compilation, Id_cat) VALUES ${relay.map(() => '(?, ?)').join(', ')}`, relay.flatMap((c) => [id, c]));
      return id;
    });
    this.counts.clear();
    auditTarget('compilation', a.meta_title, Id_compilation);
    return { Id_compilation, message: COMPILATION_MSG.saved };
  }

  private async snapshot(m: EntityManager, e: CompilationEntity): Promise<Snapshot> {
    const items: { id: unknown }[] = await m.query('SELECT item_id AS id FROM compilation_items WHERE id_compilation = ? ORDER BY pos', [e.Id_compilation]);
    const relay: { id: unknown }[] = await m.query('SELECT Id_cat AS id FROM compilation_relay WHERE id_compilation = ? ORDER BY Id_cat', [e.Id_compilation]);
    return {
      meta_title: e.meta_title, meta_description: str(e.meta_description), meta_h1: e.meta_h1, title_short: e.title_short, type: e.type,
      body_top: str(e.body_top), body_bottom: str(e.body_bottom), items: items.map((r) => num(r.id)), relay: relay.map((r) => num(r.id)),
      time_update: e.time_update ? new Date(e.time_update).toISOString() : null,
    };
  }

  /** POST /compilation/delete: the compilation, its items, relays and history. */
  async remove(a: z.output<typeof CompilationIdArgs>): Promise<{ message: string }> {
    const cur = await this.db.getRepository(CompilationEntity).findOneBy({ Id_compilation: a.Id_compilation });
    if (!cur) throw notFound(COMPILATION_MSG.notFound);
    auditTarget('compilation', cur.meta_title, cur.Id_compilation);
    await this.db.transaction(async (m) => {
      for (const t of ['compilation_items', 'compilation_relay']) await m.query(`DELETE FROM ${t} WHERE id_compilation = ?`, [a.Id_compilation]);
      await m.query('DELETE FROM compilation_history WHERE Id_compilation = ?', [a.Id_compilation]);
      await m.query('DELETE FROM compilations WHERE Id_compilation = ?', [a.Id_compilation]);
    });
    this.counts.clear();
    return { message: COMPILATION_MSG.deleted };
  }

  @Rpc('compilation.history', {
    role: Role.content, input: CompilationIdArgs,
    summary: `{Id_compilation}: the versions earlier saves replaced, newest first (at most ${COMPILATION_HISTORY_LIMIT}): [{Id, ts_update, meta_title, items_count}]; 'Compilation not found'`,
  })
  async history(a: z.output<typeof CompilationIdArgs>): Promise<CompilationHistoryEntry[]> {
    await this.one(a.Id_compilation, false, false);
    const rows = await this.db.getRepository(CompilationHistoryEntity).find({
      where: { Id_compilation: a.Id_compilation }, order: { Id: 'DESC' }, take: COMPILATION_HISTORY_LIMIT,
    });
    return rows.map((r) => {
      const s = JSON.parse(r.snapshot) as Snapshot;
      return { Id: r.Id, ts_update: r.ts_update ? new Date(r.ts_update).toISOString() : null, meta_title: s.meta_title, items_count: s.items.length };
    });
  }

  @Rpc('compilation.restore', {
    role: Role.content, write: true, input: CompilationVersionArgs,
    summary: "{Id} (a history entry): saves that version as the compilation's new one (the current one goes to the history): {Id_compilation, message}; 'Compilation not found'; books or categories gone since are refused and listed (422)",
  })
  async restore(a: z.output<typeof CompilationVersionArgs>): Promise<{ Id_compilation: number; message: string }> {
    const h = await this.db.getRepository(CompilationHistoryEntity).findOneBy({ Id: a.Id });
    if (!h) throw notFound(COMPILATION_MSG.notFound);
    const s = JSON.parse(h.snapshot) as Snapshot;
    return this.save({
      Id_compilation: h.Id_compilation, meta_title: s.meta_title, meta_description: s.meta_description, meta_h1: s.meta_h1, title_short: s.title_short,
      type: s.type as 1 | 2, body_top: s.body_top, body_bottom: s.body_bottom, items: s.items, relay: s.relay,
    });
  }

  @Rpc('compilation.items', {
    role: Role.content, input: CompilationItemsArgs,
    summary: '{ids}: the item-id editor\'s lookup: {found: [{item_id, book_title, views, public}] in the order asked, unknown: [ids without a book]}',
  })
  async items(a: z.output<typeof CompilationItemsArgs>): Promise<{ found: CompilationBook[]; unknown: number[] }> {
    const ids = [...new Set(a.ids)];
    const rows: Record<string, unknown>[] = [];
    for (let i = 0; i < ids.length; i += CHUNK) {
      const part = ids.slice(i, i + CHUNK);
      rows.push(...(await this.db.query(`SELECT Id_book, book_title, views, public FROM books WHERE Id_book IN (${marks(part.length)})`, part)) as Record<string, unknown>[]);
    }
    const byId = new Map(rows.map((r) => [num(r.Id_book), r]));
    const found: CompilationBook[] = [];
    const unknown: number[] = [];
    for (const id of ids) {
      const r = byId.get(id);
      if (r) found.push({ item_id: id, book_title: str(r.book_title), views: num(r.views), public: num(r.public) });
      else unknown.push(id);
    }
    return { found, unknown };
  }

  @Rpc('compilation.auto', {
    role: Role.content, input: CompilationAutoArgs,
    summary: `{days (1-90), mode (new|top), Id_cat?}: books for review, nothing saved. new: ${COMPILATION_AUTO_COUNT} public books with views under ${COMPILATION_NEW_MAX_VIEWS} shown in the input stream in the range, newest first; top: the ${COMPILATION_AUTO_COUNT} public books with the most reads (input-stream clicks) in the range. Id_cat: shown in that category. {list: [{item_id, book_title, views, public, reads, shows}], message} (message: the Russian hint when empty)`,
  })
  async auto(a: z.output<typeof CompilationAutoArgs>): Promise<{ list: CompilationBook[]; message: string }> {
    // stream_days.ts is the UTC epoch day (docs/input-stream.md "Aggregation"): the range is today and the days before it.
    const fromDay = Math.floor(Date.now() / 86_400_000) - a.days + 1;
    const cat = a.Id_cat ? ' AND s.Id_cat = ?' : '';
    const params: unknown[] = [fromDay, ...(a.Id_cat ? [a.Id_cat] : [])];
    let rows: Record<string, unknown>[];
    if (a.mode === 'top') {
      rows = await this.db.query(
        `SELECT b.Id_book, b.book_title, b.views, b.public, t.n_reads, t.n_shows FROM (
           SELECT s.Id_book, SUM(s.clicks) AS n_reads, SUM(s.shows) AS n_shows FROM stream_days s WHERE s.ts >= ?${cat} GROUP BY s.Id_book
         ) t JOIN books b ON b.Id_book = t.Id_book
         WHERE b.public = 0 AND t.n_reads > 0 ORDER BY t.n_reads DESC, t.n_shows DESC, b.Id_book LIMIT ?`,
        [...params, COMPILATION_AUTO_COUNT],
      );
    } else {
      rows = await this.db.query(
        `SELECT b.Id_book, b.book_title, b.views, b.public, t.n_reads, t.n_shows FROM (
           SELECT s.Id_book, SUM(s.clicks) AS n_reads, SUM(s.shows) AS n_shows FROM stream_days s WHERE s.ts >= ?${cat} GROUP BY s.Id_book
         ) t JOIN books b ON b.Id_book = t.Id_book
         WHERE b.public = 0 AND b.views < ? ORDER BY b.Id_book DESC LIMIT ?`,
        [...params, COMPILATION_NEW_MAX_VIEWS, COMPILATION_AUTO_COUNT],
      );
    }
    const list = rows.map((r) => ({
      item_id: num(r.Id_book), book_title: str(r.book_title), views: num(r.views), public: num(r.public), reads: num(r.n_reads), shows: num(r.n_shows),
    }));
    return { list, message: list.length ? '' : COMPILATION_MSG.autoEmpty };
  }
}
