/**
 * Investments end to end (issue 22; docs/invest.md) on the real app and the suite's database, against
 * a local server speaking the T-Bank Invest API's REST shape (test/helpers/fakes/tbank.ts: accounts, a
 * portfolio with bonds, coupons with fix dates, scripted 429s and 500s):
 *
 * - the contract bullets: getAccounts answers [{id, name}]; getPortfolio {accountId} answers bonds with
 *   figi, ticker, nominal, lastPrice, coupon_percent, ts_next_coupon_pay, position.quantity as numbers
 *   converted exactly from Quotations (fractional and negative ones included) and the GetBondCoupons
 *   schedule (fix_date, value, number, currency);
 * - the forecast per month against an oracle computed here from the fake's schedule (001 §5 rules), with
 *   and without a size; the calendar and its .ics export; the screener (sort, filters, 15 per page) and
 *   the closing bonds; local accounts (personal) and the fixed sample;
 * - the adapter: a retry that then succeeds (500), no retry on 401 with the broker's {code, message,
 *   description} in the answer, pacing under a 429 (the service waits for the window's reset), the
 *   declared per-minute limit, a time-out, a cache hit sending nothing, stale data on failure, the cache
 *   across a restart, `{configured: false}` without a token, and the token only in the Authorization
 *   header: in no answer, audit row, cache row or log line;
 * - the refresh job's work and the live channel (`invest.subscribe` -> `invest.update`).
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import { Decimal } from 'decimal.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { io, type Socket } from 'socket.io-client';
import type { DataSource } from 'typeorm';
import { INVEST_SAMPLE, INVEST_SCREENER_PAGE, type InvestBond, type InvestForecast, type InvestPortfolio, type InvestUpdateEvent } from '../../src/contracts/invest.js';
import { JsonLogger } from '../../src/core/logger.js';
import { TbankClient } from '../../src/core/outside/tbank.client.js';
import { WorkerRegistry } from '../../src/core/workers/workers.js';
import { OutsideError } from '../../src/core/outside/outside-error.js';
import { InvestLiveService } from '../../src/modules/invest/services/live.service.js';
import { InvestRefreshService } from '../../src/modules/invest/services/refresh.service.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { defaultTbankState, schedule, startFakeTbank, tbankRoute, USD_FIGI, dayFrom, type FakeBond, type FakeTbank, type TbankState } from '../helpers/fakes/tbank.js';
import { migratedMysql } from '../helpers/mysql.js';
import { onlyIn, pass } from '../helpers/passes.js';
import { waitFor } from '../helpers/wait.js';

Decimal.set({ precision: 40 });
const TODAY = new Date().toISOString().slice(0, 10);
const YEAR = Number(TODAY.slice(0, 4));
const ACC = '2000000001';
const T = 120_000;

/** Twenty more bonds for the screener: coupon i % a year (i = 1..20), risk i % 4, every fifth in EUR. */
function withScreenerBonds(s: TbankState): TbankState {
  for (let i = 1; i <= 20; i++) {
    const b: FakeBond = {
      figi: `BBG00S0000${String(i).padStart(2, '0')}`, ticker: `RU000SCR0${String(i).padStart(2, '0')}`, classCode: 'TQCB', isin: `RU000SCR${i}`, name: `Screener bond ${i}`,
      currency: i % 5 === 0 ? 'eur' : 'rub', nominal: '1000', couponQuantityPerYear: 2, maturityDate: dayFrom(TODAY, 300 + i * 40), placementDate: dayFrom(TODAY, -900),
      callDate: null, floating: false, amortization: false, perpetual: false, riskLevel: ['RISK_LEVEL_UNSPECIFIED', 'RISK_LEVEL_LOW', 'RISK_LEVEL_MODERATE', 'RISK_LEVEL_HIGH'][i % 4], aci: '0',
      price: String(90 + (i % 7)), coupons: [],
    };
    b.coupons = schedule({ first: dayFrom(TODAY, 30 + i), maturity: b.maturityDate!, period: 182, currency: b.currency, value: () => String(i * 5) });
    s.bonds.push(b);
  }
  return s;
}

const apps: TestApp[] = [];
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const a of apps.splice(0).reverse()) await a.close();
  for (const c of cleanups.splice(0)) await c();
});

async function start(broker: FakeTbank | null, env: Record<string, string> = {}, logger?: JsonLogger): Promise<TestApp> {
  const a = await startApp({ CRON_ENABLED: '0', TZ: 'UTC', ...(broker ? { INVEST_API_URL: broker.url, INVEST_TOKEN: broker.state.token } : {}), ...env }, logger ? { logger } : {});
  a.app.get(TbankClient).retry = { screen: { tries: 3, baseMs: 20, maxMs: 50, maxRetryAfterMs: 30_000 }, job: { tries: 3, baseMs: 20, maxMs: 50, maxRetryAfterMs: 65_000 } };
  apps.push(a);
  return a;
}
async function stop(a: TestApp) {
  apps.splice(apps.indexOf(a), 1);
  await a.close();
}
const db = (a: TestApp) => a.app.get<DataSource>(getDataSourceToken());
const failure = async (p: Promise<unknown>): Promise<OutsideError> => {
  try { await p; } catch (e) { if (e instanceof OutsideError) return e; throw e; }
  throw new Error('expected a failure');
};

/** A database two app processes can share (a SQLite file, or a MariaDB database of this test). */
async function sharedDatabase(): Promise<string> {
  if (process.env.TEST_DATABASE_URL) {
    const my = await migratedMysql(process.env.TEST_DATABASE_URL);
    cleanups.push(() => my.drop());
    return my.url;
  }
  const dir = mkdtempSync(join(tmpdir(), 'invest-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return `sqlite:${join(dir, 'shared.sqlite')}`;
}

// ---------------------------------------------------------------------------------------------
// The oracle: coupon income per month computed from the fake's schedule by 001 §5's rules

function oracle(state: TbankState, accountId: string, scale: Decimal | null = null): Map<string, Decimal> {
  const rate = (cur: string) => (cur === 'rub' ? new Decimal(1) : cur === 'usd' ? new Decimal(state.currencyPrices[USD_FIGI]) : null);
  const months = new Map<string, Decimal>();
  for (const p of state.portfolios[accountId].filter((x) => x.instrumentType === 'bond')) {
    const b = state.bonds.find((x) => x.figi === p.figi)!;
    const kept = b.coupons.filter((c) => c.date >= dayFrom(TODAY, -730));
    // the value counted: a coupon not fixed yet (0) from today on is the last known one before it
    let last: string | null = null;
    const counted = kept.map((c) => {
      if (c.value !== '0') last = c.value;
      return { ...c, v: c.value === '0' && c.date >= TODAY && last ? last : c.value };
    });
    const next = counted.find((c) => c.date >= TODAY && c.v !== '0') ?? [...counted].reverse().find((c) => c.v !== '0');
    const cp = next ? new Decimal(next.v).times(b.couponQuantityPerYear).dividedBy(b.nominal).times(100) : new Decimal(0);
    if (cp.lt(1)) continue; // 001 §5: coupon_percent below 1 ignored
    const qty = scale ? new Decimal(p.quantity).times(scale) : new Decimal(p.quantity);
    for (const c of counted) {
      if (Number(c.date.slice(0, 4)) < YEAR) continue; // years before the current year skipped
      const amount = new Decimal(c.v).times(qty).times(rate(c.currency)!);
      if (amount.isZero()) continue;
      const m = c.date.slice(0, 7);
      months.set(m, (months.get(m) ?? new Decimal(0)).plus(amount));
    }
  }
  return months;
}

// ---------------------------------------------------------------------------------------------

describe(`investments against the broker (${pass})`, () => {
  let broker: FakeTbank;
  let t: TestApp;
  let admin: string;
  let user: string;
  const lines: string[] = [];
  const answers: string[] = [];
  /** Every answer is kept: the token must be in none of them. */
  const ok = async <R = any>(hash: string, method: string, args?: unknown): Promise<R> => {
    const r = await t.rpc<R>(hash, method, args);
    answers.push(JSON.stringify(r.env));
    if (r.env.status !== 'ok') throw new Error(`${method} ${JSON.stringify(args)} -> ${JSON.stringify(r.env)}`);
    return r.env.result;
  };

  beforeAll(async () => {
    broker = await startFakeTbank(withScreenerBonds(defaultTbankState(TODAY)));
    const logger = new JsonLogger('debug', { write: (s: string) => void lines.push(...s.split('\n').filter((l) => l.trim() !== '')) });
    t = await start(broker, {}, logger);
    admin = (await t.session(1)).hash;
    user = (await t.session(100)).hash;
  }, T);
  afterAll(async () => { await broker?.close(); });

  test('contract: getAccounts answers the broker\'s accounts [{id, name}] for every signed-in user', async () => {
    const accounts = await ok<any[]>(user, 'invest.User.getAccounts', {});
    expect(accounts.map((a) => ({ id: a.id, name: a.name }))).toEqual(broker.state.accounts.map((a) => ({ id: a.id, name: a.name })));
    expect(accounts[0]).toMatchObject({ type: 'TINKOFF', status: 'OPEN', opened_date: '2021-03-01' });
  }, T);

  test('contract: getPortfolio answers the bonds with exact numbers and the GetBondCoupons schedule', async () => {
    const p = await ok<InvestPortfolio>(user, 'invest.User.getPortfolio', { accountId: ACC });
    expect(p).toMatchObject({ configured: true, kind: 'broker', accountId: ACC, name: 'Брокерский счёт', stale: false, other_positions: { share: 1 } });
    const held = broker.state.portfolios[ACC].filter((x) => x.instrumentType === 'bond');
    expect(p.bonds.map((b) => b.figi)).toEqual(held.map((x) => x.figi));
    // a fresh install: the catalogue was read once (one Bonds call), BondBy only for the bond it lacks
    expect(broker.calls('InstrumentsService/Bonds')).toHaveLength(1);
    expect(broker.calls('InstrumentsService/BondBy').map((r) => r.json.id)).toEqual(['BBG00Z000006']);
    expect(broker.calls('InstrumentsService/GetBondCoupons')).toHaveLength(held.length);
    for (const b of p.bonds) {
      const fb = broker.state.bonds.find((x) => x.figi === b.figi)!;
      const pos = held.find((x) => x.figi === b.figi)!;
      expect(b.known).toBe(true);
      expect(b.ticker).toBe(fb.ticker);
      expect(typeof b.nominal).toBe('number');
      expect(b.nominal).toBe(Number(fb.nominal));
      expect(b.lastPrice).toBe(Number(fb.price));
      expect(typeof b.coupon_percent).toBe('number');
      expect(b.position!.quantity).toBe(Number(pos.quantity));
      // the schedule as the broker gave it (from two years back): number, payment day, fix day, value, currency
      const expected = fb.coupons.filter((c) => c.date >= dayFrom(TODAY, -730)).map((c) => ({ number: c.number, date: c.date, fix_date: c.fixDate, value: Number(c.value), currency: c.currency }));
      expect(b.coupons!.map((c) => ({ number: c.number, date: c.date, fix_date: c.fix_date, value: c.value, currency: c.currency }))).toEqual(expected);
      const next = fb.coupons.find((c) => c.date >= TODAY)!;
      expect(b.ts_next_coupon_pay).toBe(Date.parse(`${next.date}T00:00:00Z`));
      expect(b.next_coupon!.days).toBe(Math.round((Date.parse(next.date) - Date.parse(TODAY)) / 86_400_000));
    }
    // exact conversion: fractional points (61.345), a fractional quantity (2.5, {units: "2", nano: 500000000}),
    // a negative fraction (accrued interest -0.01, {units: "-0", nano: -10000000})
    const ofz = p.bonds.find((b) => b.ticker === 'SU26238RMFS4')!;
    expect(ofz).toMatchObject({ lastPrice: 61.345, price: 613.45, diff_percent: -38.655, coupon_percent: 7.08, coupon_in_year: 2, currency: 'rub' });
    expect(ofz.position).toMatchObject({ quantity: 12, value: 7361.4, value_rub: 7361.4, nkd: 11.67 });
    const hidden = p.bonds.find((b) => b.ticker === 'RU000HIDDEN')!;
    expect(hidden.position).toMatchObject({ quantity: 2.5, nkd: -0.01 });
    expect(hidden.data.riskLevel).toBe(0);
    // a USD bond: value in rubles at the broker's rate (92.5)
    const usd = p.bonds.find((b) => b.currency === 'usd')!;
    expect(usd.position).toMatchObject({ quantity: 3, value: 3037.5, value_rub: 280968.75 });
    expect(usd.riskLevel).toBe(2);
    // flags and marks
    const floating = p.bonds.find((b) => b.ticker === 'SU29006RMFS2')!;
    expect(floating.data.floatingCouponFlag).toBe(true);
    expect(floating.ytm_approx).toBe(true);
    expect(p.bonds.find((b) => b.ticker === 'SU46020RMFS2')!.data.amortizationFlag).toBe(true);
    expect(p.totals).toMatchObject({ bonds: 6, missing: 0 });
    // the account without bonds
    expect(await ok(user, 'invest.User.getPortfolio', { accountId: '2000000002', joinCoupon: 0 })).toMatchObject({ bonds: [], totals: { bonds: 0, value_rub: 0 } });
  }, T);

  test('the forecast per month equals the oracle computed from the fake\'s coupon schedule (001 §5), with and without a size', async () => {
    const f = await ok<InvestForecast>(user, 'invest.Item.getForecast', { accountId: ACC });
    const want = oracle(broker.state, ACC);
    expect(want.size).toBeGreaterThan(3);
    expect(f.from_year).toBe(YEAR);
    for (const m of f.months) expect([m.month, m.sum]).toEqual([m.month, (want.get(m.month) ?? new Decimal(0)).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toNumber()]);
    for (const k of want.keys()) expect(f.months.some((m) => m.month === k)).toBe(true);
    expect(f.years[0].months).toHaveLength(12);
    expect(f.total).toBe([...f.months].reduce((s, m) => s.plus(m.sum), new Decimal(0)).toNumber());
    const low = f.bonds.find((b) => b.ticker === 'RU000LOWCPN')!;
    expect(low).toMatchObject({ included: false, coupon_percent: 0.4 });
    expect(f.bonds.find((b) => b.ticker === 'SU29006RMFS2')).toMatchObject({ included: true, floating: true, estimated: true });
    expect(f.bonds.find((b) => b.ticker === 'SU46020RMFS2')).toMatchObject({ included: true, amortization: true });

    // a size spreads as the account is: every quantity x size / value (rubles)
    const value = broker.state.portfolios[ACC].filter((x) => x.instrumentType === 'bond').reduce((s, p) => {
      const b = broker.state.bonds.find((x) => x.figi === p.figi)!;
      const rate = b.currency === 'usd' ? new Decimal(broker.state.currencyPrices[USD_FIGI]) : new Decimal(1);
      return s.plus(new Decimal(b.price!).dividedBy(100).times(b.nominal).times(p.quantity).times(rate));
    }, new Decimal(0));
    const sized = await ok<InvestForecast>(user, 'invest.Item.getForecast', { accountId: ACC, size: 30_000_000 });
    expect(sized.value_rub).toBe(value.toDecimalPlaces(2).toNumber());
    const scaled = oracle(broker.state, ACC, new Decimal(30_000_000).dividedBy(value));
    for (const m of sized.months) expect([m.month, m.sum]).toEqual([m.month, (scaled.get(m.month) ?? new Decimal(0)).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toNumber()]);
  }, T);

  test('the calendar lists every coupon, maturity and offer per month; the .ics export holds the coming payments', async () => {
    const c = await ok<any>(user, 'invest.Item.getCalendar', { accountId: ACC });
    expect(c.from).toBe(`${YEAR}-01`);
    const events = c.months.flatMap((m: any) => m.events);
    const bonds = broker.state.portfolios[ACC].filter((x) => x.instrumentType === 'bond').map((p) => broker.state.bonds.find((b) => b.figi === p.figi)!);
    const coupons = bonds.flatMap((b) => b.coupons.filter((x) => x.date >= `${YEAR}-01-01`));
    expect(events.filter((e: any) => e.kind === 'coupon')).toHaveLength(coupons.length);
    expect(events.filter((e: any) => e.kind === 'maturity')).toHaveLength(bonds.length);
    for (const m of c.months) {
      const sum = m.events.filter((e: any) => e.kind === 'coupon').reduce((s: Decimal, e: any) => s.plus(e.amount_rub), new Decimal(0));
      expect(m.coupons).toBe(sum.toNumber());
    }
    const res = await fetch(`${t.url}/api/invest/calendar.ics?accountId=${ACC}`, { headers: { User: user } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/calendar/);
    const ics = await res.text();
    expect(ics.startsWith('BEGIN:VCALENDAR\r\n')).toBe(true);
    const coming = bonds.flatMap((b) => b.coupons.filter((x) => x.date >= TODAY)).length + bonds.length;
    expect(ics.match(/BEGIN:VEVENT/g)).toHaveLength(coming);
    const ofzNext = bonds[0].coupons.find((x) => x.date >= TODAY)!;
    expect(ics).toContain(`DTSTART;VALUE=DATE:${ofzNext.date.replace(/-/g, '')}`);
    expect(ics).toContain('SUMMARY:Coupon #' + ofzNext.number + ' SU26238RMFS4: 424.80 RUB');
    expect((await fetch(`${t.url}/api/invest/calendar.ics?accountId=${ACC}`)).status).toBe(401);
    expect((await t.rest(user, 'GET', '/invest/calendar.ics?accountId=local:999')).status).toBe(404);
  }, T);

  test('the refresh job\'s work: catalogue, rates, prices, coupons and the stored figures', async () => {
    const r = await t.app.get(InvestRefreshService).refresh();
    expect(r.errors).toEqual([]);
    expect(r.bonds).toBe(broker.state.bonds.filter((b) => !b.hidden).length);
    const rows = (await db(t).query('SELECT COUNT(*) AS n, SUM(in_catalogue) AS c, SUM(CASE WHEN ts_update_coupon IS NULL THEN 1 ELSE 0 END) AS nc FROM invest_bonds')) as any[];
    expect(Number(rows[0].n)).toBe(broker.state.bonds.length);
    expect(Number(rows[0].c)).toBe(broker.state.bonds.length - 1); // the hidden one came by BondBy
    expect(Number(rows[0].nc)).toBe(0);
    const status = await ok<any>(user, 'invest.getStatus', {});
    expect(status).toMatchObject({ configured: true, api_url: broker.url, token: 'set', catalogue: { bonds: broker.state.bonds.length - 1 }, limits_per_minute: { InstrumentsService: 200, UsersService: 100, OperationsService: 200, MarketDataService: 600 } });
    expect(status.rates).toEqual([expect.objectContaining({ currency: 'eur', rate: 100.75 }), expect.objectContaining({ currency: 'usd', rate: 92.5 })]);
    // a second run reads nothing that did not change: no coupon schedule changed
    const again = await t.app.get(InvestRefreshService).refresh();
    expect(again).toMatchObject({ coupons_changed: 0, prices: 0, errors: [] });
  }, T);

  test('screener: default sort coupon_percent, 15 per page on p_, filters currency and riskLevel, other sorts; closing bonds', async () => {
    const first = await ok<any>(user, 'invest.Item.getBondsFilter', {});
    expect(first).toMatchObject({ configured: true, page: 1, limit: INVEST_SCREENER_PAGE, sort: 'coupon_percent', order: 'desc' });
    const matured = broker.state.bonds.filter((b) => b.hidden || (b.maturityDate && b.maturityDate < TODAY)).length;
    expect(first.count).toBe(broker.state.bonds.length - matured);
    expect(first.list).toHaveLength(15);
    const cps = first.list.map((b: InvestBond) => b.coupon_percent);
    expect(cps).toEqual([...cps].sort((a: number, b: number) => b - a));
    expect(first.list[0]).toMatchObject({ ticker: 'RU000SCR020', coupon_percent: 20 });
    const second = await ok<any>(user, 'invest.Item.getBondsFilter', { p_: 2 });
    expect(second.list).toHaveLength(first.count - 15);
    expect(second.list[0].coupon_percent).toBeLessThanOrEqual(cps[14]);
    const eur = await ok<any>(user, 'invest.Item.getBondsFilter', { currency: 'eur' });
    expect(eur.list.map((b: InvestBond) => b.currency)).toEqual(['eur', 'eur', 'eur', 'eur']);
    const high = await ok<any>(user, 'invest.Item.getBondsFilter', { riskLevel: 3, currency: 'all' });
    expect(high.list.every((b: InvestBond) => b.riskLevel === 3)).toBe(true);
    expect(high.count).toBe(broker.state.bonds.filter((b) => !b.hidden && b.riskLevel === 'RISK_LEVEL_HIGH').length);
    expect((await ok<any>(user, 'invest.Item.getBondsFilter', { riskLevel: 'all' })).count).toBe(first.count);
    const byYtm = await ok<any>(user, 'invest.Item.getBondsFilter', { sort: 'ytm', limit: 100 });
    const ytms = byYtm.list.map((b: InvestBond) => b.ytm).filter((y: number | null) => y !== null);
    expect(ytms).toEqual([...ytms].sort((a: number, b: number) => b - a));
    const firstNull = byYtm.list.findIndex((b: InvestBond) => b.ytm === null);
    if (firstNull >= 0) expect(byYtm.list.slice(firstNull).every((b: InvestBond) => b.ytm === null)).toBe(true);
    const byName = await ok<any>(user, 'invest.Item.getBondsFilter', { sort: 'maturity', order: 'asc', limit: 100 });
    const mats = byName.list.map((b: InvestBond) => b.data.maturityDate);
    expect(mats).toEqual([...mats].sort());
    const bad = await t.rpc(user, 'invest.Item.getBondsFilter', { currency: 'gbp', riskLevel: 7 });
    expect(bad.env).toMatchObject({ status: 'rules', code: 422 });
    expect(Object.keys((bad.env as any).fields).sort()).toEqual(['currency', 'riskLevel']);
    // maturity or offer within 90 days: the OFZ maturing in 25 days and the offer in 45, nearest first
    const close = await ok<any>(user, 'invest.Item.getBondsNextClose', {});
    expect(close.list.map((b: any) => [b.ticker, b.close_kind, b.close_date])).toEqual([
      ['SU26207RMFS9', 'maturity', dayFrom(TODAY, 25)],
      ['RU000OFFER1', 'offer', dayFrom(TODAY, 45)],
    ]);
    expect((await ok<any>(user, 'invest.Item.getBondsNextClose', { days: 30 })).list.map((b: any) => b.ticker)).toEqual(['SU26207RMFS9']);
    const got = await ok<InvestBond[]>(user, 'invest.Item.getBonds', { ticker: 'su26238rmfs4, RU000OFFER1', joinCoupon: 1 });
    expect(got.map((b) => b.ticker)).toEqual(['RU000OFFER1', 'SU26238RMFS4']);
    expect(got[1].coupons!.length).toBeGreaterThan(5);
  }, T);

  test('local accounts: positions by ticker or figi resolved against the catalogue; personal (404 to others); the same table', async () => {
    const other = (await t.session(100, 'investor2')).hash;
    const { Id, accountId } = await ok(user, 'invest.User.saveLocalAccount', { name: 'Моя облигационная' });
    expect(accountId).toBe(`local:${Id}`);
    await ok(user, 'invest.User.savePosition', { Id_account: Id, ticker: 'su26238rmfs4', quantity: '10', price: '62.5' });
    await ok(user, 'invest.User.savePosition', { Id_account: Id, figi: 'BBG00Z000002', quantity: 1.5 });
    const unknown = await ok(user, 'invest.User.savePosition', { Id_account: Id, ticker: 'NOPE01', quantity: '1' });
    expect(unknown).toMatchObject({ resolved: false, ticker: 'NOPE01' });
    const missing = await t.rpc(user, 'invest.User.savePosition', { Id_account: Id, quantity: '1' });
    expect(missing.env).toMatchObject({ status: 'rules', fields: { ticker: 'ticker or figi is required' } });
    expect((await t.rpc(user, 'invest.User.savePosition', { Id_account: Id, ticker: 'X', quantity: '0' })).env).toMatchObject({ status: 'rules', fields: { quantity: 'quantity must be more than 0' } });
    const detail = await ok<any>(user, 'invest.User.getLocalAccount', { Id });
    expect(detail.positions.map((p: any) => [p.ticker, p.figi, p.quantity, p.price, p.resolved])).toEqual([
      ['SU26238RMFS4', 'BBG00Z000001', 10, 62.5, true],
      ['XS0000USD01', 'BBG00Z000002', 1.5, null, true],
      ['NOPE01', '', 1, null, false],
    ]);
    const p = await ok<InvestPortfolio>(user, 'invest.User.getPortfolio', { accountId });
    expect(p).toMatchObject({ kind: 'local', name: 'Моя облигационная' });
    expect(p.bonds.map((b) => [b.ticker, b.known, b.position!.quantity, b.position!.avg_price])).toEqual([['SU26238RMFS4', true, 10, 62.5], ['XS0000USD01', true, 1.5, null], ['NOPE01', false, 1, null]]);
    expect(p.totals.missing).toBe(1);
    expect((await ok<any[]>(user, 'invest.User.getLocalAccounts', {})).map((a) => [a.name, a.count])).toEqual([['Моя облигационная', 3]]);
    // personal: another user sees nothing and gets 404 everywhere; an admin sees it
    expect(await ok(other, 'invest.User.getLocalAccounts', {})).toEqual([]);
    for (const [m, a] of [['invest.User.getPortfolio', { accountId }], ['invest.User.getLocalAccount', { Id }], ['invest.Item.getForecast', { accountId }], ['invest.User.saveLocalAccount', { Id, name: 'x' }], ['invest.User.deleteLocalAccount', { Id }]] as const) {
      expect((await t.rpc(other, m, a)).env).toMatchObject({ status: 'empty', code: 404, message: 'Account not found' });
    }
    expect((await ok<any[]>(admin, 'invest.User.getLocalAccounts', {})).map((a) => a.name)).toContain('Моя облигационная');
    // the forecast of a local account works like a broker account's
    const f = await ok<InvestForecast>(user, 'invest.Item.getForecast', { accountId });
    expect(f.bonds.filter((b) => b.included).map((b) => b.ticker)).toEqual(['SU26238RMFS4', 'XS0000USD01']);
    // audit names the account
    const audit = (await db(t).query("SELECT target FROM audit_log WHERE method = 'invest.User.savePosition' AND outcome = 'ok' ORDER BY Id DESC")) as any[];
    expect(audit[0].target).toBe(`invest local account Моя облигационная: NOPE01 (#${Id})`);
    const del = await ok(user, 'invest.User.deleteLocalAccount', { Id });
    expect(del).toMatchObject({ removed: 3, message: 'Delete ok!' });
    expect((await t.rpc(user, 'invest.User.getPortfolio', { accountId })).env).toMatchObject({ code: 404 });
  }, T);

  test('the fixed sample portfolio: 13 bonds by ticker, those in the catalogue with their data', async () => {
    const p = await ok<InvestPortfolio>(user, 'invest.User.getPortfolio', { accountId: 'sample' });
    expect(p.kind).toBe('sample');
    expect(p.bonds.map((b) => b.ticker)).toEqual(INVEST_SAMPLE.map((s) => s.ticker));
    const known = new Set(broker.state.bonds.map((b) => b.ticker));
    expect(p.bonds.filter((b) => b.known).map((b) => b.ticker)).toEqual(INVEST_SAMPLE.map((s) => s.ticker).filter((x) => known.has(x)));
  }, T);

  test('live channel: an open page gets refreshed prices and coupon changes of its bonds only', async () => {
    const s = io(t.url, { transports: ['websocket'], auth: { hash: user, status: 'moder' }, reconnection: false }) as Socket;
    cleanups.push(() => void s.close());
    await new Promise<void>((resolve, reject) => { s.on('connect', () => resolve()); s.on('connect_error', reject); });
    const got: InvestUpdateEvent[] = [];
    s.on('invest.update', (e: InvestUpdateEvent) => got.push(e));
    const ofz = broker.state.bonds.find((b) => b.ticker === 'SU26238RMFS4')!;
    const screener = broker.state.bonds.find((b) => b.ticker === 'RU000SCR001')!;
    const ack = await s.timeout(5000).emitWithAck('invest.subscribe', { figis: [ofz.figi] });
    expect(ack.status).toBe('ok');
    const sid = ack.result.sid;
    expect(t.app.get(InvestLiveService).count).toBe(1);
    ofz.price = '62.015625';
    screener.price = '93.5';
    ofz.coupons[ofz.coupons.length - 1].value = '35.5';
    await t.app.get(InvestRefreshService).refresh();
    const e = await waitFor('the update', () => got.find((x) => x.prices.length), 15_000);
    expect(e.sid).toBe(sid);
    expect(e.prices).toEqual([expect.objectContaining({ figi: ofz.figi, lastPrice: 62.015625, price: 620.16, diff_percent: -37.9844 })]);
    await waitFor('the coupon change', () => got.some((x) => x.coupons.includes(ofz.figi)), 15_000);
    expect(got.flatMap((x) => x.prices.map((p) => p.figi))).not.toContain(screener.figi);
    const bye = await s.timeout(5000).emitWithAck('invest.unsubscribe', { sid });
    expect(bye.result).toEqual({ stopped: true });
    expect(t.app.get(InvestLiveService).count).toBe(0);
  }, T);

  test('the jobs: on /worker; a run under a lease another instance holds does nothing; the price job refreshes the bonds held', async () => {
    expect(t.app.get(WorkerRegistry).names()).toEqual(expect.arrayContaining(['invest-refresh', 'invest-prices']));
    expect(await ok(admin, 'worker.start', { name: 'invest-prices' })).toMatchObject({ name: 'invest-prices', label: 'Investments: prices of the bonds held', schedule: 'every minute', status: 'ok' });
    const refresh = t.app.get(InvestRefreshService);
    // another instance holds both leases: neither job calls the broker
    const until = Date.now() + 60_000;
    await db(t).query("DELETE FROM leases WHERE name IN ('invest-refresh', 'invest-prices')");
    await db(t).query("INSERT INTO leases (name, owner, until) VALUES ('invest-refresh', 'other-instance', ?), ('invest-prices', 'other-instance', ?)", [until, until]);
    const sent = broker.fake.requests.length;
    expect(await refresh.scheduledRefresh()).toBeNull();
    expect(await refresh.scheduledPrices()).toBeNull();
    expect(broker.fake.requests.length).toBe(sent);
    await db(t).query("DELETE FROM leases WHERE name IN ('invest-refresh', 'invest-prices')");
    // the price job: only the bonds held are asked for; a changed price is stored with its figures
    const usd = broker.state.bonds.find((b) => b.ticker === 'XS0000USD01')!;
    usd.price = '100.5';
    const before = broker.calls('MarketDataService/GetLastPrices').length;
    expect(await refresh.scheduledPrices()).toEqual({ prices: 1 });
    const asked = broker.calls('MarketDataService/GetLastPrices').slice(before).flatMap((r) => r.json.instrumentId as string[]);
    const held = new Set(broker.state.portfolios[ACC].filter((p) => p.instrumentType === 'bond').map((p) => p.figi));
    expect(asked.every((f) => held.has(f) || broker.state.bonds.some((b) => b.figi === f && INVEST_SAMPLE.some((s) => s.ticker === b.ticker)))).toBe(true);
    const p = await ok<InvestPortfolio>(user, 'invest.User.getPortfolio', { accountId: ACC, joinCoupon: 0 });
    expect(p.bonds.find((b) => b.figi === usd.figi)).toMatchObject({ lastPrice: 100.5, price: 1005 });
  }, T);

  test('a 500 is tried again and then succeeds; the cache then answers without a call', async () => {
    broker.fake.script(tbankRoute('OperationsService', 'GetPortfolio'), { status: 500, body: { code: 13, message: 'internal error', description: '70001' } });
    await db(t).query("DELETE FROM outside_cache WHERE service = 'tbank'");
    const before = broker.calls('OperationsService/GetPortfolio').length;
    const p = await ok<InvestPortfolio>(user, 'invest.User.getPortfolio', { accountId: ACC, joinCoupon: 0 });
    expect(p.bonds).toHaveLength(6);
    expect(broker.calls('OperationsService/GetPortfolio').length - before).toBe(2);
    await ok(user, 'invest.User.getPortfolio', { accountId: ACC, joinCoupon: 0 });
    expect(broker.calls('OperationsService/GetPortfolio').length - before).toBe(2); // a cache hit sends nothing
    expect(lines.some((l) => l.includes('T-Bank Invest API answered 500 to OperationsService/GetPortfolio: internal error (code 13, description 70001)'))).toBe(true);
  }, T);

  test('a failed refresh past the 600 s answers the last good portfolio marked stale with the error', async () => {
    await db(t).query("UPDATE outside_cache SET expires_at = 0 WHERE service = 'tbank'");
    for (let i = 0; i < 3; i++) broker.fake.script(tbankRoute('OperationsService', 'GetPortfolio'), { status: 503, body: { code: 14, message: 'unavailable', description: '' } });
    const p = await ok<InvestPortfolio>(user, 'invest.User.getPortfolio', { accountId: ACC, joinCoupon: 0 });
    expect(p.stale).toBe(true);
    expect(p.error).toMatch(/answered 503 to OperationsService\/GetPortfolio: unavailable/);
    expect(p.bonds).toHaveLength(6);
  }, T);

  test('the token travels only in the Authorization header and is in no answer, audit row, cache row or log line', async () => {
    const token = broker.state.token;
    expect(broker.fake.requests.length).toBeGreaterThan(10);
    for (const r of broker.fake.requests) {
      expect(r.headers.authorization).toBe(`Bearer ${token}`);
      expect(r.url).not.toContain(token);
      expect(r.body).not.toContain(token);
    }
    answers.push(JSON.stringify(await ok(admin, 'outside.getServices', {})), JSON.stringify(await ok(admin, 'worker.getList', {})));
    expect(answers.join('\n')).not.toContain(token);
    const services = await ok<any[]>(admin, 'outside.getServices', {});
    expect(services.find((x) => x.service === 'tbank')).toMatchObject({ configured: true, credential: 'set', target: broker.url });
    for (const table of ['audit_log', 'outside_cache', 'invest_bonds', 'invest_coupons', 'workers', 'leases']) {
      expect(JSON.stringify(await db(t).query(`SELECT * FROM ${table}`))).not.toContain(token);
    }
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('\n')).not.toContain(token);
  }, T);
});

// ---------------------------------------------------------------------------------------------

describe(`the broker adapter (${pass})`, () => {
  let broker: FakeTbank;
  beforeAll(async () => { broker = await startFakeTbank(defaultTbankState(TODAY)); });
  afterAll(async () => { await broker?.close(); });

  test('the cache holds across a restart: a second process on the same database sends nothing', async () => {
    const DATABASE_URL = await sharedDatabase();
    const a = await start(broker, { DATABASE_URL, SECRET_KEY: 'k'.repeat(40) });
    const ua = (await a.session(100, 'restart-user')).hash;
    const pa = await a.ok(ua, 'invest.User.getPortfolio', { accountId: ACC });
    expect(await a.ok(ua, 'invest.User.getAccounts', {})).toHaveLength(2);
    const sent = broker.fake.requests.length;
    await stop(a);
    const b = await start(broker, { DATABASE_URL, SECRET_KEY: 'k'.repeat(40) });
    const login = await b.rest<any>(null, 'POST', '/user/auth', { key: Buffer.from('restart-user:restart-user-password-1').toString('base64') });
    const ub = login.body.result.hash;
    expect(await b.ok(ub, 'invest.User.getAccounts', {})).toHaveLength(2);
    const pb = await b.ok(ub, 'invest.User.getPortfolio', { accountId: ACC });
    expect(broker.fake.requests.length).toBe(sent);
    expect(pb.fetched).toBe(pa.fetched);
    expect(pb.bonds).toEqual(pa.bonds);
    await stop(b);
  }, T);

  onlyIn('sqlite')('a 401: not tried again, the broker\'s {code, message, description} in a clear 502 answer', async () => {
    const a = await start(null, { INVEST_API_URL: broker.url, INVEST_TOKEN: 'wrong-token-123' });
    const u = (await a.session(100)).hash;
    const before = broker.calls('UsersService/GetAccounts').length;
    const r = await a.rpc(u, 'invest.User.getAccounts', {});
    expect(r.env).toEqual({ status: 'http', code: 502, message: 'T-Bank Invest API answered 401 to UsersService/GetAccounts: authentication token is missing or invalid (code 16, description 40003) [tracking id track-401]' });
    expect(broker.calls('UsersService/GetAccounts').length - before).toBe(1);
    expect(broker.calls('UsersService/GetAccounts').at(-1)!.headers.authorization).toBe('Bearer wrong-token-123');
    const e = await failure(a.app.get(TbankClient).getAccounts());
    expect({ reason: e.reason, status: e.upstreamStatus, retryable: e.retryable }).toEqual({ reason: 'auth', status: 401, retryable: false });
    await stop(a);
  }, T);

  onlyIn('sqlite')('pacing under a 429: the service waits for the window\'s reset before any next call, then succeeds', async () => {
    const a = await start(broker);
    const client = a.app.get(TbankClient);
    const route = tbankRoute('OperationsService', 'GetPortfolio');
    broker.fake.script(route, { status: 429, headers: { 'x-ratelimit-limit': '200', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '2' }, body: { code: 80002, message: 'request limit exceeded', description: '80002' } });
    const before = broker.calls('OperationsService/GetPortfolio').length;
    const first = client.getPortfolio(ACC);
    await waitFor('the 429 read', () => client.windowWait('OperationsService') > 0);
    const limited = broker.calls('OperationsService/GetPortfolio')[before];
    const second = client.getPortfolio('2000000002'); // another call of the same service waits too
    const [p1, p2] = await Promise.all([first, second]);
    expect(p1.positions.length).toBe(7);
    expect(p2.positions).toEqual([]);
    const after = broker.calls('OperationsService/GetPortfolio').slice(before + 1);
    expect(after).toHaveLength(2);
    for (const r of after) expect(r.at - limited.at).toBeGreaterThanOrEqual(1990);
    // other services are not held by the Operations window
    expect((await client.getAccounts()).length).toBe(2);
    await stop(a);
  }, T);

  onlyIn('sqlite')('the declared limit: UsersService takes 100 calls a minute; the 101st waits its turn', async () => {
    const a = await start(broker);
    const client = a.app.get(TbankClient);
    const before = broker.calls('UsersService/GetAccounts').length;
    for (let i = 0; i < 100; i++) await client.getAccounts();
    const ac = new AbortController();
    const waiting = client.getAccounts({ signal: ac.signal }).then(() => 'answered', (e: Error) => e.message);
    await waitFor('a waiting call', () => client.pacers.UsersService.load(client.lane).waiting === 1);
    expect(broker.calls('UsersService/GetAccounts').length - before).toBe(100);
    ac.abort();
    expect(await waiting).toMatch(/cancelled/);
    expect(broker.calls('UsersService/GetAccounts').length - before).toBe(100);
    await stop(a);
  }, T);

  onlyIn('sqlite')('a time-out answers 504 and is not tried again', async () => {
    const a = await start(broker, { INVEST_TIMEOUT_MS: '300' });
    const u = (await a.session(100)).hash;
    broker.fake.script(tbankRoute('UsersService', 'GetAccounts'), { hold: true });
    const before = broker.calls('UsersService/GetAccounts').length;
    const r = await a.rpc(u, 'invest.User.getAccounts', {});
    expect(r.env).toMatchObject({ status: 'http', code: 504, message: 'T-Bank Invest API: no answer within 0.3 s' });
    expect(broker.calls('UsersService/GetAccounts').length - before).toBe(1);
    broker.fake.release();
    await stop(a);
  }, T);

  onlyIn('sqlite')('without INVEST_TOKEN: {configured: false} where the broker is needed; local accounts still work', async () => {
    const a = await start(null);
    const u = (await a.session(100)).hash;
    const admin = (await a.session(1)).hash;
    for (const [m, args] of [['invest.User.getAccounts', {}], ['invest.User.getPortfolio', { accountId: ACC }], ['invest.Item.getForecast', { accountId: ACC }], ['invest.Item.getBondsFilter', {}], ['invest.Item.getBondsNextClose', {}]] as const) {
      expect(await a.ok(u, m, args)).toEqual({ configured: false });
    }
    expect(await a.ok(admin, 'invest.Item.refresh', {})).toEqual({ configured: false });
    expect(await a.ok(u, 'invest.getStatus', {})).toMatchObject({ configured: false, token: 'not set', api_url: 'https://invest-public-api.tbank.ru/rest' });
    const { Id } = await a.ok(u, 'invest.User.saveLocalAccount', { name: 'Offline' });
    await a.ok(u, 'invest.User.savePosition', { Id_account: Id, ticker: 'SU26238RMFS4', quantity: '3', price: '60' });
    const p = await a.ok<InvestPortfolio>(u, 'invest.User.getPortfolio', { accountId: `local:${Id}` });
    expect(p.bonds.map((b) => [b.ticker, b.known, b.position!.quantity])).toEqual([['SU26238RMFS4', false, 3]]);
    expect(await a.ok(u, 'invest.Item.getForecast', { accountId: `local:${Id}` })).toMatchObject({ configured: true, total: 0 });
    const e = await failure(a.app.get(TbankClient).getAccounts());
    expect({ reason: e.reason, httpStatus: e.httpStatus }).toEqual({ reason: 'config', httpStatus: 422 });
    await stop(a);
  }, T);
});
