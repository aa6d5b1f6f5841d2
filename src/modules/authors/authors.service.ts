import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { z } from 'zod';
import {
  AUTHOR_ITEMS_MAX, AUTHOR_MSG, AUTHORS_FILTER_DEFAULT, AUTHORS_MERGE_PAGE, AuthorCandidatesArgs, AuthorIdsArgs, AuthorListArgs,
  AuthorMergeArgs, AuthorMergeHistoryArgs, AuthorMergeIdArgs, AuthorSetBlockArgs, AuthorUpdateListArgs, MERGE_MAX,
  AuthorRecord, type AuthorCandidate, type AuthorMergeView, type AuthorView,
} from '../../contracts/authors.js';
import type { Paged } from '../../contracts/auth.js';
import { Role } from '../../contracts/roles.js';
import { auditTarget } from '../../core/audit/audit-target.js';
import { AppError, conflict, notFound } from '../../core/errors.js';
import { containsPattern, LIKE_CONTAINS } from '../../core/database/like.js';
import { Rpc, type RpcContext } from '../../core/rpc/rpc.decorator.js';
import { AuthorEntity } from '../content/content.entities.js';
import { AuthorIndexService } from './author-index.service.js';
import { AuthorMergeAuthorEntity, AuthorMergeBookEntity, AuthorMergeEntity } from './author-merge.entity.js';

type AuthorRow = Pick<AuthorEntity, 'Id_author' | 'a_fio' | 'opublic' | 'new_relay' | 'relay_marge' | 'not_relay' | 'agit' | 'agit_public'>;
const AUTHOR_COLS = ['Id_author', 'a_fio', 'opublic', 'new_relay', 'relay_marge', 'not_relay', 'agit', 'agit_public'] as const;

/** A comma list of ids as stored ('12,15'), read back as numbers (bad entries dropped). */
export const idsOf = (s: string | null | undefined): number[] => {
  const out: number[] = [];
  for (const p of (s ?? '').split(',')) {
    const t = p.trim();
    if (/^\d{1,10}$/.test(t) && Number(t) > 0 && !out.includes(Number(t))) out.push(Number(t));
  }
  return out;
};
const listOf = (ids: number[]) => ids.join(',');
const placeholders = (n: number) => new Array(n).fill('?').join(', ');
const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));

/**
 * The relays of one saved author record (001 §5 "Author merge"): ids de-duplicated with empty ones
 * dropped (done by the input schema), the author's own id dropped, and an id marked 'not same' removed
 * from new_relay.
 */
export function cleanRelays(Id_author: number, new_relay: number[], not_relay: number[]): { new_relay: number[]; not_relay: number[] } {
  const not = not_relay.filter((x) => x !== Id_author);
  return { new_relay: new_relay.filter((x) => x !== Id_author && !not.includes(x)), not_relay: not };
}

/**
 * Authors (001 §2 "/author/marge", "/content/authors", §5, §7 /author/*; docs/authors.md): the list
 * with each author's candidate duplicates, the Yes/No decisions (update_list), block, and the merge
 * that moves books to the kept author with its undo. Reads for every signed-in user (the menu's
 * /author/marge has no role); changes for role 10 (content) and stronger.
 */
@Injectable()
export class AuthorsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly index: AuthorIndexService,
  ) {}

  // ------------------------------------------------------------------------------------------
  // Reading

  private async rows(ids: number[], m: EntityManager | DataSource = this.db): Promise<Map<number, AuthorRow>> {
    const out = new Map<number, AuthorRow>();
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const rows: AuthorRow[] = await m.query(`SELECT ${AUTHOR_COLS.join(', ')} FROM authors WHERE Id_author IN (${placeholders(chunk.length)})`, chunk);
      for (const r of rows) out.set(Number(r.Id_author), { ...r, Id_author: Number(r.Id_author), opublic: num(r.opublic), agit_public: num(r.agit_public) });
    }
    return out;
  }

  private async bookCounts(ids: number[]): Promise<Map<number, number>> {
    if (!ids.length) return new Map();
    const rows: { o: unknown; n: unknown }[] = await this.db.query(`SELECT book_owner AS o, COUNT(*) AS n FROM books WHERE book_owner IN (${placeholders(ids.length)}) GROUP BY book_owner`, ids);
    return new Map(rows.map((r) => [num(r.o), num(r.n)]));
  }

  /** 'Not same' decisions of every author, both ways: id -> ids it must not be offered with. */
  private async decisions(): Promise<Map<number, Set<number>>> {
    const rows: { Id_author: unknown; not_relay: string }[] = await this.db.query("SELECT Id_author, not_relay FROM authors WHERE not_relay IS NOT NULL AND not_relay <> ''");
    const map = new Map<number, Set<number>>();
    const add = (a: number, b: number) => { let s = map.get(a); if (!s) map.set(a, (s = new Set())); s.add(b); };
    for (const r of rows) for (const other of idsOf(r.not_relay)) { add(num(r.Id_author), other); add(other, num(r.Id_author)); }
    return map;
  }

  /** Candidates of one author: by name (not marked 'not same' either way), plus ids it already marked same. */
  private async candidatesFor(a: AuthorRow, skip: Map<number, Set<number>>): Promise<Omit<AuthorCandidate, 'count_books'>[]> {
    const byName = await this.index.candidatesOf(a.Id_author, skip.get(a.Id_author));
    const out: Omit<AuthorCandidate, 'count_books'>[] = byName.map((c) => ({ Id_author: c.Id_author, a_fio: c.a_fio, reasons: [...c.reasons] }));
    const marked = idsOf(a.new_relay).filter((x) => !out.some((c) => c.Id_author === x));
    if (marked.length) {
      const rows = await this.rows(marked);
      for (const x of marked) { const r = rows.get(x); if (r) out.push({ Id_author: x, a_fio: r.a_fio, reasons: ['marked same'] }); }
    }
    return out;
  }

  private async views(rows: AuthorRow[], joinItems: boolean, skip?: Map<number, Set<number>>): Promise<AuthorView[]> {
    const dec = skip ?? (await this.decisions());
    const cands = await Promise.all(rows.map((r) => this.candidatesFor(r, dec)));
    const counts = await this.bookCounts([...new Set([...rows.map((r) => r.Id_author), ...cands.flat().map((c) => c.Id_author)])]);
    const views: AuthorView[] = rows.map((r, i) => ({
      Id_author: r.Id_author, a_fio: r.a_fio, opublic: num(r.opublic),
      new_relay: listOf(idsOf(r.new_relay)), relay_marge: listOf(idsOf(r.relay_marge)), not_relay: listOf(idsOf(r.not_relay)),
      agit: r.agit ?? '', agit_public: num(r.agit_public), count_books: counts.get(r.Id_author) ?? 0,
      candidates: cands[i].map((c) => ({ ...c, count_books: counts.get(c.Id_author) ?? 0 })),
    }));
    if (joinItems) {
      for (const v of views) {
        v.items = (await this.db.query(`SELECT Id_book, book_title, public FROM books WHERE book_owner = ? ORDER BY Id_book LIMIT ${AUTHOR_ITEMS_MAX}`, [v.Id_author]))
          .map((b: Record<string, unknown>) => ({ Id_book: num(b.Id_book), book_title: String(b.book_title ?? ''), public: num(b.public) }));
      }
    }
    return views;
  }

  @Rpc('author.getList', {
    role: Role.user, input: AuthorListArgs,
    summary: `{limit? (${AUTHORS_FILTER_DEFAULT}), page? or p_?, joinItems?, getCount?, only_double?, a_fio?, Id_author?}: {list, count}; each author with count_books and its candidates [{Id_author, a_fio, reasons, count_books}]; only_double: only authors that have candidates`,
  })
  async getList(a: z.output<typeof AuthorListArgs> = {}): Promise<{ list: AuthorView[]; count: number }> {
    const limit = a.limit ?? AUTHORS_FILTER_DEFAULT;
    const page = a.page ?? a.p_ ?? 1;
    const like = a.a_fio ? containsPattern(a.a_fio) : null;
    if (a.only_double) {
      const dec = await this.decisions();
      const built = await this.index.get();
      // An author without 'not same' decisions keeps its candidates by name; only the others are checked again.
      const kept = new Set(await this.index.stillDouble(built.doubles.filter((id) => dec.has(id)).map((id) => [id, [...dec.get(id)!]])));
      let ids = built.doubles.filter((id) => !dec.has(id) || kept.has(id));
      if (a.Id_author) ids = ids.filter((id) => id === a.Id_author);
      if (like) {
        const needle = a.a_fio!.toLowerCase();
        const names = await this.rows(ids);
        ids = ids.filter((id) => names.get(id)?.a_fio.toLowerCase().includes(needle));
      }
      const pageIds = ids.slice((page - 1) * limit, page * limit);
      const rows = await this.rows(pageIds);
      return { list: await this.views(pageIds.map((id) => rows.get(id)!).filter(Boolean), !!a.joinItems, dec), count: ids.length };
    }
    const where: string[] = [];
    const params: unknown[] = [];
    if (a.Id_author) { where.push('Id_author = ?'); params.push(a.Id_author); }
    if (like) { where.push(`a_fio ${LIKE_CONTAINS}`); params.push(like); }
    const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const [{ n }] = await this.db.query(`SELECT COUNT(*) AS n FROM authors ${w}`, params);
    const rows: AuthorRow[] = await this.db.query(`SELECT ${AUTHOR_COLS.join(', ')} FROM authors ${w} ORDER BY Id_author LIMIT ? OFFSET ?`, [...params, limit, (page - 1) * limit]);
    return { list: await this.views(rows.map((r) => ({ ...r, Id_author: num(r.Id_author) })), !!a.joinItems), count: num(n) };
  }

  @Rpc('author.candidates', { role: Role.user, input: AuthorCandidatesArgs, summary: '{Id_author}: the author\'s candidate duplicates with the reasons they matched' })
  async candidates(a: z.output<typeof AuthorCandidatesArgs>): Promise<AuthorCandidate[]> {
    const row = (await this.rows([a.Id_author])).get(a.Id_author);
    if (!row) throw notFound(`Author ${a.Id_author} not found`);
    return (await this.views([row], false))[0].candidates;
  }

  @Rpc('author.getAuthors_id', { role: Role.user, input: AuthorIdsArgs, summary: '{ids: "1,2" or [1, 2]}: those authors (unknown ids left out), in the order asked' })
  async byIds(a: z.output<typeof AuthorIdsArgs>): Promise<AuthorView[]> {
    const rows = await this.rows(a.ids);
    return this.views(a.ids.map((id) => rows.get(id)!).filter(Boolean), false);
  }

  // ------------------------------------------------------------------------------------------
  // Writing

  @Rpc('author.updateList', {
    role: Role.content, write: true, input: AuthorUpdateListArgs,
    summary: "{list: [author records]}: saves the given fields of each (a_fio trimmed; new_relay/not_relay/relay_marge de-duplicated, empty and own ids dropped, 'not same' ids removed from new_relay), all or none: {message: 'Saved ok!', saved}",
  })
  async updateList(a: z.output<typeof AuthorUpdateListArgs>): Promise<{ message: string; saved: number }> {
    return this.saveRecords(a.list);
  }

  /** POST /author/update_list and author.updateList. */
  async saveRecords(list: z.output<typeof AuthorRecord>[]): Promise<{ message: string; saved: number }> {
    const ids = [...new Set(list.map((r) => r.Id_author))];
    let names = false;
    await this.db.transaction(async (m) => {
      const current = await this.rows(ids, m);
      const missing = ids.find((id) => !current.has(id));
      if (missing) throw notFound(`Author ${missing} not found`);
      for (const r of list) {
        const cur = current.get(r.Id_author)!;
        const relays = cleanRelays(r.Id_author, r.new_relay ?? idsOf(cur.new_relay), r.not_relay ?? idsOf(cur.not_relay));
        const patch: Partial<AuthorRow> = { new_relay: listOf(relays.new_relay), not_relay: listOf(relays.not_relay) };
        if (r.relay_marge !== undefined) patch.relay_marge = listOf(r.relay_marge.filter((x) => x !== r.Id_author));
        if (r.a_fio !== undefined && r.a_fio !== cur.a_fio) { patch.a_fio = r.a_fio; names = true; }
        if (r.opublic !== undefined) patch.opublic = r.opublic;
        if (r.agit !== undefined) patch.agit = r.agit;
        if (r.agit_public !== undefined) patch.agit_public = r.agit_public;
        await m.update(AuthorEntity, { Id_author: r.Id_author }, patch);
        current.set(r.Id_author, { ...cur, ...patch });
      }
    });
    if (names) this.index.invalidate();
    if (ids.length === 1) auditTarget('author', list[0].a_fio ?? null, ids[0]);
    return { message: AUTHOR_MSG.savedOk, saved: list.length };
  }

  @Rpc('author.setBlock', { role: Role.content, write: true, input: AuthorSetBlockArgs, summary: "{Id_author, opublic}: 0 public, otherwise blocked: {affectedRows, message: 'Save ok'}" })
  async setBlock(a: z.output<typeof AuthorSetBlockArgs>): Promise<{ affectedRows: number; message: string }> {
    const r = await this.db.createQueryBuilder().update(AuthorEntity).set({ opublic: a.opublic }).where('Id_author = :id', { id: a.Id_author }).execute();
    if (!r.affected) throw notFound(`Author ${a.Id_author} not found`);
    auditTarget('author', null, a.Id_author);
    return { affectedRows: r.affected ?? 0, message: AUTHOR_MSG.saveOk };
  }

  @Rpc('author.merge', {
    role: Role.content, write: true, input: AuthorMergeArgs,
    summary: '{Id_author, ids?}: merges ids (default: its new_relay) into Id_author in one transaction — their books move to it, the merged authors are removed, relay_marge records them; answers the history entry {Id, kept_id, merged, books_count, ...}',
  })
  async merge(a: z.output<typeof AuthorMergeArgs>, ctx: RpcContext): Promise<AuthorMergeView> {
    const keptId = a.Id_author;
    const Id = await this.db.transaction(async (m) => {
      const kept = (await this.rows([keptId], m)).get(keptId);
      if (!kept) throw notFound(`Author ${keptId} not found`);
      const ids = (a.ids ?? idsOf(kept.new_relay)).filter((x) => x !== keptId);
      if (!ids.length) throw new AppError(422, "Nothing to merge: mark candidates 'Yes' and save the list first", 'rules', { ids: 'no authors to merge' });
      if (ids.length > MERGE_MAX) throw new AppError(422, `ids: at most ${MERGE_MAX} authors at once`, 'rules', { ids: `at most ${MERGE_MAX}` });
      const merged = await this.rows(ids, m);
      const missing = ids.find((x) => !merged.has(x));
      if (missing) throw notFound(`Author ${missing} not found`);
      auditTarget('author', kept.a_fio, keptId);

      const entry = await m.save(m.create(AuthorMergeEntity, {
        kept_id: keptId, merged_ids: listOf(ids),
        kept_before: JSON.stringify({ new_relay: kept.new_relay ?? '', relay_marge: kept.relay_marge ?? '' }),
        books_count: 0, uid: ctx.actor.uid, user_name: ctx.actor.name || ctx.actor.login, created_at: new Date(), undone_at: null, undone_uid: null,
      }));
      for (const id of ids) await m.insert(AuthorMergeAuthorEntity, { merge_id: entry.Id, Id_author: id, snapshot: JSON.stringify(merged.get(id)) });
      const ph = placeholders(ids.length);
      await m.query(`INSERT INTO author_merge_books (merge_id, Id_book, prev_owner) SELECT ?, Id_book, book_owner FROM books WHERE book_owner IN (${ph})`, [entry.Id, ...ids]);
      const [{ n }] = await m.query('SELECT COUNT(*) AS n FROM author_merge_books WHERE merge_id = ?', [entry.Id]);
      await m.query(`UPDATE books SET book_owner = ? WHERE book_owner IN (${ph})`, [keptId, ...ids]);
      await m.update(AuthorEntity, { Id_author: keptId }, {
        relay_marge: listOf([...new Set([...idsOf(kept.relay_marge), ...ids])]),
        new_relay: listOf(idsOf(kept.new_relay).filter((x) => !ids.includes(x))),
      });
      await m.query(`DELETE FROM authors WHERE Id_author IN (${ph})`, ids);
      await m.update(AuthorMergeEntity, { Id: entry.Id }, { books_count: num(n) });
      return entry.Id;
    });
    this.index.invalidate();
    return (await this.historyViews([await this.db.getRepository(AuthorMergeEntity).findOneByOrFail({ Id })]))[0];
  }

  @Rpc('author.undoMerge', {
    role: Role.content, write: true, input: AuthorMergeIdArgs,
    summary: "{Id}: undoes a merge in one transaction — the merged authors come back as they were and the books still with the kept author return to their owners; 409 when already undone, when the kept author is gone or a merged id exists again",
  })
  async undoMerge(a: z.output<typeof AuthorMergeIdArgs>, ctx: RpcContext): Promise<AuthorMergeView & { books_restored: number }> {
    let restored = 0;
    await this.db.transaction(async (m) => {
      const entry = await m.findOneBy(AuthorMergeEntity, { Id: a.Id });
      if (!entry) throw notFound(`Merge ${a.Id} not found`);
      if (entry.undone_at) throw conflict(`Merge ${a.Id} was already undone`);
      const ids = idsOf(entry.merged_ids);
      const kept = (await this.rows([entry.kept_id], m)).get(entry.kept_id);
      if (!kept) throw conflict(`Author ${entry.kept_id} no longer exists (merged again later?): undo that merge first`);
      const back = await this.rows(ids, m);
      if (back.size) throw conflict(`Author ${[...back.keys()][0]} exists again: this merge cannot be undone`);
      auditTarget('author', kept.a_fio, kept.Id_author);
      const snaps = await m.findBy(AuthorMergeAuthorEntity, { merge_id: entry.Id });
      for (const s of snaps) {
        const row = JSON.parse(s.snapshot) as AuthorRow;
        await m.insert(AuthorEntity, Object.fromEntries(AUTHOR_COLS.map((c) => [c, row[c]])) as Partial<AuthorEntity>);
      }
      const stillKept = 'book_owner = ? AND Id_book IN (SELECT Id_book FROM author_merge_books WHERE merge_id = ?)';
      const [{ n }] = await m.query(`SELECT COUNT(*) AS n FROM books WHERE ${stillKept}`, [entry.kept_id, entry.Id]);
      restored = num(n);
      await m.query(
        `UPDATE books SET book_owner = (SELECT mb.prev_owner FROM author_merge_books mb WHERE mb.merge_id = ? AND mb.Id_book = books.Id_book) WHERE ${stillKept}`,
        [entry.Id, entry.kept_id, entry.Id],
      );
      const before = JSON.parse(entry.kept_before) as { new_relay: string };
      const wasMarked = idsOf(before.new_relay).filter((x) => ids.includes(x));
      await m.update(AuthorEntity, { Id_author: kept.Id_author }, {
        relay_marge: listOf(idsOf(kept.relay_marge).filter((x) => !ids.includes(x))),
        new_relay: listOf([...new Set([...idsOf(kept.new_relay), ...wasMarked])]),
      });
      await m.update(AuthorMergeEntity, { Id: entry.Id }, { undone_at: new Date(), undone_uid: ctx.actor.uid });
    });
    this.index.invalidate();
    const view = (await this.historyViews([await this.db.getRepository(AuthorMergeEntity).findOneByOrFail({ Id: a.Id })]))[0];
    return { ...view, books_restored: restored };
  }

  private async historyViews(entries: AuthorMergeEntity[]): Promise<AuthorMergeView[]> {
    const keptIds = [...new Set(entries.map((e) => e.kept_id))];
    const kept = await this.rows(keptIds);
    const snaps = entries.length
      ? await this.db.getRepository(AuthorMergeAuthorEntity).createQueryBuilder('s').where('s.merge_id IN (:...ids)', { ids: entries.map((e) => e.Id) }).getMany()
      : [];
    return entries.map((e) => ({
      Id: e.Id, kept_id: e.kept_id, kept_fio: kept.get(e.kept_id)?.a_fio ?? '',
      merged: snaps.filter((s) => s.merge_id === e.Id).map((s) => ({ Id_author: s.Id_author, a_fio: String((JSON.parse(s.snapshot) as AuthorRow).a_fio ?? '') })),
      books_count: e.books_count, user_name: e.user_name, created_at: e.created_at.toISOString(), undone_at: e.undone_at ? e.undone_at.toISOString() : null,
    }));
  }

  @Rpc('author.mergeHistory', { role: Role.user, input: AuthorMergeHistoryArgs, summary: `{p_?, Id_author?}: merges, newest first, ${AUTHORS_MERGE_PAGE} per page: {list: [{Id, kept_id, kept_fio, merged, books_count, user_name, created_at, undone_at}], count, page, limit}` })
  async mergeHistory(a: z.output<typeof AuthorMergeHistoryArgs> = {}): Promise<Paged<AuthorMergeView>> {
    const page = a.p_ ?? 1;
    const [list, count] = await this.db.getRepository(AuthorMergeEntity).findAndCount({
      where: a.Id_author ? { kept_id: a.Id_author } : {}, order: { Id: 'DESC' }, take: AUTHORS_MERGE_PAGE, skip: (page - 1) * AUTHORS_MERGE_PAGE,
    });
    return { list: await this.historyViews(list), count, page, limit: AUTHORS_MERGE_PAGE };
  }
}
