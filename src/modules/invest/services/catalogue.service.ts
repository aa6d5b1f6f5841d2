/**
 * The bonds catalogue, coupon schedules and rates in the database (docs/invest.md "Tables", "Refresh"):
 * what the refresh job writes and every screen reads. Screens never wait for the catalogue: it is
 * refreshed by the job; a bond a portfolio holds that the tables do not know yet (a fresh start, a
 * bond outside the catalogue) is read once on demand (`ensure`: BondBy, GetBondCoupons, GetLastPrices)
 * and kept fresh by the job afterwards.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { In, type DataSource, type Repository } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../../../config/config.js';
import { OutsideError } from '../../../core/outside/outside-error.js';
import { TbankClient, type TbankCallOptions } from '../../../core/outside/tbank.client.js';
import { RATE_FIGIS, type TbankBond, type TbankCoupon, type TbankLastPrice } from '../../../core/outside/tbank.wire.js';
import { bondYtm, countedCoupons, couponPercent, nanoOf, nextAndLast, type CouponRow } from '../calc/bond-math.js';
import type { BondRow, FiguresMemo, ViewContext } from '../calc/bond-view.js';
import { addDays, Decimal, num, todayIn, type Dec } from '../calc/decimal.js';
import { InvestBondEntity, InvestCouponEntity, InvestRateEntity } from '../invest.entities.js';

/** Rows per IN (...) list and per multi-row write. */
const CHUNK = 400;
/** The schedule is kept from two years back (the last coupon, the current period's start) to maturity. */
const COUPONS_BACK_DAYS = 730;
/** A bond without a maturity (perpetual) has its schedule read this far ahead. */
const COUPONS_AHEAD_DAYS = 365 * 50;
/** Bonds read on demand per screen call at most (the rest come with the job). */
export const ENSURE_MAX = 40;
/** Unknown bonds read one by one (BondBy) at most; more, or no catalogue yet: the catalogue is read instead (one call). */
const BOND_BY_AT_MOST = 3;
/** Coupons kept parsed in memory at most (about 200 bytes each). */
const SCHEDULE_CACHE_ROWS = 100_000;
/** Memoised figures kept at most (cleared past it). */
const MEMO_MAX = 50_000;

/** A raw row (numbers as strings from mysql2's bigint and double) with the entity's types. */
export function normaliseBond(r: InvestBondEntity): InvestBondEntity {
  const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    ...r,
    lot: Number(r.lot), coupon_in_year: Number(r.coupon_in_year), risk_level: Number(r.risk_level), amortization_flag: Number(r.amortization_flag),
    floating_coupon_flag: Number(r.floating_coupon_flag), perpetual_flag: Number(r.perpetual_flag), for_qual_investor_flag: Number(r.for_qual_investor_flag),
    liquidity_flag: Number(r.liquidity_flag), ytm_approx: Number(r.ytm_approx), in_catalogue: Number(r.in_catalogue),
    coupon_percent: n(r.coupon_percent), ytm: n(r.ytm), price_time: n(r.price_time), ts_update_info: n(r.ts_update_info), ts_update_coupon: n(r.ts_update_coupon),
    ts_update_price: n(r.ts_update_price), ts_change_coupon: n(r.ts_change_coupon),
  };
}

const chunks = <T>(list: T[], n = CHUNK): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += n) out.push(list.slice(i, i + n));
  return out;
};

/** A catalogue row from the broker's Bond (only the catalogue's own columns: prices and figures are kept). */
export function bondColumns(b: TbankBond, now: number, inCatalogue: 0 | 1): Partial<InvestBondEntity> {
  return {
    figi: b.figi,
    ticker: b.ticker.slice(0, 32),
    class_code: b.classCode.slice(0, 16),
    isin: b.isin.slice(0, 32),
    uid: b.uid.slice(0, 64),
    name: b.name.slice(0, 190),
    currency: b.currency.slice(0, 8),
    nominal: b.nominal?.value ?? null,
    nominal_currency: (b.nominal?.currency || b.currency).slice(0, 8),
    lot: b.lot,
    coupon_in_year: b.couponQuantityPerYear,
    maturity_date: b.maturityDate,
    placement_date: b.placementDate,
    call_date: b.callDate,
    risk_level: b.riskLevel,
    amortization_flag: b.amortizationFlag ? 1 : 0,
    floating_coupon_flag: b.floatingCouponFlag ? 1 : 0,
    perpetual_flag: b.perpetualFlag ? 1 : 0,
    for_qual_investor_flag: b.forQualInvestorFlag ? 1 : 0,
    liquidity_flag: b.liquidityFlag ? 1 : 0,
    aci_value: b.aciValue?.value ?? null,
    in_catalogue: inCatalogue,
    ts_update_info: now,
  };
}

const couponRowOf = (figi: string, e: TbankCoupon, fallbackCurrency: string): InvestCouponEntity => ({
  figi,
  number: e.couponNumber,
  coupon_date: e.couponDate!,
  fix_date: e.fixDate,
  start_date: e.couponStartDate,
  end_date: e.couponEndDate,
  value: e.payOneBond?.value ?? '0',
  currency: (e.payOneBond?.currency || fallbackCurrency).slice(0, 8),
  coupon_type: e.couponType.slice(0, 24),
  period: e.couponPeriod,
});

const signature = (rows: CouponRow[]) =>
  rows.map((r) => [r.number, r.coupon_date, r.fix_date, r.start_date, r.end_date, new Decimal(r.value).toFixed(), r.currency, r.coupon_type, r.period].join('|')).sort().join('\n');

@Injectable()
export class InvestCatalogueService {
  private readonly log = new Logger('InvestCatalogue');
  /** On-demand reads in flight per figi (single-flight across concurrent screens). */
  private readonly flights = new Map<string, Promise<void>>();
  /** Parsed schedules by figi, with the ts_change_coupon they were read under (least recently used first). */
  private readonly schedules = new Map<string, { changed: number | null; rows: CouponRow[] }>();
  private cachedRows = 0;
  private catalogueFlight: Promise<{ count: number; dropped: number }> | null = null;
  /** Figures (coupon_percent, yield) by their inputs: a page computes a bond's yield once per price, schedule and day. */
  private readonly memo: FiguresMemo = new Map();

  constructor(
    @InjectRepository(InvestBondEntity) readonly bonds: Repository<InvestBondEntity>,
    @InjectRepository(InvestCouponEntity) readonly coupons: Repository<InvestCouponEntity>,
    @InjectRepository(InvestRateEntity) private readonly rateRows: Repository<InvestRateEntity>,
    @InjectDataSource() readonly db: DataSource,
    readonly client: TbankClient,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {}

  /** Today in the console's time zone (TZ). */
  today(): string {
    return todayIn(this.cfg.timeZone);
  }

  async context(): Promise<ViewContext> {
    if (this.memo.size > MEMO_MAX) this.memo.clear();
    return { today: this.today(), rates: await this.rates(), memo: this.memo };
  }

  // -------------------------------------------------------------------------------------------
  // Reads

  /** Catalogue rows by figi (plain SQL: no entity hydration on the screens' path). */
  async rowsByFigi(figis: string[]): Promise<Map<string, InvestBondEntity>> {
    const out = new Map<string, InvestBondEntity>();
    for (const part of chunks([...new Set(figis.filter(Boolean))])) {
      const rows = (await this.db.query(`SELECT * FROM invest_bonds WHERE figi IN (${part.map(() => '?').join(', ')})`, part)) as InvestBondEntity[];
      for (const r of rows) out.set(r.figi, normaliseBond(r));
    }
    return out;
  }

  /** By ticker (upper case); several rows of one ticker (boards): the one in the catalogue, then the latest. */
  async rowsByTicker(tickers: string[]): Promise<Map<string, InvestBondEntity>> {
    const out = new Map<string, InvestBondEntity>();
    for (const part of chunks([...new Set(tickers.filter(Boolean).map((t) => t.toUpperCase()))])) {
      const rows = (await this.db.query(
        `SELECT * FROM invest_bonds WHERE ticker IN (${part.map(() => '?').join(', ')}) ORDER BY in_catalogue DESC, ts_update_info DESC, figi ASC`,
        part,
      )) as InvestBondEntity[];
      for (const r of rows) if (!out.has(r.ticker.toUpperCase())) out.set(r.ticker.toUpperCase(), normaliseBond(r));
    }
    return out;
  }

  /**
   * The schedules of these bonds, by date. Kept in memory per bond under the row's `ts_change_coupon`
   * (the time its schedule last changed, on any instance): a row whose schedule did not change since is
   * answered without reading its coupons again; values come parsed (decimal and number). `remember:
   * false` (the job's pass over the whole catalogue) reads without filling the cache.
   */
  async couponsOf(rows: Iterable<Pick<InvestBondEntity, 'figi' | 'ts_change_coupon'>>, opts: { remember?: boolean } = {}): Promise<Map<string, CouponRow[]>> {
    const out = new Map<string, CouponRow[]>();
    const missing: Array<Pick<InvestBondEntity, 'figi' | 'ts_change_coupon'>> = [];
    for (const r of rows) {
      if (!r.figi || out.has(r.figi)) continue;
      const hit = this.schedules.get(r.figi);
      if (hit && hit.changed === (r.ts_change_coupon ?? null)) {
        this.schedules.delete(r.figi); // most recently used last
        this.schedules.set(r.figi, hit);
        out.set(r.figi, hit.rows);
      } else missing.push(r);
    }
    for (const part of chunks(missing)) {
      const read = new Map<string, CouponRow[]>(part.map((r) => [r.figi, []]));
      const list = (await this.db.query(
        `SELECT figi, number, coupon_date, fix_date, start_date, end_date, value, currency, coupon_type, period FROM invest_coupons WHERE figi IN (${part.map(() => '?').join(', ')}) ORDER BY figi, coupon_date, number`,
        part.map((r) => r.figi),
      )) as Array<CouponRow & { figi: string }>;
      for (const c of list) {
        const value = new Decimal(c.value);
        read.get(c.figi)?.push({
          number: Number(c.number), coupon_date: c.coupon_date, fix_date: c.fix_date, start_date: c.start_date, end_date: c.end_date, value: c.value,
          currency: c.currency, coupon_type: c.coupon_type, period: c.period === null ? null : Number(c.period), dec: value, valueNum: num(value), nano: nanoOf(value),
        });
      }
      for (const r of part) {
        const rowsOf = read.get(r.figi)!;
        out.set(r.figi, rowsOf);
        if (opts.remember !== false) this.remember(r.figi, r.ts_change_coupon ?? null, rowsOf);
      }
    }
    return out;
  }

  private forget(figi: string) {
    const old = this.schedules.get(figi);
    if (old) this.cachedRows -= old.rows.length;
    this.schedules.delete(figi);
  }

  /** Keeps a schedule; the least recently used go past SCHEDULE_CACHE_ROWS coupons in all. */
  private remember(figi: string, changed: number | null, rows: CouponRow[]) {
    this.forget(figi);
    this.schedules.set(figi, { changed, rows });
    this.cachedRows += rows.length;
    for (const [k, v] of this.schedules) {
      if (this.cachedRows <= SCHEDULE_CACHE_ROWS) break;
      this.schedules.delete(k);
      this.cachedRows -= v.rows.length;
    }
  }

  /** Rubles per unit of each currency the broker gave a rate for. */
  async rates(): Promise<Map<string, Dec>> {
    return new Map((await this.rateRows.find()).map((r) => [r.currency, new Decimal(r.rate)]));
  }

  async rateRowsList(): Promise<InvestRateEntity[]> {
    return this.rateRows.find({ order: { currency: 'ASC' } });
  }

  // -------------------------------------------------------------------------------------------
  // Writes (the job, and `ensure`)

  /** The catalogue answer: upserts every bond (in_catalogue 1); bonds missing from it are marked 0. */
  async saveCatalogue(list: TbankBond[], now: number): Promise<{ count: number; dropped: number }> {
    const seen = new Set<string>();
    const rows = list.filter((b) => b.figi && !seen.has(b.figi) && seen.add(b.figi)).map((b) => bondColumns(b, now, 1));
    for (const part of chunks(rows, 100)) await this.bonds.upsert(part as InvestBondEntity[], ['figi']);
    const runner = this.db.createQueryRunner();
    try {
      const r = await runner.query('UPDATE invest_bonds SET in_catalogue = 0 WHERE in_catalogue = 1 AND (ts_update_info IS NULL OR ts_update_info < ?)', [now], true);
      return { count: rows.length, dropped: r.affected ?? 0 };
    } finally {
      await runner.release();
    }
  }

  /** One bond read by BondBy (not in the catalogue answer: in_catalogue 0 unless it already is). */
  async saveBond(b: TbankBond, now: number): Promise<void> {
    const existing = await this.bonds.findOne({ where: { figi: b.figi }, select: { figi: true, in_catalogue: true } });
    await this.bonds.upsert([bondColumns(b, now, existing?.in_catalogue === 1 ? 1 : 0) as InvestBondEntity], ['figi']);
  }

  /** A bond's schedule as read now: replaced when it changed (ts_change_coupon), its read time kept either way. */
  async saveCoupons(figi: string, events: TbankCoupon[], now: number, currency: string): Promise<boolean> {
    const seen = new Set<number>();
    const fresh = events.filter((e) => e.couponDate && !seen.has(e.couponNumber) && seen.add(e.couponNumber)).map((e) => couponRowOf(figi, e, currency));
    const old = await this.coupons.find({ where: { figi } });
    const changed = signature(old) !== signature(fresh);
    if (changed) this.forget(figi);
    await this.db.transaction(async (m) => {
      if (changed) {
        await m.delete(InvestCouponEntity, { figi });
        for (const part of chunks(fresh, 200)) await m.insert(InvestCouponEntity, part);
        await m.update(InvestBondEntity, { figi }, { ts_update_coupon: now, ts_change_coupon: now });
      } else await m.update(InvestBondEntity, { figi }, { ts_update_coupon: now });
    });
    return changed;
  }

  /** Last prices: a row changes (ts_update_price) only when its price did. Answers the figis that changed. */
  async savePrices(prices: TbankLastPrice[], now: number): Promise<string[]> {
    const byFigi = new Map(prices.filter((p) => p.figi && p.price !== null).map((p) => [p.figi, p]));
    const rows = await this.rowsByFigi([...byFigi.keys()]);
    const changed: string[] = [];
    await this.db.transaction(async (m) => {
      for (const [figi, p] of byFigi) {
        const row = rows.get(figi);
        if (!row) continue;
        const same = row.last_price !== null && new Decimal(row.last_price).equals(p.price!);
        if (same) continue;
        await m.update(InvestBondEntity, { figi }, { last_price: p.price, price_time: p.time, ts_update_price: now });
        changed.push(figi);
      }
    });
    return changed;
  }

  /** The rubles rates from the currencies' last prices. */
  async saveRates(prices: TbankLastPrice[], now: number): Promise<void> {
    const byFigi = new Map(prices.map((p) => [p.figi, p]));
    for (const [currency, figi] of Object.entries(RATE_FIGIS)) {
      const p = byFigi.get(figi);
      if (!p?.price || new Decimal(p.price).lte(0)) continue;
      await this.rateRows.upsert([{ currency, rate: p.price, ts: now }], ['currency']);
    }
  }

  /**
   * The figures kept for the screener's sorts and filters (coupon_percent, ytm, next_coupon_date),
   * recomputed from the rows and schedules: after a refresh of prices or coupons, and daily as today
   * moves. `figis` undefined: every bond. Answers the rows changed.
   */
  async recompute(figis?: string[]): Promise<number> {
    const today = this.today();
    let changed = 0;
    const lists = figis ? chunks([...new Set(figis)]) : null;
    let offset = 0;
    for (;;) {
      let rows: InvestBondEntity[];
      if (lists) {
        const part = lists.shift();
        if (!part) break;
        rows = await this.bonds.find({ where: { figi: In(part) } });
      } else {
        rows = await this.bonds.find({ order: { figi: 'ASC' }, skip: offset, take: CHUNK });
        offset += CHUNK;
        if (!rows.length) break;
      }
      const coupons = await this.couponsOf(rows, { remember: !!figis });
      const updates: Array<[string, Partial<InvestBondEntity>]> = [];
      for (const r of rows) {
        const counted = countedCoupons(coupons.get(r.figi) ?? [], today);
        const known = r.ts_update_coupon !== null;
        const cp = known ? couponPercent(r, counted, today) : null;
        const y = known ? bondYtm(r, counted, today) : { ytm: null, approx: false };
        const next = nextAndLast(counted, today).next?.date ?? null;
        const patch = { coupon_percent: cp, ytm: y.ytm, ytm_approx: y.approx ? 1 : 0, next_coupon_date: next };
        if (r.coupon_percent !== cp || r.ytm !== y.ytm || r.ytm_approx !== patch.ytm_approx || r.next_coupon_date !== next) updates.push([r.figi, patch]);
      }
      if (updates.length) {
        await this.db.transaction(async (m) => {
          for (const [figi, patch] of updates) await m.update(InvestBondEntity, { figi }, patch);
        });
        changed += updates.length;
      }
    }
    return changed;
  }

  /** The days GetBondCoupons is asked for: two years back to maturity (perpetual or unknown: 50 years ahead). */
  couponRange(row: Pick<BondRow, 'maturity_date'> | null, today = this.today()): { from: string; to: string } {
    const from = addDays(today, -COUPONS_BACK_DAYS);
    const to = row?.maturity_date && row.maturity_date > from ? addDays(row.maturity_date, 1) : addDays(today, COUPONS_AHEAD_DAYS);
    return { from, to };
  }

  /** Reads and stores one bond's schedule; answers whether it changed. */
  async refreshCoupons(row: InvestBondEntity, opts: TbankCallOptions, now = Date.now()): Promise<boolean> {
    const { from, to } = this.couponRange(row);
    const events = await this.client.bondCoupons(row.figi, from, to, opts);
    return this.saveCoupons(row.figi, events, now, row.nominal_currency || row.currency);
  }

  /** Reads the rates of the currencies the broker quotes in rubles. */
  async refreshRates(opts: TbankCallOptions, now = Date.now()): Promise<void> {
    await this.saveRates(await this.client.lastPrices(Object.values(RATE_FIGIS), opts), now);
  }

  /**
   * For a screen: bonds the tables do not know yet, or whose schedule or price was never read, are read
   * now (at most ENSURE_MAX), once per figi at a time across concurrent calls. Failures become notes: the
   * screen shows what it has. Nothing is read when the broker is not configured. `known`: the rows
   * the caller already read (answers `read: true` when it read anything, so the caller reads again).
   */
  async ensure(figis: string[], opts: TbankCallOptions = {}, known?: Map<string, InvestBondEntity>): Promise<{ notes: string[]; read: boolean }> {
    if (!this.client.configured || !figis.length) return { notes: [], read: false };
    const notes: string[] = [];
    const rows = known ?? (await this.rowsByFigi(figis));
    const need = figis.filter((f) => { const r = rows.get(f); return !r || r.ts_update_coupon === null || r.last_price === null; });
    if (!need.length) return { notes, read: false };
    const todo = [...new Set(need)].slice(0, ENSURE_MAX);
    if (need.length > todo.length) notes.push(`${need.length - todo.length} bonds are read by the next refresh`);
    const mine: string[] = [];
    const waits: Promise<void>[] = [];
    for (const f of todo) {
      const running = this.flights.get(f);
      if (running) waits.push(running.catch(() => undefined));
      else mine.push(f);
    }
    if (mine.length) {
      const flight = this.readMissing(mine, rows, opts, notes);
      for (const f of mine) this.flights.set(f, flight);
      try {
        await flight;
      } finally {
        for (const f of mine) if (this.flights.get(f) === flight) this.flights.delete(f);
      }
    }
    await Promise.all(waits);
    return { notes, read: true };
  }

  /** The whole catalogue now (a screen found it missing), once at a time on this instance. */
  loadCatalogue(opts: TbankCallOptions = {}): Promise<{ count: number; dropped: number }> {
    this.catalogueFlight ??= (async () => this.saveCatalogue(await this.client.bonds('INSTRUMENT_STATUS_BASE', { patient: opts.patient }), Date.now()))().finally(() => {
      this.catalogueFlight = null;
    });
    return this.catalogueFlight;
  }

  private async readMissing(figis: string[], rows: Map<string, InvestBondEntity>, opts: TbankCallOptions, notes: string[]): Promise<void> {
    const now = Date.now();
    const note = (what: string, err: unknown) => {
      const msg = err instanceof OutsideError ? err.message : (err as Error).message;
      notes.push(`${what}: ${msg}`);
      if (!(err instanceof OutsideError)) this.log.warn(`${what}: ${msg}`);
    };
    let absent = figis.filter((f) => !rows.has(f));
    // Several bonds unknown, or no catalogue yet (a fresh install): one Bonds call instead of a BondBy each
    if (absent.length > BOND_BY_AT_MOST || (absent.length && (await this.stats()).catalogueTs === null)) {
      try {
        await this.loadCatalogue(opts);
      } catch (err) {
        note('Bonds catalogue', err);
      }
      const now2 = await this.rowsByFigi(absent);
      absent = absent.filter((f) => !now2.has(f));
    }
    for (const figi of absent) {
      try {
        await this.saveBond(await this.client.bondBy(figi, opts), now);
      } catch (err) {
        note(`Bond ${figi}`, err);
      }
    }
    const fresh = await this.rowsByFigi(figis);
    for (const figi of figis) {
      const r = fresh.get(figi);
      if (!r || r.ts_update_coupon !== null) continue;
      try {
        await this.refreshCoupons(r, opts, now);
      } catch (err) {
        note(`Coupons of ${r.ticker || figi}`, err);
      }
    }
    const noPrice = figis.filter((f) => fresh.get(f) && fresh.get(f)!.last_price === null);
    const currencies = new Set([...fresh.values()].map((r) => r.nominal_currency || r.currency).filter((c) => c && c !== 'rub'));
    const rates = await this.rates();
    const needRates = [...currencies].some((c) => !rates.has(c) && RATE_FIGIS[c]);
    if (noPrice.length || needRates) {
      try {
        const prices = await this.client.lastPrices([...noPrice, ...(needRates ? Object.values(RATE_FIGIS) : [])], opts);
        await this.savePrices(prices, now);
        if (needRates) await this.saveRates(prices, now);
      } catch (err) {
        note('Last prices', err);
      }
    }
    await this.recompute(figis);
  }

  /** Figures for the status answer. */
  async stats(): Promise<{ bonds: number; catalogueTs: number | null; withCoupons: number; couponTs: number | null; priceTs: number | null }> {
    const [r] = (await this.db.query(
      'SELECT COUNT(*) AS n, MAX(ts_update_info) AS info, SUM(CASE WHEN ts_update_coupon IS NULL THEN 0 ELSE 1 END) AS wc, MAX(ts_update_coupon) AS cts, MAX(ts_update_price) AS pts FROM invest_bonds WHERE in_catalogue = 1',
    )) as Array<Record<string, unknown>>;
    const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));
    return { bonds: Number(r?.n ?? 0), catalogueTs: n(r?.info), withCoupons: Number(r?.wc ?? 0), couponTs: n(r?.cts), priceTs: n(r?.pts) };
  }

}
