/**
 * Investments, the pure parts (issue 22; docs/invest.md): exact Quotation conversion, the bond figures
 * (coupon_percent, accrued interest, yield to maturity) and the forecast against cases computed by hand,
 * the calendar and its iCalendar text, the next-coupon colours and the input schemas.
 */
import { InvestBondsFilterArgs, InvestPositionSave, nextCouponVariant, INVEST_SAMPLE, localIdOf } from '../../src/contracts/invest.js';
import { TBANK_LIMITS } from '../../src/core/outside/tbank.client.js';
import { BondsWire, CouponsWire, decimalToQuotation, PortfolioWire, quotationToDecimal } from '../../src/core/outside/tbank.wire.js';
import { accruedInterest, bondYtm, countedCoupons, couponPercent, yieldToMaturity, type BondFacts, type CouponRow } from '../../src/modules/invest/calc/bond-math.js';
import type { BondRow, ViewContext } from '../../src/modules/invest/calc/bond-view.js';
import { addDays, Decimal } from '../../src/modules/invest/calc/decimal.js';
import { calendar, forecast, type Holding } from '../../src/modules/invest/calc/forecast.js';
import { foldLine, toIcs } from '../../src/modules/invest/calc/ics.js';

describe('Quotation and MoneyValue: exact, both parts carry the sign', () => {
  test.each([
    [{ units: '1000', nano: 500000000 }, '1000.5'],
    [{ units: '-0', nano: -10000000 }, '-0.01'],
    [{ units: '-200', nano: -200000000 }, '-200.2'],
    [{ units: '0', nano: 1 }, '0.000000001'],
    [{ units: '9223372036854775807', nano: 999999999 }, '9223372036854775807.999999999'],
    [{ units: '-9223372036854775808', nano: -999999999 }, '-9223372036854775808.999999999'],
    [{ units: '114', nano: 250000000 }, '114.25'],
    [{ units: '0', nano: 0 }, '0'],
    [{ units: '-0', nano: 0 }, '0'],
    [{}, '0'],
  ])('%j -> %s', (q, want) => {
    expect(quotationToDecimal(q)).toBe(want);
  });

  test('a decimal back to a Quotation (the fake broker speaks it): the sign on both parts', () => {
    expect(decimalToQuotation('-0.01')).toEqual({ units: '-0', nano: -10000000 });
    expect(decimalToQuotation('-200.2')).toEqual({ units: '-200', nano: -200000000 });
    expect(decimalToQuotation('1000.5')).toEqual({ units: '1000', nano: 500000000 });
    expect(decimalToQuotation('0')).toEqual({ units: '0', nano: 0 });
    for (const v of ['0.1', '0.2', '98.765432101', '-3.000000001', '12345678901234.5']) expect(quotationToDecimal(decimalToQuotation(v))).toBe(new Decimal(v).toFixed());
  });

  test('0.1 + 0.2 style sums stay exact: ten coupons of 0.1 are 1', () => {
    const sum = Array.from({ length: 10 }, () => quotationToDecimal({ units: '0', nano: 100000000 })).reduce((s, v) => s.plus(v), new Decimal(0));
    expect(sum.toFixed()).toBe('1');
    expect(Array.from({ length: 10 }, () => 0.1).reduce((s, v) => s + v, 0)).not.toBe(1); // what floats would have answered
  });

  test('wire answers decode: enums by name, money with currency, the epoch as no date, int64 strings', () => {
    const p = PortfolioWire.parse({ positions: [{ figi: 'F', instrumentType: 'bond', quantity: { units: '2', nano: 500000000 }, currentNkd: { currency: 'RUB', units: '-0', nano: -10000000 } }] });
    expect(p.positions[0]).toMatchObject({ quantity: '2.5', currentNkd: { value: '-0.01', currency: 'rub' }, averagePositionPrice: null });
    const b = BondsWire.parse({ instruments: [{ figi: 'F', riskLevel: 'RISK_LEVEL_HIGH', maturityDate: '2030-05-15T00:00:00Z', callDate: '1970-01-01T00:00:00Z', nominal: { currency: 'usd', units: '1000', nano: 0 }, currency: 'USD' }, { figi: 'G', riskLevel: 1 }] });
    expect(b.instruments[0]).toMatchObject({ riskLevel: 3, maturityDate: '2030-05-15', callDate: null, nominal: { value: '1000', currency: 'usd' }, currency: 'usd', lot: 1 });
    expect(b.instruments[1]).toMatchObject({ riskLevel: 1, maturityDate: null });
    const c = CouponsWire.parse({ events: [{ couponNumber: '12', couponDate: '2026-06-01T00:00:00Z', fixDate: '2026-05-25T00:00:00Z', payOneBond: { currency: 'rub', units: '35', nano: 400000000 }, couponType: 'COUPON_TYPE_FLOATING', couponPeriod: 182 }] });
    expect(c.events[0]).toMatchObject({ couponNumber: 12, couponDate: '2026-06-01', fixDate: '2026-05-25', payOneBond: { value: '35.4', currency: 'rub' }, couponType: 'FLOATING', couponPeriod: 182 });
    expect(BondsWire.safeParse({ instruments: [{ figi: 'F', nominal: { units: 'abc' } }] }).success).toBe(false);
  });

  test('the broker\'s declared limits per minute', () => {
    expect(TBANK_LIMITS).toEqual({ InstrumentsService: 200, UsersService: 100, OperationsService: 200, MarketDataService: 600 });
  });
});

// ---------------------------------------------------------------------------------------------

const TODAY = '2026-05-10';
const bondFacts = (p: Partial<BondFacts> = {}): BondFacts => ({
  nominal: '1000', coupon_in_year: 2, maturity_date: addDays(TODAY, 365), perpetual_flag: 0, amortization_flag: 0, floating_coupon_flag: 0, aci_value: null, last_price: '100', ...p,
});
const coupon = (number: number, date: string, value: string, p: Partial<CouponRow> = {}): CouponRow => ({
  number, coupon_date: date, fix_date: null, start_date: null, end_date: null, value, currency: 'rub', coupon_type: 'CONSTANT', period: null, ...p,
});

describe('bond figures, computed by hand', () => {
  test('coupon_percent = coupon x coupons a year / nominal x 100; a future unfixed coupon is the last known one', () => {
    const rows = [coupon(1, '2026-01-10', '35.4'), coupon(2, '2026-07-11', '35.4')];
    expect(couponPercent(bondFacts(), countedCoupons(rows, TODAY), TODAY)).toBe(7.08);
    const floating = [coupon(1, '2026-03-01', '44.88'), coupon(2, '2026-09-01', '0')];
    const counted = countedCoupons(floating, TODAY);
    expect(counted[1]).toMatchObject({ estimated: true });
    expect(counted[1].value.toFixed()).toBe('44.88');
    expect(couponPercent(bondFacts(), counted, TODAY)).toBe(8.98); // 44.88 x 2 / 1000 = 8.976 %
    expect(couponPercent(bondFacts({ coupon_in_year: 0 }), countedCoupons([coupon(1, '2026-06-01', '10', { period: 91 })], TODAY), TODAY)).toBe(4); // 365 / 91 -> 4 a year
    expect(couponPercent(bondFacts(), [], TODAY)).toBe(0); // a discount bond
    expect(couponPercent(bondFacts({ nominal: null }), countedCoupons(rows, TODAY), TODAY)).toBeNull();
  });

  test('accrued interest: coupon x days since the period began / period days', () => {
    const rows = [coupon(1, addDays(TODAY, 91), '50', { start_date: addDays(TODAY, -91), period: 182 })];
    expect(accruedInterest(bondFacts(), countedCoupons(rows, TODAY), TODAY)!.toFixed()).toBe('25');
    // without a start day: the previous coupon's day; without a period: the days between
    const rows2 = [coupon(1, addDays(TODAY, -30), '30'), coupon(2, addDays(TODAY, 60), '30')];
    expect(accruedInterest(bondFacts(), countedCoupons(rows2, TODAY), TODAY)!.toFixed()).toBe('10'); // 30 x 30 / 90
    expect(accruedInterest(bondFacts({ aci_value: '7.5' }), [], TODAY)!.toFixed()).toBe('7.5');
  });

  test('yield to maturity: a zero-coupon bond at 90 for 1000 in a year is 11.11 %', () => {
    expect(bondYtm(bondFacts({ last_price: '90' }), [], TODAY)).toEqual({ ytm: 11.11, approx: false }); // 1000 / 900 - 1
  });

  test('yield to maturity: at par with one coupon of 100 a year is 10 %; two years at 8 % priced by hand', () => {
    const mat = addDays(TODAY, 365);
    expect(bondYtm(bondFacts({ maturity_date: mat }), countedCoupons([coupon(1, mat, '100')], TODAY), TODAY).ytm).toBe(10);
    const price = 100 / 1.08 + 1100 / 1.08 ** 2; // 1035.6652949...
    expect(yieldToMaturity(price, [{ days: 365, amount: 100 }, { days: 730, amount: 1100 }])).toBeCloseTo(0.08, 10);
    const two = bondFacts({ maturity_date: addDays(TODAY, 730), last_price: String(price / 10) });
    expect(bondYtm(two, countedCoupons([coupon(1, addDays(TODAY, 365), '100'), coupon(2, addDays(TODAY, 730), '100')], TODAY), TODAY).ytm).toBe(8);
  });

  test('yield to maturity counts the accrued interest in the price paid', () => {
    const mat = addDays(TODAY, 91);
    const rows = [coupon(1, mat, '50', { start_date: addDays(TODAY, -91), period: 182 })];
    // paid 1000 + 25 accrued, receives 1050 in 91 days: (1050 / 1025)^(365 / 91) - 1
    const want = Math.round(((1050 / 1025) ** (365 / 91) - 1) * 10_000) / 100;
    expect(bondYtm(bondFacts({ maturity_date: mat }), countedCoupons(rows, TODAY), TODAY).ytm).toBe(want);
    expect(want).toBe(10.15);
  });

  test('no yield without a price, for a perpetual or matured bond; approximate for an amortising or estimated one', () => {
    expect(bondYtm(bondFacts({ last_price: null }), [], TODAY).ytm).toBeNull();
    expect(bondYtm(bondFacts({ perpetual_flag: 1 }), [], TODAY).ytm).toBeNull();
    expect(bondYtm(bondFacts({ maturity_date: TODAY }), [], TODAY).ytm).toBeNull();
    expect(bondYtm(bondFacts({ amortization_flag: 1 }), [], TODAY).approx).toBe(true);
    const est = countedCoupons([coupon(1, '2026-01-01', '40'), coupon(2, addDays(TODAY, 100), '0')], TODAY);
    expect(bondYtm(bondFacts(), est, TODAY)).toMatchObject({ approx: true });
    expect(yieldToMaturity(0, [{ days: 10, amount: 5 }])).toBeNull();
  });

  test('the next-coupon cell: red under 10 days, green under 30 (001 §4)', () => {
    expect([0, 9, 10, 29, 30, 100, -1, null].map(nextCouponVariant)).toEqual(['danger', 'danger', 'success', 'success', '', '', '', '']);
  });
});

// ---------------------------------------------------------------------------------------------

const row = (p: Partial<BondRow> & { figi: string }): BondRow => ({
  ticker: p.figi, class_code: 'TQOB', isin: '', name: p.figi, currency: 'rub', nominal_currency: 'rub', call_date: null, risk_level: 1, for_qual_investor_flag: 0, liquidity_flag: 1,
  coupon_percent: null, ytm: null, ytm_approx: 0, ts_update_info: 1, ts_update_coupon: 1, ts_update_price: 1, ...bondFacts(), ...p,
});
const holding = (r: BondRow, qty: string, coupons: CouponRow[]): Holding => ({ figi: r.figi, ticker: r.ticker, name: r.name, quantity: new Decimal(qty), row: r, coupons });
const CTX: ViewContext = { today: TODAY, rates: new Map([['usd', new Decimal(90)]]) };

/** A: 6 % rub, B: 5 % usd at 90, C: 0.4 % (left out), D: floating (one estimated), E: a coupon of 1.005 (rounding). */
function portfolio(): Holding[] {
  const A = row({ figi: 'A', maturity_date: '2027-06-01', last_price: '95' });
  const B = row({ figi: 'B', currency: 'usd', nominal_currency: 'usd', maturity_date: '2027-12-15' });
  const C = row({ figi: 'C', coupon_in_year: 1, last_price: '90' });
  const D = row({ figi: 'D', floating_coupon_flag: 1, maturity_date: '2028-03-01' });
  const E = row({ figi: 'E', nominal: '100', maturity_date: '2026-07-01' });
  return [
    holding(A, '10', [coupon(1, '2025-12-01', '30'), coupon(2, '2026-06-01', '30'), coupon(3, '2026-12-01', '30'), coupon(4, '2027-06-01', '30')]),
    holding(B, '2', [coupon(1, '2026-06-15', '25', { currency: 'usd' }), coupon(2, '2026-12-15', '25', { currency: 'usd' })]),
    holding(C, '1', [coupon(1, '2026-08-01', '4')]),
    holding(D, '1', [coupon(1, '2026-03-01', '40'), coupon(2, '2026-09-01', '0')]),
    holding(E, '1', [coupon(1, '2026-01-01', '1'), coupon(2, '2026-07-01', '1.005')]),
  ];
}

describe('the forecast (001 §5), computed by hand', () => {
  test('per month in rubles: past years skipped, below 1 % left out, USD at the rate, floating estimated, rounded once per month', () => {
    const f = forecast({ accountId: 'x', name: 'x', holdings: portfolio(), ctx: CTX });
    const got = Object.fromEntries(f.months.filter((m) => m.sum !== 0).map((m) => [m.month, m.sum]));
    expect(got).toEqual({
      '2026-01': 1, // E: 1 x 1
      '2026-03': 40, // D: 40, fixed
      '2026-06': 4800, // A: 30 x 10 = 300; B: 25 x 2 x 90 = 4500
      '2026-07': 1.01, // E: 1.005 (half-up once; a float would say 1.00)
      '2026-09': 40, // D: not fixed yet, estimated with the last known 40
      '2026-12': 4800,
      '2027-06': 300, // A's last coupon; 2025-12 skipped (a past year)
    });
    expect(f.years.map((y) => [y.year, y.sum])).toEqual([[2026, 9682.01], [2027, 300]]);
    expect(f.total).toBe(9982.01);
    expect(f.months).toHaveLength(24);
    expect(f.bonds.find((b) => b.figi === 'C')).toMatchObject({ included: false, coupon_percent: 0.4, reason: expect.stringMatching(/below 1/) });
    expect(f.bonds.find((b) => b.figi === 'D')).toMatchObject({ included: true, floating: true, estimated: true, sum: 80 });
    expect(f.bonds.find((b) => b.figi === 'B')).toMatchObject({ included: true, sum: 9000, coupon_percent: 5 });
  });

  test('a size spreads as the account is: quantities x size / value', () => {
    // value: A 950 x 10 + B 1000 x 2 x 90 + C 900 + D 1000 + E 100 = 191,500 rubles
    const f = forecast({ accountId: 'x', name: 'x', holdings: portfolio(), ctx: CTX, size: 383_000 });
    expect(f).toMatchObject({ value_rub: 191_500, scale: 2, size: 383_000 });
    expect(Object.fromEntries(f.months.filter((m) => m.sum !== 0).map((m) => [m.month, m.sum]))).toMatchObject({ '2026-06': 9600, '2026-07': 2.01, '2027-06': 600 });
    expect(f.bonds.find((b) => b.figi === 'A')).toMatchObject({ quantity: 20, held: 10 });
  });

  test('a bond without a rate is left out and named; nothing to spread without prices', () => {
    const f = forecast({ accountId: 'x', name: 'x', holdings: portfolio(), ctx: { today: TODAY, rates: new Map() } });
    expect(f.bonds.find((b) => b.figi === 'B')).toMatchObject({ included: false, reason: expect.stringMatching(/rate/) });
    const none = forecast({ accountId: 'x', name: 'x', holdings: [holding(row({ figi: 'Z', last_price: null }), '1', [coupon(1, '2026-06-01', '30')])], ctx: CTX, size: 1000 });
    expect(none.scale).toBeNull();
    expect(none.notes.join(' ')).toMatch(/no value/);
  });

  test('the calendar: every coupon, maturity and offer per month; sums in rubles', () => {
    const h = portfolio();
    h[0].row!.call_date = '2026-11-20';
    const c = calendar({ accountId: 'x', name: 'x', holdings: h, ctx: CTX });
    expect(c.from).toBe('2026-01');
    expect(c.to).toBe('2028-03');
    const june = c.months.find((m) => m.month === '2026-06')!;
    expect(june).toMatchObject({ coupons: 4800, maturities: 0, total: 4800 });
    expect(june.events.map((e) => [e.figi, e.kind, e.amount, e.amount_rub])).toEqual([['A', 'coupon', 300, 300], ['B', 'coupon', 50, 4500]]);
    const july = c.months.find((m) => m.month === '2026-07')!;
    expect(july.events.map((e) => [e.figi, e.kind, e.amount])).toEqual([['E', 'coupon', 1.01], ['E', 'maturity', 100]]);
    expect(july).toMatchObject({ coupons: 1.01, maturities: 100 });
    expect(c.months.find((m) => m.month === '2026-11')!.events.map((e) => e.kind)).toEqual(['offer']);
    expect(c.months.find((m) => m.month === '2026-08')!.events.map((e) => e.figi)).toEqual(['C']); // every coupon, whatever its percent
    const ics = toIcs(c, TODAY, new Date('2026-05-10T12:00:00Z'));
    expect(ics.split('\r\n').filter((l) => l === 'BEGIN:VEVENT')).toHaveLength(c.months.flatMap((m) => m.events).filter((e) => e.kind !== 'offer' && e.date >= TODAY).length);
    expect(ics).toContain('DTSTART;VALUE=DATE:20260615\r\nDTEND;VALUE=DATE:20260616\r\nSUMMARY:Coupon #1 B: 50.00 USD');
    expect(ics).not.toContain('20260301'); // D's March coupon is past
    expect(ics.endsWith('END:VCALENDAR\r\n')).toBe(true);
  });
});

describe('iCalendar lines and input schemas', () => {
  test('lines fold at 75 octets without splitting a character', () => {
    const long = 'DESCRIPTION:' + 'Облигация федерального займа '.repeat(10);
    const folded = foldLine(long);
    for (const l of folded.split('\r\n')) expect(Buffer.byteLength(l)).toBeLessThanOrEqual(75);
    expect(folded.split('\r\n').map((l, i) => (i === 0 ? l : l.slice(1))).join('')).toBe(long);
  });

  test('screener filters: riskLevel all or 0-3, currency usd|eur|rub|all, sort words', () => {
    expect(InvestBondsFilterArgs.parse({ riskLevel: 'all', currency: 'usd', p_: '2' })).toEqual({ riskLevel: 'all', currency: 'usd', p_: 2 });
    expect(InvestBondsFilterArgs.parse({ riskLevel: '3' })).toEqual({ riskLevel: 3 });
    const bad = InvestBondsFilterArgs.safeParse({ riskLevel: 4, currency: 'gbp', sort: 'x' });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['sort', 'sort must be one of coupon_percent, ytm, maturity, next_coupon, price, name, close_date'],
      ['riskLevel', 'riskLevel must be one of all, 0, 1, 2, 3'],
      ['currency', 'currency must be one of all, rub, usd, eur'],
    ]);
  });

  test('positions: ticker or figi, quantity > 0 with up to 9 decimals, price optional', () => {
    expect(InvestPositionSave.parse({ Id_account: 1, ticker: 'su26238rmfs4', quantity: '1,5', price: 98.25 })).toEqual({ Id_account: 1, ticker: 'SU26238RMFS4', quantity: '1.5', price: '98.25' });
    for (const quantity of ['0', '-1', '1e3', 'abc', '1.0000000001', true]) expect(InvestPositionSave.safeParse({ Id_account: 1, ticker: 'X', quantity }).success).toBe(false);
    expect(InvestPositionSave.safeParse({ Id_account: 1, quantity: '1' }).error!.issues[0]).toMatchObject({ path: ['ticker'], message: 'ticker or figi is required' });
  });

  test('account ids and the sample', () => {
    expect([localIdOf('local:5'), localIdOf('local:0'), localIdOf('2000000001'), localIdOf('local:99999999999')]).toEqual([5, null, null, null]);
    expect(INVEST_SAMPLE).toHaveLength(13);
    expect(new Set(INVEST_SAMPLE.map((s) => s.ticker)).size).toBe(13);
  });
});
