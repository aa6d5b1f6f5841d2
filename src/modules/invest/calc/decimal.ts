/**
 * Exact numbers and days of the investment area (docs/invest.md "Numbers"): decimal.js with 40
 * significant digits (the broker's Quotations are exact decimal strings), numbers made only at the
 * edge, days as 'YYYY-MM-DD' strings in the console's time zone.
 */
import { Decimal } from '../../../core/outside/tbank.wire.js';

export { Decimal };
export type Dec = InstanceType<typeof Decimal>;

export const ZERO = new Decimal(0);
export const ONE = new Decimal(1);
export const HUNDRED = new Decimal(100);

/** A decimal string (or null) as a Decimal (or null). */
export const dec = (v: string | number | null | undefined): Dec | null => (v === null || v === undefined || v === '' ? null : new Decimal(v));

/** A Decimal as the JSON number with the same decimal spelling (rounded half-up to `dp` places when given). */
export function num(d: Dec, dp?: number): number {
  const s = dp === undefined ? d.toFixed() : d.toDecimalPlaces(dp, Decimal.ROUND_HALF_UP).toFixed();
  const n = Number(s);
  return n === 0 ? 0 : n; // never -0
}
export const numOrNull = (d: Dec | null, dp?: number): number | null => (d === null ? null : num(d, dp));

/** Today in a time zone, 'YYYY-MM-DD'. */
export function todayIn(timeZone: string, now = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

const dayMs = (d: string) => Date.UTC(Number(d.slice(0, 4)), Number(d.slice(5, 7)) - 1, Number(d.slice(8, 10)));
/** Days from `a` to `b` (b - a). */
export const daysBetween = (a: string, b: string) => Math.round((dayMs(b) - dayMs(a)) / 86_400_000);
/** The day `n` days after `d`. */
export const addDays = (d: string, n: number) => new Date(dayMs(d) + n * 86_400_000).toISOString().slice(0, 10);
/** Epoch ms of a day's start (UTC): the `ts_*` of a day. */
export const dayTs = (d: string | null): number | null => (d ? dayMs(d) : null);
/** 'YYYY-MM' of a day. */
export const monthOf = (d: string) => d.slice(0, 7);
/** The month `n` months after 'YYYY-MM'. */
export function addMonths(m: string, n: number): string {
  const i = Number(m.slice(0, 4)) * 12 + Number(m.slice(5, 7)) - 1 + n;
  return `${String(Math.floor(i / 12)).padStart(4, '0')}-${String((i % 12) + 1).padStart(2, '0')}`;
}
/** Months from `a` to `b` (b - a). */
export const monthsBetween = (a: string, b: string) => (Number(b.slice(0, 4)) - Number(a.slice(0, 4))) * 12 + Number(b.slice(5, 7)) - Number(a.slice(5, 7));
