/**
 * A catalogue row, its schedule and a position as the screens' bond (src/contracts/invest.ts
 * `InvestBond`), and the totals of a list of them. Pure: the services read the rows, this shapes them.
 */
import type { InvestBond, InvestCoupon, InvestCouponRef, InvestPosition, InvestTotals, RiskLevel } from '../../../contracts/invest.js';
import {
  accruedInterest, bondYtm, countedCoupons, couponPercent, couponsPerYear, nextAndLast, priceMoney, yearPayments,
  type BondFacts, type CountedCoupon, type CouponRow,
} from './bond-math.js';
import { daysBetween, dayTs, dec, Decimal, HUNDRED, num, numOrNull, ONE, ZERO, type Dec } from './decimal.js';

/** The catalogue row's fields a view reads (InvestBondEntity). */
export interface BondRow extends BondFacts {
  figi: string;
  ticker: string;
  class_code: string;
  isin: string;
  name: string;
  currency: string;
  nominal_currency: string;
  call_date: string | null;
  risk_level: number;
  for_qual_investor_flag: number;
  liquidity_flag: number;
  coupon_percent: number | null;
  ytm: number | null;
  ytm_approx: number;
  ts_update_info: number | null;
  ts_update_coupon: number | null;
  ts_update_price: number | null;
}

export interface ViewContext {
  today: string;
  /** Rubles per unit of a currency (lower case); 'rub' is 1. */
  rates: Map<string, Dec>;
  /** Figures already computed for the same inputs (the catalogue service keeps one per process). */
  memo?: FiguresMemo;
}

/** coupon_percent and yield of a bond, by everything they depend on (figi, price, schedule version, accrued, day). */
export type FiguresMemo = Map<string, { cp: number | null; ytm: number | null; approx: boolean }>;
export const figuresKey = (row: BondRow & { ts_change_coupon?: number | null }, points: Dec | null, today: string) =>
  `${row.figi}|${points?.toFixed() ?? ''}|${row.ts_change_coupon ?? ''}|${row.ts_update_coupon ?? ''}|${row.nominal ?? ''}|${row.aci_value ?? ''}|${row.maturity_date ?? ''}|${row.coupon_in_year}|${row.perpetual_flag}${row.amortization_flag}|${today}`;

export const rateOf = (ctx: ViewContext, currency: string): Dec | null => (!currency || currency === 'rub' ? ONE : ctx.rates.get(currency) ?? null);

/** A position held (broker or local account). */
export interface PositionIn {
  quantity: Dec;
  /** Average price in points (% of nominal). */
  avgPoints: Dec | null;
  /** The broker's current price in money, used when the catalogue has no price. */
  currentPriceMoney: Dec | null;
  nkd: Dec | null;
}

export interface ViewOptions {
  joinCoupon?: boolean;
  /** Answer the stored coupon_percent and ytm (the screener's sort keys) instead of computing them now. */
  stored?: boolean;
}

const couponRef = (c: CountedCoupon | null, today: string): InvestCouponRef | null =>
  c ? { date: c.date, value: num(c.value), number: c.row.number, fix_date: c.row.fix_date, days: daysBetween(today, c.date), estimated: c.estimated } : null;

export const couponView = (c: CouponRow): InvestCoupon => ({
  number: c.number, date: c.coupon_date, fix_date: c.fix_date, value: c.valueNum ?? num(dec(c.value) ?? ZERO), currency: c.currency, type: c.coupon_type || 'UNSPECIFIED', period: c.period, start_date: c.start_date,
});

const toRisk = (n: number): RiskLevel => (n === 1 || n === 2 || n === 3 ? n : 0);

/**
 * One bond as the screens show it. `row` null: a position whose bond the catalogue does not hold
 * (figi/ticker as given, no figures). Money figures are in the bond's currency, `value_rub` in rubles.
 */
export function bondView(
  ids: { figi: string; ticker: string; name?: string },
  row: BondRow | null,
  coupons: CouponRow[],
  ctx: ViewContext,
  position: PositionIn | null,
  opts: ViewOptions = {},
): InvestBond {
  const today = ctx.today;
  const counted = countedCoupons(coupons, today);
  const { next, last } = nextAndLast(counted, today);
  const nominal = dec(row?.nominal);
  const points = dec(row?.last_price) ?? (position?.currentPriceMoney && nominal && nominal.gt(0) ? position.currentPriceMoney.dividedBy(nominal).times(HUNDRED) : null);
  const money = priceMoney(points, nominal) ?? position?.currentPriceMoney ?? null;
  const couponsKnown = !!row && row.ts_update_coupon !== null;
  let cp: number | null = null;
  let ytm: number | null = null;
  let approx = false;
  if (row && opts.stored) {
    cp = row.coupon_percent;
    ytm = row.ytm;
    approx = row.ytm_approx === 1;
  } else if (row) {
    const key = ctx.memo ? figuresKey(row, points, today) : '';
    let f = ctx.memo?.get(key);
    if (!f) {
      const y = couponsKnown ? bondYtm(row, counted, today, points) : { ytm: null, approx: false };
      f = { cp: couponsKnown ? couponPercent(row, counted, today) : null, ytm: y.ytm, approx: y.approx };
      ctx.memo?.set(key, f);
    }
    cp = f.cp;
    ytm = f.ytm;
    approx = f.approx;
  }
  const year = yearPayments(counted, today);
  const aci = row ? accruedInterest(row, counted, today) : null;
  const currency = row?.currency || row?.nominal_currency || '';
  const rate = rateOf(ctx, row?.nominal_currency || currency);
  let pos: InvestPosition | null = null;
  if (position) {
    const value = money ? money.times(position.quantity) : null;
    pos = {
      quantity: num(position.quantity),
      avg_price: numOrNull(position.avgPoints, 4),
      value: numOrNull(value, 2),
      value_rub: value && rate ? num(value.times(rate), 2) : null,
      nkd: numOrNull(position.nkd, 2),
    };
  }
  const bond: InvestBond = {
    figi: row?.figi ?? ids.figi,
    ticker: row?.ticker || ids.ticker,
    isin: row?.isin ?? '',
    class_code: row?.class_code ?? '',
    name: row?.name || ids.name || ids.ticker || ids.figi,
    data: {
      name: row?.name || ids.name || '',
      riskLevel: toRisk(row?.risk_level ?? 0),
      maturityDate: row?.maturity_date ?? null,
      amortizationFlag: row?.amortization_flag === 1,
      floatingCouponFlag: row?.floating_coupon_flag === 1,
      forQualInvestorFlag: row?.for_qual_investor_flag === 1,
      perpetualFlag: row?.perpetual_flag === 1,
      callDate: row?.call_date ?? null,
    },
    info_dop: { liquidity: null, creditRatingText: null, expert: null },
    liquidity_flag: row?.liquidity_flag === 1,
    riskLevel: toRisk(row?.risk_level ?? 0),
    currency,
    nominal: numOrNull(nominal),
    lastPrice: numOrNull(points),
    price: numOrNull(money, 2),
    diff_percent: points ? num(points.minus(HUNDRED), 4) : null,
    aci: numOrNull(aci, 2),
    coupon_percent: cp,
    coupon_in_year: row ? couponsPerYear(row, counted) : 0,
    ytm,
    ytm_approx: approx,
    ts_update_info: row?.ts_update_info ?? null,
    ts_update_coupon: row?.ts_update_coupon ?? null,
    ts_update_price: row?.ts_update_price ?? null,
    ts_next_coupon_pay: dayTs(next?.date ?? null),
    ts_last_coupon: dayTs(last?.date ?? null),
    next_coupon: couponRef(next, today),
    last_coupon: couponRef(last, today),
    maturity_days: row?.maturity_date ? daysBetween(today, row.maturity_date) : null,
    year_payments: { count: year.count, per_bond: num(year.perBond, 2), total: position ? num(year.perBond.times(position.quantity), 2) : null },
    position: pos,
    known: !!row,
  };
  if (opts.joinCoupon) bond.coupons = [...coupons].sort((a, b) => a.number - b.number).map(couponView);
  return bond;
}

/** Totals of a list of bonds with positions, in rubles (bonds without a price or a rate counted in `missing`). */
export function totalsOf(bonds: InvestBond[], ctx: ViewContext): InvestTotals {
  let value: Dec = ZERO;
  let year: Dec = ZERO;
  let quantity: Dec = ZERO;
  let missing = 0;
  for (const b of bonds) {
    const q = b.position ? new Decimal(String(b.position.quantity)) : ZERO;
    quantity = quantity.plus(q);
    const rate = rateOf(ctx, b.currency);
    if (b.position?.value_rub === null || b.position?.value_rub === undefined || !rate) missing++;
    else value = value.plus(String(b.position.value_rub));
    if (rate && b.year_payments.total !== null) year = year.plus(new Decimal(String(b.year_payments.total)).times(rate));
  }
  return { bonds: bonds.length, quantity: num(quantity), value_rub: num(value, 2), year_payments_rub: num(year, 2), missing };
}
