import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { z } from 'zod';
import {
  BookCatsArgs, CAT_BOOKS_PAGE, CAT_EDITABLE, CAT_FIELDS, CAT_FILTER_DEFAULT, CAT_LIST_COLUMNS, CAT_MSG, CAT_WEIGHT_MAX, CAT_WEIGHT_MSG, CATS_PAGE, CatGetArgs,
  CatListQuery, CatReadArgs, CatUpdateArgs, CatWeightsArgs, type CatBook, type CategoryRow, type CategoryView, type CatSort, type CatWeightItem,
} from '../../contracts/categories.js';
import type { Paged } from '../../contracts/auth.js';
import { Role } from '../../contracts/roles.js';
import { auditTarget } from '../../core/audit/audit-target.js';
import { invalid, notFound } from '../../core/errors.js';
import { containsPattern, LIKE_CONTAINS } from '../../core/database/like.js';
import { Rpc } from '../../core/rpc/rpc.decorator.js';
import { BookCatEntity } from '../content/content.entities.js';
import { cleanHtml } from '../../core/content/sanitize.js';

const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));
const iso = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string).toISOString());
const str = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const SORT: Record<CatSort, string> = {
  weight: 'weight ASC, Id_cat ASC', id_asc: 'Id_cat ASC', id_desc: 'Id_cat DESC', title: 'cat_title ASC, Id_cat ASC',
  views_desc: 'cat_views DESC, Id_cat ASC', books_desc: 'count_books DESC, Id_cat ASC', rating_desc: 'rating_day DESC, Id_cat ASC',
};

function siOf(v: unknown): CategoryView['SI'] {
  if (v === null || v === undefined || v === '') return null;
  try {
    const o = JSON.parse(String(v)) as { items?: unknown; time_update?: unknown };
    return o && typeof o === 'object' ? { items: o.items ?? null, time_update: o.time_update ?? null } : null;
  } catch {
    return null;
  }
}

/** A row of book_cats as the API answers it: 001 §3 names, numbers as numbers, times as ISO text. */
export function catView(r: Record<string, unknown>): CategoryView {
  return {
    Id_cat: num(r.Id_cat), cat_title: str(r.cat_title), cat_short_title: str(r.cat_short_title), cat_description: str(r.cat_description),
    cat_body: str(r.cat_body), cat_h1: str(r.cat_h1), meta_title: str(r.meta_title), meta_h1: str(r.meta_h1), meta_description: str(r.meta_description),
    count_books: num(r.count_books), cat_views: num(r.cat_views), rating_day: num(r.rating_day),
    time_update: iso(r.time_update), cron_time: iso(r.cron_time), SI: siOf(r.SI), codeShow: str(r.codeShow), codeClick: str(r.codeClick),
    weight: num(r.weight),
  };
}

/**
 * Book categories (001 §2 "/book/categories", "/book_cat", §7 book_cats.get, cat.get, cat.read,
 * /cat/list). The /book/categories list and edit are role 10 (content) as the menu says; the category
 * views (/book_cat, used by /input_stream too) are for every signed-in user.
 */
@Injectable()
export class CategoriesService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  private async page(a: z.output<typeof BookCatsArgs>, defaultLimit: number): Promise<Paged<CategoryRow> & { list: CategoryView[] }> {
    const limit = a.limit ?? defaultLimit;
    const page = a.p_ ?? 1;
    const where: string[] = [];
    const params: unknown[] = [];
    if (a.Id_cat) { where.push('Id_cat = ?'); params.push(a.Id_cat); }
    if (a.cat_title) { where.push(`cat_title ${LIKE_CONTAINS}`); params.push(containsPattern(a.cat_title)); }
    const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const [{ n }] = await this.db.query(`SELECT COUNT(*) AS n FROM book_cats ${w}`, params);
    const rows: Record<string, unknown>[] = await this.db.query(
      `SELECT * FROM book_cats ${w} ORDER BY ${SORT[a.sort ?? 'weight']} LIMIT ? OFFSET ?`, [...params, limit, (page - 1) * limit],
    );
    return { list: rows.map(catView), count: num(n), page, limit };
  }

  @Rpc('book_cats.get', {
    role: Role.content, input: BookCatsArgs,
    summary: `{p_?, limit? (${CATS_PAGE}), cat_title?, Id_cat?, sort? (weight (default: the /content/cat_weight_sort order)|id_asc|id_desc|title|views_desc|books_desc|rating_desc)}: the /book/categories list: {list (every 001 §3 field and weight), count, page, limit}`,
  })
  async bookCats(a: z.output<typeof BookCatsArgs> = {}) {
    return this.page(a, CATS_PAGE);
  }

  @Rpc('cat.get', {
    role: Role.user, input: CatGetArgs,
    summary: `{Id_cat}: one category (every 001 §3 field; 'Cat not found!'), or without Id_cat the /book_cat filter list {p_?, limit? (${CAT_FILTER_DEFAULT}), cat_title?, sort?}: {list, count, page, limit}`,
  })
  async get(a: z.output<typeof CatGetArgs> = {}): Promise<CategoryView | Paged<CategoryView>> {
    if (a.Id_cat && a.limit === undefined && a.p_ === undefined && a.cat_title === undefined) return this.one(a.Id_cat);
    return this.page(a, CAT_FILTER_DEFAULT);
  }

  async one(Id_cat: number): Promise<CategoryView> {
    const [row] = await this.db.query('SELECT * FROM book_cats WHERE Id_cat = ?', [Id_cat]);
    if (!row) throw notFound(CAT_MSG.notFound);
    return catView(row);
  }

  @Rpc('cat.read', {
    role: Role.user, input: CatReadArgs,
    summary: `{Id_cat, p_?}: the category and its books (placed in it, or with it as book_cat), ${CAT_BOOKS_PAGE} per page by position then id: {cat, list: [{Id_book, book_title, views, public, book_pages}], count, page, limit}`,
  })
  async read(a: z.output<typeof CatReadArgs>): Promise<{ cat: CategoryView; list: CatBook[]; count: number; page: number; limit: number }> {
    const cat = await this.one(a.Id_cat);
    const page = a.p_ ?? 1;
    const ids = 'SELECT Id_book FROM book_cat_relay WHERE Id_cat = ? UNION SELECT Id_book FROM books WHERE book_cat = ?';
    const [{ n }] = await this.db.query(`SELECT COUNT(*) AS n FROM (${ids}) u`, [a.Id_cat, a.Id_cat]);
    const rows: Record<string, unknown>[] = await this.db.query(
      `SELECT b.Id_book, b.book_title, b.views, b.public, b.book_pages FROM books b
       JOIN (${ids}) u ON u.Id_book = b.Id_book
       LEFT JOIN book_cat_relay r ON r.Id_cat = ? AND r.Id_book = b.Id_book
       ORDER BY CASE WHEN r.pos IS NULL THEN 1 ELSE 0 END, r.pos, b.Id_book LIMIT ? OFFSET ?`,
      [a.Id_cat, a.Id_cat, a.Id_cat, CAT_BOOKS_PAGE, (page - 1) * CAT_BOOKS_PAGE],
    );
    const list = rows.map((r) => ({ Id_book: num(r.Id_book), book_title: str(r.book_title), views: num(r.views), public: num(r.public), book_pages: num(r.book_pages) }));
    return { cat, list, count: num(n), page, limit: CAT_BOOKS_PAGE };
  }

  @Rpc('cat.update', {
    role: Role.content, write: true, input: CatUpdateArgs,
    summary: "{Id_cat?, cat_title, cat_short_title, cat_description, cat_body, cat_h1, meta_title, meta_h1, meta_description, codeShow, codeClick}: with Id_cat changes the fields given ('Cat not found!'), without creates (cat_title required); time_update set; answers {Id_cat, message: 'Save ok!'}",
  })
  async update(a: z.output<typeof CatUpdateArgs>): Promise<{ Id_cat: number; message: string }> {
    const patch: Partial<BookCatEntity> = {};
    for (const f of CAT_EDITABLE) if (a[f] !== undefined) (patch as Record<string, unknown>)[f] = a[f];
    if (typeof patch.cat_body === 'string') patch.cat_body = cleanHtml(patch.cat_body); // stored HTML: the one sanitiser
    const repo = this.db.getRepository(BookCatEntity);
    if (a.Id_cat === undefined) {
      // cat_title is required here by CatUpdateArgs (requiredOnCreate), so cron.getActions and a cron save see it too.
      const saved = await repo.save(repo.create({ ...patch, time_update: new Date() }));
      auditTarget('category', saved.cat_title, saved.Id_cat);
      return { Id_cat: saved.Id_cat, message: CAT_MSG.saveOk };
    }
    const cur = await repo.findOneBy({ Id_cat: a.Id_cat });
    if (!cur) throw notFound(CAT_MSG.notFound);
    auditTarget('category', cur.cat_title, cur.Id_cat);
    await repo.update({ Id_cat: a.Id_cat }, { ...patch, time_update: new Date() });
    return { Id_cat: a.Id_cat, message: CAT_MSG.saveOk };
  }

  @Rpc('cat.getWeights', {
    role: Role.content,
    summary: `{}: every book category in the /content/cat_weight_sort order (weight, then Id_cat; at most ${CAT_WEIGHT_MAX}): [{Id_cat, cat_title, count_books, weight}]`,
  })
  async getWeights(): Promise<CatWeightItem[]> {
    const rows: Record<string, unknown>[] = await this.db.query('SELECT Id_cat, cat_title, count_books, weight FROM book_cats ORDER BY weight, Id_cat LIMIT ?', [CAT_WEIGHT_MAX]);
    return rows.map((r) => ({ Id_cat: num(r.Id_cat), cat_title: str(r.cat_title), count_books: num(r.count_books), weight: num(r.weight) }));
  }

  @Rpc('cat.setWeights', {
    role: Role.content, write: true, input: CatWeightsArgs,
    summary: "{ids: [Id_cat, ...]}: the categories' new order, first to last: weights 1..n in one transaction, categories not listed follow in their previous order; unknown ids are refused by name (422); answers {count, message: 'Order saved'}",
  })
  async setWeights(a: z.output<typeof CatWeightsArgs>): Promise<{ count: number; message: string }> {
    return this.db.transaction(async (m) => {
      const rows: { Id_cat: unknown; weight: unknown }[] = await m.query('SELECT Id_cat, weight FROM book_cats ORDER BY weight, Id_cat');
      const known = rows.map((r) => num(r.Id_cat));
      const was = new Map(rows.map((r) => [num(r.Id_cat), num(r.weight)]));
      const have = new Set(known);
      const unknown = a.ids.filter((id) => !have.has(id));
      if (unknown.length) throw invalid(`Unknown categories: ${unknown.slice(0, 20).join(', ')}${unknown.length > 20 ? ', …' : ''}`, { ids: 'Unknown categories' });
      const listed = new Set(a.ids);
      const order = [...a.ids, ...known.filter((id) => !listed.has(id))];
      // only the rows whose weight changes are written
      for (let i = 0; i < order.length; i++) if (was.get(order[i]) !== i + 1) await m.query('UPDATE book_cats SET weight = ? WHERE Id_cat = ?', [i + 1, order[i]]);
      return { count: a.ids.length, message: CAT_WEIGHT_MSG.saved };
    });
  }

  /** GET /cat/list (001 §7): every category (or the first `limit`), with the columns `select` names (default the list columns), in the weight order. */
  async list(a: z.output<typeof CatListQuery>): Promise<Record<string, unknown>[]> {
    const cols = a.select ? [...new Set(a.select.split(',').map((c) => c.trim()))] : [...CAT_LIST_COLUMNS];
    const limit = typeof a.limit === 'number' ? a.limit : null;
    const rows: Record<string, unknown>[] = await this.db.query(`SELECT * FROM book_cats ORDER BY weight, Id_cat${limit ? ' LIMIT ?' : ''}`, limit ? [limit] : []);
    return rows.map((r) => {
      const v = catView(r) as unknown as Record<string, unknown>;
      return Object.fromEntries(cols.filter((c) => (CAT_FIELDS as readonly string[]).includes(c)).map((c) => [c, v[c]]));
    });
  }
}
