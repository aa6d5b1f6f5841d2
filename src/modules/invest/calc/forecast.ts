/**
 * The coupon forecast and the payment calendar of an account (001 §2 "Coupon forecast", §5; issue 22;
 * docs/invest.md "Forecast"), from the real coupon schedules. Pure.
 *
 * Forecast rules (001 §5): a bond whose coupon_percent is below 1 is left out; coupons of years before
 * the current year are skipped (the whole current year counts, its past months too); amounts are
 * rubles (other currencies at the broker's last rate; a bond without a rate is left out and named);
 * floating bonds' coupons not fixed yet are estimated with the last known coupon and marked, and
 * amortising bonds are marked (their repayments are not in the schedule).
 *
 * Size: without one, the quantities held; with one, every quantity is multiplied by size / the
 * portfolio's market value in rubles ("the size spread as the account is": each bond keeps its share
 * of the value), not rounded to whole bonds.
 *
 * Sums: each payment = coupon per bond x quantity x rate, in integers (below: exact for the quantities
 * held, a size's scale rounded at 1e-18); a month's sum is rounded half-up to the kopeck once; a year's
 * sum and the total are sums of the rounded months (so they add up as shown).
 */
import type {
  InvestCalendar, InvestCalendarEvent, InvestCalendarMonth, InvestForecast, InvestForecastBond, InvestForecastMonth, InvestForecastYear,
} from '../../../contracts/invest.js';
import { INVEST_CALENDAR_MAX_MONTHS, INVEST_COUPON_MIN_PERCENT, INVEST_MSG } from '../../../contracts/invest.js';
import { countedCoupons, couponPercent, priceMoney, type CouponRow } from './bond-math.js';
import { rateOf, type BondRow, type ViewContext } from './bond-view.js';
import { addMonths, dec, Decimal, monthOf, monthsBetween, num, ONE, ZERO, type Dec } from './decimal.js';

/** One bond held, with its catalogue row (null: not in the catalogue) and schedule. */
export interface Holding {
  figi: string;
  ticker: string;
  name: string;
  quantity: Dec;
  row: BondRow | null;
  coupons: CouponRow[];
  /** The broker's current price in money (when the catalogue has none). */
  currentPriceMoney?: Dec | null;
}

export interface Valued {
  value: Dec;
  /** Holdings with no price or no rate (not in the value). */
  missing: number;
}

/** The market value of the holdings in rubles. */
export function valueRub(holdings: Holding[], ctx: ViewContext): Valued {
  let value: Dec = ZERO;
  let missing = 0;
  for (const h of holdings) {
    const nominal = dec(h.row?.nominal);
    const money = priceMoney(dec(h.row?.last_price), nominal) ?? h.currentPriceMoney ?? null;
    const rate = rateOf(ctx, h.row?.nominal_currency || h.row?.currency || '');
    if (!money || !rate) missing++;
    else value = value.plus(money.times(h.quantity).times(rate));
  }
  return { value, missing };
}

/** The factor quantities are multiplied by for a size (null: held quantities; 0 value: cannot spread). */
export function scaleFor(size: number | null | undefined, value: Dec): Dec | null {
  if (size === null || size === undefined) return null;
  return value.gt(0) ? new Decimal(size).dividedBy(value) : null;
}

const yearOf = (d: string) => Number(d.slice(0, 4));
/** A factor's unit (1e-18) and an amount's (a nano coupon x a factor: 1e-27). */
const FACTOR_UNIT = '1e18';
const AMOUNT_UNIT = new Decimal('1e27');
const fromUnits = (v: bigint): Dec => new Decimal(v.toString()).dividedBy(AMOUNT_UNIT);

export function forecast(input: { accountId: string; name: string; holdings: Holding[]; size?: number | null; ctx: ViewContext }): InvestForecast {
  const { holdings, ctx } = input;
  const today = ctx.today;
  const fromYear = yearOf(today);
  const notes: string[] = [];
  const { value } = valueRub(holdings, ctx);
  const size = input.size ?? null;
  const scale = scaleFor(size, value);
  if (size !== null && !scale) notes.push(INVEST_MSG.noValue);
  // Sums in integers: a coupon in nano units (1e-9) x a factor (quantity x rate [x scale]) in units of
  // 1e-18 gives units of 1e-27. Held quantities and rates have at most 9 places each, so their factor is
  // exact and so is every sum; a size's scale (size / value) does not end, its factor is rounded at 1e-18.
  const months = new Map<string, { sum: bigint; count: number }>();
  const bonds: InvestForecastBond[] = [];
  let lastYear = fromYear;
  const yearStart = `${fromYear}-01-01`;
  for (const h of holdings) {
    const qty = scale ? h.quantity.times(scale) : h.quantity;
    const row = h.row;
    const counted = row ? countedCoupons(h.coupons, today) : [];
    const cp = row && row.ts_update_coupon !== null ? couponPercent(row, counted, today) : null;
    const b: InvestForecastBond = {
      figi: h.figi, ticker: h.ticker, name: h.name, currency: row?.currency ?? '', quantity: num(qty, 6), held: num(h.quantity),
      coupon_percent: cp, floating: row?.floating_coupon_flag === 1, amortization: row?.amortization_flag === 1, included: false, sum: 0, estimated: false,
    };
    bonds.push(b);
    if (!row) { b.reason = INVEST_MSG.notInCatalogue; continue; }
    if (cp === null) { b.reason = 'No coupon schedule yet'; continue; }
    if (cp < INVEST_COUPON_MIN_PERCENT) { b.reason = INVEST_MSG.belowMin; continue; }
    let sum = 0n;
    let skippedRate = false;
    // quantity x rate once per currency (a bond pays in one): one integer multiplication per coupon
    const factors = new Map<string, bigint | null>();
    for (const c of counted) {
      if (c.date < yearStart) continue; // 001 §5: years before the current year skipped
      const cur = c.row.currency || row.currency;
      let factor = factors.get(cur);
      if (factor === undefined) {
        const rate = rateOf(ctx, cur);
        factor = rate ? BigInt(qty.times(rate).times(FACTOR_UNIT).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toFixed()) : null;
        factors.set(cur, factor);
      }
      if (factor === null) { skippedRate = true; continue; }
      if (c.nano === 0n) continue;
      const amount = c.nano * factor;
      const m = monthOf(c.date);
      const cell = months.get(m);
      if (cell) {
        cell.sum += amount;
        cell.count++;
      } else months.set(m, { sum: amount, count: 1 });
      sum += amount;
      if (c.estimated) b.estimated = true;
      const y = yearOf(c.date);
      if (y > lastYear) lastYear = y;
    }
    if (skippedRate) { b.reason = INVEST_MSG.noRate; if (sum === 0n) continue; }
    b.included = true;
    b.sum = num(fromUnits(sum), 2);
    if (!b.reason && b.floating) b.reason = INVEST_MSG.floating;
    if (!b.reason && b.amortization) b.reason = INVEST_MSG.amortising;
  }
  const years: InvestForecastYear[] = [];
  const flat: InvestForecastMonth[] = [];
  let total: Dec = ZERO;
  for (let y = fromYear; y <= lastYear; y++) {
    let ysum: Dec = ZERO;
    const ms: InvestForecastMonth[] = [];
    for (let mo = 1; mo <= 12; mo++) {
      const key = `${y}-${String(mo).padStart(2, '0')}`;
      const cell = months.get(key);
      const rounded = cell ? fromUnits(cell.sum).toDecimalPlaces(2, Decimal.ROUND_HALF_UP) : ZERO;
      ysum = ysum.plus(rounded);
      const m = { month: key, sum: num(rounded), count: cell?.count ?? 0 };
      ms.push(m);
      flat.push(m);
    }
    total = total.plus(ysum);
    years.push({ year: y, sum: num(ysum), months: ms });
  }
  if (bonds.some((b) => b.floating && b.included)) notes.push(INVEST_MSG.floating);
  if (bonds.some((b) => b.amortization && b.included)) notes.push(INVEST_MSG.amortising);
  return {
    configured: true, accountId: input.accountId, name: input.name, size, value_rub: num(value, 2), scale: scale ? num(scale, 8) : null,
    from_year: fromYear, years, months: flat, total: num(total), bonds, notes,
  };
}

/**
 * Every coupon, maturity and offer of the holdings month by month (coupons of every bond, whatever its
 * coupon_percent), from `from` (default January of the current year) to `to` (default the month of the
 * last event), at most INVEST_CALENDAR_MAX_MONTHS months. Each event's amount is rounded to the kopeck
 * once; month sums add those (as integer kopecks, exact), so a month is the sum of what it lists.
 */
export function calendar(input: { accountId: string; name: string; holdings: Holding[]; size?: number | null; ctx: ViewContext; from?: string; to?: string }): InvestCalendar {
  const { holdings, ctx } = input;
  const today = ctx.today;
  const notes: string[] = [];
  const scale = scaleFor(input.size, valueRub(holdings, ctx).value);
  if (input.size && !scale) notes.push(INVEST_MSG.noValue);
  const from = input.from ?? `${today.slice(0, 4)}-01`;
  const events: InvestCalendarEvent[] = [];
  for (const h of holdings) {
    const row = h.row;
    if (!row) continue;
    const qty = scale ? h.quantity.times(scale) : h.quantity;
    const floating = row.floating_coupon_flag === 1;
    const amortization = row.amortization_flag === 1;
    const quantity = num(qty, 6);
    const rates = new Map<string, Dec | null>();
    const push = (date: string, kind: InvestCalendarEvent['kind'], perBond: Dec, perBondNum: number, currency: string, number: number | null, fixDate: string | null, estimated: boolean) => {
      const m = monthOf(date);
      if (m < from || (input.to && m > input.to)) return;
      let rate = rates.get(currency);
      if (rate === undefined) rates.set(currency, (rate = rateOf(ctx, currency)));
      const amount = perBond.isZero() ? ZERO : perBond.times(qty);
      events.push({
        date, kind, figi: h.figi, ticker: h.ticker, name: h.name, number, per_bond: perBondNum, currency, quantity, amount: num(amount, 2),
        amount_rub: rate ? num(rate === ONE ? amount : amount.times(rate), 2) : null, fix_date: fixDate, floating, amortization, estimated,
      });
    };
    for (const c of countedCoupons(h.coupons, today)) {
      push(c.date, 'coupon', c.value, c.estimated || c.row.valueNum === undefined ? num(c.value) : c.row.valueNum, c.row.currency || row.currency, c.row.number, c.row.fix_date, c.estimated);
    }
    const nominal = dec(row.nominal);
    if (row.maturity_date && nominal) push(row.maturity_date, 'maturity', nominal, num(nominal), row.nominal_currency || row.currency, null, null, false);
    if (row.call_date && row.call_date !== row.maturity_date) push(row.call_date, 'offer', ZERO, 0, row.nominal_currency || row.currency, null, null, false);
  }
  events.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.ticker < b.ticker ? -1 : a.ticker > b.ticker ? 1 : 0));
  if (events.some((e) => e.amount_rub === null && e.kind !== 'offer')) notes.push(INVEST_MSG.noRate);
  const lastMonth = events.length ? monthOf(events[events.length - 1].date) : from;
  let to = input.to ?? (lastMonth > from ? lastMonth : from);
  if (monthsBetween(from, to) >= INVEST_CALENDAR_MAX_MONTHS) to = addMonths(from, INVEST_CALENDAR_MAX_MONTHS - 1);
  const byMonth = new Map<string, InvestCalendarEvent[]>();
  for (const e of events) {
    const m = monthOf(e.date);
    if (m > to) continue;
    const list = byMonth.get(m) ?? [];
    list.push(e);
    byMonth.set(m, list);
  }
  // month sums of the events' ruble amounts (each already rounded to the kopeck): summed as integer kopecks, exact
  const kop = (x: number) => Math.round(x * 100);
  const months: InvestCalendarMonth[] = [];
  let tc = 0;
  let tm = 0;
  for (let m = from; m <= to; m = addMonths(m, 1)) {
    const list = byMonth.get(m) ?? [];
    let coupons = 0;
    let maturities = 0;
    for (const e of list) {
      if (e.amount_rub === null) continue;
      if (e.kind === 'coupon') coupons += kop(e.amount_rub);
      else if (e.kind === 'maturity') maturities += kop(e.amount_rub);
    }
    tc += coupons;
    tm += maturities;
    months.push({ month: m, coupons: coupons / 100, maturities: maturities / 100, total: (coupons + maturities) / 100, events: list });
  }
  return { configured: true, accountId: input.accountId, name: input.name, from, to, months, totals: { coupons: tc / 100, maturities: tm / 100, total: (tc + tm) / 100 }, notes };
}
