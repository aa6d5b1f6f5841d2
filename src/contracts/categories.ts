/**
 * Book categories (001 §2 "/book/categories", "/book_cat", §3 Category, §7 book_cats.get, cat.get,
 * cat.read, /cat/list, §9 page sizes): shapes and input schemas shared by the server and the UI.
 */
import { z } from 'zod';
import { id, int, INT_MAX, requiredOnCreate, text } from './fields.js';

/** 001 §9: book categories 20 per page; category filter default 18; category show 50. */
export const CATS_PAGE = 20;
export const CAT_FILTER_DEFAULT = 18;
export const CAT_BOOKS_PAGE = 50;
export const CAT_LIMIT_MAX = 100;

/** 001 §8. */
export const CAT_MSG = { notFound: 'Cat not found!', saveOk: 'Save ok!' } as const;

/** The columns of the /book/categories table (001 §2). */
export const CAT_LIST_COLUMNS = ['Id_cat', 'cat_title', 'count_books', 'cat_views', 'rating_day', 'cron_time'] as const;
/** Every column of 001 §3 Category, in the spec's order (cron_time beside, as the list shows it). */
export const CAT_FIELDS = [
  'Id_cat', 'cat_title', 'cat_short_title', 'cat_description', 'cat_body', 'cat_h1', 'meta_title', 'meta_h1', 'meta_description',
  'count_books', 'cat_views', 'rating_day', 'time_update', 'cron_time', 'SI', 'codeShow', 'codeClick', 'weight',
] as const;
export type CatField = (typeof CAT_FIELDS)[number];
/** What the edit form changes; the counters, times and SI come from the network and are shown read-only. */
export const CAT_EDITABLE = ['cat_title', 'cat_short_title', 'cat_description', 'cat_body', 'cat_h1', 'meta_title', 'meta_h1', 'meta_description', 'codeShow', 'codeClick'] as const;

export interface CategoryView {
  Id_cat: number;
  cat_title: string;
  cat_short_title: string;
  cat_description: string;
  cat_body: string;
  cat_h1: string;
  meta_title: string;
  meta_h1: string;
  meta_description: string;
  count_books: number;
  cat_views: number;
  rating_day: number;
  time_update: string | null;
  cron_time: string | null;
  /** 001 §3 SI (items, time_update), read from its stored JSON; null when none or unreadable. */
  SI: { items: unknown; time_update: unknown } | null;
  codeShow: string;
  codeClick: string;
  /** The /content/cat_weight_sort order: lower first, then Id_cat (the default order of every category read). */
  weight: number;
}
export type CategoryRow = Pick<CategoryView, (typeof CAT_LIST_COLUMNS)[number]>;

export interface CatBook {
  Id_book: number;
  book_title: string;
  views: number;
  public: number;
  book_pages: number;
}

const sortKeys = ['weight', 'id_asc', 'id_desc', 'title', 'views_desc', 'books_desc', 'rating_desc'] as const;
export type CatSort = (typeof sortKeys)[number];

/** book_cats.get: /book/categories (20 per page) and the /book_cat filter (limit 18 by default there). */
export const BookCatsArgs = z.object({
  p_: int(1, INT_MAX, 'p_').optional(),
  limit: int(1, CAT_LIMIT_MAX, 'limit').optional(),
  cat_title: text('cat_title', 190).optional(),
  Id_cat: id('Id_cat').optional(),
  sort: z.enum(sortKeys, { error: `sort must be one of ${sortKeys.join(', ')}` }).optional(),
});

/** cat.get: one category by Id_cat, or the filtered list (default limit 18). */
export const CatGetArgs = BookCatsArgs;
/** cat.read: the category's books, 50 per page. */
export const CatReadArgs = z.object({ Id_cat: id('Id_cat'), p_: int(1, INT_MAX, 'p_').optional() });

/** cat.update: with Id_cat changes the fields given; without, creates (cat_title required). */
export const CatUpdateArgs = z.object({
  Id_cat: id('Id_cat').optional(),
  cat_title: text('cat_title', 255, { min: 1 }).optional(),
  cat_short_title: text('cat_short_title', 255).optional(),
  cat_description: text('cat_description', 65_000, { multiline: true }).optional(),
  cat_body: text('cat_body', 65_000, { multiline: true }).optional(),
  cat_h1: text('cat_h1', 255).optional(),
  meta_title: text('meta_title', 255).optional(),
  meta_h1: text('meta_h1', 255).optional(),
  meta_description: text('meta_description', 65_000, { multiline: true }).optional(),
  codeShow: text('codeShow', 65_000, { multiline: true }).optional(),
  codeClick: text('codeClick', 65_000, { multiline: true }).optional(),
}).superRefine(requiredOnCreate('Id_cat', { cat_title: 'cat_title is required' }));

/** GET /cat/list (001 §7: select, limit false): `select` a comma list of CAT_FIELDS, `limit` a number or 'false' (all). */
export const CatListQuery = z.object({
  select: text('select', 300).optional()
    .refine((v) => !v || v.split(',').every((c) => (CAT_FIELDS as readonly string[]).includes(c.trim())), `select: a comma list of ${CAT_FIELDS.join(', ')}`),
  limit: z.union([z.literal('false'), z.literal(false), int(1, 100_000, 'limit')], { error: "limit must be a number or 'false'" }).optional(),
});

/** /content/cat_weight_sort: at most this many categories are ordered at once. */
export const CAT_WEIGHT_MAX = 5000;
/** One category in the weight order (cat.getWeights). */
export interface CatWeightItem {
  Id_cat: number;
  cat_title: string;
  count_books: number;
  weight: number;
}
/** cat.setWeights: the categories in their new order, first to last (weights 1..n; the others follow in their order). */
export const CatWeightsArgs = z.object({
  ids: z.array(id('Id_cat'), { error: 'ids must be a list of category ids' }).min(1, 'ids is required').max(CAT_WEIGHT_MAX, `ids: at most ${CAT_WEIGHT_MAX} categories`)
    .refine((ids) => new Set(ids).size === ids.length, 'ids: a category is listed twice'),
});
export const CAT_WEIGHT_MSG = { saved: 'Order saved' } as const;
