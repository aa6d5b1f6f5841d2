/**
 * What /wb shows, read from the tables the sync fills (docs/wb.md "The report"): one row per card for a
 * range with the spec's columns of both variants and totals, a card's daily chart, its finance rows and
 * the adverts. Nothing here calls the marketplace.
 */
import { HttpStatus, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { NOT_CONFIGURED, type NotConfigured } from '../../../contracts/outside.js';
import { Role } from '../../../contracts/roles.js';
import {
  WB_MSG, WB_ORDERS_PAGE, wbAddDays, wbDaysBetween, WbAdInput, WbItemChartInput, WbOrdersInput, WbRangeInput,
  type WbAdvert, type WbChartDay, type WbItemChart, type WbItemChartArgs, type WbOrderRow, type WbOrdersArgs, type WbRangeArgs,
  type WbReport, type WbReportItem, type WbSyncState, type WbTotals,
} from '../../../contracts/wb.js';
import { AppError } from '../../../core/errors.js';
import { Rpc } from '../../../core/rpc/rpc.decorator.js';
import { WB_PATHS } from '../../../core/outside/wb.client.js';
import { CUM_SUMS, DAILY_SUMS, rangeSums } from '../sync/wb-cumulative.js';
import { WbSyncService } from '../sync/wb-sync.service.js';

type Num = string | number | null;
const N = (v: Num | undefined) => (v === null || v === undefined ? 0 : Number(v));
/** Kopecks as rubles (at most two decimals). */
const rub = (k: number) => Math.round(k) / 100;
const pct = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 10000) / 100 : 0);
const avgRub = (sumKop: number, n: number) => (n > 0 ? Math.round(sumKop / n) / 100 : 0);

interface DailySum {
  orders: number; sales: number; returns: number; sales_sum: number; returns_sum: number; price_sum: number; ret_price_sum: number;
  ppvz: number; delivery_rub: number; return_logistics: number; deliveries: number; returns_delivered: number; storage_fee: number; penalty: number;
}
const SUM_KEYS: ReadonlyArray<keyof DailySum> = DAILY_SUMS;
/** The ad spend's place in the running totals. */
const AD = CUM_SUMS.indexOf('ad');
const zero = (): DailySum => Object.fromEntries(SUM_KEYS.map((k) => [k, 0])) as unknown as DailySum;

interface FunnelSum { open: number; cart: number; orders: number; buyouts: number; buyout_sum: number; cancels: number; avg: number | null; stocks: number | null }

@Injectable()
export class WbReportService {
  constructor(@InjectDataSource() private readonly db: DataSource, private readonly sync: WbSyncService) {}

  @Rpc('wb.getStatus', {
    role: Role.user,
    summary: "{configured, token: 'set'|'not set', sync: {synced, dateFrom, dateTo, stale, error, running}, counts: {cards, finance_rows}, paths}: what the marketplace tables hold and when they were synced",
  })
  async getStatus() {
    const [cards] = (await this.db.query('SELECT COUNT(*) AS n FROM wb_cards')) as Array<{ n: Num }>;
    const [fin] = (await this.db.query('SELECT COUNT(*) AS n FROM wb_finance')) as Array<{ n: Num }>;
    return {
      configured: this.sync.configured,
      token: this.sync.configured ? 'set' : 'not set',
      sync: await this.sync.state(),
      counts: { cards: N(cards.n), finance_rows: N(fin.n) },
      paths: WB_PATHS,
    };
  }

  @Rpc('wb.Report.createReportItems', {
    role: Role.user,
    input: WbRangeInput,
    summary: '{dateFrom, dateTo}: {list: one row per card (every card) with nmID, title, photo, stocks, the funnel (ordersCount, cancelCount, openCardCount, addToCartCount, buyoutsCount, buyoutsSumRub, avgOrdersCountPerDay; selectedPeriod), sell/return {retail_price, count, retail_amount}, ppvz_for_pay (before payout, returns negative), delivery_rub, delivery {count_delivury, count_return, percent_return, amount, return}, storage_fee, penalty, percent {sell, return_item}, ad (ad spend)}, totals, funnel_period, sync}; read from the tables (wb.sync fills them); {configured: false} without WB_TOKEN',
  })
  async createReportItems(args: WbRangeArgs): Promise<WbReport | NotConfigured> {
    if (!this.sync.configured) return NOT_CONFIGURED;
    return this.report(args.dateFrom, args.dateTo);
  }

  /** The report of a range (also the bench's subject). */
  async report(dateFrom: string, dateTo: string): Promise<WbReport> {
    const cards = (await this.db.query('SELECT nm_id, title, vendor_code, brand, photo, stocks FROM wb_cards')) as Array<{ nm_id: Num; title: string; vendor_code: string; brand: string; photo: string | null; stocks: number | null }>;
    // each card's sums of the range: two differences of running totals (wb-cumulative.ts)
    const sums = await rangeSums((sql, params) => this.db.query(sql, params), dateFrom, dateTo);
    const period = await this.funnelPeriod(dateFrom, dateTo);
    const funnel = new Map<number, FunnelSum>();
    if (period) {
      const rows = (await this.db.query(
        'SELECT nm_id, open_count, cart_count, order_count, buyout_count, buyout_sum, cancel_count, avg_orders_per_day, stocks FROM wb_funnel WHERE date_from = ? AND date_to = ?',
        [period.dateFrom, period.dateTo],
      )) as Array<Record<string, Num>>;
      for (const r of rows) {
        funnel.set(N(r.nm_id), {
          open: N(r.open_count), cart: N(r.cart_count), orders: N(r.order_count), buyouts: N(r.buyout_count), buyout_sum: N(r.buyout_sum), cancels: N(r.cancel_count),
          avg: r.avg_orders_per_day === null ? null : Number(r.avg_orders_per_day), stocks: r.stocks === null ? null : Number(r.stocks),
        });
      }
    }
    const byCard = new Map<number, DailySum>();
    const adOf = new Map<number, number>();
    for (const [nm, v] of sums) {
      const d = zero();
      SUM_KEYS.forEach((k, i) => { d[k] = v[i]; });
      byCard.set(nm, d);
      adOf.set(nm, v[AD]);
    }
    const info = new Map(cards.map((c) => [N(c.nm_id), c]));
    const ids = new Set<number>([...info.keys(), ...byCard.keys(), ...adOf.keys(), ...funnel.keys()]);
    ids.delete(0);
    const list: WbReportItem[] = [];
    const tot = zero();
    let totAd = 0;
    const ft = { open: 0, cart: 0, orders: 0, buyouts: 0, buyout_sum: 0, cancels: 0, avg: 0, stocks: 0, any: false, anyStock: false };
    for (const nm of [...ids].sort((a, b) => a - b)) {
      const c = info.get(nm);
      const s = byCard.get(nm) ?? zero();
      const f = funnel.get(nm) ?? null;
      const ad = adOf.get(nm) ?? 0;
      for (const k of SUM_KEYS) tot[k] += s[k];
      totAd += ad;
      if (f) {
        ft.any = true;
        ft.open += f.open; ft.cart += f.cart; ft.orders += f.orders; ft.buyouts += f.buyouts; ft.buyout_sum += f.buyout_sum; ft.cancels += f.cancels; ft.avg += f.avg ?? 0;
      }
      const stocks = f?.stocks ?? (c?.stocks === null || c?.stocks === undefined ? null : Number(c.stocks));
      if (stocks !== null) { ft.anyStock = true; ft.stocks += stocks; }
      list.push({
        nmID: nm,
        title: c?.title ?? '',
        vendorCode: c?.vendor_code ?? '',
        brand: c?.brand ?? '',
        photo: c?.photo ?? null,
        ...this.columns(s, ad, f ? { ...f, avg: f.avg } : null, stocks),
      });
    }
    const totalsFunnel = ft.any ? { open: ft.open, cart: ft.cart, orders: ft.orders, buyouts: ft.buyouts, buyout_sum: ft.buyout_sum, cancels: ft.cancels, avg: Math.round(ft.avg * 100) / 100, stocks: null } : null;
    const totals: WbTotals = { cards: list.length, ...this.columns(tot, totAd, totalsFunnel, ft.anyStock ? ft.stocks : null) };
    return { configured: true, dateFrom, dateTo, list, totals, funnel_period: period, sync: await this.sync.state() };
  }

  /** The columns of a card (or of the totals) from its sums (kopecks), ad spend and funnel. */
  private columns(s: DailySum, ad: number, f: FunnelSum | null, stocks: number | null): Omit<WbReportItem, 'nmID' | 'title' | 'vendorCode' | 'brand' | 'photo'> {
    const selectedPeriod = {
      buyoutsSumRub: f ? rub(f.buyout_sum) : null,
      openCardCount: f ? f.open : null,
      addToCartCount: f ? f.cart : null,
      ordersCount: f ? f.orders : null,
      buyoutsCount: f ? f.buyouts : null,
      avgOrdersCountPerDay: f ? f.avg : null,
      cancelCount: f ? f.cancels : null,
    };
    return {
      stocks,
      ...selectedPeriod,
      selectedPeriod,
      sell: { retail_price: avgRub(s.price_sum, s.sales), count: s.sales, retail_amount: rub(s.sales_sum) },
      return: { retail_price: avgRub(s.ret_price_sum, s.returns), count: s.returns, retail_amount: rub(s.returns_sum) },
      ppvz_for_pay: rub(s.ppvz),
      delivery_rub: rub(s.delivery_rub),
      delivery: { count_delivury: s.deliveries, count_return: s.returns_delivered, percent_return: pct(s.returns_delivered, s.deliveries), amount: rub(s.delivery_rub), return: rub(s.return_logistics) },
      storage_fee: rub(s.storage_fee),
      penalty: rub(s.penalty),
      percent: { sell: pct(s.sales, s.sales + s.returns), return_item: pct(s.returns, s.sales) },
      ad: rub(ad),
    };
  }

  /** The stored funnel period overlapping [from, to] most (ties: the one closest in length, then the newest). */
  private async funnelPeriod(from: string, to: string): Promise<{ dateFrom: string; dateTo: string } | null> {
    const periods = (await this.db.query('SELECT DISTINCT date_from, date_to FROM wb_funnel')) as Array<{ date_from: string; date_to: string }>;
    let best: { dateFrom: string; dateTo: string; overlap: number; diff: number } | null = null;
    const len = wbDaysBetween(from, to);
    for (const p of periods) {
      const a = p.date_from > from ? p.date_from : from;
      const b = p.date_to < to ? p.date_to : to;
      if (a > b) continue;
      const overlap = wbDaysBetween(a, b) + 1;
      const diff = Math.abs(wbDaysBetween(p.date_from, p.date_to) - len);
      if (!best || overlap > best.overlap || (overlap === best.overlap && (diff < best.diff || (diff === best.diff && p.date_to > best.dateTo)))) best = { dateFrom: p.date_from, dateTo: p.date_to, overlap, diff };
    }
    return best ? { dateFrom: best.dateFrom, dateTo: best.dateTo } : null;
  }

  @Rpc('wb.Report.getItemChart', {
    role: Role.user,
    input: WbItemChartInput,
    summary: "{nmID, dateFrom, dateTo}: a card's daily series for its chart: {days: [{day, time, orders, buyouts, returns, ad, price, price_output}]} (every day of the range; 404 'Card not found' for a card the tables do not know)",
  })
  async getItemChart(args: WbItemChartArgs): Promise<WbItemChart | NotConfigured> {
    if (!this.sync.configured) return NOT_CONFIGURED;
    const title = await this.cardTitle(args.nmID);
    const rows = (await this.db.query('SELECT day, orders, sales, returns, price_sum, sales_sum FROM wb_daily WHERE nm_id = ? AND day >= ? AND day <= ?', [args.nmID, args.dateFrom, args.dateTo])) as Array<Record<string, Num>>;
    const ads = (await this.db.query('SELECT day, amount FROM wb_ad_daily WHERE nm_id = ? AND day >= ? AND day <= ?', [args.nmID, args.dateFrom, args.dateTo])) as Array<{ day: string; amount: Num }>;
    const byDay = new Map(rows.map((r) => [String(r.day), r]));
    const adDay = new Map(ads.map((r) => [r.day, N(r.amount)]));
    const days: WbChartDay[] = [];
    for (let d = args.dateFrom, i = 0; d <= args.dateTo && i <= 400; d = wbAddDays(d, 1), i++) {
      const r = byDay.get(d);
      const sales = N(r?.sales);
      days.push({
        day: d,
        time: Date.parse(`${d}T00:00:00Z`),
        orders: N(r?.orders),
        buyouts: sales,
        returns: N(r?.returns),
        ad: rub(adDay.get(d) ?? 0),
        price: sales > 0 ? avgRub(N(r?.price_sum), sales) : null,
        price_output: sales > 0 ? avgRub(N(r?.sales_sum), sales) : null,
      });
    }
    return { configured: true, nmID: args.nmID, title, dateFrom: args.dateFrom, dateTo: args.dateTo, days };
  }

  /** The card's title; 404 when the tables know nothing of it. */
  async cardTitle(nmID: number): Promise<string> {
    const c = (await this.db.query('SELECT title FROM wb_cards WHERE nm_id = ?', [nmID])) as Array<{ title: string }>;
    if (c.length) return c[0].title;
    const any = (await this.db.query('SELECT 1 AS x FROM wb_daily WHERE nm_id = ? LIMIT 1', [nmID])) as unknown[];
    if (!any.length) throw new AppError(HttpStatus.NOT_FOUND, WB_MSG.cardNotFound, 'empty');
    return '';
  }

  @Rpc('wb.Statistic.getDetailOrders', {
    role: Role.user,
    input: WbOrdersInput,
    summary: '{dateFrom, dateTo, nmID?, p_?, limit? (20)}: the finance report rows (001 §3 order row: nm_id, delivery_rub, return_amount, ppvz_for_pay, doc_type_name, …) of the range, newest first: {list, count}',
  })
  async getDetailOrders(args: WbOrdersArgs): Promise<{ list: WbOrderRow[]; count: number; page: number; limit: number } | NotConfigured> {
    if (!this.sync.configured) return NOT_CONFIGURED;
    const limit = args.limit ?? WB_ORDERS_PAGE;
    const page = args.p_ ?? 1;
    const where = `day >= ? AND day <= ?${args.nmID ? ' AND nm_id = ?' : ''}`;
    const params: unknown[] = [args.dateFrom, args.dateTo, ...(args.nmID ? [args.nmID] : [])];
    const [c] = (await this.db.query(`SELECT COUNT(*) AS n FROM wb_finance WHERE ${where}`, params)) as Array<{ n: Num }>;
    const rows = (await this.db.query(`SELECT * FROM wb_finance WHERE ${where} ORDER BY day DESC, rrd_id DESC LIMIT ? OFFSET ?`, [...params, limit, (page - 1) * limit])) as Array<Record<string, Num>>;
    return {
      count: N(c.n), page, limit,
      list: rows.map((r) => ({
        rrd_id: N(r.rrd_id), nm_id: N(r.nm_id), doc_type_name: String(r.doc_type_name ?? ''), supplier_oper_name: String(r.supplier_oper_name ?? ''), quantity: N(r.quantity),
        retail_price: rub(N(r.retail_price)), retail_amount: rub(N(r.retail_amount)), ppvz_for_pay: rub(N(r.ppvz_for_pay)), delivery_rub: rub(N(r.delivery_rub)),
        delivery_amount: N(r.delivery_amount), return_amount: N(r.return_amount), storage_fee: rub(N(r.storage_fee)),
        sale_dt: r.sale_day === null ? null : String(r.sale_day), order_dt: r.order_day === null ? null : String(r.order_day), rr_dt: String(r.rr_day),
      })),
    };
  }

  @Rpc('wb.AD.get', {
    role: Role.user,
    input: WbAdInput,
    summary: '{dateFrom, dateTo}: the adverts with spend in the range (001 §3 advert: amount, nms): {list: [{advertId, name, type, status, nms, amount}], total}',
  })
  async getAdverts(args: WbRangeArgs): Promise<{ list: WbAdvert[]; total: number } | NotConfigured> {
    if (!this.sync.configured) return NOT_CONFIGURED;
    const spend = (await this.db.query('SELECT advert_id, SUM(amount) AS amount, MAX(camp_name) AS camp FROM wb_ad_spend WHERE day >= ? AND day <= ? GROUP BY advert_id', [args.dateFrom, args.dateTo])) as Array<{ advert_id: Num; amount: Num; camp: string | null }>;
    const adverts = new Map(((await this.db.query('SELECT advert_id, name, type, status, nms FROM wb_adverts')) as Array<{ advert_id: Num; name: string; type: number | null; status: number | null; nms: string | null }>).map((a) => [N(a.advert_id), a]));
    const list = spend.map((s) => {
      const a = adverts.get(N(s.advert_id));
      return { advertId: N(s.advert_id), name: a?.name || s.camp || '', type: a?.type ?? null, status: a?.status ?? null, nms: a?.nms ? (JSON.parse(a.nms) as number[]) : [], amount: rub(N(s.amount)) };
    }).sort((a, b) => b.amount - a.amount || a.advertId - b.advertId);
    return { list, total: rub(spend.reduce((t, s) => t + N(s.amount), 0)) };
  }
}

export type { WbSyncState };
