/**
 * Compilations (001 §2 "Compilations", §3 Compilation, §4, §5, §7 /compilation/*, §8, §9 "compilation
 * list limit 20", "Compilation days 1-90"): shapes, constants and input schemas shared by the server
 * and the UI. docs/content.md "Compilations".
 */
import { z } from 'zod';
import { choice, flag, id, int, INT_MAX, text } from './fields.js';

/** 001 §9: compilation list limit 20. */
export const COMPILATIONS_PAGE = 20;
/** 001 §9: compilation days 1-90 (the auto compilation's range). */
export const COMPILATION_DAYS_MIN = 1;
export const COMPILATION_DAYS_MAX = 90;
/** 001 §5: the auto compilation takes 20 books; "new" takes books with views under 50. */
export const COMPILATION_AUTO_COUNT = 20;
export const COMPILATION_NEW_MAX_VIEWS = 50;
/** Not in the spec: at most this many items in one compilation, and relays to this many categories. */
export const COMPILATION_ITEMS_MAX = 500;
export const COMPILATION_RELAY_MAX = 50;
/** Not in the spec: the history lists the newest 50 versions of a compilation. */
export const COMPILATION_HISTORY_LIMIT = 50;

/** 001 §3 type "all or books"; new compilations take type 1 (001 §4). */
export const COMPILATION_TYPES = [1, 2] as const;
export type CompilationType = (typeof COMPILATION_TYPES)[number];
export const COMPILATION_TYPE_LABEL: Record<CompilationType, string> = { 1: 'all', 2: 'books' };

/** 001 §8 and §5, verbatim. The empty auto result's message: 001 §5 asks for Russian text (its wording is ours). */
export const COMPILATION_MSG = {
  notFound: 'Compilation not found',
  deleted: 'Compilation delete!',
  days: 'Min 1 and max 90 days',
  itemsId: 'Items id',
  saved: 'Save ok!',
  autoEmpty: 'Ничего не найдено: увеличьте количество дней или добавьте категорию',
} as const;

export const COMPILATION_SORTS = ['time_desc', 'time_asc', 'id_desc', 'id_asc'] as const;
export type CompilationSort = (typeof COMPILATION_SORTS)[number];

export interface CompilationItem {
  item_id: number;
  pos: number;
  /** The book's title and views ('' and 0 when the book is gone). */
  book_title: string;
  views: number;
}
export interface CompilationRelay {
  id: number;
  label: string;
}
export interface CompilationView {
  Id_compilation: number;
  meta_title: string;
  meta_description: string;
  meta_h1: string;
  title_short: string;
  type: number;
  body_top: string;
  body_bottom: string;
  time_update: string | null;
  items_count: number;
  items?: CompilationItem[];
  relay?: CompilationRelay[];
}
export interface CompilationList {
  list: CompilationView[];
  count?: number;
  page: number;
  limit: number;
}
export interface CompilationHistoryEntry {
  Id: number;
  ts_update: string | null;
  meta_title: string;
  items_count: number;
}
export interface CompilationBook {
  item_id: number;
  book_title: string;
  views: number;
  public: number;
  /** Auto compilation "top": reads (input-stream clicks) and shows in the range. */
  reads?: number;
  shows?: number;
}

/** GET /compilation/get_list (001 §7): one compilation (Id_compilation) or the list. */
export const CompilationGetArgs = z.object({
  Id_compilation: id('Id_compilation').optional(),
  joinItems: flag('joinItems').optional(),
  joinRelay: flag('joinRelay').optional(),
  getCount: flag('getCount').optional(),
  q: text('q', 190).optional(),
  page: int(1, INT_MAX, 'page').optional(),
  limit: int(1, 100, 'limit').optional(),
  sort: z.enum(COMPILATION_SORTS, { error: `sort must be one of ${COMPILATION_SORTS.join(', ')}` }).optional(),
});

const idArray = (label: string, max: number) =>
  z.array(id(label), { error: `${label} must be a list of ids` }).max(max, `${label} has at most ${max} items`);

/** POST /compilation/save: the whole form (the four titles required), items in their order. */
export const CompilationSaveArgs = z.object({
  Id_compilation: id('Id_compilation').optional(),
  meta_title: text('meta_title', 255, { min: 1 }),
  meta_description: text('meta_description', 65_000, { min: 1, multiline: true }),
  meta_h1: text('meta_h1', 255, { min: 1 }),
  title_short: text('title_short', 255, { min: 1 }),
  type: choice(COMPILATION_TYPES, 'type').optional(),
  body_top: text('body_top', 200_000, { multiline: true }).optional(),
  body_bottom: text('body_bottom', 200_000, { multiline: true }).optional(),
  items: idArray('items', COMPILATION_ITEMS_MAX).optional(),
  relay: idArray('relay', COMPILATION_RELAY_MAX).optional(),
});

export const CompilationIdArgs = z.object({ Id_compilation: id('Id_compilation') });
export const CompilationVersionArgs = z.object({ Id: id('Id') });

/** compilation.auto: days 1-90, mode new|top, optional category. */
export const CompilationAutoArgs = z.object({
  days: int(COMPILATION_DAYS_MIN, COMPILATION_DAYS_MAX, 'days'),
  mode: z.enum(['new', 'top'], { error: 'mode must be new or top' }),
  Id_cat: id('Id_cat').optional(),
});

/** compilation.items: pasted ids, looked up (found in the order given, unknown listed). */
export const CompilationItemsArgs = z.object({ ids: idArray('ids', COMPILATION_ITEMS_MAX).min(1, 'ids must not be empty') });

/**
 * The item-id editor's text: ids one per line, or separated by commas or spaces. Answers the ids in
 * order (duplicates once) and the tokens that are not ids.
 */
export function parseItemIds(textValue: string): { ids: number[]; bad: string[] } {
  const ids: number[] = [];
  const bad: string[] = [];
  const seen = new Set<number>();
  for (const tok of textValue.split(/[\s,;]+/)) {
    if (!tok) continue;
    if (/^\d{1,10}$/.test(tok) && Number(tok) >= 1 && Number(tok) <= INT_MAX) {
      const n = Number(tok);
      if (!seen.has(n)) { seen.add(n); ids.push(n); }
    } else bad.push(tok);
  }
  return { ids, bad };
}

/** The auto compilation's days field: the spec's helper when outside 1..90 (or not a whole number). */
export function daysError(v: string): string | null {
  if (!/^\d{1,3}$/.test(v.trim())) return COMPILATION_MSG.days;
  const n = Number(v.trim());
  return n < COMPILATION_DAYS_MIN || n > COMPILATION_DAYS_MAX ? COMPILATION_MSG.days : null;
}
