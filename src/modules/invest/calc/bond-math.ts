/**
 * Bond figures from the catalogue row and the coupon schedule (docs/invest.md "Figures"); pure, so the
 * unit tests hold them against hand-computed cases.
 *
 * - **Coupons as counted**: a coupon on or after today whose value is 0 (a floating coupon not fixed
 *   yet) is estimated with the last coupon before it that has a value, and marked `estimated`.
 * - **coupon_percent** = coupon x coupons a year / nominal x 100, the coupon being the next one (else
 *   the last one with a value), coupons a year from the catalogue (else 365 / the coupon period).
 * - **Accrued interest** (НКД) today = coupon x (today - period start) / period days, for the period
 *   that holds today; the catalogue's aciValue when the schedule does not say.
 * - **Yield to maturity** (effective, % a year): the rate r with
 *   dirty price = sum over coming cash flows of CF / (1 + r)^(days / 365), where dirty price = lastPrice
 *   / 100 x nominal + accrued interest, and the cash flows are the coupons paid after today (estimated
 *   ones included) and the nominal at maturity. Solved by safeguarded Newton (bisection when a step
 *   leaves the bracket) to 1e-12. Approximate (`ytm_approx`) when a counted coupon is estimated or the
 *   bond amortises (its repayments are not in the schedule: the whole current nominal is taken at
 *   maturity). None for a perpetual bond, without a price, nominal or maturity, or past maturity.
 */
import { addDays, daysBetween, dec, Decimal, HUNDRED, num, ZERO, type Dec } from './decimal.js';

/** A coupon row as stored (invest_coupons). */
export interface CouponRow {
  number: number;
  coupon_date: string;
  fix_date: string | null;
  start_date: string | null;
  end_date: string | null;
  value: string;
  currency: string;
  coupon_type: string;
  period: number | null;
  /** The value parsed once (the schedule cache keeps them): decimal, number, and in nano units (value x 1e9). */
  dec?: Dec;
  valueNum?: number;
  nano?: bigint;
}

/** A decimal with at most 9 places as an integer count of 1e-9 (the broker's nano), exactly. */
export const nanoOf = (d: Dec): bigint => BigInt(d.times(1_000_000_000).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toFixed());

/** The bond fields the figures read (invest_bonds). */
export interface BondFacts {
  nominal: string | null;
  coupon_in_year: number;
  maturity_date: string | null;
  perpetual_flag: number;
  amortization_flag: number;
  floating_coupon_flag: number;
  aci_value: string | null;
  last_price: string | null;
}

export interface CountedCoupon {
  row: CouponRow;
  date: string;
  value: Dec;
  /** `value` in nano units (exact: the broker's values have at most 9 places). */
  nano: bigint;
  estimated: boolean;
}

/** The schedule by date with future unfixed (0) coupons estimated with the last known value before them. */
export function countedCoupons(rows: CouponRow[], today: string): CountedCoupon[] {
  const byDate = (a: CouponRow, b: CouponRow) => (a.coupon_date < b.coupon_date ? -1 : a.coupon_date > b.coupon_date ? 1 : a.number - b.number);
  let ordered = true;
  for (let i = 1; i < rows.length && ordered; i++) ordered = byDate(rows[i - 1], rows[i]) <= 0;
  const sorted = ordered ? rows : [...rows].sort(byDate);
  let lastKnown: { value: Dec; nano: bigint } | null = null;
  const out: CountedCoupon[] = [];
  for (const row of sorted) {
    const v = row.dec ?? new Decimal(row.value || '0');
    if (!v.isZero()) {
      const nano = row.nano ?? nanoOf(v);
      lastKnown = { value: v, nano };
      out.push({ row, date: row.coupon_date, value: v, nano, estimated: false });
    } else if (row.coupon_date >= today && lastKnown) out.push({ row, date: row.coupon_date, value: lastKnown.value, nano: lastKnown.nano, estimated: true });
    else out.push({ row, date: row.coupon_date, value: v, nano: 0n, estimated: row.coupon_date >= today });
  }
  return out;
}

/** The first coupon paid today or later, and the last one paid before today. */
export function nextAndLast(counted: CountedCoupon[], today: string): { next: CountedCoupon | null; last: CountedCoupon | null } {
  let next: CountedCoupon | null = null;
  let last: CountedCoupon | null = null;
  for (const c of counted) {
    if (c.date >= today) {
      if (!next) next = c;
    } else last = c;
  }
  return { next, last };
}

/** Coupons a year: the catalogue's, else from the coupon period (365 / days), else 0. */
export function couponsPerYear(bond: Pick<BondFacts, 'coupon_in_year'>, counted: CountedCoupon[]): number {
  if (bond.coupon_in_year > 0) return bond.coupon_in_year;
  const period = counted.find((c) => c.row.period && c.row.period > 0)?.row.period;
  return period ? Math.max(1, Math.round(365 / period)) : 0;
}

/** coupon x coupons a year / nominal x 100 (2 places); null without nominal, coupon or frequency. */
export function couponPercent(bond: BondFacts, counted: CountedCoupon[], today: string): number | null {
  const nominal = dec(bond.nominal);
  if (!nominal || nominal.lte(0)) return null;
  if (counted.length === 0) return 0; // no coupons at all (a discount bond): 0 %
  const { next } = nextAndLast(counted, today);
  const coupon = next && next.value.gt(0) ? next.value : ([...counted].reverse().find((c) => c.value.gt(0))?.value ?? null);
  const n = couponsPerYear(bond, counted);
  if (!coupon || n === 0) return 0;
  return num(coupon.times(n).dividedBy(nominal).times(HUNDRED), 2);
}

/** Accrued interest per bond on `today` from the schedule (the period holding today); else the catalogue's aciValue; else null. */
export function accruedInterest(bond: BondFacts, counted: CountedCoupon[], today: string): Dec | null {
  for (let i = 0; i < counted.length; i++) {
    const c = counted[i];
    if (c.date <= today) continue;
    const start = c.row.start_date ?? (i > 0 ? counted[i - 1].date : null);
    const period = c.row.period && c.row.period > 0 ? c.row.period : start ? daysBetween(start, c.date) : 0;
    if (!start || period <= 0 || start > today) break;
    const days = Math.min(daysBetween(start, today), period);
    return c.value.times(days).dividedBy(period);
  }
  return dec(bond.aci_value);
}

/** Money per bond of a quote in points: points / 100 x nominal. */
export function priceMoney(points: Dec | null, nominal: Dec | null): Dec | null {
  return points && nominal ? points.dividedBy(HUNDRED).times(nominal) : null;
}

export interface CashFlow {
  /** Days from the valuation day. */
  days: number;
  amount: number;
}

/**
 * The effective annual rate r with price = sum of amount / (1 + r)^(days / 365) (a fraction: 0.1 is
 * 10 %); null when there is no positive flow, the price is not positive, or no rate in (-99.99 %, 10,000 %)
 * gives the price.
 */
export function yieldToMaturity(price: number, flows: CashFlow[]): number | null {
  const fl = flows.filter((f) => f.days > 0 && f.amount > 0);
  if (!(price > 0) || fl.length === 0) return null;
  const pv = (r: number) => {
    let v = 0;
    let d = 0;
    for (const f of fl) {
      const t = f.days / 365;
      const disc = Math.pow(1 + r, -t);
      v += f.amount * disc;
      d -= (t * f.amount * disc) / (1 + r);
    }
    return { v: v - price, d };
  };
  let lo = -0.9999;
  let hi = 100;
  if (pv(lo).v < 0 || pv(hi).v > 0) return null; // the price is out of reach of any rate
  let r = 0.1;
  for (let i = 0; i < 200; i++) {
    const { v, d } = pv(r);
    if (Math.abs(v) < 1e-12 * Math.max(1, price)) return r;
    if (v > 0) lo = r;
    else hi = r;
    let next = d !== 0 ? r - v / d : NaN;
    if (!(next > lo && next < hi)) next = (lo + hi) / 2; // Newton left the bracket: bisect
    if (Math.abs(next - r) < 1e-14) return next;
    r = next;
  }
  return r;
}

export interface YtmResult {
  /** % a year, 2 places. */
  ytm: number | null;
  approx: boolean;
}

/** The bond's yield to maturity from its price and schedule (module comment). */
export function bondYtm(bond: BondFacts, counted: CountedCoupon[], today: string, lastPrice: Dec | null = dec(bond.last_price)): YtmResult {
  const nominal = dec(bond.nominal);
  if (bond.perpetual_flag || !bond.maturity_date || bond.maturity_date <= today || !nominal || nominal.lte(0) || !lastPrice || lastPrice.lte(0)) return { ytm: null, approx: false };
  const aci = accruedInterest(bond, counted, today) ?? ZERO;
  const dirty = priceMoney(lastPrice, nominal)!.plus(aci);
  let approx = bond.amortization_flag === 1;
  const flows: CashFlow[] = [];
  for (const c of counted) {
    if (c.date <= today || c.date > bond.maturity_date) continue;
    if (c.estimated) approx = true;
    flows.push({ days: daysBetween(today, c.date), amount: c.value.toNumber() });
  }
  flows.push({ days: daysBetween(today, bond.maturity_date), amount: nominal.toNumber() });
  const r = yieldToMaturity(dirty.toNumber(), flows);
  return { ytm: r === null ? null : Math.round(r * 10_000) / 100, approx };
}

/** Coupons paid from today to a year later (exclusive): how many and their sum per bond. */
export function yearPayments(counted: CountedCoupon[], today: string): { count: number; perBond: Dec; estimated: boolean } {
  const end = addDays(today, 365);
  let perBond: Dec = ZERO;
  let count = 0;
  let estimated = false;
  for (const c of counted) {
    if (c.date < today || c.date >= end) continue;
    count++;
    perBond = perBond.plus(c.value);
    if (c.estimated) estimated = true;
  }
  return { count, perBond, estimated };
}
