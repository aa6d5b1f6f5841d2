/**
 * Running totals behind the /wb report (docs/wb.md "The report"): the sums of any range of a card are
 * the difference of two stored running totals, so a report reads about four rows per card whatever the
 * range's length (a year of wb_daily is about 400,000 rows to add up; this is about 8,000 to read).
 *
 * - wb_cum_month (month, nm_id): the card's sums from its first day through the end of the month; a
 *   row for every month from the card's first month to the newest month with data, so a month is one
 *   lookup (a card idle for a month still has that month's row, equal to the one before).
 * - wb_cum_day (day, nm_id): the card's sums from the first of the day's month through the day; a row
 *   for every day of each month in which the card has a daily or ad row, so a day is one lookup too (a
 *   card with no row that month has none, and its sums within the month are 0).
 *
 * C(d) = wb_cum_month[the month before d's, at most the newest month] + wb_cum_day[d], and the sums of
 * [from, to] are C(to) - C(from - 1). The sync rebuilds the months it touched (their days, and the
 * running month totals from the first touched month on) in the same transaction as the daily rows.
 */
import { wbAddDays } from '../../../contracts/wb.js';

/** The sum columns of wb_daily (finance rows per card and day). */
export const DAILY_SUMS = ['orders', 'sales', 'returns', 'sales_sum', 'returns_sum', 'price_sum', 'ret_price_sum', 'ppvz', 'delivery_rub', 'return_logistics', 'deliveries', 'returns_delivered', 'storage_fee', 'penalty'] as const;
/** The columns of the running totals: the finance sums and the ad spend (wb_ad_daily.amount). */
export const CUM_SUMS = [...DAILY_SUMS, 'ad'] as const;
export type CumKey = (typeof CUM_SUMS)[number];
/** A card's sums, in CUM_SUMS order. */
export type Sums = Float64Array;

type Query = (sql: string, params?: unknown[]) => Promise<unknown>;
type Row = Record<string, string | number | null>;
/** Rows per INSERT statement (17 parameters a row: within both databases' limits). */
const CHUNK = 500;
const COLS = CUM_SUMS.join(', ');

export const emptySums = (): Sums => new Float64Array(CUM_SUMS.length);
const sumsOf = (r: Row): Sums => Float64Array.from(CUM_SUMS, (k) => Number(r[k] ?? 0));

/** 'YYYY-MM' of the month before. */
export function monthBefore(month: string): string {
  return wbAddDays(`${month}-01`, -1).slice(0, 7);
}
/** 'YYYY-MM' of the month after. */
export function monthAfter(month: string): string {
  return wbAddDays(`${month}-01`, 32).slice(0, 7);
}
/** The last day of a month. */
export function lastDayOf(month: string): string {
  return wbAddDays(`${monthAfter(month)}-01`, -1);
}

/**
 * Each card's running totals within one month, a row for every day of the month: `rows` are the
 * month's daily sums (any order, a card's day at most once per source, ad rows with `ad`).
 */
export function monthRunningTotals(month: string, rows: Array<{ nm_id: number; day: string; sums: Sums }>): Map<number, Sums[]> {
  const byCard = new Map<number, Map<string, Sums>>();
  for (const r of rows) {
    const days = byCard.get(r.nm_id) ?? new Map<string, Sums>();
    const s = days.get(r.day);
    if (s) for (let i = 0; i < s.length; i++) s[i] += r.sums[i];
    else days.set(r.day, Float64Array.from(r.sums));
    byCard.set(r.nm_id, days);
  }
  const last = lastDayOf(month);
  const out = new Map<number, Sums[]>();
  for (const [nm, days] of byCard) {
    const run = emptySums();
    const list: Sums[] = [];
    for (let d = `${month}-01`; d <= last; d = wbAddDays(d, 1)) {
      const s = days.get(d);
      if (s) for (let i = 0; i < run.length; i++) run[i] += s[i];
      list.push(Float64Array.from(run));
    }
    out.set(nm, list);
  }
  return out;
}

async function insertRows(q: Query, table: string, key: string, rows: Array<[string, number, Sums]>): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    const part = rows.slice(i, i + CHUNK);
    await q(
      `INSERT INTO ${table} (${key}, nm_id, ${COLS}) VALUES ${part.map(() => `(?, ?, ${CUM_SUMS.map(() => '?').join(', ')})`).join(', ')}`,
      part.flatMap(([k, nm, s]) => [k, nm, ...s]),
    );
  }
}

/**
 * Rebuilds the running totals of the months [fromMonth, toMonth] (from wb_daily and wb_ad_daily) and
 * the month totals from fromMonth to the newest month. Run it in the transaction that wrote the daily
 * rows. Answers the rows written.
 */
export async function rebuildCumulative(q: Query, fromMonth: string, toMonth: string): Promise<{ days: number; months: number }> {
  const [a] = (await q('SELECT MAX(day) AS d FROM wb_daily')) as Row[];
  const [b] = (await q('SELECT MAX(day) AS d FROM wb_ad_daily')) as Row[];
  const newest = [a?.d, b?.d].filter((d): d is string => typeof d === 'string' && d.length >= 7).map((d) => d.slice(0, 7)).sort().pop() ?? null;
  await q('DELETE FROM wb_cum_day WHERE day >= ? AND day <= ?', [`${fromMonth}-01`, lastDayOf(toMonth)]);
  await q('DELETE FROM wb_cum_month WHERE month >= ?', [fromMonth]);
  if (!newest || fromMonth > newest) return { days: 0, months: 0 };
  let days = 0;
  const totals = new Map<string, Map<number, Sums>>();
  const lastRebuilt = toMonth < newest ? toMonth : newest;
  for (let m = fromMonth; m <= lastRebuilt; m = monthAfter(m)) {
    const range = [`${m}-01`, lastDayOf(m)];
    const fin = (await q(`SELECT nm_id, day, ${DAILY_SUMS.join(', ')} FROM wb_daily WHERE day >= ? AND day <= ?`, range)) as Row[];
    const ads = (await q('SELECT nm_id, day, amount AS ad FROM wb_ad_daily WHERE day >= ? AND day <= ?', range)) as Row[];
    const running = monthRunningTotals(m, [...fin, ...ads].map((r) => ({ nm_id: Number(r.nm_id), day: String(r.day), sums: sumsOf(r) })));
    const rows: Array<[string, number, Sums]> = [];
    const monthTotals = new Map<number, Sums>();
    for (const [nm, list] of running) {
      list.forEach((s, i) => rows.push([wbAddDays(`${m}-01`, i), nm, s]));
      monthTotals.set(nm, list[list.length - 1]);
    }
    await insertRows(q, 'wb_cum_day', 'day', rows);
    days += rows.length;
    totals.set(m, monthTotals);
  }
  // the month totals, running on from the month before fromMonth (dense: every card that has started)
  const prev = (await q(`SELECT nm_id, ${COLS} FROM wb_cum_month WHERE month = ?`, [monthBefore(fromMonth)])) as Row[];
  const run = new Map<number, Sums>(prev.map((r) => [Number(r.nm_id), sumsOf(r)]));
  let months = 0;
  for (let m = fromMonth; m <= newest; m = monthAfter(m)) {
    let monthTotals = totals.get(m);
    if (!monthTotals) {
      const ends = (await q(`SELECT nm_id, ${COLS} FROM wb_cum_day WHERE day = ?`, [lastDayOf(m)])) as Row[];
      monthTotals = new Map(ends.map((r) => [Number(r.nm_id), sumsOf(r)]));
    }
    for (const [nm, s] of monthTotals) {
      const r = run.get(nm) ?? emptySums();
      for (let i = 0; i < r.length; i++) r[i] += s[i];
      run.set(nm, r);
    }
    const rows = [...run].map(([nm, s]): [string, number, Sums] => [m, nm, s]);
    await insertRows(q, 'wb_cum_month', 'month', rows);
    months += rows.length;
  }
  return { days, months };
}

/**
 * Each card's sums of [from, to] from the running totals (C(to) - C(from - 1)); cards with nothing in
 * the range are left out.
 */
export async function rangeSums(q: Query, from: string, to: string): Promise<Map<number, Sums>> {
  const [n] = (await q('SELECT MAX(month) AS m FROM wb_cum_month')) as Row[];
  const newest = typeof n?.m === 'string' ? n.m : null;
  const out = new Map<number, Sums>();
  if (!newest) return out;
  const add = async (d: string, sign: 1 | -1) => {
    const before = monthBefore(d.slice(0, 7));
    const reads = [
      q(`SELECT nm_id, ${COLS} FROM wb_cum_month WHERE month = ?`, [before < newest ? before : newest]),
      q(`SELECT nm_id, ${COLS} FROM wb_cum_day WHERE day = ?`, [d]),
    ];
    for (const rows of (await Promise.all(reads)) as Row[][]) {
      for (const r of rows) {
        const nm = Number(r.nm_id);
        const s = out.get(nm) ?? emptySums();
        for (let i = 0; i < CUM_SUMS.length; i++) s[i] += sign * Number(r[CUM_SUMS[i]] ?? 0);
        out.set(nm, s);
      }
    }
  };
  await add(to, 1);
  await add(wbAddDays(from, -1), -1);
  for (const [nm, s] of out) if (s.every((v) => v === 0)) out.delete(nm);
  return out;
}
