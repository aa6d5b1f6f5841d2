/**
 * The marketplace sync (docs/wb.md "Sync"): pulls cards, the finance report, the sales funnel and ad
 * spend of a range from the Wildberries seller APIs (src/core/outside/wb.client.ts) into the console's
 * tables, so the /wb page reads the database, never the marketplace.
 *
 * - One sync at a time across instances (lease `wb-sync`); a second call for the same range on this
 *   instance joins the running one, another range is refused (409).
 * - A sync of the same range that ended well less than WB_CACHE_TTL_S (600 s, 001 §9) ago is answered
 *   from the wb_syncs table without asking the marketplace (a restart or a second instance too);
 *   `force: 1` pulls again.
 * - The four parts run one after another; a part that fails is named in `errors` and the others are
 *   stored; every part failing answers the first failure. The tables keep the last good data, and
 *   the page says when it was synced and that the last sync failed (stale with its time).
 * - After the finance rows, the per-card per-day aggregates (wb_daily) are rebuilt for the days the
 *   rows touched (sales by sale day, orders by order day); after the ad spend, wb_ad_daily for the
 *   range; after each, the running totals of the months touched (wb-cumulative.ts), in the same
 *   transaction.
 */
import { HttpStatus, Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../../config/config.js';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { NOT_CONFIGURED, type NotConfigured } from '../../../contracts/outside.js';
import { Role } from '../../../contracts/roles.js';
import {
  WB_CACHE_TTL_S, WB_DOC_RETURN, WB_DOC_SALE, WB_MSG, wbAddDays, WbSyncInput, wbToday,
  type WbSyncArgs, type WbSyncResult, type WbSyncState,
} from '../../../contracts/wb.js';
import { AppError } from '../../../core/errors.js';
import { LeaseService } from '../../../core/lease.service.js';
import { OutsideError } from '../../../core/outside/outside-error.js';
import { WildberriesClient, type WbCallOptions } from '../../../core/outside/wb.client.js';
import type { WbFinanceRow } from '../../../core/outside/wb.wire.js';
import { Rpc, type RpcContext } from '../../../core/rpc/rpc.decorator.js';
import { rebuildCumulative } from './wb-cumulative.js';
import { WbAdDailyEntity, WbAdSpendEntity, WbAdvertEntity, WbCardEntity, WbDailyEntity, WbFinanceEntity, WbFunnelEntity } from '../wb.entities.js';

export const WB_SYNC_LEASE = 'wb-sync';
export const WB_SYNC_WORKER = 'wb-sync';
const LEASE_MS = 6 * 3_600_000;
/** Rows per INSERT statement. */
const CHUNK = 500;
/** The funnel answers the last 365 days only. */
const FUNNEL_DAYS = 365;

@Injectable()
export class WbSyncService {
  private readonly log = new Logger('WbSync');
  private running: { key: string; run: Promise<WbSyncResult> } | null = null;

  constructor(readonly client: WildberriesClient, @InjectDataSource() readonly db: DataSource, private readonly lease: LeaseService, @Inject(APP_CONFIG) private readonly cfg: AppConfig) {}

  get configured(): boolean {
    return this.client.configured;
  }

  @Rpc('wb.sync', {
    role: Role.admin,
    write: true,
    input: WbSyncInput,
    summary: '{dateFrom, dateTo, force?}: pulls cards, finance rows, the sales funnel and ad spend of the range from the Wildberries seller APIs into the tables (paced: the finance report one call a minute) and answers {cards, finance_rows, funnel, adverts, ad_rows, errors, cached}; the same range synced within 600 s is answered without calling (force: 1 pulls again); {configured: false} without WB_TOKEN; 409 while another range syncs',
  })
  async rpcSync(args: WbSyncArgs, _ctx?: RpcContext): Promise<WbSyncResult | NotConfigured> {
    if (!this.configured) return NOT_CONFIGURED;
    return this.sync(args.dateFrom, args.dateTo, { force: args.force === 1 });
  }

  /** The scheduled sync: the last WB_SYNC_DAYS days up to today; nothing without a token; null when another instance holds the lease. */
  async scheduledSync(): Promise<WbSyncResult | null> {
    if (!this.configured) return null;
    const to = wbToday();
    const from = wbAddDays(to, -(this.cfg.wb.syncDays - 1));
    try {
      return await this.sync(from, to, { force: true });
    } catch (e) {
      if (e instanceof AppError && e.httpStatus === HttpStatus.CONFLICT) return null;
      throw e;
    }
  }

  async sync(dateFrom: string, dateTo: string, opts: { force?: boolean } = {}): Promise<WbSyncResult> {
    const key = `${dateFrom}..${dateTo}`;
    if (this.running) {
      if (this.running.key === key) return this.running.run;
      throw new AppError(HttpStatus.CONFLICT, WB_MSG.syncRunning);
    }
    if (!opts.force) {
      const cached = await this.recent(dateFrom, dateTo);
      if (cached) return cached;
    }
    if (!(await this.lease.acquire(WB_SYNC_LEASE, LEASE_MS))) throw new AppError(HttpStatus.CONFLICT, WB_MSG.syncRunning);
    if (this.running) {
      // started meanwhile on this instance
      const r = this.running as { key: string; run: Promise<WbSyncResult> };
      if (r.key === key) return r.run;
      throw new AppError(HttpStatus.CONFLICT, WB_MSG.syncRunning);
    }
    const run = this.pull(dateFrom, dateTo).finally(() => {
      this.running = null;
      void this.lease.release(WB_SYNC_LEASE).catch(() => undefined);
    });
    this.running = { key, run };
    return run;
  }

  /** A sync of this range that ended well within the TTL (the answer cache of the whole pull, in the database). */
  private async recent(dateFrom: string, dateTo: string): Promise<WbSyncResult | null> {
    const rows = (await this.db.query(
      "SELECT result, finished FROM wb_syncs WHERE date_from = ? AND date_to = ? AND status = 'ok' AND finished > ? ORDER BY finished DESC LIMIT 1",
      [dateFrom, dateTo, Date.now() - WB_CACHE_TTL_S * 1000],
    )) as Array<{ result: string | null }>;
    if (!rows.length || !rows[0].result) return null;
    return { ...(JSON.parse(rows[0].result) as WbSyncResult), cached: true };
  }

  /** The last sync state the page shows. */
  async state(): Promise<WbSyncState> {
    const good = (await this.db.query("SELECT date_from, date_to, finished FROM wb_syncs WHERE status IN ('ok', 'partial') ORDER BY finished DESC LIMIT 1")) as Array<{ date_from: string; date_to: string; finished: string | number }>;
    const lastGood = good.length ? Number(good[0].finished) : 0;
    const bad = (await this.db.query("SELECT error, finished FROM wb_syncs WHERE status IN ('failed', 'partial') AND finished >= ? ORDER BY finished DESC LIMIT 1", [lastGood])) as Array<{ error: string | null }>;
    return {
      synced: good.length ? new Date(lastGood).toISOString() : null,
      dateFrom: good[0]?.date_from ?? null,
      dateTo: good[0]?.date_to ?? null,
      stale: bad.length > 0,
      error: bad[0]?.error ?? null,
      running: this.running !== null,
    };
  }

  /** The version of the data (the last sync's end): derived answers (the forecast) are kept per version. */
  async version(): Promise<number> {
    const r = (await this.db.query('SELECT MAX(finished) AS v FROM wb_syncs')) as Array<{ v: string | number | null }>;
    return Number(r[0]?.v ?? 0);
  }

  // -------------------------------------------------------------------------------------------

  private async pull(dateFrom: string, dateTo: string): Promise<WbSyncResult> {
    const started = Date.now();
    const ins = await this.db.query('INSERT INTO wb_syncs (date_from, date_to, started, status) VALUES (?, ?, ?, ?)', [dateFrom, dateTo, started, 'running']);
    const id = await this.syncId(ins, started);
    const opts: WbCallOptions = { patient: true };
    const res: WbSyncResult = { configured: true, dateFrom, dateTo, cached: false, cards: 0, finance_rows: 0, funnel: 0, adverts: 0, ad_rows: 0, errors: [], finished: '', duration_ms: 0 };
    const failures: unknown[] = [];
    const part = async (what: string, fn: () => Promise<void>) => {
      try {
        await fn();
      } catch (e) {
        failures.push(e);
        res.errors.push(`${what}: ${(e as Error).message}`);
        this.log.warn(`${what}: ${(e as Error).message}`);
      }
    };
    await part('Cards', async () => { res.cards = await this.pullCards(opts); });
    await part('Finance report', async () => { res.finance_rows = await this.pullFinance(dateFrom, dateTo, opts); });
    await part('Sales funnel', async () => { res.funnel = await this.pullFunnel(dateFrom, dateTo, opts); });
    await part('Ad spend', async () => {
      const r = await this.pullAds(dateFrom, dateTo, opts);
      res.adverts = r.adverts;
      res.ad_rows = r.rows;
    });
    const finished = Date.now();
    res.finished = new Date(finished).toISOString();
    res.duration_ms = finished - started;
    const status = failures.length === 0 ? 'ok' : failures.length === 4 ? 'failed' : 'partial';
    await this.db.query('UPDATE wb_syncs SET finished = ?, status = ?, error = ?, result = ? WHERE Id = ?', [finished, status, res.errors.length ? res.errors.join(' | ').slice(0, 4000) : null, JSON.stringify(res), id]);
    if (status === 'failed') {
      const first = failures[0];
      throw first instanceof OutsideError || first instanceof AppError ? first : new AppError(HttpStatus.BAD_GATEWAY, res.errors[0], 'http');
    }
    return res;
  }

  private async syncId(ins: unknown, started: number): Promise<number> {
    const direct = (ins as { insertId?: number })?.insertId;
    if (direct) return Number(direct);
    const r = (await this.db.query("SELECT MAX(Id) AS id FROM wb_syncs WHERE started = ? AND status = 'running'", [started])) as Array<{ id: number }>;
    return Number(r[0].id);
  }

  /** Cards: every card replaces its row (stocks kept: they come from the funnel). */
  private async pullCards(opts: WbCallOptions): Promise<number> {
    const cards = await this.client.allCards(opts);
    const now = Date.now();
    const seen = new Set<number>();
    const rows = cards.filter((c) => !seen.has(c.nmID) && seen.add(c.nmID)).map((c) => ({
      nm_id: c.nmID,
      imt_id: c.imtID ?? null,
      vendor_code: c.vendorCode.slice(0, 100),
      brand: c.brand.slice(0, 190),
      title: c.title.slice(0, 190),
      photo: (c.photos?.[0]?.big ?? c.photos?.[0]?.c246x328 ?? null)?.slice(0, 500) ?? null,
      updated_at: c.updatedAt ?? null,
      ts_sync: now,
    }));
    await this.db.transaction(async (m) => {
      for (let i = 0; i < rows.length; i += CHUNK) {
        const part = rows.slice(i, i + CHUNK);
        const ids = part.map((r) => r.nm_id);
        const stocks = new Map<number, number | null>(((await m.query(`SELECT nm_id, stocks FROM wb_cards WHERE nm_id IN (${ids.map(() => '?').join(',')})`, ids)) as Array<{ nm_id: string | number; stocks: number | null }>).map((r) => [Number(r.nm_id), r.stocks]));
        await m.query(`DELETE FROM wb_cards WHERE nm_id IN (${ids.map(() => '?').join(',')})`, ids);
        await m.getRepository(WbCardEntity).insert(part.map((r) => ({ ...r, stocks: stocks.get(r.nm_id) ?? null })));
      }
    });
    return rows.length;
  }

  /** The finance report of the range, stored page by page (by rrd_id), then the daily aggregates of the days touched. */
  private async pullFinance(dateFrom: string, dateTo: string, opts: WbCallOptions): Promise<number> {
    let lo: string | null = null;
    let hi: string | null = null;
    const span = (d: string | null) => {
      if (!d) return;
      if (lo === null || d < lo) lo = d;
      if (hi === null || d > hi) hi = d;
    };
    const n = await this.client.financeReport(dateFrom, dateTo, async (page) => {
      const rows = page.map((r) => financeRow(r, dateFrom));
      for (const r of rows) { span(r.day); span(r.order_day); }
      await this.storeFinance(rows);
    }, opts);
    if (lo !== null && hi !== null) await this.rebuildDaily(lo, hi);
    return n;
  }

  /** Replaces finance rows by rrd_id (the same row read again is the same row). */
  async storeFinance(rows: ReturnType<typeof financeRow>[]): Promise<void> {
    await this.db.transaction(async (m) => {
      for (let i = 0; i < rows.length; i += CHUNK) {
        const part = rows.slice(i, i + CHUNK);
        const ids = part.map((r) => r.rrd_id);
        await m.query(`DELETE FROM wb_finance WHERE rrd_id IN (${ids.map(() => '?').join(',')})`, ids);
        await m.getRepository(WbFinanceEntity).insert(part);
      }
    });
  }

  /**
   * Rebuilds wb_daily for [from, to] from every stored finance row: sales, returns, their sums and
   * prices, before-payout (returns negative), logistics, storage, penalties by the row's day; orders
   * (pieces sold, by the day they were ordered) by order day.
   */
  async rebuildDaily(from: string, to: string): Promise<number> {
    const byDay = (await this.db.query(
      `SELECT nm_id, day,
        SUM(CASE WHEN doc_type_name = ? THEN quantity ELSE 0 END) AS sales,
        SUM(CASE WHEN doc_type_name = ? THEN quantity ELSE 0 END) AS returns,
        SUM(CASE WHEN doc_type_name = ? THEN retail_amount ELSE 0 END) AS sales_sum,
        SUM(CASE WHEN doc_type_name = ? THEN retail_amount ELSE 0 END) AS returns_sum,
        SUM(CASE WHEN doc_type_name = ? THEN retail_price * quantity ELSE 0 END) AS price_sum,
        SUM(CASE WHEN doc_type_name = ? THEN retail_price * quantity ELSE 0 END) AS ret_price_sum,
        SUM(CASE WHEN doc_type_name = ? THEN -ABS(ppvz_for_pay) ELSE ppvz_for_pay END) AS ppvz,
        SUM(delivery_rub) AS delivery_rub,
        SUM(CASE WHEN return_amount > 0 THEN delivery_rub ELSE 0 END) AS return_logistics,
        SUM(delivery_amount) AS deliveries,
        SUM(return_amount) AS returns_delivered,
        SUM(storage_fee) AS storage_fee,
        SUM(penalty) AS penalty
       FROM wb_finance WHERE day >= ? AND day <= ? GROUP BY nm_id, day`,
      [WB_DOC_SALE, WB_DOC_RETURN, WB_DOC_SALE, WB_DOC_RETURN, WB_DOC_SALE, WB_DOC_RETURN, WB_DOC_RETURN, from, to],
    )) as Array<Record<string, string | number | null>>;
    const orders = (await this.db.query(
      'SELECT nm_id, order_day AS day, SUM(quantity) AS orders FROM wb_finance WHERE order_day >= ? AND order_day <= ? AND doc_type_name = ? GROUP BY nm_id, order_day',
      [from, to, WB_DOC_SALE],
    )) as Array<{ nm_id: string | number; day: string; orders: string | number }>;
    const rows = new Map<string, Record<string, number | string>>();
    const blank = (nm: number, day: string) => ({ nm_id: nm, day, orders: 0, sales: 0, returns: 0, sales_sum: 0, returns_sum: 0, price_sum: 0, ret_price_sum: 0, ppvz: 0, delivery_rub: 0, return_logistics: 0, deliveries: 0, returns_delivered: 0, storage_fee: 0, penalty: 0 });
    for (const r of byDay) {
      const nm = Number(r.nm_id);
      const row: Record<string, number | string> = blank(nm, String(r.day));
      for (const k of Object.keys(row)) if (k !== 'nm_id' && k !== 'day' && k !== 'orders') row[k] = Number(r[k] ?? 0);
      rows.set(`${nm}|${r.day}`, row);
    }
    for (const r of orders) {
      const nm = Number(r.nm_id);
      const k = `${nm}|${r.day}`;
      const row = rows.get(k) ?? blank(nm, r.day);
      row.orders = Number(r.orders);
      rows.set(k, row);
    }
    const list = [...rows.values()];
    const [m0, m1] = [from.slice(0, 7), to.slice(0, 7)];
    await this.db.transaction(async (m) => {
      await m.query('DELETE FROM wb_daily WHERE day >= ? AND day <= ?', [from, to]);
      for (let i = 0; i < list.length; i += CHUNK) await m.getRepository(WbDailyEntity).insert(list.slice(i, i + CHUNK));
      await rebuildCumulative((sql, params) => m.query(sql, params), m0, m1);
    });
    return list.length;
  }

  /** The funnel of the range (clamped to the last 365 days it answers), stored per card and period; stocks go to the cards. */
  private async pullFunnel(dateFrom: string, dateTo: string, opts: WbCallOptions): Promise<number> {
    const oldest = wbAddDays(wbToday(), -(FUNNEL_DAYS - 1));
    if (dateTo < oldest) throw new AppError(HttpStatus.UNPROCESSABLE_ENTITY, `the funnel answers the last ${FUNNEL_DAYS} days only`);
    const start = dateFrom < oldest ? oldest : dateFrom;
    const products = await this.client.funnel(start, dateTo, opts);
    const now = Date.now();
    const seen = new Set<number>();
    const rows = products.filter((p) => !seen.has(p.product.nmId) && seen.add(p.product.nmId)).map((p) => {
      const s = p.statistic.selected;
      return {
        nm_id: p.product.nmId, date_from: dateFrom, date_to: dateTo,
        open_count: s.openCount, cart_count: s.cartCount, order_count: s.orderCount, order_sum: s.orderSum,
        buyout_count: s.buyoutCount, buyout_sum: s.buyoutSum, cancel_count: s.cancelCount,
        avg_orders_per_day: s.avgOrdersCountPerDay, stocks: p.product.stocks, ts: now,
      };
    });
    await this.db.transaction(async (m) => {
      await m.query('DELETE FROM wb_funnel WHERE date_from = ? AND date_to = ?', [dateFrom, dateTo]);
      for (let i = 0; i < rows.length; i += CHUNK) await m.getRepository(WbFunnelEntity).insert(rows.slice(i, i + CHUNK));
      for (const p of products) {
        if (p.product.stocks === null) continue;
        await m.query('UPDATE wb_cards SET stocks = ? WHERE nm_id = ?', [p.product.stocks, p.product.nmId]);
      }
      // cards the content API did not list (archived) still get a row with the funnel's title
      const known = new Set(((await m.query('SELECT nm_id FROM wb_cards')) as Array<{ nm_id: string | number }>).map((r) => Number(r.nm_id)));
      const missing = products.filter((p) => !known.has(p.product.nmId));
      for (let i = 0; i < missing.length; i += CHUNK) {
        await m.getRepository(WbCardEntity).insert(missing.slice(i, i + CHUNK).map((p) => ({
          nm_id: p.product.nmId, imt_id: null, vendor_code: p.product.vendorCode.slice(0, 100), brand: p.product.brandName.slice(0, 190), title: p.product.title.slice(0, 190), photo: null, stocks: p.product.stocks, updated_at: null, ts_sync: now,
        })));
      }
    });
    return rows.length;
  }

  /** Ad spend of the range and the adverts behind it; then the spend per card and day (each row split evenly over its advert's cards). */
  private async pullAds(dateFrom: string, dateTo: string, opts: WbCallOptions): Promise<{ rows: number; adverts: number }> {
    const spend = await this.client.adSpend(dateFrom, dateTo, opts);
    const ids = [...new Set(spend.map((s) => s.advertId))];
    const adverts = ids.length ? await this.client.adverts(ids, opts) : [];
    const now = Date.now();
    await this.db.transaction(async (m) => {
      await m.query('DELETE FROM wb_ad_spend WHERE day >= ? AND day <= ?', [dateFrom, dateTo]);
      const rows = spend.filter((s) => s.day >= dateFrom && s.day <= dateTo).map((s) => ({ advert_id: s.advertId, upd_num: s.updNum, upd_time: s.updTime.slice(0, 40), day: s.day, amount: s.updSum, camp_name: s.campName.slice(0, 190) }));
      for (let i = 0; i < rows.length; i += CHUNK) await m.getRepository(WbAdSpendEntity).insert(rows.slice(i, i + CHUNK));
      if (adverts.length) {
        const aids = adverts.map((a) => a.id);
        await m.query(`DELETE FROM wb_adverts WHERE advert_id IN (${aids.map(() => '?').join(',')})`, aids);
        await m.getRepository(WbAdvertEntity).insert(adverts.map((a) => ({
          advert_id: a.id, name: (a.settings?.name ?? '').slice(0, 190), type: a.type, status: a.status, nms: JSON.stringify([...new Set(a.nm_settings.map((n) => n.nm_id))]), ts: now,
        })));
      }
    });
    await this.rebuildAdDaily(dateFrom, dateTo);
    return { rows: spend.length, adverts: adverts.length };
  }

  /** wb_ad_daily for [from, to]: each spend row split evenly (to the kopeck, the remainder to the first cards) over its advert's cards. */
  async rebuildAdDaily(from: string, to: string): Promise<void> {
    const spend = (await this.db.query('SELECT advert_id, day, amount FROM wb_ad_spend WHERE day >= ? AND day <= ?', [from, to])) as Array<{ advert_id: string | number; day: string; amount: string | number }>;
    const nmsOf = new Map<number, number[]>(((await this.db.query('SELECT advert_id, nms FROM wb_adverts')) as Array<{ advert_id: string | number; nms: string | null }>).map((r) => [Number(r.advert_id), r.nms ? (JSON.parse(r.nms) as number[]) : []]));
    const acc = new Map<string, number>();
    for (const s of spend) {
      const nms = nmsOf.get(Number(s.advert_id)) ?? [];
      if (!nms.length) continue;
      const amount = Number(s.amount);
      const each = Math.trunc(amount / nms.length);
      let rest = amount - each * nms.length;
      for (const nm of nms) {
        const k = `${nm}|${s.day}`;
        const extra = rest > 0 ? 1 : rest < 0 ? -1 : 0;
        rest -= extra;
        acc.set(k, (acc.get(k) ?? 0) + each + extra);
      }
    }
    const rows = [...acc].map(([k, amount]) => {
      const [nm, day] = k.split('|');
      return { nm_id: Number(nm), day, amount };
    });
    const [m0, m1] = [from.slice(0, 7), to.slice(0, 7)];
    await this.db.transaction(async (m) => {
      await m.query('DELETE FROM wb_ad_daily WHERE day >= ? AND day <= ?', [from, to]);
      for (let i = 0; i < rows.length; i += CHUNK) await m.getRepository(WbAdDailyEntity).insert(rows.slice(i, i + CHUNK));
      await rebuildCumulative((sql, params) => m.query(sql, params), m0, m1);
    });
  }
}

/** A finance row as stored: the day it counts on is its sale day, else the report's day (else the range's start). */
export function financeRow(r: WbFinanceRow, fallbackDay: string) {
  const rr = r.rr_dt ?? r.sale_dt ?? fallbackDay;
  return {
    rrd_id: r.rrd_id,
    nm_id: r.nm_id,
    doc_type_name: r.doc_type_name.slice(0, 64),
    supplier_oper_name: r.supplier_oper_name.slice(0, 128),
    quantity: Math.round(r.quantity),
    retail_price: r.retail_price,
    retail_amount: r.retail_amount,
    delivery_amount: Math.round(r.delivery_amount),
    return_amount: Math.round(r.return_amount),
    delivery_rub: r.delivery_rub,
    ppvz_for_pay: r.ppvz_for_pay,
    storage_fee: r.storage_fee,
    penalty: r.penalty,
    sale_day: r.sale_dt,
    order_day: r.order_dt,
    rr_day: rr,
    day: r.sale_dt ?? rr,
  };
}
