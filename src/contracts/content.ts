/**
 * Content I (001 §2 "Books, categories, authors", §3, §5, §7, §8, §9; issue 13): shapes, inputs,
 * labels and constants shared by server and UI. Decisions: docs/content.md.
 */
import { z } from 'zod';
import { choice, flag, id, int, INT_MAX, text } from './fields.js';
import { JOKE_FIELDS } from './jokes.js';
import { SONNIK_FIELDS } from './sonnik.js';

/** 001 §9 page sizes and §2 defaults. */
export const BOOK_PAGE_SIZE = 20;
/** "A separate books call uses limit 50" (001 §2): book.getBooks_id and the block screens' item reads. */
export const BOOK_CALL_LIMIT = 50;
/** The /book/list filter panel's default Id_book (001 §2): the list shows books from this id down. */
export const BOOK_DEFAULT_ID_FILTER = 906702;
export const BOOK_LIST_MAX_LIMIT = 100;

/** 001 §9 block range options, labels verbatim (5 and 6 have no label in the spec). */
export const BLOCK_RANGES = [
  { value: 1, label: 'Other' },
  { value: 2, label: 'a media regulator' },
  { value: 3, label: 'court decision' },
  { value: 4, label: 'a book platform' },
  { value: 5, label: '5' },
  { value: 6, label: '6' },
  { value: 7, label: 'Author' },
  { value: 10, label: 'FullBlock' },
] as const;
export const BLOCK_RANGE_VALUES = BLOCK_RANGES.map((r) => r.value);
export const blockRangeLabel = (v: number) => BLOCK_RANGES.find((r) => r.value === v)?.label ?? String(v);

/** Messages of 001 §2, §5, §8, verbatim. */
export const CONTENT_MSG = {
  confirmSave: 'Are you sure you want saved this book?',
  confirmDelete: 'Are you sure you want delete this book?',
  bookNotFound: 'Book not found',
  pageNotFound: 'Page not found',
  bookNotFoundBang: 'Book not found!!!',
  bookDeleted: 'Book delete success',
  blockedBooks: (n: number) => `Books: ${n}`,
  blockedAuthors: (n: number) => `Author: ${n}`,
  roleOnly: (field: string) => `${field} can be changed by an admin (role 1) only`,
  mailBodyRequired: 'Mail body is required',
} as const;

// ---------------------------------------------------------------------------------------------
// Shapes

export interface BookView {
  Id_book: number;
  book_title: string;
  book_description: string | null;
  cover: string;
  book_owner: number;
  show_procent: number;
  views: number;
  book_pages: number;
  book_cat: number;
  git: string;
  git_public: number;
  public: number;
  time_update: string | null;
}
export interface BookListRow { Id_book: number; book_title: string; book_pages: number; views: number; public: number }
export interface BlockRecordView { Id: number; kind: string; variant: string; block_range: number; range_label: string; mail_body: string | null; affected: number; user_name: string; created_at: string }
/** book.get: the book, its page count in `pages`, the author's name and the block records naming it (newest first). */
export interface BookDetail extends BookView { pages: number; author: string | null; blocks: BlockRecordView[] }
export interface PageView { bid: number; num: number; body: string | null; pages: number }
/** 001 §3 "Similarity offers". */
export interface SimilarOffer { external_id: number; title: string; public: number }
export type ItemType = 'book' | 'author';
/** A row of the block screens' results table (Type, Id, View, Public, Title) with its similar offers. */
export interface ItemView {
  type: ItemType; Id: number; found: boolean; views: number; public: number; title: string; offers: SimilarOffer[];
  /** An offers query for this item hit its time limit (MariaDB): the offers may be incomplete (docs/content.md "Similar offers"). */
  offers_skipped?: boolean;
}

/** Link patterns of the block screens (docs/content.md "Link patterns"). */
export const LINK_PATTERN_CONFIG_TYPE = 'content_link_pattern';
export type BlockVariant = 'block' | 'git';
export interface LinkPattern { variant: BlockVariant; kind: string; type: ItemType; pattern: string }
/**
 * Used when no cluster config row of type content_link_pattern exists. The first group is the id.
 * /book/block: author, read and view links; /book/block_git: owner, book and view links (001 §2).
 */
export const DEFAULT_LINK_PATTERNS: LinkPattern[] = [
  { variant: 'block', kind: 'author', type: 'author', pattern: 'https?://[^\\s/]+/author/([\\p{L}\\p{N}_-]+)' },
  { variant: 'block', kind: 'read', type: 'book', pattern: 'https?://[^\\s/]+/read/([\\p{L}\\p{N}_-]+)' },
  { variant: 'block', kind: 'view', type: 'book', pattern: 'https?://[^\\s/]+/view/([\\p{L}\\p{N}_-]+)' },
  { variant: 'git', kind: 'owner', type: 'author', pattern: 'https?://[^\\s/]+/owner/([\\p{L}\\p{N}_-]+)' },
  { variant: 'git', kind: 'book', type: 'book', pattern: 'https?://[^\\s/]+/book/([\\p{L}\\p{N}_-]+)' },
  { variant: 'git', kind: 'view', type: 'book', pattern: 'https?://[^\\s/]+/view/([\\p{L}\\p{N}_-]+)' },
];
export interface FoundLink { start: number; end: number; url: string; kind: string; type: ItemType; id: string }

/** Every link in `body` matched by one of `patterns` (of one variant), in order, without overlaps. */
export function findLinks(body: string, patterns: LinkPattern[]): FoundLink[] {
  const out: FoundLink[] = [];
  for (const p of patterns) {
    let re: RegExp;
    try { re = new RegExp(p.pattern, 'gu'); } catch { continue; }
    for (const m of body.matchAll(re)) {
      if (!m[0]) continue;
      const start = m.index ?? 0;
      out.push({ start, end: start + m[0].length, url: m[0], kind: p.kind, type: p.type, id: m[1] ?? '' });
    }
  }
  out.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: FoundLink[] = [];
  for (const l of out) if (!kept.length || l.start >= kept[kept.length - 1].end) kept.push(l);
  return kept;
}

// ---------------------------------------------------------------------------------------------
// Inputs

const title = text('book_title', 255);
export const BookIdArg = z.object({ Id_book: id('Id_book') });
export const BookListArgs = z.object({
  p_: int(1, INT_MAX, 'p_').optional(),
  limit: int(1, BOOK_LIST_MAX_LIMIT, 'limit').optional(),
  /** Books with Id_book at most this (newest first from it); absent: from the newest. */
  Id_book: int(1, INT_MAX, 'Id_book').optional(),
  book_title: text('book_title', 255).optional(),
  public: int(0, INT_MAX, 'public').optional(),
  book_owner: int(1, INT_MAX, 'book_owner').optional(),
  book_cat: int(1, INT_MAX, 'book_cat').optional(),
  sort: z.enum(['id_desc', 'id_asc', 'views_desc'], { error: 'sort must be one of id_desc, id_asc, views_desc' }).optional(),
});
export const BookUpdateArgs = z.object({
  Id_book: id('Id_book'),
  book_title: title.optional(),
  book_description: text('book_description', 65000, { multiline: true, trim: false }).optional(),
  cover: text('cover', 255).optional(),
  book_owner: int(0, INT_MAX, 'book_owner').optional(),
  book_cat: int(0, INT_MAX, 'book_cat').optional(),
  git: text('git', 190).optional(),
  git_public: int(0, INT_MAX, 'git_public').optional(),
  public: int(0, INT_MAX, 'public').optional(),
  /** Role 1 only (001 §5). */
  show_procent: int(0, 100, 'show_procent').optional(),
  /** Role 1 only (001 §5). */
  book_pages: int(0, INT_MAX, 'book_pages').optional(),
});
export const BOOK_ADMIN_FIELDS = ['show_procent', 'book_pages'] as const;
export const BookPageArgs = z.object({ Id: id('Id'), num: int(1, INT_MAX, 'num').optional() });
export const PageUpdateArgs = z.object({ bid: id('bid'), num: int(1, INT_MAX, 'num'), body: text('body', 1_000_000, { multiline: true, trim: false }) });
export const BooksByIdsArgs = z.object({ ids: z.array(id('ids')).min(1, 'ids must not be empty').max(BOOK_CALL_LIMIT, `ids has at most ${BOOK_CALL_LIMIT} items`) });

const idList = z.array(z.union([z.number(), z.string().max(64)]), { error: 'ids must be a list' }).max(1000, 'ids has at most 1000 items');
export const BlockArgs = z.object({
  /** Absent or empty: nothing to block ({affectedRows: 0}). */
  ids: idList.optional(),
  range: choice(BLOCK_RANGE_VALUES, 'range'),
  mail_body: text('mail_body', 100_000, { multiline: true, trim: false }).optional(),
});
export const SetBlockArgs = z.object({ Id_book: id('Id_book'), public: int(0, INT_MAX, 'public'), mail_body: text('mail_body', 100_000, { multiline: true, trim: false }).optional() });

export const ItemGetArgs = z.object({
  items: z.array(z.object({ type: z.enum(['book', 'author'], { error: "type must be 'book' or 'author'" }), id: z.union([z.number(), z.string().max(64)]) })).max(200, 'items has at most 200 entries'),
  offers: flag('offers').optional(),
});
export const ItemsByItemArgs = z.object({
  variant: z.enum(['block', 'git'], { error: "variant must be 'block' or 'git'" }),
  mail_body: text('mail_body', 100_000, { multiline: true, trim: false }).refine((s) => s.trim().length > 0, CONTENT_MSG.mailBodyRequired),
});
export const LinkPatternsArgs = z.object({ variant: z.enum(['block', 'git'], { error: "variant must be 'block' or 'git'" }).optional() });

export const IMPORT_ENTITIES = ['books', 'pages', 'categories', 'authors', 'joke_cats', 'sonnik_cats', 'sonnik_posts'] as const;
export type ImportEntity = (typeof IMPORT_ENTITIES)[number];
export const IMPORT_MAX_ROWS = 5000;
export const ImportArgs = z.object({
  entity: z.enum(IMPORT_ENTITIES, { error: `entity must be one of ${IMPORT_ENTITIES.join(', ')}` }),
  rows: z.array(z.unknown(), { error: 'rows must be a list' }).max(IMPORT_MAX_ROWS, `rows has at most ${IMPORT_MAX_ROWS} items`),
  all_or_none: flag('all_or_none').optional(),
});
export interface ImportResult { inserted: number; updated: number; refused: { row: number; message: string }[] }

/** Row schemas of the import, one per entity (the fields of 001 §3). */
const opt = <T extends z.ZodType>(s: T) => s.optional();
export const IMPORT_ROW: Record<ImportEntity, z.ZodType> = {
  books: z.object({
    Id_book: id('Id_book'),
    book_title: opt(title), book_description: opt(text('book_description', 65000, { multiline: true, trim: false }).nullable()),
    cover: opt(text('cover', 255)), book_owner: opt(int(0, INT_MAX, 'book_owner')), show_procent: opt(int(0, 100, 'show_procent')),
    views: opt(int(0, INT_MAX, 'views')), book_pages: opt(int(0, INT_MAX, 'book_pages')), book_cat: opt(int(0, INT_MAX, 'book_cat')),
    git: opt(text('git', 190)), git_public: opt(int(0, INT_MAX, 'git_public')), public: opt(int(0, INT_MAX, 'public')),
  }),
  pages: z.object({ bid: id('bid'), num: int(1, INT_MAX, 'num'), body: text('body', 1_000_000, { multiline: true, trim: false }).nullable() }),
  categories: z.object({
    Id_cat: id('Id_cat'),
    cat_title: opt(text('cat_title', 255)), cat_short_title: opt(text('cat_short_title', 255)),
    cat_description: opt(text('cat_description', 65000, { multiline: true }).nullable()), cat_body: opt(text('cat_body', 65000, { multiline: true, trim: false }).nullable()),
    cat_h1: opt(text('cat_h1', 255)), meta_title: opt(text('meta_title', 255)), meta_h1: opt(text('meta_h1', 255)),
    meta_description: opt(text('meta_description', 65000, { multiline: true }).nullable()),
    count_books: opt(int(0, INT_MAX, 'count_books')), cat_views: opt(int(0, INT_MAX, 'cat_views')), rating_day: opt(int(0, INT_MAX, 'rating_day')),
    codeShow: opt(text('codeShow', 65000, { multiline: true, trim: false }).nullable()), codeClick: opt(text('codeClick', 65000, { multiline: true, trim: false }).nullable()),
  }),
  authors: z.object({
    Id_author: id('Id_author'), a_fio: opt(text('a_fio', 190)), opublic: opt(int(0, INT_MAX, 'opublic')),
    new_relay: opt(text('new_relay', 65000).nullable()), relay_marge: opt(text('relay_marge', 65000).nullable()), not_relay: opt(text('not_relay', 65000).nullable()),
    agit: opt(text('agit', 190)), agit_public: opt(int(0, INT_MAX, 'agit_public')),
  }),
  /** Joke categories (issue 19): the editor's fields and rules (name, meta title and H1 not empty when given). */
  joke_cats: z.object({
    cid: id('cid'), title: opt(JOKE_FIELDS.title), meta_title: opt(JOKE_FIELDS.meta_title), meta_h1: opt(JOKE_FIELDS.meta_h1),
    meta_description: opt(JOKE_FIELDS.meta_description), cat_body: opt(JOKE_FIELDS.cat_body),
  }),
  sonnik_cats: z.object({
    Id: id('Id'), letter: opt(SONNIK_FIELDS.letter), uri: opt(SONNIK_FIELDS.uri), name: opt(SONNIK_FIELDS.name), body: opt(SONNIK_FIELDS.body),
  }),
  sonnik_posts: z.object({
    Id: id('Id'), Id_cat: id('Id_cat'), views: opt(int(0, INT_MAX, 'views')), title: opt(SONNIK_FIELDS.title), title_ai: opt(SONNIK_FIELDS.title_ai),
  }),
};
/** Rich-text (HTML) fields per import entity: stored through cleanHtml, as their editors store them. */
export const IMPORT_HTML: Partial<Record<ImportEntity, string[]>> = { categories: ['cat_body'], joke_cats: ['cat_body'], sonnik_cats: ['body'] };
/** Table and key columns per import entity. */
export const IMPORT_TABLE: Record<ImportEntity, { table: string; keys: string[] }> = {
  books: { table: 'books', keys: ['Id_book'] },
  pages: { table: 'pages', keys: ['bid', 'num'] },
  categories: { table: 'book_cats', keys: ['Id_cat'] },
  authors: { table: 'authors', keys: ['Id_author'] },
  joke_cats: { table: 'joke_cats', keys: ['cid'] },
  sonnik_cats: { table: 'sonnik_cats', keys: ['Id'] },
  sonnik_posts: { table: 'sonnik_posts', keys: ['Id'] },
};
