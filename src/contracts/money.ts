/**
 * Money (001 §2 "Money", §3 Money box / Transaction, §5, §7 money.*, §8, §9; issue 21; docs/money.md):
 * boxes with a balance, tagged transactions, reports, CSV, tagging rules. Shared by the server's input
 * schemas and the UI's forms.
 *
 * Amounts are exact: on the wire a decimal string with two places ("0.30"); an input `val` is a JSON
 * number or a string ("0.10", "12,5") read with decimal.js, never through a binary float sum; more than
 * two decimal places, NaN, exponents and other text are refused by name. Stored as integer kopecks.
 */
import { Decimal } from 'decimal.js';
import { z } from 'zod';
import { fieldKinds, flag, id, int, INT_MAX, selectOf, text, unsafeCharOf } from './fields.js';
// the one `select` whitelist helper (a comma list or a list of column names; others 422)

/** 001 §9: transactions per page (`limit` default of money.getTransactions). */
export const MONEY_PAGE = 20;
/** The most rows one money.getTransactions call answers. */
export const MONEY_PAGE_MAX = 200;
/** 001 §5: tag search limit (also the most tags getTagsPopular / getTagsByTagsRelay answer). */
export const MONEY_TAG_LIMIT = 200;
/** 001 §9: the report's default start is 30 days ago. */
export const MONEY_REPORT_DAYS = 30;
/** A report grouped by day covers at most this many days (use months beyond). */
export const MONEY_REPORT_MAX_DAYS_BY_DAY = 732;
/** A report covers at most this many days. */
export const MONEY_REPORT_MAX_DAYS = 3660;
/** Tags on one transaction at most, and the longest tag. */
export const MONEY_TAGS_MAX = 20;
export const MONEY_TAG_MAX_LEN = 64;
/** Rules per box at most. */
export const MONEY_RULES_MAX = 100;
/** Rows of one CSV import at most (the JSON body limit, BODY_LIMIT, also bounds it). */
export const MONEY_IMPORT_MAX_ROWS = 20_000;
/** The largest amount of one transaction, and the largest balance a box may reach (either sign). */
export const MONEY_VAL_MAX = '999999999999.99';
export const MONEY_BALANCE_MAX_KOPECKS = 9_000_000_000_000_000; // 90 trillion: exact in a JS number (< 2^53)

/** 001 §3: type 0 expense, 1 income. */
export const MONEY_TYPE = { expense: 0, income: 1 } as const;
export type MoneyType = 0 | 1;
export const MONEY_TYPE_LABELS: Record<MoneyType, string> = { 0: 'Expense', 1: 'Income' };

export const MONEY_MSG = {
  /** 001 §5/§8, verbatim. */
  typeRequired: 'Не указан тип записи',
  saveOk: 'Save ok!',
  insertOk: 'Insert ok!',
  updateOk: 'Update ok!',
  deleteOk: 'Delete ok!',
  boxNotFound: 'Box not found',
  transactionNotFound: 'Transaction not found',
  descriptionRequired: 'description is required',
  titleRequired: 'title is required',
  /** 001 §5: the delete confirms say that deletion is irreversible. */
  deleteTransactionConfirm: 'Delete this transaction? Deletion is irreversible: it cannot be undone.',
  deleteBoxConfirm: 'Delete this box with all its transactions, tags and rules? Deletion is irreversible: it cannot be undone.',
  sharesOverlap: 'A transaction with several tags is counted under each of its tags, so the shares of the tags overlap and can add up to more than 100%; the total counts each transaction once.',
  balanceTooLarge: 'The box balance would exceed the largest amount the console keeps',
  importRefused: 'Nothing was imported: fix the refused rows and import the file again',
} as const;

// ---------------------------------------------------------------------------------------------
// Amounts

const AMOUNT_TEXT = /^\+?\d{1,15}(?:[.,]\d+)?$/;
const VAL_MAX = new Decimal(MONEY_VAL_MAX);

/** Reads an amount (a JSON number or a decimal string, '.' or ',' as the separator) exactly; an error message when it is not one. */
export function parseAmount(v: unknown, label = 'val'): { kopecks: number } | { error: string } {
  let d: Decimal;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return { error: `${label} must be a number` };
    // decimal.js reads a number through its shortest decimal spelling: 0.1 is 0.1, 0.1 + 0.2 is 0.30000000000000004
    d = new Decimal(v);
  } else if (typeof v === 'string') {
    const s = v.trim();
    if (s === '') return { error: `${label} is required` };
    if (!AMOUNT_TEXT.test(s)) return { error: `${label} must be an amount like 12.50 (digits, one decimal point)` };
    d = new Decimal(s.replace(',', '.').replace(/^\+/, ''));
  } else return { error: v === undefined || v === null ? `${label} is required` : `${label} must be a number or a decimal string like "0.10"` };
  if (d.isNaN()) return { error: `${label} must be a number` };
  if (d.decimalPlaces() > 2) return { error: `${label} has more than 2 decimal places` };
  if (d.lte(0)) return { error: `${label} must be more than 0` };
  if (d.gt(VAL_MAX)) return { error: `${label} is at most ${MONEY_VAL_MAX}` };
  return { kopecks: d.times(100).toNumber() };
}

/** Kopecks as the wire's decimal string: 30 -> "0.30", -1234 -> "-12.34". */
export function formatKopecks(k: number | string | bigint): string {
  return new Decimal(String(k)).dividedBy(100).toFixed(2);
}

/** An amount field: a number or decimal string in, integer kopecks (positive) out. */
export function amount(label = 'val') {
  return z.union([z.number(), z.string()], { error: (iss) => (iss.input === undefined || iss.input === null ? `${label} is required` : `${label} must be a number or a decimal string like "0.10"`) })
    .transform((v, ctx): number => {
      const r = parseAmount(v, label);
      if ('error' in r) {
        ctx.addIssue({ code: 'custom', message: r.error, input: v });
        return z.NEVER;
      }
      return r.kopecks;
    });
}

/**
 * The transaction type (001 §5): 0 expense or 1 income, required; missing, empty or null answers
 * 'Не указан тип записи' (verbatim), anything else 'type must be 0 (expense) or 1 (income)'.
 */
export function txType() {
  const bad = 'type must be 0 (expense) or 1 (income)';
  const s = z
    .union([z.number(), z.string()], { error: (iss) => (iss.input === undefined || iss.input === null ? MONEY_MSG.typeRequired : bad) })
    .transform((v, ctx): MoneyType => {
      if (v === '') ctx.addIssue({ code: 'custom', message: MONEY_MSG.typeRequired, input: v });
      else if (v === 0 || v === '0') return 0;
      else if (v === 1 || v === '1') return 1;
      else ctx.addIssue({ code: 'custom', message: bad, input: v });
      return z.NEVER;
    });
  fieldKinds.add(s, { kind: 'choice', label: 'type' });
  return s;
}

// ---------------------------------------------------------------------------------------------
// Days and tags

const DAY_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** A real calendar day written yyyy-MM-dd (001 §5). */
export function isDay(s: string): boolean {
  const m = DAY_RE.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]) && Number(m[1]) >= 1900 && Number(m[1]) <= 2999;
}
export function day(label: string) {
  return text(label, 10, { min: 1 }).refine((v) => isDay(v), `${label} must be a day written yyyy-MM-dd`);
}
/** The UTC day `n` days after (or before, n < 0) `d` (yyyy-MM-dd). */
export function addDays(d: string, n: number): string {
  const t = Date.UTC(Number(d.slice(0, 4)), Number(d.slice(5, 7)) - 1, Number(d.slice(8, 10))) + n * 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
}
/** Days from `a` to `b` (b - a). */
export const daysBetween = (a: string, b: string) => Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);

/**
 * One tag as stored: trimmed, inner white space as one space, lower case (so 'Food' and 'food' are one
 * tag on both databases). Commas separate tags, so a tag has none.
 */
export const normalizeTag = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

/** A comma separated list (or a list) as tags: normalised, empty ones dropped, duplicates removed, in order. */
export function splitTags(v: string | readonly string[]): string[] {
  const parts = typeof v === 'string' ? v.split(',') : v.flatMap((x) => x.split(','));
  const out: string[] = [];
  for (const p of parts) {
    const t = normalizeTag(p);
    if (t && !out.includes(t)) out.push(t);
  }
  return out;
}

/** Tags: a comma separated string or a list of strings; out: the normalised list. */
export function tagsField(label = 'tags', max = MONEY_TAGS_MAX) {
  return z.union([z.string(), z.array(z.string({ error: `${label} must be text` }))], { error: `${label} must be text (comma separated) or a list of text` })
    .transform((v, ctx): string[] => {
      const tags = splitTags(v);
      const problem =
        tags.length > max ? `${label}: at most ${max} tags`
        : tags.find((t) => t.length > MONEY_TAG_MAX_LEN) ? `${label}: a tag is at most ${MONEY_TAG_MAX_LEN} characters`
        : tags.find((t) => unsafeCharOf(t) !== null) ? `${label} must not contain control or invisible characters`
        : null;
      if (problem) {
        ctx.addIssue({ code: 'custom', message: problem, input: v });
        return z.NEVER;
      }
      return tags;
    });
}

/** One tag (a filter): normalised; '' is refused. */
export function oneTag(label = 'tag') {
  return text(label, MONEY_TAG_MAX_LEN, { min: 1 }).refine((v) => !v.includes(','), `${label} is one tag (no comma)`).transform(normalizeTag);
}

// ---------------------------------------------------------------------------------------------
// Method inputs

const bid = () => id('bid');
const trid = (label = 'trid') => id(label);
const boxTitle = () => z.string({ error: (iss) => (iss.input === undefined ? MONEY_MSG.titleRequired : 'title must be text') }).pipe(text('title', 190, { min: 1 }));
const boxDescription = () => z.string({ error: (iss) => (iss.input === undefined ? MONEY_MSG.descriptionRequired : 'description must be text') })
  .pipe(text('description', 2000, { multiline: true }).refine((v) => v !== '', MONEY_MSG.descriptionRequired));

export const MoneyBid = z.object({ bid: bid() });
export const MoneyTrid = z.object({ trid: trid() });

/** money.boxUpdate: without bid makes a box (the caller owns it), with bid changes it; title and description required (001 §5). */
export const MoneyBoxUpdate = z.object({ bid: bid().optional(), title: boxTitle(), description: boxDescription() });
export type MoneyBoxUpdate = z.output<typeof MoneyBoxUpdate>;

/** money.shareBox (admins): gives (share 1) or takes back (share 0) a user's access to a box. */
export const MoneyShareBox = z.object({ bid: bid(), uid: id('uid'), share: flag('share') });

/** One transaction's fields (money.setTransaction, a CSV row). */
export const MoneyTxFields = z.object({
  type: txType(),
  val: amount('val'),
  tags: tagsField().optional(),
  time_set: day('time_set'),
  description: text('description', 2000, { multiline: true }).optional(),
});
/** One CSV row (MONEY_CSV_COLUMNS), checked with the same field rules, named by its column. */
export const MoneyCsvRow = z.object({
  date: day('date'),
  type: txType(),
  value: amount('value'),
  tags: tagsField().optional(),
  description: text('description', 2000, { multiline: true }).optional(),
});
/** money.setTransaction: without trid adds a transaction to the box (rules add their tags), with trid changes it. */
export const MoneySetTransaction = MoneyTxFields.extend({ bid: bid(), trid: trid().optional() });
export type MoneySetTransaction = z.output<typeof MoneySetTransaction>;

/** Filters of a box's transactions (list, export, the transactions behind a report's bar or tag). */
export const MoneyFilter = z.object({
  bid: bid(),
  from: day('from').optional(),
  to: day('to').optional(),
  /** 001 §7 REST "Money: transactions with ... timeMore": the same as `from`. */
  timeMore: day('timeMore').optional(),
  /** Transactions with any of these tags. */
  tags: tagsField('tags', 50).optional(),
  /** ... and with this tag too. */
  tag: oneTag().optional(),
  /** Only transactions without tags. */
  untagged: flag('untagged').optional(),
  type: z.union([z.literal(''), txType()]).optional(),
  /** Text in the description. */
  q: text('q', 190).optional(),
});
export type MoneyFilter = z.output<typeof MoneyFilter>;

/** The columns a getTransactions `select` may name (001 §7 REST "transactions with select, bid, tags, timeMore, limit"). */
export const MONEY_TX_COLUMNS = ['trid', 'bid', 'uid', 'type', 'val', 'tags', 'time_set', 'description', 'time_create', 'time_update'] as const;

/** money.getTransactions (001 §7: default limit 20, offset 0); `p_` (1-based page) sets offset = (p_ - 1) * limit; `select` answers only the columns it names. */
export const MoneyGetTransactions = MoneyFilter.extend({
  select: selectOf(MONEY_TX_COLUMNS).optional(),
  limit: int(1, MONEY_PAGE_MAX, 'limit').optional(),
  offset: int(0, INT_MAX, 'offset').optional(),
  p_: int(1, INT_MAX, 'p_').optional(),
});
export type MoneyGetTransactions = z.output<typeof MoneyGetTransactions>;

const tagLimit = () => int(1, MONEY_TAG_LIMIT, 'limit').optional();
/** money.getTagsPopular: a box's tags (or those of every box you see) by use. */
export const MoneyTagsPopular = z.object({ bid: bid().optional(), limit: tagLimit() });
/** money.searchTags: tags containing `q` (those starting with it first), without the ones in `exclude` (tags already entered). */
export const MoneySearchTags = z.object({ bid: bid().optional(), q: text('q', MONEY_TAG_MAX_LEN), exclude: tagsField('exclude', 200).optional(), limit: tagLimit() });
/** money.getTagsByTagsRelay: tags used together with `tags` on the same transactions, by how often. */
export const MoneyTagsByRelay = z.object({ bid: bid().optional(), tags: tagsField('tags', 50), exclude: tagsField('exclude', 200).optional(), limit: tagLimit() });

export const MoneyRule = z.object({
  contains: text('contains', 190, { min: 1 }),
  tags: tagsField().refine((t) => t.length > 0, 'tags: a rule adds at least one tag'),
});
/** money.setRules: the box's whole list of rules "description contains X -> tags", in order. */
export const MoneySetRules = z.object({ bid: bid(), rules: z.array(MoneyRule, { error: 'rules must be a list' }).max(MONEY_RULES_MAX, `rules: at most ${MONEY_RULES_MAX}`) });

export const MONEY_GROUPS = ['day', 'month'] as const;
export type MoneyGroup = (typeof MONEY_GROUPS)[number];
/** money.getReport: per day or month and per tag, for [from, to] (default: 30 days ago to today, UTC). */
export const MoneyReportArgs = z.object({
  bid: bid(),
  from: day('from').optional(),
  to: day('to').optional(),
  tags: tagsField('tags', 50).optional(),
  group: z.enum(MONEY_GROUPS, { error: 'group must be day or month' }).optional(),
});
export type MoneyReportArgs = z.output<typeof MoneyReportArgs>;

/** money.importCsv: the file's text; `dry_run: 1` checks it and writes nothing. */
export const MoneyImportCsv = z.object({ bid: bid(), csv: z.string({ error: 'csv must be text' }).min(1, 'csv is empty'), dry_run: flag('dry_run').optional() });

// ---------------------------------------------------------------------------------------------
// Answers

export interface MoneyBox {
  bid: number;
  title: string;
  description: string;
  /** Exact, "0.30". */
  balance: string;
  /** Transactions in the box. */
  count: number;
  /** The owner. */
  uid: number;
  owner: string;
  /** 1 when the box is shared with you (you are not its owner). */
  shared: 0 | 1;
  /** 1 when you may edit, share or delete the box itself (its owner, an admin). */
  can_manage: 0 | 1;
  time_update: string | null;
}
export interface MoneyShare { uid: number; login: string; name: string }
export interface MoneyBoxDetail extends MoneyBox { shares: MoneyShare[] }

export interface MoneyTransaction {
  trid: number;
  bid: number;
  uid: number;
  type: MoneyType;
  /** Exact, positive: "12.50". */
  val: string;
  /** Comma separated (001 §3). */
  tags: string;
  time_set: string;
  description: string;
  time_create: string | null;
  time_update: string | null;
}
/** One day's sums of the whole box (unfiltered lists only). */
export interface MoneyDaySum { day: string; income: string; expense: string }
export interface MoneyTransactions {
  /** Whole rows, or only the columns of `select`. */
  list: MoneyTransaction[];
  count: number;
  /** The box's balance (all its transactions), exact. */
  balance: string;
  limit: number;
  offset: number;
  /** Sums per day for the days on this page (only without filters other than from/to). */
  days?: MoneyDaySum[];
}
export interface MoneyTag { tag: string; n: number }
export interface MoneyRuleView { Id: number; contains: string; tags: string }

export interface MoneySums { income: string; expense: string; /** income - expense */ total: string; count: number }
export interface MoneyPeriod extends MoneySums {
  /** yyyy-MM-dd (group day) or yyyy-MM (group month). */
  period: string;
  /** The period's days inside the range. */
  from: string;
  to: string;
  /** The box's balance at the end of the period (all its transactions up to that day). */
  balance: string;
}
export interface MoneyTagRow extends MoneySums {
  /** '' for transactions without tags. */
  tag: string;
  /** Percent of the range's income / expense, one decimal; shares overlap (MONEY_MSG.sharesOverlap). */
  share_income: number;
  share_expense: number;
}
export interface MoneyReport {
  bid: number;
  from: string;
  to: string;
  group: MoneyGroup;
  tags: string[];
  totals: MoneySums;
  periods: MoneyPeriod[];
  tag_rows: MoneyTagRow[];
  /** The box's balance before `from` and at the end of `to`. */
  balance_start: string;
  balance_end: string;
}
export interface MoneyImportResult {
  rows: number;
  imported: number;
  dry_run: 0 | 1;
  balance: string;
}

// ---------------------------------------------------------------------------------------------
// CSV

export const MONEY_CSV_COLUMNS = ['date', 'type', 'value', 'tags', 'description'] as const;
/** Spreadsheets run a cell that begins with one of these as a formula. */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A cell as exported: one beginning like a formula gets a leading apostrophe. */
export const csvCell = (s: string) => (FORMULA_START.test(s) ? `'${s}` : s);
/** A cell as imported: the apostrophe of an escaped formula-looking cell is taken away. */
export const csvUncell = (s: string) => (s.length > 1 && s[0] === "'" && FORMULA_START.test(s.slice(1)) ? s.slice(1) : s);
/** CSV type words: 0/1, expense/income, расход/доход. */
export function csvType(s: string): MoneyType | '' | null {
  const v = s.trim().toLowerCase();
  if (v === '') return '';
  if (v === '0' || v === 'expense' || v === 'расход') return 0;
  if (v === '1' || v === 'income' || v === 'доход') return 1;
  return null;
}
