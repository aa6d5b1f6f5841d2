/**
 * Content I (issue 13, docs/content.md): books and pages (001 §7 book.*), block by links
 * (book.blocked, author.blocked, their _id twins of /book/block_git, /book/set_block), the block
 * screens' item reads with similar offers (item.get, item.getItemsByItem), and the import. The only
 * export of the area: other areas (categories, authors merge, input stream) call this service.
 *
 * Lists page by the primary key through a covering index and read the rows of the page by id
 * afterwards; a page past the middle is read from the other end in reverse, so the last page costs
 * what the first does (docs/content.md "Paging"). Title search is full-text on both databases
 * (MariaDB FULLTEXT in boolean mode; SQLite FTS5 table books_fts kept in sync by triggers); on
 * MariaDB a page near either end is first tried by an ordered scan of the key with the exact word
 * test (titleScan), and similar offers ask FULLTEXT for the title's rare words only (similar).
 */
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { z } from 'zod';
import {
  BLOCK_RANGE_VALUES, BOOK_ADMIN_FIELDS, BOOK_CALL_LIMIT, BOOK_PAGE_SIZE, BlockArgs, BookIdArg, BookListArgs, BookPageArgs,
  BookUpdateArgs, BooksByIdsArgs, CONTENT_MSG, DEFAULT_LINK_PATTERNS, ImportArgs, ItemGetArgs, ItemsByItemArgs, LINK_PATTERN_CONFIG_TYPE,
  LinkPatternsArgs, PageUpdateArgs, SetBlockArgs, blockRangeLabel, findLinks,
  type BlockRecordView, type BlockVariant, type BookDetail, type BookListRow, type BookView, type ImportResult, type ItemType,
  type ItemView, type LinkPattern, type PageView, type SimilarOffer,
} from '../../contracts/content.js';
import { INT_MAX } from '../../contracts/fields.js';
import { MSG } from '../../contracts/messages.js';
import { Role, roleAllows } from '../../contracts/roles.js';
import { forbidden, notFound } from '../../core/errors.js';
import { containsPattern, LIKE_CONTAINS } from '../../core/database/like.js';
import { Rpc, type RpcContext } from '../../core/rpc/rpc.decorator.js';
import { CfgConfigsService } from '../cfg-configs/cfg-configs.service.js';
import { importRows } from './content-import.js';
import { BookEntity, ContentBlockEntity, PageEntity } from './content.entities.js';

type Raw = Record<string, unknown>;
const num = (v: unknown) => Number(v ?? 0);
const iso = (v: unknown) => (v == null ? null : new Date(v as string).toISOString());
/** Words of a title for full-text search. */
export const titleWords = (s: string) => [...s.toLowerCase().replace(/ё/g, 'е').matchAll(/[\p{L}\p{N}]+/gu)].map((m) => m[0]).slice(0, 12);
/** InnoDB's default innodb_ft_min_token_size: shorter words are not in a FULLTEXT index. */
const FT_MIN_WORD = 3;
const OFFERS = 5;
/** MariaDB: the time limit of one similar-offers query, in seconds (a safety net: a stopped query marks its item offers_skipped). */
const OFFER_QUERY_LIMIT_S = 0.5;
/** item.get: how many items look up their offers at once. */
const OFFERS_CONCURRENCY = 4;
/**
 * MariaDB title search, first attempt (docs/content.md "Title search on MariaDB"): a page at most this
 * many matches from either end is read by an ordered scan of the primary key with the word test,
 * examining at most TITLE_SCAN_ROWS rows; otherwise (or when the scan does not find the page) FULLTEXT.
 */
const TITLE_SCAN_MAX_NEED = 1000;
const TITLE_SCAN_ROWS = 40_000;
/**
 * Similar offers on MariaDB: a title word is probed on the newest WORD_PROBE_ROWS titles (at most
 * WORD_PROBE_HITS hits counted); found fewer than RARE_HITS times there (under ~0.06 %) it is rare and
 * asked through FULLTEXT, otherwise it is common and looked up by a bounded scan of the newest titles.
 */
const WORD_PROBE_ROWS = 5000;
const WORD_PROBE_HITS = 25;
const RARE_HITS = 3;
/** Similar offers on MariaDB: the bounded scan for common words examines at most this many of the newest titles. */
const OFFER_SCAN_ROWS = 10_000;
/**
 * InnoDB's built-in stopwords (innodb_ft_enable_stopword with no stopword table): such title words
 * are not in the FULLTEXT index, so the scan's word test skips them too.
 */
const INNODB_STOPWORDS = new Set('a about an are as at be by com de en for from how i in is it la of on or that the this to was what when where who will with und www'.split(' '));
/**
 * Titles whose every character is here are tokenised by the scan's word test exactly as InnoDB's
 * FULLTEXT parser does under utf8mb4_unicode_ci (letters a-z, а-я, ё = е, digits; the rest separates
 * words). A candidate with any other character makes the scan give way to FULLTEXT.
 */
const SCAN_SAFE_TITLE = /^[a-zA-Zа-яА-ЯёЁ0-9\s!"#$%&()*+,\-./:;<=>?@[\\\]^`{|}~«»—–…“”„№]*$/u;
const SCAN_WORD = /^[a-zа-я0-9]+$/;
const ftNorm = (s: string) => s.toLowerCase().replace(/ё/g, 'е');
/** Whether every word (normalised, >= FT_MIN_WORD) starts a title token as InnoDB FULLTEXT would see it; undefined for a title the test cannot judge exactly. */
export function ftTitleHas(title: string, words: readonly string[]): boolean | undefined {
  if (!SCAN_SAFE_TITLE.test(title)) return undefined;
  const tokens = ftNorm(title).split(/[^a-zа-я0-9]+/).filter((t) => t.length >= FT_MIN_WORD && t.length <= 84 && !INNODB_STOPWORDS.has(t));
  return words.every((w) => tokens.some((t) => t.startsWith(w)));
}
/** How long a list count is reused (docs/content.md "Paging"). */
export const COUNT_TTL_MS = 30_000;

function bookView(r: Raw): BookView {
  return {
    Id_book: num(r.Id_book), book_title: String(r.book_title ?? ''), book_description: (r.book_description as string | null) ?? null,
    cover: String(r.cover ?? ''), book_owner: num(r.book_owner), show_procent: num(r.show_procent), views: num(r.views),
    book_pages: num(r.book_pages), book_cat: num(r.book_cat), git: String(r.git ?? ''), git_public: num(r.git_public),
    public: num(r.public), time_update: iso(r.time_update),
  };
}
const blockView = (b: ContentBlockEntity): BlockRecordView => ({
  Id: b.Id, kind: b.kind, variant: b.variant, block_range: b.block_range, range_label: blockRangeLabel(b.block_range),
  mail_body: b.mail_body, affected: b.affected, user_name: b.user_name, created_at: new Date(b.created_at).toISOString(),
});
/** Numeric ids only (001 §5: non-numeric ids skipped on block), de-duplicated, within INT range. */
export function numericIds(ids: readonly (string | number)[]): number[] {
  const out = new Set<number>();
  for (const v of ids) {
    const s = String(v).trim();
    if (!/^\d{1,10}$/.test(s)) continue;
    const n = Number(s);
    if (n >= 1 && n <= INT_MAX) out.add(n);
  }
  return [...out];
}

@Injectable()
export class ContentService {
  private readonly log = new Logger('Content');
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly configs: CfgConfigsService,
  ) {}

  get sqlite() { return this.ds.options.type === 'better-sqlite3'; }

  // -------------------------------------------------------------------------------------------
  // Full text

  /** SQL condition on `books` alias b for "title contains these words" (prefix match of each word). */
  titleCondition(title: string): { sql: string; params: unknown[] } {
    const words = titleWords(title);
    if (this.sqlite) {
      if (words.length) return { sql: 'b.Id_book IN (SELECT rowid FROM books_fts WHERE books_fts MATCH ?)', params: [words.map((w) => `"${w}"*`).join(' AND ')] };
    } else {
      const usable = words.filter((w) => w.length >= FT_MIN_WORD);
      const short = words.filter((w) => w.length < FT_MIN_WORD);
      if (usable.length) {
        const sql = ['MATCH(b.book_title) AGAINST (? IN BOOLEAN MODE)', ...short.map(() => `b.book_title ${LIKE_CONTAINS}`)].join(' AND ');
        return { sql, params: [usable.map((w) => `+${w}*`).join(' '), ...short.map(containsPattern)] };
      }
    }
    return { sql: `b.book_title ${LIKE_CONTAINS}`, params: [containsPattern(title)] };
  }

  /**
   * MariaDB: how common a title word is, probed on the newest WORD_PROBE_ROWS titles (LIKE, bounded
   * by ROWS EXAMINED) and kept in memory: the number of those titles that contain it.
   */
  private readonly wordHits = new Map<string, number>();
  private async wordFrequency(w: string): Promise<number> {
    const hit = this.wordHits.get(w);
    if (hit !== undefined) return hit;
    const n = (await this.ds.query(`SELECT b.Id_book FROM books b WHERE b.book_title ${LIKE_CONTAINS} ORDER BY b.Id_book DESC LIMIT ${WORD_PROBE_HITS} ROWS EXAMINED ${WORD_PROBE_ROWS}`, [containsPattern(w)])).length;
    if (this.wordHits.size >= 20_000) this.wordHits.clear();
    this.wordHits.set(w, n);
    return n;
  }

  /**
   * Books whose titles are close to `title` (all its words first, then any of them), not `exceptId`.
   * MariaDB (docs/content.md "Similar offers"): InnoDB ranks every match of each word, so a word found
   * in many titles costs up to a second; the queries use the title's rare words only (WORD_PROBE_*),
   * a match of them must still contain the common words for 'all'; a title of common words only is
   * answered by a bounded scan of the newest titles. `stopped` is set when a query hit its time limit.
   */
  async similar(title: string, exceptId: number, limit = OFFERS): Promise<SimilarOffer[] & { stopped?: boolean }> {
    const words = [...new Set(titleWords(title).filter((w) => w.length >= FT_MIN_WORD))];
    const out: SimilarOffer[] & { stopped?: boolean } = [];
    if (!words.length) return out;
    const seen = new Set<number>([exceptId]);
    const add = (rows: Raw[], test?: (t: string) => boolean) => {
      for (const r of rows) {
        const id = num(r.Id_book);
        if (seen.has(id) || out.length >= limit || (test && !test(String(r.book_title)))) continue;
        seen.add(id);
        out.push({ external_id: id, title: String(r.book_title), public: num(r.public) });
      }
    };
    if (this.sqlite) {
      const modes = words.length > 1 ? ['all', 'any'] : ['all'];
      for (const mode of modes) {
        if (out.length >= limit) break;
        const q = words.map((w) => `"${w}"`).join(mode === 'all' ? ' AND ' : ' OR ');
        // Candidates first (bounded), then ranked: bm25 over every match of a common word is what costs.
        add(await this.ds.query(
          `SELECT b.Id_book, b.book_title, b.public FROM (SELECT rowid AS id, rank FROM books_fts WHERE books_fts MATCH ? LIMIT 200) f
           JOIN books b ON b.Id_book = f.id ORDER BY f.rank LIMIT ?`, [q, limit + seen.size]));
      }
      return out;
    }
    const freq = await Promise.all(words.map(async (w) => ({ w, n: await this.wordFrequency(w) })));
    freq.sort((x, y) => x.n - y.n);
    const rare = freq.filter((f) => f.n < RARE_HITS).map((f) => f.w);
    const tokensOf = (t: string) => ftNorm(t).split(/[^\p{L}\p{N}]+/u);
    const hasAll = (t: string) => { const tokens = tokensOf(t); return words.every((w) => tokens.includes(w)); };
    const ft = async (q: string, n: number, test?: (t: string) => boolean) => {
      const t0 = Date.now();
      try {
        add(await this.ds.query(
          `SET STATEMENT max_statement_time=${OFFER_QUERY_LIMIT_S} FOR SELECT b.Id_book, b.book_title, b.public, MATCH(b.book_title) AGAINST (? IN BOOLEAN MODE) AS score FROM books b
           WHERE MATCH(b.book_title) AGAINST (? IN BOOLEAN MODE) ORDER BY score DESC LIMIT ?`, [q, q, n]), test);
      } catch (e) {
        // 1969 max_statement_time exceeded, 1317 interrupted; an InnoDB FTS query stopped by the limit
        // may fail with the engine's "Unknown error 188" instead: any failure at the limit counts.
        const stopped = [1969, 1317].includes(Number((e as { errno?: number }).errno)) || Date.now() - t0 >= OFFER_QUERY_LIMIT_S * 1000 * 0.9;
        if (!stopped) throw e;
        out.stopped = true;
      }
    };
    const scan = async (ws: string[], test: (t: string) => boolean) => add(await this.ds.query(
      `SELECT b.Id_book, b.book_title, b.public FROM books b WHERE ${ws.map(() => `b.book_title ${LIKE_CONTAINS}`).join(' AND ')} ORDER BY b.Id_book DESC LIMIT ${limit * 4 + seen.size} ROWS EXAMINED ${OFFER_SCAN_ROWS}`,
      ws.map(containsPattern)), test);
    if (rare.length) {
      // All words: the rare ones through FULLTEXT, the common ones tested on the candidates; then any rare word.
      await ft(rare.map((w) => `+${w}`).join(' '), rare.length < words.length ? 200 : limit + seen.size, rare.length < words.length ? hasAll : undefined);
      if (out.length < limit && words.length > 1) await ft(rare.join(' '), limit + seen.size);
    } else if (words.length > 1) {
      // Common words only: the newest titles with all of them.
      await scan(words, hasAll);
    }
    // Still short: the newest titles with the least common of the common words.
    const common = freq.find((f) => f.n >= RARE_HITS)?.w;
    if (out.length < limit && common) await scan([common], (t) => tokensOf(t).includes(common));
    return out;
  }

  /**
   * MariaDB: InnoDB FULLTEXT hands over every match of a title search before the rows can be ordered
   * by id, about 1 s for a word in 5 % of a million titles. A page near either end of the list needs
   * only the first `skip + take` matches in id order: an ordered scan of the primary key with a LIKE
   * per word (a superset under the column's collation) and the exact word test (ftTitleHas) finds them
   * after a few hundred rows for a common word. The scan examines at most TITLE_SCAN_ROWS rows
   * (LIMIT ... ROWS EXAMINED), and is not tried when the matches are too sparse for that (estimated
   * from the count and the largest id); when it does not reach the page (rare words, a page far from
   * both ends, a title the word test cannot judge) this answers null and FULLTEXT answers as before.
   */
  private ftDefaults?: Promise<boolean>;
  async titleScan(title: string, where: string[], params: unknown[], dir: 'ASC' | 'DESC', skip: number, take: number, count: number, maxId?: number): Promise<number[] | null> {
    const need = skip + take;
    if (need > TITLE_SCAN_MAX_NEED || count <= 0) return null;
    // The matches are `count` of the ids up to the largest: when the scan would need more rows than it may examine, FULLTEXT straight away.
    const top = num((await this.ds.query('SELECT MAX(Id_book) AS n FROM books'))[0]?.n);
    if ((need * Math.min(top, maxId ?? top)) / count > TITLE_SCAN_ROWS) return null;
    const words = titleWords(title);
    const usable = [...new Set(words.filter((x) => x.length >= FT_MIN_WORD))];
    const short = words.filter((x) => x.length < FT_MIN_WORD);
    if (!usable.length || usable.some((x) => !SCAN_WORD.test(x) || INNODB_STOPWORDS.has(x))) return null;
    // The word test follows InnoDB's defaults (token sizes 3-84, built-in stopwords): other settings keep FULLTEXT.
    this.ftDefaults ??= this.ds.query('SELECT @@innodb_ft_min_token_size AS mn, @@innodb_ft_max_token_size AS mx, @@innodb_ft_enable_stopword AS sw, @@innodb_ft_server_stopword_table AS st, @@innodb_ft_user_stopword_table AS ut')
      .then((r: Raw[]) => num(r[0]?.mn) === FT_MIN_WORD && num(r[0]?.mx) === 84 && num(r[0]?.sw) === 1 && !r[0]?.st && !r[0]?.ut, () => false);
    if (!await this.ftDefaults) return null;
    const conds = [...where, ...[...usable, ...short].map(() => `b.book_title ${LIKE_CONTAINS}`)];
    const rows: Raw[] = await this.ds.query(
      `SELECT b.Id_book AS id, b.book_title AS t FROM books b WHERE ${conds.join(' AND ')} ORDER BY b.Id_book ${dir} LIMIT ${need * 2 + 50} ROWS EXAMINED ${TITLE_SCAN_ROWS}`,
      [...params, ...usable.map(containsPattern), ...short.map(containsPattern)]);
    const hits: number[] = [];
    for (const r of rows) {
      const has = ftTitleHas(String(r.t), usable);
      if (has === undefined) return null;
      if (has) hits.push(num(r.id));
      if (hits.length >= need) return hits.slice(skip, need);
    }
    return null;
  }

  // -------------------------------------------------------------------------------------------
  // Books

  /**
   * List counts, kept COUNT_TTL_MS per query and parameters and dropped on every write made through
   * this service: paging through a large list counts once (an InnoDB COUNT over a million rows or a
   * common title word costs far more than the page itself). Writes by another instance or straight
   * into the tables show in the counts after the TTL at the latest.
   */
  private readonly counts = new Map<string, { n: number; at: number }>();
  private countsDirty() { this.counts.clear(); }
  private async countOf(sql: string, params: unknown[]): Promise<number> {
    const key = `${sql}\n${JSON.stringify(params)}`;
    const hit = this.counts.get(key);
    if (hit && Date.now() - hit.at < COUNT_TTL_MS) return hit.n;
    const n = num((await this.ds.query(sql, params))[0]?.n);
    if (this.counts.size >= 500) this.counts.clear();
    this.counts.set(key, { n, at: Date.now() });
    return n;
  }

  @Rpc('book.getList', { role: Role.content, input: BookListArgs, summary: '{p_?, limit? (20), Id_book? (at most), book_title? (full text), public?, book_owner?, book_cat?, sort? (id_desc|id_asc|views_desc)}: {list: [{Id_book, book_title, book_pages, views, public}], count}' })
  async getList(a: z.output<typeof BookListArgs>): Promise<{ list: BookListRow[]; count: number }> {
    const limit = a.limit ?? BOOK_PAGE_SIZE;
    const page = a.p_ ?? 1;
    const where: string[] = [];
    const params: unknown[] = [];
    if (a.Id_book !== undefined) { where.push('b.Id_book <= ?'); params.push(a.Id_book); }
    if (a.public !== undefined) { where.push('b.public = ?'); params.push(a.public); }
    if (a.book_owner !== undefined) { where.push('b.book_owner = ?'); params.push(a.book_owner); }
    if (a.book_cat !== undefined) { where.push('b.book_cat = ?'); params.push(a.book_cat); }
    if (a.book_title) { const t = this.titleCondition(a.book_title); where.push(t.sql); params.push(...t.params); }
    let w = where.length ? `WHERE ${where.join(' AND ')}` : '';
    let from = 'books b';
    let idCol = 'b.Id_book';
    const sort = a.sort ?? 'id_desc';
    // SQLite, a title search ordered by id with no filter but Id_book: the FTS5 table alone answers
    // (its rowid is Id_book, walked in either direction), without touching books.
    if (this.sqlite && a.book_title && sort !== 'views_desc' && a.public === undefined && a.book_owner === undefined && a.book_cat === undefined && titleWords(a.book_title).length) {
      from = 'books_fts f';
      idCol = 'f.rowid';
      const ftsWhere = ['books_fts MATCH ?'];
      const ftsParams: unknown[] = [titleWords(a.book_title).map((x) => `"${x}"*`).join(' AND ')];
      if (a.Id_book !== undefined) { ftsWhere.push('f.rowid <= ?'); ftsParams.push(a.Id_book); }
      w = `WHERE ${ftsWhere.join(' AND ')}`;
      params.splice(0, params.length, ...ftsParams);
    }
    const count = await this.countOf(`SELECT COUNT(*) AS n FROM ${from} ${w}`, params);
    const offset = (page - 1) * limit;
    if (offset >= count) return { list: [], count };
    const cols = sort === 'views_desc' ? ['b.views', 'b.Id_book'] : [idCol];
    const desc = sort !== 'id_asc';
    // Past the middle, read from the other end: the last page costs what the first does.
    const reverse = offset + limit / 2 > count / 2;
    const dir = desc !== reverse ? 'DESC' : 'ASC';
    const take = reverse ? Math.min(limit, count - offset) : limit;
    const skip = reverse ? Math.max(0, count - offset - limit) : offset;
    const scanned = !this.sqlite && a.book_title && sort !== 'views_desc'
      ? await this.titleScan(a.book_title, where.slice(0, where.length - 1), params.slice(0, params.length - this.titleCondition(a.book_title).params.length), dir, skip, take, count, a.Id_book)
      : null;
    const ids: number[] = scanned ?? (await this.ds.query(
      `SELECT ${idCol} AS id FROM ${from} ${w} ORDER BY ${cols.map((c) => `${c} ${dir}`).join(', ')} LIMIT ? OFFSET ?`, [...params, take, skip],
    )).map((r: Raw) => num(r.id));
    if (reverse) ids.reverse();
    if (!ids.length) return { list: [], count };
    const rows: Raw[] = await this.ds.query(`SELECT Id_book, book_title, book_pages, views, public FROM books WHERE Id_book IN (${ids.map(() => '?').join(',')})`, ids);
    const byId = new Map(rows.map((r) => [num(r.Id_book), r]));
    const list = ids.map((id) => byId.get(id)).filter((r): r is Raw => !!r).map((r) => ({
      Id_book: num(r.Id_book), book_title: String(r.book_title), book_pages: num(r.book_pages), views: num(r.views), public: num(r.public),
    }));
    return { list, count };
  }

  @Rpc('book.getBooks_id', { role: Role.content, input: BooksByIdsArgs, summary: `{ids} (at most ${BOOK_CALL_LIMIT}): [{Id_book, book_title, book_pages, views, public}] of the books that exist, in the order asked` })
  async getBooksById(a: z.output<typeof BooksByIdsArgs>): Promise<BookListRow[]> {
    const ids = [...new Set(a.ids)];
    const rows: Raw[] = await this.ds.query(`SELECT Id_book, book_title, book_pages, views, public FROM books WHERE Id_book IN (${ids.map(() => '?').join(',')})`, ids);
    const byId = new Map(rows.map((r) => [num(r.Id_book), r]));
    return ids.flatMap((id) => { const r = byId.get(id); return r ? [{ Id_book: id, book_title: String(r.book_title), book_pages: num(r.book_pages), views: num(r.views), public: num(r.public) }] : []; });
  }

  /** The block records naming an item, newest first (the answer to "why is this book blocked"). */
  async blocksOf(type: ItemType, itemId: number, limit = 20): Promise<BlockRecordView[]> {
    const rows = await this.ds.getRepository(ContentBlockEntity).createQueryBuilder('k')
      .innerJoin('content_block_items', 'i', 'i.block_id = k.Id')
      .where('i.item_type = :type AND i.item_id = :id', { type, id: itemId })
      .orderBy('k.Id', 'DESC').limit(limit).getMany();
    return rows.map(blockView);
  }

  @Rpc('book.get', { role: Role.content, input: BookIdArg, summary: "{Id_book}: the book with its page count (pages), author name and block records (blocks: range, mail body, who, when); 404 'Book not found'" })
  async getBook(a: z.output<typeof BookIdArg>): Promise<BookDetail> {
    const r: Raw | undefined = (await this.ds.query('SELECT * FROM books WHERE Id_book = ?', [a.Id_book]))[0];
    if (!r) throw notFound(CONTENT_MSG.bookNotFound);
    const book = bookView(r);
    const pages = num((await this.ds.query('SELECT COUNT(*) AS n FROM pages WHERE bid = ?', [a.Id_book]))[0]?.n);
    const author = book.book_owner ? ((await this.ds.query('SELECT a_fio FROM authors WHERE Id_author = ?', [book.book_owner]))[0]?.a_fio ?? null) : null;
    const blocks = [...await this.blocksOf('book', a.Id_book), ...(book.book_owner ? await this.blocksOf('author', book.book_owner) : [])]
      .sort((x, y) => y.created_at.localeCompare(x.created_at) || y.Id - x.Id);
    return { ...book, pages, author, blocks };
  }

  @Rpc('book.update', { role: Role.content, write: true, input: BookUpdateArgs, summary: "{Id_book, ...fields}: saves the given fields; show_procent and book_pages only for role 1 (403 otherwise); answers {message: 'Save ok!', book}" })
  async updateBook(a: z.output<typeof BookUpdateArgs>, ctx: RpcContext): Promise<{ message: string; book: BookView }> {
    const { Id_book, ...fields } = a;
    const set = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<BookEntity>;
    const denied = BOOK_ADMIN_FIELDS.filter((f) => f in set);
    if (denied.length && !roleAllows(ctx.actor.role, Role.admin)) throw forbidden(CONTENT_MSG.roleOnly(denied.join(', ')));
    await this.ds.transaction(async (m) => {
      const found = await m.getRepository(BookEntity).findOne({ where: { Id_book }, select: { Id_book: true } });
      if (!found) throw notFound(CONTENT_MSG.bookNotFound);
      if (Object.keys(set).length) await m.getRepository(BookEntity).update({ Id_book }, { ...set, time_update: new Date() });
      if (set.book_cat) await this.ensureRelay(m, set.book_cat, Id_book);
    });
    this.countsDirty();
    const r: Raw = (await this.ds.query('SELECT * FROM books WHERE Id_book = ?', [Id_book]))[0];
    return { message: MSG.saveOk, book: bookView(r) };
  }

  private async ensureRelay(m: EntityManager, catId: number, bookId: number) {
    const have = await m.query('SELECT 1 AS x FROM book_cat_relay WHERE Id_cat = ? AND Id_book = ?', [catId, bookId]);
    if (!have.length) await m.query('INSERT INTO book_cat_relay (Id_cat, Id_book, pos) VALUES (?, ?, 0)', [catId, bookId]);
  }

  @Rpc('book.getPages', { role: Role.content, input: BookPageArgs, summary: "{Id, num? (1)}: page num of book Id {bid, num, body, pages}; 404 'Book not found' / 'Page not found'" })
  async getPage(a: z.output<typeof BookPageArgs>): Promise<PageView> {
    const book: Raw | undefined = (await this.ds.query('SELECT Id_book FROM books WHERE Id_book = ?', [a.Id]))[0];
    if (!book) throw notFound(CONTENT_MSG.bookNotFound);
    const numPage = a.num ?? 1;
    const pages = num((await this.ds.query('SELECT COUNT(*) AS n FROM pages WHERE bid = ?', [a.Id]))[0]?.n);
    const p = await this.ds.getRepository(PageEntity).findOne({ where: { bid: a.Id, num: numPage } });
    if (!p) throw notFound(CONTENT_MSG.pageNotFound);
    return { bid: p.bid, num: p.num, body: p.body, pages };
  }

  @Rpc('book.updatePage', { role: Role.admin, write: true, input: PageUpdateArgs, summary: "{bid, num, body}: writes the page (made when new); role 1 only; answers {message: 'Save ok!'}" })
  async updatePage(a: z.output<typeof PageUpdateArgs>) {
    await this.ds.transaction(async (m) => {
      const book = await m.query('SELECT Id_book FROM books WHERE Id_book = ?', [a.bid]);
      if (!book.length) throw notFound(CONTENT_MSG.bookNotFound);
      const repo = m.getRepository(PageEntity);
      const has = await repo.findOne({ where: { bid: a.bid, num: a.num }, select: { bid: true } });
      if (has) await repo.update({ bid: a.bid, num: a.num }, { body: a.body });
      else await repo.insert({ bid: a.bid, num: a.num, body: a.body });
    });
    return { message: MSG.saveOk };
  }

  @Rpc('book.deleteBook', { role: Role.admin, write: true, input: BookIdArg, summary: "{Id_book}: deletes the book, its pages and category places; role 1 only; answers {message: 'Book delete success'}; 404 'Book not found'" })
  async deleteBook(a: z.output<typeof BookIdArg>) {
    await this.ds.transaction(async (m) => {
      const r = await m.getRepository(BookEntity).delete({ Id_book: a.Id_book });
      if (!r.affected) throw notFound(CONTENT_MSG.bookNotFound);
      await m.query('DELETE FROM pages WHERE bid = ?', [a.Id_book]);
      await m.query('DELETE FROM book_cat_relay WHERE Id_book = ?', [a.Id_book]);
    });
    this.countsDirty();
    return { message: CONTENT_MSG.bookDeleted };
  }

  // -------------------------------------------------------------------------------------------
  // Block

  /** Sets the block column of books or authors (and of an author's public books), records the block. */
  async block(kind: ItemType, variant: BlockVariant, a: { ids?: readonly (string | number)[]; range: number; mail_body?: string }, ctx: RpcContext) {
    const asked = a.ids ?? [];
    const ids = numericIds(asked);
    if (!ids.length) return { affectedRows: 0, books: 0, skipped: asked.length };
    this.countsDirty();
    const bookCol = variant === 'git' ? 'git_public' : 'public';
    const authorCol = variant === 'git' ? 'agit_public' : 'opublic';
    return this.ds.transaction(async (m) => {
      let affectedRows = 0;
      let books = 0;
      const marks = ids.map(() => '?').join(',');
      if (kind === 'book') {
        affectedRows = num((await m.createQueryBuilder().update('books').set({ [bookCol]: a.range, time_update: new Date() })
          .where(`Id_book IN (:...ids) AND ${bookCol} <> :r`, { ids, r: a.range }).execute()).affected);
        books = affectedRows;
      } else {
        affectedRows = num((await m.createQueryBuilder().update('authors').set({ [authorCol]: a.range })
          .where(`Id_author IN (:...ids) AND ${authorCol} <> :r`, { ids, r: a.range }).execute()).affected);
        books = num((await m.createQueryBuilder().update('books').set({ [bookCol]: a.range, time_update: new Date() })
          .where(`book_owner IN (:...ids) AND ${bookCol} = 0`, { ids }).execute()).affected);
      }
      const table = kind === 'book' ? 'books' : 'authors';
      const key = kind === 'book' ? 'Id_book' : 'Id_author';
      const existing: number[] = (await m.query(`SELECT ${key} AS id FROM ${table} WHERE ${key} IN (${marks})`, ids)).map((r: Raw) => num(r.id));
      const rec = await m.getRepository(ContentBlockEntity).save({
        kind, variant, block_range: a.range, mail_body: a.mail_body ?? null, ids: ids.join(','), affected: affectedRows,
        uid: ctx.actor.uid, user_name: ctx.actor.name || ctx.actor.login, created_at: new Date(),
      });
      for (let i = 0; i < existing.length; i += 400) {
        await m.createQueryBuilder().insert().into('content_block_items')
          .values(existing.slice(i, i + 400).map((id) => ({ block_id: rec.Id, item_type: kind, item_id: id }))).execute();
      }
      return { affectedRows, books, skipped: asked.length - ids.length };
    });
  }

  @Rpc('book.blocked', { role: Role.admin, write: true, input: BlockArgs, summary: `{ids, range (${BLOCK_RANGE_VALUES.join(', ')}), mail_body?}: sets public = range on the books (non-numeric ids skipped), records the block; answers {affectedRows} (books changed)` })
  blockBooks(a: z.output<typeof BlockArgs>, ctx: RpcContext) { return this.block('book', 'block', a, ctx); }

  @Rpc('author.blocked', { role: Role.admin, write: true, input: BlockArgs, summary: '{ids, range, mail_body?}: sets opublic = range on the authors and public = range on their public books, records the block; answers {affectedRows (authors changed), books}' })
  blockAuthors(a: z.output<typeof BlockArgs>, ctx: RpcContext) { return this.block('author', 'block', a, ctx); }

  @Rpc('book.blocked_id', { role: Role.admin, write: true, input: BlockArgs, summary: '{ids, range, mail_body?}: /book/block_git: sets git_public = range on the books; answers {affectedRows}' })
  blockBooksGit(a: z.output<typeof BlockArgs>, ctx: RpcContext) { return this.block('book', 'git', a, ctx); }

  @Rpc('author.blocked_id', { role: Role.admin, write: true, input: BlockArgs, summary: '{ids, range, mail_body?}: /book/block_git: sets agit_public = range on the authors and git_public on their books; answers {affectedRows, books}' })
  blockAuthorsGit(a: z.output<typeof BlockArgs>, ctx: RpcContext) { return this.block('author', 'git', a, ctx); }

  /** /book/set_block: one book's public value (0 unblocks); a block is recorded like book.blocked. */
  async setBlock(a: z.output<typeof SetBlockArgs>, ctx: RpcContext) {
    const found = await this.ds.query('SELECT public FROM books WHERE Id_book = ?', [a.Id_book]);
    if (!found.length) throw notFound(CONTENT_MSG.bookNotFound);
    if (a.public !== 0) return this.block('book', 'block', { ids: [a.Id_book], range: a.public, mail_body: a.mail_body }, ctx);
    const r = await this.ds.createQueryBuilder().update('books').set({ public: 0, time_update: new Date() }).where('Id_book = :id AND public <> 0', { id: a.Id_book }).execute();
    this.countsDirty();
    return { affectedRows: num(r.affected), books: num(r.affected), skipped: 0 };
  }

  // -------------------------------------------------------------------------------------------
  // Block screens: link patterns and items

  @Rpc('content.linkPatterns', { role: Role.admin, input: LinkPatternsArgs, summary: `{variant?}: the link patterns of the block screens (cluster config rows of type ${LINK_PATTERN_CONFIG_TYPE}, else the defaults) [{variant, kind, type, pattern}]` })
  async linkPatterns(a: z.output<typeof LinkPatternsArgs> = {}): Promise<LinkPattern[]> {
    const rows = await this.configs.getConfigs({ type: LINK_PATTERN_CONFIG_TYPE });
    const parsed: LinkPattern[] = [];
    for (const r of rows) {
      try {
        const v = JSON.parse(r.value) as LinkPattern;
        if ((v.variant === 'block' || v.variant === 'git') && (v.type === 'book' || v.type === 'author') && typeof v.pattern === 'string' && typeof v.kind === 'string') {
          new RegExp(v.pattern, 'u');
          parsed.push({ variant: v.variant, kind: v.kind, type: v.type, pattern: v.pattern });
        } else this.log.warn(`cluster config ${r.Id}: not a link pattern {variant, kind, type, pattern}`);
      } catch { this.log.warn(`cluster config ${r.Id}: not a link pattern (JSON with a valid regular expression)`); }
    }
    const all = parsed.length ? parsed : DEFAULT_LINK_PATTERNS;
    return a.variant ? all.filter((p) => p.variant === a.variant) : all;
  }

  @Rpc('item.get', { role: Role.admin, input: ItemGetArgs, summary: '{items: [{type: book|author, id}], offers?}: rows {type, Id, found, views, public, title, offers: [{external_id, title, public}]}; non-numeric ids skipped' })
  async getItems(a: z.output<typeof ItemGetArgs>): Promise<ItemView[]> {
    const books = numericIds(a.items.filter((i) => i.type === 'book').map((i) => i.id));
    const authors = numericIds(a.items.filter((i) => i.type === 'author').map((i) => i.id));
    const bookRows = new Map<number, Raw>();
    const authorRows = new Map<number, Raw>();
    const authorViews = new Map<number, { views: number; n: number }>();
    if (books.length) for (const r of await this.ds.query(`SELECT Id_book, book_title, views, public, git_public FROM books WHERE Id_book IN (${books.map(() => '?').join(',')})`, books)) bookRows.set(num(r.Id_book), r);
    if (authors.length) {
      const marks = authors.map(() => '?').join(',');
      for (const r of await this.ds.query(`SELECT Id_author, a_fio, opublic FROM authors WHERE Id_author IN (${marks})`, authors)) authorRows.set(num(r.Id_author), r);
      for (const r of await this.ds.query(`SELECT book_owner, SUM(views) AS v, COUNT(*) AS n FROM books WHERE book_owner IN (${marks}) GROUP BY book_owner`, authors)) authorViews.set(num(r.book_owner), { views: num(r.v), n: num(r.n) });
    }
    // Offers for every book, OFFERS_CONCURRENCY at a time (MariaDB answers them on parallel pool
    // connections; SQLite one by one). An item whose offer query hit its time limit answers offers_skipped.
    const out: ItemView[] = new Array(books.length);
    let next = 0;
    const worker = async () => {
      while (next < books.length) {
        const k = next++;
        const id = books[k];
        const r = bookRows.get(id);
        const item: ItemView = { type: 'book', Id: id, found: !!r, views: num(r?.views), public: num(r?.public), title: String(r?.book_title ?? ''), offers: [] };
        if (!r || a.offers === 0) { out[k] = item; continue; }
        const offers = await this.similar(String(r.book_title), id);
        out[k] = { ...item, offers: [...offers], ...(offers.stopped ? { offers_skipped: true } : {}) };
      }
    };
    await Promise.all(Array.from({ length: Math.min(OFFERS_CONCURRENCY, books.length) }, worker));
    for (const id of authors) {
      const r = authorRows.get(id);
      out.push({ type: 'author', Id: id, found: !!r, views: authorViews.get(id)?.views ?? 0, public: num(r?.opublic), title: String(r?.a_fio ?? ''), offers: [] });
    }
    return out;
  }

  @Rpc('item.getItemsByItem', { role: Role.admin, input: ItemsByItemArgs, summary: "{variant: block|git, mail_body}: the links found in the mail body by the variant's patterns {links: [{start, end, url, kind, type, id}], items: item.get rows with similar offers}" })
  async getItemsByMail(a: z.output<typeof ItemsByItemArgs>) {
    const links = findLinks(a.mail_body, await this.linkPatterns({ variant: a.variant }));
    const items = await this.getItems({ items: links.map((l) => ({ type: l.type, id: l.id })), offers: 1 });
    return { links, items };
  }

  // -------------------------------------------------------------------------------------------
  // Import

  @Rpc('content.import', { role: Role.admin, write: true, input: ImportArgs, summary: "{entity: books|pages|categories|authors|joke_cats (key cid)|sonnik_cats|sonnik_posts, rows, all_or_none?}: upserts by id, row by row validated (category and joke cat_body, sonnik body sanitised); answers {inserted, updated, refused: [{row (1-based), message}]}; with all_or_none any refused row means nothing is written" })
  async import(a: z.output<typeof ImportArgs>): Promise<ImportResult> {
    try {
      return await importRows(this.ds, a.entity, a.rows, a.all_or_none === 1);
    } finally {
      this.countsDirty();
    }
  }
}
