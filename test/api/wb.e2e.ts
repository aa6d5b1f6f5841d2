/**
 * Marketplace end to end (issue 23 "Marketplace"; docs/wb.md) on the real app and the suite's
 * database, against local servers speaking the Wildberries seller APIs (test/helpers/fakes/wb.ts: one
 * per API family, their request and answer shapes, the 401 error body, 204 at the end of the finance
 * report, the 31-day bound of /adv/v1/upd):
 *
 * - the contract: with WB_TOKEN and the four bases set, `wb.sync {dateFrom, dateTo}` pulls cards, the
 *   finance report (paged by rrdid, one call per WB_FINANCE_INTERVAL_MS), the funnel and ad spend;
 *   `wb.Report.createReportItems` then answers one row per card with nmID, title, ppvz_for_pay (returns
 *   negative), delivery_rub, storage_fee, ad and the other columns, each equal to an oracle computed
 *   here from the fake's rows; totals; a sub-range; every card (one without rows too);
 * - a card's daily chart, its finance rows, the adverts, item.getChartBrain (trained in a worker);
 * - the adapter: Authorization is the bare token on every host, a 429 paces the next call, a 5xx is
 *   tried again, a malformed answer fails that part only (the last good data stays, marked stale with
 *   its error), a 401 is not tried again and names the service's error, a time-out, the 600 s cache of
 *   a sync (also across a restart on the same database), `{configured: false}` without WB_TOKEN, and the
 *   token in no answer, audit row, table or log line.
 */
import { getDataSourceToken } from '@nestjs/typeorm';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import type { WbBrain, WbItemChart, WbReport, WbReportItem, WbSyncResult } from '../../src/contracts/wb.js';
import { JsonLogger } from '../../src/core/logger.js';
import { Pacer } from '../../src/core/outside/pacer.js';
import { WildberriesClient } from '../../src/core/outside/wb.client.js';
import { WorkerRegistry } from '../../src/core/workers/workers.js';
import { WbSyncService } from '../../src/modules/wb/sync/wb-sync.service.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { defaultWbState, startFakeWb, WB_ROUTES, type FakeWb, type WbState } from '../helpers/fakes/wb.js';
import { migratedMysql } from '../helpers/mysql.js';
import { onlyIn, pass } from '../helpers/passes.js';

const T = 120_000;
const TODAY = new Date().toISOString().slice(0, 10);
const addDays = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
const DAYS = 60;
const FROM = addDays(TODAY, -(DAYS - 1));
const INTERVAL = 150;
const kop = (v: number) => Math.round(v * 100);

const apps: TestApp[] = [];
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const a of apps.splice(0).reverse()) await a.close();
  for (const c of cleanups.splice(0)) await c();
});

async function start(env: Record<string, string>, logger?: JsonLogger): Promise<TestApp> {
  const a = await startApp({ CRON_ENABLED: '0', TZ: 'UTC', WB_FINANCE_INTERVAL_MS: String(INTERVAL), WB_FUNNEL_INTERVAL_MS: '20', ...env }, logger ? { logger } : {});
  const client = a.app.get(WildberriesClient);
  client.retry = { screen: { tries: 3, baseMs: 20, maxMs: 50, maxRetryAfterMs: 30_000 }, job: { tries: 3, baseMs: 20, maxMs: 50, maxRetryAfterMs: 30_000 } };
  client.financeLimit = 100;
  // the promotion API's one call a second is the pacer's own (test/unit/outside.spec.ts): not waited out here
  client.pacers.advert = new Pacer('wb.advert', { concurrent: 1 });
  apps.push(a);
  return a;
}
async function stop(a: TestApp) {
  apps.splice(apps.indexOf(a), 1);
  await a.close();
}
const db = (a: TestApp) => a.app.get<DataSource>(getDataSourceToken());

// ---------------------------------------------------------------------------------------------
// The oracle: a card's columns computed from the fake's rows (kopecks), independent of the SQL

const dayOfRow = (r: { sale_dt: string; rr_dt: string }) => (r.sale_dt ? r.sale_dt.slice(0, 10) : r.rr_dt.slice(0, 10));
function oracle(s: WbState, nm: number, from: string, to: string) {
  const rows = s.finance.filter((r) => r.nm_id === nm && dayOfRow(r) >= from && dayOfRow(r) <= to);
  const o = { sales: 0, returns: 0, sales_sum: 0, returns_sum: 0, ppvz: 0, delivery_rub: 0, storage_fee: 0, penalty: 0, deliveries: 0, returned: 0 };
  for (const r of rows) {
    if (r.doc_type_name === 'Продажа') { o.sales += r.quantity; o.sales_sum += kop(r.retail_amount); o.ppvz += kop(r.ppvz_for_pay); }
    if (r.doc_type_name === 'Возврат') { o.returns += r.quantity; o.returns_sum += kop(r.retail_amount); o.ppvz -= Math.abs(kop(r.ppvz_for_pay)); }
    o.delivery_rub += kop(r.delivery_rub);
    o.storage_fee += kop(r.storage_fee);
    o.penalty += kop(r.penalty);
    o.deliveries += r.delivery_amount;
    o.returned += r.return_amount;
  }
  return o;
}
/** Ad spend per card in the range: each invoice split evenly over its advert's cards (the remainder kopecks to the first). */
function adOracle(s: WbState, from: string, to: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const u of s.upd) {
    const day = new Date(Date.parse(u.updTime)).toISOString().slice(0, 10);
    if (day < from || day > to) continue;
    const nms = s.adverts.find((a) => a.id === u.advertId)!.nms;
    const amount = kop(u.updSum);
    const each = Math.trunc(amount / nms.length);
    let rest = amount - each * nms.length;
    for (const nm of nms) {
      const extra = rest > 0 ? 1 : 0;
      rest -= extra;
      out.set(nm, (out.get(nm) ?? 0) + each + extra);
    }
  }
  return out;
}
function expectRow(s: WbState, r: WbReportItem, from: string, to: string) {
  const o = oracle(s, r.nmID, from, to);
  expect([r.nmID, kop(r.ppvz_for_pay)]).toEqual([r.nmID, o.ppvz]);
  expect([r.nmID, kop(r.delivery_rub), kop(r.storage_fee), kop(r.penalty)]).toEqual([r.nmID, o.delivery_rub, o.storage_fee, o.penalty]);
  expect([r.nmID, r.sell.count, kop(r.sell.retail_amount), r.return.count, kop(r.return.retail_amount)]).toEqual([r.nmID, o.sales, o.sales_sum, o.returns, o.returns_sum]);
  expect([r.nmID, r.delivery.count_delivury, r.delivery.count_return, kop(r.delivery.amount)]).toEqual([r.nmID, o.deliveries, o.returned, o.delivery_rub]);
  expect([r.nmID, kop(r.ad)]).toEqual([r.nmID, adOracle(s, from, to).get(r.nmID) ?? 0]);
}

// ---------------------------------------------------------------------------------------------

describe(`marketplace against the Wildberries seller APIs (${pass})`, () => {
  let wb: FakeWb;
  let t: TestApp;
  let admin: string;
  let user: string;
  const lines: string[] = [];
  const answers: string[] = [];
  const ok = async <R = any>(hash: string, method: string, args?: unknown): Promise<R> => {
    const r = await t.rpc<R>(hash, method, args);
    answers.push(JSON.stringify(r.env));
    if (r.env.status !== 'ok') throw new Error(`${method} ${JSON.stringify(args)} -> ${JSON.stringify(r.env)}`);
    return r.env.result;
  };

  beforeAll(async () => {
    wb = await startFakeWb(defaultWbState(TODAY, { days: DAYS }));
    const logger = new JsonLogger('debug', { write: (s: string) => void lines.push(...s.split('\n').filter((l) => l.trim() !== '')) });
    t = await start(wb.env, logger);
    admin = (await t.session(1)).hash;
    user = (await t.session(100)).hash;
  }, T);
  afterAll(async () => { await wb?.close(); });

  test('contract: wb.sync pulls cards, finance rows (paged by rrdid, paced), the funnel and ad spend into the tables', async () => {
    const r = await ok<WbSyncResult>(admin, 'wb.sync', { dateFrom: FROM, dateTo: TODAY });
    const inRange = wb.state.finance.filter((x) => x.rr_dt >= FROM && x.rr_dt <= TODAY);
    expect(r).toMatchObject({ configured: true, cached: false, cards: 5, finance_rows: inRange.length, funnel: 5, adverts: 2, ad_rows: wb.state.upd.length, errors: [] });
    // every request: the bare token in Authorization, nothing of it in the URL; each family on its own base
    for (const q of wb.all()) {
      expect(q.headers.authorization).toBe(wb.state.token);
      expect(q.url).not.toContain(wb.state.token);
    }
    expect(wb.content.to(WB_ROUTES.cards).length).toBe(1);
    expect(wb.analytics.to(WB_ROUTES.funnel)[0].json).toMatchObject({ selectedPeriod: { start: FROM, end: TODAY }, offset: 0 });
    // the finance report: pages of 100 by rrdid (the last row's rrd_id), a short page ends it; one call per interval
    const fin = wb.statistics.to(WB_ROUTES.finance);
    expect(fin.length).toBe(Math.ceil(inRange.length / 100) + (inRange.length % 100 === 0 ? 1 : 0));
    expect(fin.map((q) => q.query.get('dateFrom'))).toEqual(fin.map(() => FROM));
    expect(fin[0].query.get('rrdid')).toBe('0');
    const sorted = [...inRange].sort((a, b) => a.rrd_id - b.rrd_id);
    expect(fin[1].query.get('rrdid')).toBe(String(sorted[99].rrd_id));
    // (measured where the fake received them: a first call that opened the connection may arrive late, so each gap has some slack)
    for (let i = 1; i < fin.length; i++) expect(fin[i].at - fin[i - 1].at).toBeGreaterThanOrEqual(INTERVAL - 50);
    expect(fin[fin.length - 1].at - fin[0].at).toBeGreaterThanOrEqual((fin.length - 1) * INTERVAL - 50);
    // ad spend asked 31 days at a time (the service refuses longer), the adverts with their cards
    const upd = wb.advert.to(WB_ROUTES.upd);
    expect(upd.map((q) => [q.query.get('from'), q.query.get('to')])).toEqual([[FROM, addDays(FROM, 30)], [addDays(FROM, 31), TODAY]]);
    expect(wb.advert.to(WB_ROUTES.adverts)[0].query.get('ids')).toBe('7001,7002');
    const [{ n }] = (await db(t).query('SELECT COUNT(*) AS n FROM wb_finance')) as Array<{ n: string | number }>;
    expect(Number(n)).toBe(inRange.length);
  }, T);

  test('contract: createReportItems answers one row per card with nmID, title and the spec\'s columns equal to the oracle', async () => {
    const rep = await ok<WbReport>(user, 'wb.Report.createReportItems', { dateFrom: FROM, dateTo: TODAY });
    expect(rep.list.map((r) => [r.nmID, r.title])).toEqual(wb.state.cards.map((c) => [c.nmID, c.title]).sort((a, b) => (a[0] as number) - (b[0] as number)));
    for (const r of rep.list) expectRow(wb.state, r, FROM, TODAY);
    // returns count negative in before-payout: a card with returns pays out less than its sales
    const c1 = rep.list.find((r) => r.nmID === 300001)!;
    expect(c1.return.count).toBeGreaterThan(0);
    expect(c1.ppvz_for_pay).toBeLessThan(oracle(wb.state, 300001, FROM, TODAY).sales_sum / 100);
    expect(c1.ad).toBeGreaterThan(0);
    // the funnel under the spec's names; stocks wb + mp
    const f = wb.state.funnel[300002];
    expect(rep.list.find((r) => r.nmID === 300002)).toMatchObject({
      openCardCount: f.openCount, addToCartCount: f.cartCount, ordersCount: f.orderCount, buyoutsCount: f.buyoutCount, buyoutsSumRub: f.buyoutSum,
      avgOrdersCountPerDay: f.avgOrdersCountPerDay, cancelCount: f.cancelCount, stocks: f.stocks.wb + f.stocks.mp,
      selectedPeriod: { openCardCount: f.openCount, ordersCount: f.orderCount, buyoutsSumRub: f.buyoutSum },
      photo: wb.state.cards[1].photos[0].big, vendorCode: 'ART-2',
    });
    // the card that never sold is there, with zeros
    expect(rep.list.find((r) => r.nmID === 300003)).toMatchObject({ ppvz_for_pay: 0, sell: { count: 0 }, ad: 0, delivery_rub: 0 });
    // totals are the sums of the rows
    const sum = (f: (r: WbReportItem) => number) => rep.list.reduce((s, r) => s + kop(f(r)), 0);
    expect(kop(rep.totals.ppvz_for_pay)).toBe(sum((r) => r.ppvz_for_pay));
    expect(kop(rep.totals.ad)).toBe(sum((r) => r.ad));
    expect(rep.totals.sell.count).toBe(rep.list.reduce((s, r) => s + r.sell.count, 0));
    expect(rep.totals).toMatchObject({ cards: 5, ordersCount: [1, 2, 3, 4, 5].reduce((s, i) => s + 40 * i, 0) });
    expect(rep.funnel_period).toEqual({ dateFrom: FROM, dateTo: TODAY });
    expect(rep.sync).toMatchObject({ stale: false, error: null, dateFrom: FROM, dateTo: TODAY });
    // a sub-range: the last week
    const wk = await ok<WbReport>(user, 'wb.Report.createReportItems', { dateFrom: addDays(TODAY, -6), dateTo: TODAY });
    for (const r of wk.list) expectRow(wb.state, r, addDays(TODAY, -6), TODAY);
    expect(wk.funnel_period).toEqual({ dateFrom: FROM, dateTo: TODAY });
    // a range holding a whole month (read from the monthly rollup) and edge days: the first of last month to today
    const prevMonth = `${addDays(`${TODAY.slice(0, 7)}-01`, -1).slice(0, 7)}-01`;
    const months = await ok<WbReport>(user, 'wb.Report.createReportItems', { dateFrom: prevMonth, dateTo: TODAY });
    for (const r of months.list) expectRow(wb.state, r, prevMonth, TODAY);
    const lastMonthEnd = addDays(`${TODAY.slice(0, 7)}-01`, -1);
    const whole = await ok<WbReport>(user, 'wb.Report.createReportItems', { dateFrom: prevMonth, dateTo: lastMonthEnd });
    for (const r of whole.list) expectRow(wb.state, r, prevMonth, lastMonthEnd);
    // a range with nothing: every card, all zeros
    const none = await ok<WbReport>(user, 'wb.Report.createReportItems', { dateFrom: '2020-01-01', dateTo: '2020-01-31' });
    expect(none.list.every((r) => r.sell.count === 0 && r.ad === 0 && r.ordersCount === null)).toBe(true);
  }, T);

  test('the same range within 600 s is answered from the database without a call; force pulls again', async () => {
    const sent = wb.all().length;
    const again = await ok<WbSyncResult>(admin, 'wb.sync', { dateFrom: FROM, dateTo: TODAY });
    expect(again.cached).toBe(true);
    expect(wb.all().length).toBe(sent);
    const forced = await ok<WbSyncResult>(admin, 'wb.sync', { dateFrom: addDays(TODAY, -6), dateTo: TODAY, force: 1 });
    expect(forced.cached).toBe(false);
    expect(wb.all().length).toBeGreaterThan(sent);
    // the re-read rows replace themselves (by rrd_id): the full range still equals the oracle
    const rep = await ok<WbReport>(user, 'wb.Report.createReportItems', { dateFrom: FROM, dateTo: TODAY });
    for (const r of rep.list) expectRow(wb.state, r, FROM, TODAY);
  }, T);

  test('a card\'s daily chart, its finance rows and the adverts', async () => {
    const ch = await ok<WbItemChart>(user, 'wb.Report.getItemChart', { nmID: 300001, dateFrom: addDays(TODAY, -13), dateTo: TODAY });
    expect(ch.days).toHaveLength(14);
    expect(ch.title).toBe('Книга 1');
    const ads = adOracle(wb.state, TODAY, TODAY);
    expect(kop(ch.days[13].ad)).toBe(ads.get(300001) ?? 0);
    for (const d of ch.days) {
      const sales = wb.state.finance.filter((r) => r.nm_id === 300001 && r.doc_type_name === 'Продажа' && dayOfRow(r) === d.day).reduce((s, r) => s + r.quantity, 0);
      const orders = wb.state.finance.filter((r) => r.nm_id === 300001 && r.doc_type_name === 'Продажа' && r.order_dt.slice(0, 10) === d.day).reduce((s, r) => s + r.quantity, 0);
      expect([d.day, d.buyouts, d.orders]).toEqual([d.day, sales, orders]);
      if (sales) expect(d.price_output).toBeGreaterThan(0);
      else expect(d.price).toBeNull();
    }
    expect((await t.rpc(user, 'wb.Report.getItemChart', { nmID: 999, dateFrom: TODAY, dateTo: TODAY })).env).toMatchObject({ code: 404, message: 'Card not found' });

    const rows = await ok<any>(user, 'wb.Statistic.getDetailOrders', { nmID: 300002, dateFrom: FROM, dateTo: TODAY });
    const want = wb.state.finance.filter((r) => r.nm_id === 300002 && dayOfRow(r) >= FROM);
    expect(rows.count).toBe(want.length);
    expect(rows.list).toHaveLength(20);
    expect(Object.keys(rows.list[0])).toEqual(expect.arrayContaining(['nm_id', 'delivery_rub', 'return_amount', 'ppvz_for_pay', 'doc_type_name']));

    const ad = await ok<any>(user, 'wb.AD.get', { dateFrom: FROM, dateTo: TODAY });
    expect(ad.list.map((a: any) => [a.advertId, a.nms, kop(a.amount)])).toEqual([
      [7001, [300001, 300002], kop(101) * DAYS],
      [7002, [300001], wb.state.upd.filter((u) => u.advertId === 7002).length * kop(33.33)],
    ]);
  }, T);

  test('item.getChartBrain: the price history with a forecast trained in a worker, its held-out error', async () => {
    const b = await ok<WbBrain>(user, 'item.getChartBrain', { nmID: 300001 });
    expect(b).toMatchObject({ offset: 5000, step: 12 });
    const history = b.list.filter((p) => p.price_output !== null || p.price !== null);
    expect(b.list.length).toBeGreaterThan(DAYS - 3);
    expect(b.list.slice(0, 12).every((p) => p.price_brain === null)).toBe(true);
    expect(b.list.slice(-7).every((p) => p.price === null && p.price_output === null && typeof p.price_brain === 'number')).toBe(true);
    expect(history.length).toBeGreaterThan(30);
    expect(b.model).not.toBeNull();
    expect(b.model!.held_out).toBeGreaterThanOrEqual(7);
    expect(b.model!.mae).toBeGreaterThanOrEqual(0);
    // the paid prices sit between 510 and 612 rubles: a forecast far outside is wrong
    for (const p of b.list.slice(12)) expect(p.price_brain!).toBeGreaterThan(400);
    for (const p of b.list.slice(12)) expect(p.price_brain!).toBeLessThan(700);
    // a second call is the kept answer (no new training)
    expect(await ok<WbBrain>(user, 'item.getChartBrain', { nmID: 300001 })).toEqual(b);
    // the card that never sold: its (empty) history and no model
    expect(await ok<WbBrain>(user, 'item.getChartBrain', { nmID: 300003 })).toMatchObject({ list: [], model: null, message: 'Not enough price history for a forecast' });
    expect((await t.rpc(user, 'item.getChartBrain', { nmID: 999 })).env).toMatchObject({ code: 404, message: 'Card not found' });
    expect((await t.rpc(user, 'item.getChartBrain', { nmID: 300001, step: 1 })).env).toMatchObject({ status: 'rules', fields: { step: expect.any(String) } });
  }, T);

  test('a 429 on the finance report: the next call waits for X-Ratelimit-Retry, then the sync goes on; a 503 on cards is tried again', async () => {
    wb.statistics.script(WB_ROUTES.finance, { status: 429, headers: { 'x-ratelimit-retry': '1', 'x-ratelimit-limit': '1' }, body: { title: 'too many requests', detail: 'Limited by c122a060-a7fb-4bb4-abb0-32fd4e18d489', code: '07e4668e', requestId: 'req-429', origin: 'api-statistics', status: 429, statusText: 'Too Many Requests', timestamp: new Date().toISOString() } });
    wb.content.script(WB_ROUTES.cards, { status: 503, body: 'upstream unavailable' });
    const before = wb.statistics.to(WB_ROUTES.finance).length;
    const cardsBefore = wb.content.to(WB_ROUTES.cards).length;
    const r = await ok<WbSyncResult>(admin, 'wb.sync', { dateFrom: addDays(TODAY, -2), dateTo: TODAY, force: 1 });
    expect(r.errors).toEqual([]);
    expect(wb.content.to(WB_ROUTES.cards).length - cardsBefore).toBe(2);
    const fin = wb.statistics.to(WB_ROUTES.finance).slice(before);
    expect(fin.length).toBeGreaterThanOrEqual(2);
    expect(fin[1].at - fin[0].at).toBeGreaterThanOrEqual(990);
    expect(lines.some((l) => l.includes('Wildberries statistics API answered 429 to GET /api/v5/supplier/reportDetailByPeriod: too many requests: Limited by'))).toBe(true);
  }, T);

  test('a malformed funnel answer fails that part only: the rest is stored, the page keeps the last good funnel marked stale with the error', async () => {
    wb.analytics.script(WB_ROUTES.funnel, { body: { data: { products: [{ product: { title: 'no id' }, statistic: { selected: {} } }] } } });
    const r = await ok<WbSyncResult>(admin, 'wb.sync', { dateFrom: FROM, dateTo: TODAY, force: 1 });
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatch(/^Sales funnel: Wildberries analytics API: unexpected answer \(data\.products\.0\.product\.nmId: /);
    expect(r.cards).toBe(5);
    const rep = await ok<WbReport>(user, 'wb.Report.createReportItems', { dateFrom: FROM, dateTo: TODAY });
    expect(rep.sync).toMatchObject({ stale: true, error: expect.stringContaining('Sales funnel') });
    expect(rep.list.find((x) => x.nmID === 300002)!.ordersCount).toBe(wb.state.funnel[300002].orderCount);
    const st = await ok<any>(user, 'wb.getStatus', {});
    expect(st).toMatchObject({ configured: true, token: 'set', sync: { stale: true }, counts: { cards: 5 } });
    // the next good sync clears the mark
    await ok(admin, 'wb.sync', { dateFrom: FROM, dateTo: TODAY, force: 1 });
    expect((await ok<any>(user, 'wb.getStatus', {})).sync).toMatchObject({ stale: false, error: null });
  }, T);

  test('the job: on /worker; the last WB_SYNC_DAYS days up to today; nothing while another instance holds the lease', async () => {
    expect(t.app.get(WorkerRegistry).names()).toContain('wb-sync');
    const job = t.app.get(WbSyncService);
    await db(t).query("DELETE FROM leases WHERE name = 'wb-sync'");
    await db(t).query("INSERT INTO leases (name, owner, until) VALUES ('wb-sync', 'other-instance', ?)", [Date.now() + 60_000]);
    const sent = wb.all().length;
    expect(await job.scheduledSync()).toBeNull();
    expect(wb.all().length).toBe(sent);
    await db(t).query("DELETE FROM leases WHERE name = 'wb-sync'");
    const r = await job.scheduledSync();
    expect(r).toMatchObject({ dateFrom: addDays(TODAY, -29), dateTo: TODAY, cached: false, errors: [] });
    expect(wb.all().length).toBeGreaterThan(sent);
  }, T);

  test('roles and bad input: wb.sync is for admins; ranges are checked', async () => {
    expect((await t.rpc(user, 'wb.sync', { dateFrom: FROM, dateTo: TODAY })).status).toBe(403);
    const bad = await t.rpc(admin, 'wb.sync', { dateFrom: TODAY, dateTo: FROM });
    expect(bad.env).toMatchObject({ status: 'rules', code: 422, fields: { dateTo: 'dateTo must not be before dateFrom' } });
    const day = await t.rpc(user, 'wb.Report.createReportItems', { dateFrom: '2025-02-30', dateTo: TODAY });
    expect(day.env).toMatchObject({ status: 'rules', fields: { dateFrom: 'dateFrom must be a day written yyyy-MM-dd' } });
    const long = await t.rpc(user, 'wb.Report.createReportItems', { dateFrom: '2020-01-01', dateTo: TODAY });
    expect(long.env).toMatchObject({ status: 'rules', fields: { dateTo: 'the range spans at most 366 days' } });
  }, T);

  test('the token travels only in the Authorization header and is in no answer, audit row, table or log line', async () => {
    const token = wb.state.token;
    answers.push(JSON.stringify(await ok(admin, 'outside.getServices', {})));
    expect(answers.join('\n')).not.toContain(token);
    const services = await ok<any[]>(admin, 'outside.getServices', {});
    expect(services.find((x) => x.service === 'wb')).toMatchObject({ configured: true, credential: 'set' });
    for (const table of ['audit_log', 'outside_cache', 'wb_syncs', 'wb_cards', 'wb_adverts', 'workers', 'leases']) {
      expect(JSON.stringify(await db(t).query(`SELECT * FROM ${table}`))).not.toContain(token);
    }
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('\n')).not.toContain(token);
  }, T);
});

// ---------------------------------------------------------------------------------------------

describe(`the marketplace adapter (${pass})`, () => {
  let wb: FakeWb;
  beforeAll(async () => { wb = await startFakeWb(defaultWbState(TODAY, { days: 10, cards: 3 })); });
  afterAll(async () => { await wb?.close(); });

  test('a sync survives a restart: a second process on the same database answers the same range without a call', async () => {
    let DATABASE_URL: string;
    if (process.env.TEST_DATABASE_URL) {
      const my = await migratedMysql(process.env.TEST_DATABASE_URL);
      cleanups.push(() => my.drop());
      DATABASE_URL = my.url;
    } else {
      const dir = mkdtempSync(join(tmpdir(), 'wb-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      DATABASE_URL = `sqlite:${join(dir, 'shared.sqlite')}`;
    }
    const a = await start({ ...wb.env, DATABASE_URL, SECRET_KEY: 'k'.repeat(40) });
    const admin = (await a.session(1, 'wb-admin')).hash;
    const first = await a.ok<WbSyncResult>(admin, 'wb.sync', { dateFrom: addDays(TODAY, -9), dateTo: TODAY });
    expect(first.cached).toBe(false);
    await stop(a);
    const sent = wb.all().length;
    const b = await start({ ...wb.env, DATABASE_URL, SECRET_KEY: 'k'.repeat(40) });
    const login = await b.rest<any>(null, 'POST', '/user/auth', { key: Buffer.from('wb-admin:wb-admin-password-1').toString('base64') });
    const again = await b.ok<WbSyncResult>(login.body.result.hash, 'wb.sync', { dateFrom: addDays(TODAY, -9), dateTo: TODAY });
    expect(again).toMatchObject({ cached: true, finance_rows: first.finance_rows, finished: first.finished });
    expect(wb.all().length).toBe(sent);
    expect((await b.ok<WbReport>(login.body.result.hash, 'wb.Report.createReportItems', { dateFrom: addDays(TODAY, -9), dateTo: TODAY })).list).toHaveLength(3);
    await stop(b);
  }, T);

  onlyIn('sqlite')('a 401: not tried again; the answer names the service\'s error body', async () => {
    const a = await start({ ...wb.env, WB_TOKEN: 'wrong-token-123' });
    const admin = (await a.session(1)).hash;
    const before = wb.content.to(WB_ROUTES.cards).length;
    const r = await a.rpc(admin, 'wb.sync', { dateFrom: TODAY, dateTo: TODAY });
    expect(r.env).toMatchObject({ status: 'http', code: 502 });
    expect((r.env as any).message).toBe('Wildberries content API answered 401 to POST /content/v2/get/cards/list: unauthorized: token problem; token is malformed: could not parse (code 07e4668e-ac2242c5c8c5-[UK-4dx7JUdskGZ], request id req-401)');
    expect(wb.content.to(WB_ROUTES.cards).length - before).toBe(1);
    expect(wb.content.to(WB_ROUTES.cards).at(-1)!.headers.authorization).toBe('wrong-token-123');
    expect((await a.ok(admin, 'wb.getStatus', {})).sync).toMatchObject({ synced: null });
    await stop(a);
  }, T);

  onlyIn('sqlite')('a time-out answers in the sync\'s errors and is not tried again', async () => {
    const a = await start({ ...wb.env, WB_TIMEOUT_MS: '300' });
    const admin = (await a.session(1)).hash;
    wb.content.script(WB_ROUTES.cards, { hold: true });
    const before = wb.content.to(WB_ROUTES.cards).length;
    const r = await a.ok<WbSyncResult>(admin, 'wb.sync', { dateFrom: TODAY, dateTo: TODAY });
    expect(r.errors).toEqual(['Cards: Wildberries content API: no answer within 0.3 s']);
    expect(wb.content.to(WB_ROUTES.cards).length - before).toBe(1);
    wb.content.release();
    await stop(a);
  }, T);

  onlyIn('sqlite')('without WB_TOKEN: {configured: false} everywhere; the status says so', async () => {
    const a = await start({});
    const u = (await a.session(100)).hash;
    const admin = (await a.session(1)).hash;
    const range = { dateFrom: TODAY, dateTo: TODAY };
    for (const [m, args] of [['wb.Report.createReportItems', range], ['wb.Report.getItemChart', { nmID: 1, ...range }], ['wb.Statistic.getDetailOrders', range], ['wb.AD.get', range], ['item.getChartBrain', { nmID: 1 }]] as const) {
      expect(await a.ok(u, m, args)).toEqual({ configured: false });
    }
    expect(await a.ok(admin, 'wb.sync', range)).toEqual({ configured: false });
    expect(await a.ok(u, 'wb.getStatus', {})).toMatchObject({ configured: false, token: 'not set' });
    expect((await a.ok<any[]>(admin, 'outside.getServices', {})).find((x) => x.service === 'wb')).toMatchObject({ configured: false, credential: 'not set' });
    expect(wb.all().filter((q) => q.headers.authorization === undefined)).toEqual([]);
    await stop(a);
  }, T);
});
