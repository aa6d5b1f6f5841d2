/**
 * The T-Bank Invest API's REST gateway on loopback (EXTERNAL-APIS.md "T-Bank Invest API"), over
 * test/helpers/fake-http.ts: `POST /tinkoff.public.invest.api.contract.v1.<Service>/<Method>` with
 * `Authorization: Bearer <token>` (anything else: 401 `{code: 16, message, description: 40003}`), JSON
 * in lowerCamelCase, int64 as strings, Quotation/MoneyValue numbers, enums as names, RFC 3339 times.
 * Set INVEST_API_URL to `fake.url` (the paths sit at its root).
 *
 * The state is plain data the test reads and changes (accounts, portfolios, the catalogue with each
 * bond's price and coupon schedule, the currencies' prices); the default fixture's dates are relative
 * to today, so the forecast's oracle holds whenever the test runs. Failures are scripted on the
 * routes: `fake.script(tbankRoute('UsersService', 'GetAccounts'), {status: 429, headers: {'x-ratelimit-reset': '1'}})`.
 */
import { Decimal } from 'decimal.js';
import { startFakeHttp, type FakeHttp, type FakeReply, type FakeRequest } from '../fake-http.js';

export const TBANK_PREFIX = '/tinkoff.public.invest.api.contract.v1.';
export const tbankRoute = (service: string, method: string) => `POST ${TBANK_PREFIX}${service}/${method}`;
export const USD_FIGI = 'BBG0013HGFT4';
export const EUR_FIGI = 'BBG0013HJJ31';

/** A decimal string as a Quotation: both parts carry the sign (-0.01 is {units: "-0", nano: -10000000}). */
export function q(value: string | number): { units: string; nano: number } {
  const d = new Decimal(value);
  const units = d.trunc();
  const nano = d.minus(units).times(1e9).toNumber();
  const neg = d.isNegative() && !d.isZero();
  return { units: units.isZero() ? (neg ? '-0' : '0') : units.toFixed(), nano: nano === 0 ? 0 : nano };
}
export const m = (value: string | number, currency = 'rub') => ({ currency, ...q(value) });

export interface FakeCoupon {
  number: number;
  date: string;
  fixDate: string | null;
  /** Per bond; '0' for a floating coupon not fixed yet. */
  value: string;
  currency: string;
  type: string;
  start: string | null;
  period: number;
}

export interface FakeBond {
  figi: string;
  ticker: string;
  classCode: string;
  isin: string;
  name: string;
  currency: string;
  nominal: string;
  couponQuantityPerYear: number;
  maturityDate: string | null;
  placementDate: string;
  callDate: string | null;
  floating: boolean;
  amortization: boolean;
  perpetual: boolean;
  riskLevel: string;
  aci: string;
  /** Last price in points (% of nominal); null: no trades. */
  price: string | null;
  coupons: FakeCoupon[];
  /** Left out of the Bonds answer (a position BondBy must find). */
  hidden?: boolean;
}

export interface FakePosition {
  figi: string;
  instrumentType: string;
  ticker: string;
  quantity: string;
  averagePositionPrice: string;
  currentPrice: string;
  currentNkd: string;
  currency?: string;
}

export interface TbankState {
  token: string;
  accounts: Array<{ id: string; name: string; type: string; status: string; openedDate: string }>;
  portfolios: Record<string, FakePosition[]>;
  bonds: FakeBond[];
  /** Currency figi -> rubles (points are rubles for currencies). */
  currencyPrices: Record<string, string>;
}

const DAY = 86_400_000;
export const dayFrom = (base: string, days: number) => new Date(Date.parse(`${base}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
const ts = (d: string | null) => (d ? `${d}T00:00:00Z` : '1970-01-01T00:00:00Z');

/** A schedule every `period` days from `first` to `maturity` (the last coupon on maturity), values from `value(i, date)`. */
export function schedule(opts: { first: string; maturity: string; period: number; currency?: string; type?: string; value: (i: number, date: string) => string; fixDaysBefore?: number }): FakeCoupon[] {
  const out: FakeCoupon[] = [];
  let date = opts.first;
  let start = dayFrom(opts.first, -opts.period);
  for (let i = 1; date <= opts.maturity && i < 400; i++) {
    const d = date;
    out.push({ number: i, date: d, fixDate: dayFrom(d, -(opts.fixDaysBefore ?? 7)), value: opts.value(i, d), currency: opts.currency ?? 'rub', type: opts.type ?? 'COUPON_TYPE_CONSTANT', start, period: opts.period });
    start = d;
    date = dayFrom(d, opts.period);
  }
  return out;
}

/**
 * The default broker: two accounts; account A holds six bonds (fixed OFZ, a USD bond, a floating OFZ-PK
 * with coupons not fixed yet, an amortising OFZ, a bond paying under 1 % a year, one the catalogue
 * answer lacks) and a share; account B is empty. `today` is the UTC day.
 */
export function defaultTbankState(today = new Date().toISOString().slice(0, 10), token = 'fake-invest-token-7f3c9a'): TbankState {
  const bond = (b: Partial<FakeBond> & Pick<FakeBond, 'figi' | 'ticker' | 'name'>): FakeBond => ({
    classCode: 'TQOB', isin: b.ticker.startsWith('SU') ? `RU000A${b.figi.slice(-6)}` : `RU000B${b.figi.slice(-6)}`, currency: 'rub', nominal: '1000', couponQuantityPerYear: 2,
    maturityDate: dayFrom(today, 1500), placementDate: dayFrom(today, -2000), callDate: null, floating: false, amortization: false, perpetual: false,
    riskLevel: 'RISK_LEVEL_LOW', aci: '0', price: '98.5', coupons: [], ...b,
  });
  const ofz = bond({ figi: 'BBG00Z000001', ticker: 'SU26238RMFS4', name: 'ОФЗ 26238', price: '61.345', maturityDate: dayFrom(today, 2900) });
  ofz.coupons = schedule({ first: dayFrom(today, -300), maturity: ofz.maturityDate!, period: 182, value: () => '35.4' });
  const usd = bond({ figi: 'BBG00Z000002', ticker: 'XS0000USD01', name: 'Euro bond USD', classCode: 'TQOD', currency: 'usd', nominal: '1000', riskLevel: 'RISK_LEVEL_MODERATE', price: '101.25', couponQuantityPerYear: 2, maturityDate: dayFrom(today, 700) });
  usd.coupons = schedule({ first: dayFrom(today, -100), maturity: usd.maturityDate!, period: 182, currency: 'usd', value: () => '27.5' });
  const floating = bond({ figi: 'BBG00Z000003', ticker: 'SU29006RMFS2', name: 'ОФЗ-ПК 29006', floating: true, price: '100.1', couponQuantityPerYear: 2, maturityDate: dayFrom(today, 1000) });
  floating.coupons = schedule({ first: dayFrom(today, -250), maturity: floating.maturityDate!, period: 182, type: 'COUPON_TYPE_FLOATING', value: (_i, d) => (d < dayFrom(today, 60) ? '44.88' : '0') });
  const amort = bond({ figi: 'BBG00Z000004', ticker: 'SU46020RMFS2', name: 'ОФЗ 46020', amortization: true, nominal: '700', price: '68.2', maturityDate: dayFrom(today, 3500), couponQuantityPerYear: 2 });
  amort.coupons = schedule({ first: dayFrom(today, -40), maturity: amort.maturityDate!, period: 182, value: () => '24.26' });
  const low = bond({ figi: 'BBG00Z000005', ticker: 'RU000LOWCPN', name: 'Low coupon bond', classCode: 'TQCB', riskLevel: 'RISK_LEVEL_HIGH', price: '92', couponQuantityPerYear: 1, maturityDate: dayFrom(today, 900) });
  low.coupons = schedule({ first: dayFrom(today, 20), maturity: low.maturityDate!, period: 365, value: () => '4' });
  const hidden = bond({ figi: 'BBG00Z000006', ticker: 'RU000HIDDEN', name: 'Not in the catalogue answer', classCode: 'TQCB', hidden: true, price: '99.99', couponQuantityPerYear: 4, maturityDate: dayFrom(today, 400), riskLevel: 'RISK_LEVEL_UNSPECIFIED' });
  hidden.coupons = schedule({ first: dayFrom(today, 5), maturity: hidden.maturityDate!, period: 91, value: () => '21.19' });
  const other = bond({ figi: 'BBG00Z000007', ticker: 'SU26207RMFS9', name: 'ОФЗ 26207', price: '97.4', maturityDate: dayFrom(today, 25), callDate: null });
  other.coupons = schedule({ first: dayFrom(today, -157), maturity: other.maturityDate!, period: 182, value: () => '40.64' });
  const offer = bond({ figi: 'BBG00Z000008', ticker: 'RU000OFFER1', name: 'Bond with an offer', classCode: 'TQCB', riskLevel: 'RISK_LEVEL_HIGH', price: '95.5', maturityDate: dayFrom(today, 1800), callDate: dayFrom(today, 45), couponQuantityPerYear: 12 });
  offer.coupons = schedule({ first: dayFrom(today, 10), maturity: offer.maturityDate!, period: 30, value: () => '12.33' });
  return {
    token,
    accounts: [
      { id: '2000000001', name: 'Брокерский счёт', type: 'ACCOUNT_TYPE_TINKOFF', status: 'ACCOUNT_STATUS_OPEN', openedDate: '2021-03-01T00:00:00Z' },
      { id: '2000000002', name: 'ИИС', type: 'ACCOUNT_TYPE_TINKOFF_IIS', status: 'ACCOUNT_STATUS_OPEN', openedDate: '2022-07-15T00:00:00Z' },
    ],
    portfolios: {
      '2000000001': [
        { figi: ofz.figi, instrumentType: 'bond', ticker: ofz.ticker, quantity: '12', averagePositionPrice: '640.5', currentPrice: '613.45', currentNkd: '11.67' },
        { figi: usd.figi, instrumentType: 'bond', ticker: usd.ticker, quantity: '3', averagePositionPrice: '995.1', currentPrice: '1012.5', currentNkd: '7.33', currency: 'usd' },
        { figi: floating.figi, instrumentType: 'bond', ticker: floating.ticker, quantity: '7', averagePositionPrice: '1000.2', currentPrice: '1001', currentNkd: '15.01' },
        { figi: amort.figi, instrumentType: 'bond', ticker: amort.ticker, quantity: '20', averagePositionPrice: '480', currentPrice: '477.4', currentNkd: '0.53' },
        { figi: low.figi, instrumentType: 'bond', ticker: low.ticker, quantity: '5', averagePositionPrice: '910', currentPrice: '920', currentNkd: '0.4' },
        { figi: hidden.figi, instrumentType: 'bond', ticker: hidden.ticker, quantity: '2.5', averagePositionPrice: '999.9', currentPrice: '999.9', currentNkd: '-0.01' },
        { figi: 'BBG004730N88', instrumentType: 'share', ticker: 'SBER', quantity: '100', averagePositionPrice: '250.1', currentPrice: '260.2', currentNkd: '0' },
      ],
      '2000000002': [],
    },
    bonds: [ofz, usd, floating, amort, low, hidden, other, offer],
    currencyPrices: { [USD_FIGI]: '92.5', [EUR_FIGI]: '100.75' },
  };
}

const bondWire = (b: FakeBond) => ({
  figi: b.figi, ticker: b.ticker, classCode: b.classCode, isin: b.isin, lot: 1, currency: b.currency, name: b.name, exchange: 'MOEX',
  couponQuantityPerYear: b.couponQuantityPerYear, maturityDate: ts(b.maturityDate), placementDate: ts(b.placementDate), callDate: ts(b.callDate),
  nominal: m(b.nominal, b.currency), initialNominal: m(b.nominal, b.currency), aciValue: m(b.aci, b.currency),
  floatingCouponFlag: b.floating, perpetualFlag: b.perpetual, amortizationFlag: b.amortization, forQualInvestorFlag: false, liquidityFlag: true,
  riskLevel: b.riskLevel, uid: `uid-${b.figi}`, buyAvailableFlag: true, sellAvailableFlag: true,
});

export interface FakeTbank {
  fake: FakeHttp;
  url: string;
  state: TbankState;
  /** Requests to one method ('UsersService/GetAccounts'). */
  calls(method: string): FakeRequest[];
  close(): Promise<void>;
}

const unauthorized: FakeReply = { status: 401, body: { code: 16, message: 'authentication token is missing or invalid', description: 40003 }, headers: { 'x-tracking-id': 'track-401' } };

export async function startFakeTbank(state: TbankState = defaultTbankState()): Promise<FakeTbank> {
  const authed = (h: (req: FakeRequest) => FakeReply) => (req: FakeRequest): FakeReply => (req.headers.authorization === `Bearer ${state.token}` ? h(req) : unauthorized);
  const byId = (id: string) => state.bonds.find((b) => b.figi === id || b.ticker === id || `uid-${b.figi}` === id);
  const fake = await startFakeHttp({
    [tbankRoute('UsersService', 'GetAccounts')]: authed(() => ({ body: { accounts: state.accounts.map((a) => ({ ...a, closedDate: '1970-01-01T00:00:00Z', accessLevel: 'ACCOUNT_ACCESS_LEVEL_FULL_ACCESS' })) } })),
    [tbankRoute('OperationsService', 'GetPortfolio')]: authed((req) => {
      const list = state.portfolios[req.json?.accountId];
      if (!list) return { status: 404, body: { code: 50004, message: 'account not found', description: '50004' } };
      return {
        body: {
          accountId: req.json.accountId,
          totalAmountBonds: m('0'), totalAmountPortfolio: m('0'), expectedYield: q('-1.23'),
          positions: list.map((p) => ({
            figi: p.figi, instrumentType: p.instrumentType, ticker: p.ticker, classCode: 'TQOB', instrumentUid: `uid-${p.figi}`, positionUid: `pos-${p.figi}`,
            quantity: q(p.quantity), quantityLots: q(p.quantity), averagePositionPrice: m(p.averagePositionPrice, p.currency ?? 'rub'), currentPrice: m(p.currentPrice, p.currency ?? 'rub'),
            currentNkd: m(p.currentNkd, p.currency ?? 'rub'), expectedYield: q('-0.01'), blocked: false,
          })),
        },
      };
    }),
    [tbankRoute('InstrumentsService', 'Bonds')]: authed(() => ({ body: { instruments: state.bonds.filter((b) => !b.hidden).map(bondWire) } })),
    [tbankRoute('InstrumentsService', 'BondBy')]: authed((req) => {
      const b = byId(String(req.json?.id ?? ''));
      return b ? { body: { instrument: bondWire(b) } } : { status: 404, body: { code: 50002, message: 'instrument not found', description: '50002' } };
    }),
    [tbankRoute('InstrumentsService', 'GetBondCoupons')]: authed((req) => {
      const b = byId(String(req.json?.instrumentId ?? req.json?.figi ?? ''));
      if (!b) return { status: 404, body: { code: 50002, message: 'instrument not found', description: '50002' } };
      const from = req.json?.from ? Date.parse(req.json.from) : -Infinity;
      const to = req.json?.to ? Date.parse(req.json.to) : Infinity;
      const events = b.coupons
        .filter((c) => Date.parse(`${c.date}T00:00:00Z`) >= from && Date.parse(`${c.date}T00:00:00Z`) <= to)
        .map((c) => ({
          figi: b.figi, couponDate: ts(c.date), couponNumber: String(c.number), fixDate: ts(c.fixDate), payOneBond: m(c.value, c.currency), couponType: c.type,
          couponStartDate: ts(c.start), couponEndDate: ts(c.date), couponPeriod: c.period,
        }));
      return { body: { events } };
    }),
    [tbankRoute('MarketDataService', 'GetLastPrices')]: authed((req) => {
      const ids: string[] = req.json?.instrumentId ?? req.json?.figi ?? [];
      const lastPrices = ids.flatMap((id) => {
        if (state.currencyPrices[id]) return [{ figi: id, price: q(state.currencyPrices[id]), time: new Date().toISOString(), instrumentUid: `uid-${id}`, lastPriceType: 'LAST_PRICE_EXCHANGE' }];
        const b = byId(id);
        return b && b.price !== null ? [{ figi: b.figi, price: q(b.price), time: new Date().toISOString(), instrumentUid: `uid-${b.figi}`, lastPriceType: 'LAST_PRICE_EXCHANGE' }] : [];
      });
      return { body: { lastPrices } };
    }),
  });
  return {
    fake,
    url: fake.url,
    state,
    calls: (method) => fake.to(`POST ${TBANK_PREFIX}${method}`),
    close: () => fake.close(),
  };
}
