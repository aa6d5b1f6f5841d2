/**
 * Marketplace (/wb; 001 §2 "Reports and marketplace", §3 Marketplace card, analytics, order row,
 * advert, item chart data, §7 wb.*, item.getChartBrain, §9; issue 23 "Marketplace"; docs/wb.md): the
 * shapes the server answers, the columns and labels of the two table variants, constants and input
 * schemas, shared by the server and the UI.
 *
 * Money: the seller APIs send rubles as JSON numbers with kopecks; the console keeps them as whole
 * kopecks (exact sums in SQL) and answers rubles as numbers with at most two decimals. Days are
 * 'YYYY-MM-DD' (UTC); `time` of chart points is epoch ms of the day's start.
 */
import { z } from 'zod';
import { flag, int, text } from './fields.js';

// ---------------------------------------------------------------------------------------------
// Constants

/** 001 §9: outside answers are fresh for 600 s; a sync of the same range within it is not repeated. */
export const WB_CACHE_TTL_S = 600;
/** 001 §7 item.getChartBrain: defaults (offset: days of history read, newest last; step: days of input per prediction). */
export const WB_BRAIN_OFFSET = 5000;
export const WB_BRAIN_STEP = 12;
export const WB_BRAIN_STEP_MAX = 60;
/** The forecast reaches this many days past the last known day. */
export const WB_BRAIN_HORIZON = 7;
/** The /wb range defaults to the last 30 days (the original's fixed 2024-06-01 to 2024-12-31 is gone; 001 §2). */
export const WB_DEFAULT_DAYS = 30;
/** A report or sync range spans at most this many days. */
export const WB_RANGE_MAX_DAYS = 366;
/** wb.Statistic.getDetailOrders: rows per page. */
export const WB_ORDERS_PAGE = 20;
/** The finance report's document types (doc_type_name). */
export const WB_DOC_SALE = 'Продажа';
export const WB_DOC_RETURN = 'Возврат';

export const WB_MSG = {
  notConfigured: 'The marketplace is not configured (WB_TOKEN)',
  notSynced: 'Nothing synced yet: run a sync',
  syncRunning: 'A sync is already running',
  notEnoughHistory: 'Not enough price history for a forecast',
  cardNotFound: 'Card not found',
  /** 001 §8: the success message of a sync (the tables are updated). */
  syncOk: 'Update ok!',
} as const;

// ---------------------------------------------------------------------------------------------
// Days

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;
/** A real calendar day written yyyy-MM-dd. */
export function isWbDay(s: string): boolean {
  if (!DAY_RE.test(s)) return false;
  const t = Date.parse(`${s}T00:00:00Z`);
  return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === s;
}
export const wbAddDays = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
export const wbDaysBetween = (a: string, b: string) => Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);
export const wbToday = () => new Date().toISOString().slice(0, 10);

const wbDay = (label: string) => text(label, 10, { min: 1 }).refine((v) => isWbDay(v), `${label} must be a day written yyyy-MM-dd`);

/** dateFrom not after dateTo, at most WB_RANGE_MAX_DAYS days (a check added to an object schema). */
function checkRange(v: { dateFrom: string; dateTo: string }, ctx: z.RefinementCtx) {
  if (v.dateFrom > v.dateTo) ctx.addIssue({ code: 'custom', path: ['dateTo'], message: 'dateTo must not be before dateFrom' });
  else if (wbDaysBetween(v.dateFrom, v.dateTo) + 1 > WB_RANGE_MAX_DAYS) ctx.addIssue({ code: 'custom', path: ['dateTo'], message: `the range spans at most ${WB_RANGE_MAX_DAYS} days` });
}

/** wb.sync: the range to pull; `force` 1 pulls again even within WB_CACHE_TTL_S of the same range's last sync. */
export const WbSyncInput = z.object({ dateFrom: wbDay('dateFrom'), dateTo: wbDay('dateTo'), force: flag('force').optional() }).superRefine(checkRange);
export type WbSyncArgs = z.output<typeof WbSyncInput>;

export const WbRangeInput = z.object({ dateFrom: wbDay('dateFrom'), dateTo: wbDay('dateTo') }).superRefine(checkRange);
export type WbRangeArgs = z.output<typeof WbRangeInput>;

const nmID = int(1, Number.MAX_SAFE_INTEGER, 'nmID');

export const WbItemChartInput = z.object({ nmID, dateFrom: wbDay('dateFrom'), dateTo: wbDay('dateTo') }).superRefine(checkRange);
export type WbItemChartArgs = z.output<typeof WbItemChartInput>;

export const WbOrdersInput = z.object({
  nmID: nmID.optional(),
  dateFrom: wbDay('dateFrom'),
  dateTo: wbDay('dateTo'),
  p_: int(1, 100_000, 'p_').optional(),
  limit: int(1, 500, 'limit').optional(),
}).superRefine(checkRange);
export type WbOrdersArgs = z.output<typeof WbOrdersInput>;

export const WbAdInput = WbRangeInput;

export const WbBrainInput = z.object({
  nmID,
  offset: int(1, WB_BRAIN_OFFSET, 'offset').optional(),
  step: int(2, WB_BRAIN_STEP_MAX, 'step').optional(),
});
export type WbBrainArgs = z.output<typeof WbBrainInput>;

// ---------------------------------------------------------------------------------------------
// Answers

/** The last sync: what the tables hold and how fresh (the page shows it; a failed sync keeps the last good data). */
export interface WbSyncState {
  /** ISO time the last good sync finished (null: never). */
  synced: string | null;
  dateFrom: string | null;
  dateTo: string | null;
  /** The last sync failed (its error) after `synced`: the data shown is older. */
  stale: boolean;
  error: string | null;
  running: boolean;
}

export interface WbSyncResult {
  configured: true;
  dateFrom: string;
  dateTo: string;
  /** Answered from a sync of the same range within WB_CACHE_TTL_S (nothing was asked of the marketplace). */
  cached: boolean;
  cards: number;
  finance_rows: number;
  funnel: number;
  adverts: number;
  ad_rows: number;
  /** Parts that failed (the others were stored). */
  errors: string[];
  finished: string;
  duration_ms: number;
}

/** One card's row of /wb (001 §3 Marketplace card and analytics; flat columns plus the spec's groups). */
export interface WbReportItem {
  nmID: number;
  title: string;
  vendorCode: string;
  brand: string;
  photo: string | null;
  stocks: number | null;
  /** Sales funnel of the period (the spec's old names; null: no funnel for this range). */
  ordersCount: number | null;
  cancelCount: number | null;
  openCardCount: number | null;
  addToCartCount: number | null;
  buyoutsCount: number | null;
  buyoutsSumRub: number | null;
  avgOrdersCountPerDay: number | null;
  selectedPeriod: { buyoutsSumRub: number | null; openCardCount: number | null; addToCartCount: number | null; ordersCount: number | null; buyoutsCount: number | null; avgOrdersCountPerDay: number | null; cancelCount: number | null };
  /** Finance report: sales and returns (count of pieces, sum of retail_amount, average retail_price). */
  sell: { retail_price: number; count: number; retail_amount: number };
  return: { retail_price: number; count: number; retail_amount: number };
  /** Before payout: the sum of the card's ppvz_for_pay, returns negative. */
  ppvz_for_pay: number;
  /** Logistics cost (delivery_rub) and counts. */
  delivery_rub: number;
  delivery: { count_delivury: number; count_return: number; percent_return: number; amount: number; return: number };
  storage_fee: number;
  penalty: number;
  percent: { sell: number; return_item: number };
  /** Ad spend of the period (the spec's ad.total). */
  ad: number;
}

export type WbTotals = Omit<WbReportItem, 'nmID' | 'title' | 'vendorCode' | 'brand' | 'photo'> & { cards: number };

export interface WbReport {
  configured: true;
  dateFrom: string;
  dateTo: string;
  list: WbReportItem[];
  totals: WbTotals;
  /** The funnel period the funnel columns come from (the stored one overlapping the range most), or null. */
  funnel_period: { dateFrom: string; dateTo: string } | null;
  sync: WbSyncState;
}

export interface WbChartDay {
  day: string;
  time: number;
  orders: number;
  buyouts: number;
  returns: number;
  ad: number;
  /** Average retail_price of the day's sales (null: no sale). */
  price: number | null;
  /** Average paid price (retail_amount / pieces) of the day's sales. */
  price_output: number | null;
}

export interface WbItemChart {
  configured: true;
  nmID: number;
  title: string;
  dateFrom: string;
  dateTo: string;
  days: WbChartDay[];
}

/** 001 §3 Item chart data. */
export interface WbBrainPoint {
  time: number;
  price: number | null;
  price_output: number | null;
  price_brain: number | null;
}

export interface WbBrain {
  configured: true;
  nmID: number;
  offset: number;
  step: number;
  list: WbBrainPoint[];
  /** What was learnt and how well (null when there is not enough history). */
  model: null | {
    samples: number;
    held_out: number;
    /** Mean absolute error of the one-day-ahead prediction on the held-out days (rubles), and in percent. */
    mae: number;
    mape: number;
    /** The same error of "tomorrow = today" on those days, for comparison. */
    naive_mae: number;
    iterations: number;
    train_error: number;
    duration_ms: number;
  };
  message?: string;
}

/** 001 §3 Order row (a finance report row). */
export interface WbOrderRow {
  rrd_id: number;
  nm_id: number;
  doc_type_name: string;
  supplier_oper_name: string;
  quantity: number;
  retail_price: number;
  retail_amount: number;
  ppvz_for_pay: number;
  delivery_rub: number;
  delivery_amount: number;
  return_amount: number;
  storage_fee: number;
  sale_dt: string | null;
  order_dt: string | null;
  rr_dt: string;
}

/** 001 §3 Advert: amount (spend in the range), its cards (the spec's autoParams/unitedParams nms). */
export interface WbAdvert {
  advertId: number;
  name: string;
  type: number | null;
  status: number | null;
  nms: number[];
  amount: number;
}

// ---------------------------------------------------------------------------------------------
// Table columns (001 §2 /wb: the spec's columns and the second variant's)

export type WbColumnKey =
  | 'nmID' | 'orders' | 'sales' | 'returns' | 'ppvz_for_pay' | 'sales_sum' | 'returns_sum' | 'logistics' | 'ad'
  | 'ad_spend' | 'delivery_rub' | 'logistics_count' | 'storage_fee' | 'buyoutsSumRub' | 'openCardCount' | 'addToCartCount' | 'ordersCount' | 'buyoutsCount' | 'avgOrdersCountPerDay';

/** The first variant (001 §2): cards, orders and cancellations, sales, returns, before-payout, sales sum, returns sum, logistics, advertising. */
export const WB_COLUMNS_MAIN: Array<{ key: WbColumnKey; label: string }> = [
  { key: 'nmID', label: 'Cards' },
  { key: 'orders', label: 'Orders and cancellations' },
  { key: 'sales', label: 'Sales' },
  { key: 'returns', label: 'Returns' },
  { key: 'ppvz_for_pay', label: 'Before payout' },
  { key: 'sales_sum', label: 'Sales sum' },
  { key: 'returns_sum', label: 'Returns sum' },
  { key: 'logistics', label: 'Logistics' },
  { key: 'ad', label: 'Advertising' },
];
/** The second variant (001 §2): ad spend, delivery cost, logistics, storage, bought-for-amount, opened card, added to cart, ordered pieces, bought pieces, average orders per day. */
export const WB_COLUMNS_SECOND: Array<{ key: WbColumnKey; label: string }> = [
  { key: 'nmID', label: 'Cards' },
  { key: 'ad_spend', label: 'Ad spend' },
  { key: 'delivery_rub', label: 'Delivery cost' },
  { key: 'logistics_count', label: 'Logistics' },
  { key: 'storage_fee', label: 'Storage' },
  { key: 'buyoutsSumRub', label: 'Bought for amount' },
  { key: 'openCardCount', label: 'Opened card' },
  { key: 'addToCartCount', label: 'Added to cart' },
  { key: 'ordersCount', label: 'Ordered pieces' },
  { key: 'buyoutsCount', label: 'Bought pieces' },
  { key: 'avgOrdersCountPerDay', label: 'Average orders per day' },
];

/** The number a column sorts by. */
export function wbSortValue(r: WbReportItem, key: WbColumnKey): number {
  switch (key) {
    case 'nmID': return r.nmID;
    case 'orders': return r.ordersCount ?? -1;
    case 'sales': return r.sell.count;
    case 'returns': return r.return.count;
    case 'ppvz_for_pay': return r.ppvz_for_pay;
    case 'sales_sum': return r.sell.retail_amount;
    case 'returns_sum': return r.return.retail_amount;
    case 'logistics': return r.delivery.amount;
    case 'ad': case 'ad_spend': return r.ad;
    case 'delivery_rub': return r.delivery_rub;
    case 'logistics_count': return r.delivery.count_delivury;
    case 'storage_fee': return r.storage_fee;
    case 'buyoutsSumRub': return r.buyoutsSumRub ?? -1;
    case 'openCardCount': return r.openCardCount ?? -1;
    case 'addToCartCount': return r.addToCartCount ?? -1;
    case 'ordersCount': return r.ordersCount ?? -1;
    case 'buyoutsCount': return r.buyoutsCount ?? -1;
    case 'avgOrdersCountPerDay': return r.avgOrdersCountPerDay ?? -1;
  }
}
