/**
 * Keeping the catalogue fresh (issue 22 "the bonds catalogue and coupons are refreshed by a job, not
 * on page load"; docs/invest.md "Refresh"): quota-spending work runs in jobs under a lease, so one
 * instance spends the broker's quota and every instance reads the tables.
 *
 * - `invest-refresh` (every 10 minutes, lease `invest-refresh`): the catalogue (Bonds), the rubles
 *   rates, the last prices of every bond, then coupon schedules: every bond an account holds (broker
 *   portfolios, local accounts, the sample) each run, and of the rest of the catalogue those read
 *   longest ago, COUPON_BUDGET per run (so the whole catalogue turns over within hours without taking
 *   the Instruments quota from the screens), then the stored figures (coupon_percent, ytm, next coupon).
 * - `invest-prices` (every minute, lease `invest-prices`): the last prices of the bonds held (the broker
 *   portfolios as the cache holds them: this job spends MarketData quota only).
 *
 * Both push what changed to open pages (InvestLiveService.kick; other instances poll the rows).
 */
import { Injectable, Logger } from '@nestjs/common';
import { INVEST_CACHE_TTL_S, INVEST_MSG, type InvestStatus } from '../../../contracts/invest.js';
import { Role } from '../../../contracts/roles.js';
import { LeaseService } from '../../../core/lease.service.js';
import { TBANK_LIMITS, type TbankCallOptions } from '../../../core/outside/tbank.client.js';
import { Rpc } from '../../../core/rpc/rpc.decorator.js';
import { WorkerRegistry } from '../../../core/workers/workers.js';
import { InvestAccountsService } from './accounts.service.js';
import { InvestCatalogueService } from './catalogue.service.js';
import { InvestLiveService } from './live.service.js';

export const REFRESH_LEASE = 'invest-refresh';
export const PRICES_LEASE = 'invest-prices';
export const REFRESH_WORKER = 'invest-refresh';
export const PRICES_WORKER = 'invest-prices';
/** Coupon schedules read per refresh at most beyond the bonds held. */
export const COUPON_BUDGET = 150;
/** Bonds held that the catalogue answer lacks, read by BondBy per run at most. */
const BOND_BY_BUDGET = 50;
const REFRESH_LEASE_MS = 15 * 60_000;
const PRICES_LEASE_MS = 55_000;
/** Failure messages kept per run. */
const ERRORS_MAX = 10;

export interface RefreshResult {
  bonds: number;
  dropped: number;
  prices: number;
  coupons: number;
  coupons_changed: number;
  figures: number;
  errors: string[];
}

@Injectable()
export class InvestRefreshService {
  private readonly log = new Logger('InvestRefresh');
  private running: Promise<RefreshResult> | null = null;

  constructor(
    private readonly catalogue: InvestCatalogueService,
    private readonly accounts: InvestAccountsService,
    private readonly live: InvestLiveService,
    private readonly lease: LeaseService,
    private readonly workers: WorkerRegistry,
  ) {}

  get configured(): boolean {
    return this.catalogue.client.configured;
  }

  /** The job's run: nothing without a token; null when another instance holds the lease. */
  async scheduledRefresh(): Promise<RefreshResult | null> {
    if (!this.configured) return null;
    return this.underLease();
  }

  private async underLease(): Promise<RefreshResult | null> {
    if (this.running) return this.running;
    const started = await this.start();
    return started ? started.run : null;
  }

  /** Takes the lease and starts a refresh; null when another refresh holds it (here or on another instance). */
  private async start(): Promise<{ run: Promise<RefreshResult> } | null> {
    if (this.running) return null;
    if (!(await this.lease.acquire(REFRESH_LEASE, REFRESH_LEASE_MS))) return null;
    if (this.running) return null;
    this.running = this.refresh({ patient: true }).finally(() => {
      this.running = null;
      void this.lease.release(REFRESH_LEASE).catch(() => undefined);
    });
    return { run: this.running };
  }

  /** One whole refresh (module comment). Failures of a part are collected; the other parts still run. */
  async refresh(opts: TbankCallOptions = { patient: true }): Promise<RefreshResult> {
    const now = Date.now();
    const res: RefreshResult = { bonds: 0, dropped: 0, prices: 0, coupons: 0, coupons_changed: 0, figures: 0, errors: [] };
    const fail = (what: string, err: unknown) => {
      const msg = `${what}: ${(err as Error).message}`;
      if (res.errors.length < ERRORS_MAX) res.errors.push(msg);
      this.log.warn(msg);
    };
    try {
      const saved = await this.catalogue.saveCatalogue(await this.catalogue.client.bonds('INSTRUMENT_STATUS_BASE', opts), now);
      res.bonds = saved.count;
      res.dropped = saved.dropped;
    } catch (err) {
      fail('Bonds catalogue', err);
    }
    const held = await this.accounts.heldFigis(opts);
    for (const n of held.notes) fail('Held bonds', new Error(n));
    const known = await this.catalogue.rowsByFigi(held.figis);
    for (const figi of held.figis.filter((f) => !known.has(f)).slice(0, BOND_BY_BUDGET)) {
      try {
        await this.catalogue.saveBond(await this.catalogue.client.bondBy(figi, opts), now);
      } catch (err) {
        fail(`Bond ${figi}`, err);
      }
    }
    try {
      await this.catalogue.refreshRates(opts, now);
    } catch (err) {
      fail('Rates', err);
    }
    try {
      const figis = (await this.catalogue.db.query('SELECT figi FROM invest_bonds WHERE in_catalogue = 1 OR figi IN (' + (held.figis.map(() => '?').join(', ') || "''") + ')', held.figis)) as Array<{ figi: string }>;
      const changed = await this.catalogue.savePrices(await this.catalogue.client.lastPrices(figis.map((r) => r.figi), opts), Date.now());
      res.prices = changed.length;
    } catch (err) {
      fail('Last prices', err);
    }
    // coupons: every bond held, then the rest of the catalogue read longest ago (never read first)
    const heldRows = await this.catalogue.rowsByFigi(held.figis);
    const rest = (await this.catalogue.db.query(
      `SELECT figi FROM invest_bonds WHERE in_catalogue = 1 AND (ts_update_coupon IS NULL OR ts_update_coupon < ?) ORDER BY (ts_update_coupon IS NULL) DESC, ts_update_coupon ASC, figi ASC LIMIT ${COUPON_BUDGET + held.figis.length}`,
      [now - INVEST_CACHE_TTL_S * 1000],
    )) as Array<{ figi: string }>;
    const queue = [...heldRows.keys(), ...rest.map((r) => r.figi).filter((f) => !heldRows.has(f)).slice(0, COUPON_BUDGET)];
    const rows = await this.catalogue.rowsByFigi(queue);
    for (const figi of queue) {
      const row = rows.get(figi);
      if (!row) continue;
      try {
        if (await this.catalogue.refreshCoupons(row, opts, Date.now())) res.coupons_changed++;
        res.coupons++;
      } catch (err) {
        fail(`Coupons of ${row.ticker || figi}`, err);
      }
    }
    res.figures = await this.catalogue.recompute();
    await this.live.kick();
    return res;
  }

  /** The per-minute price refresh of the bonds held (job): changed rows get their figures and are pushed. */
  async scheduledPrices(): Promise<{ prices: number } | null> {
    if (!this.configured || this.running) return null;
    if (!(await this.lease.acquire(PRICES_LEASE, PRICES_LEASE_MS))) return null;
    try {
      const held = await this.accounts.heldFigis({ cachedOnly: true });
      if (!held.figis.length) return { prices: 0 };
      const changed = await this.catalogue.savePrices(await this.catalogue.client.lastPrices(held.figis, { patient: true }), Date.now());
      if (changed.length) {
        await this.catalogue.recompute(changed);
        await this.live.kick();
      }
      return { prices: changed.length };
    } finally {
      await this.lease.release(PRICES_LEASE).catch(() => undefined);
    }
  }

  @Rpc('invest.Item.refresh', {
    role: Role.admin, write: true,
    summary: `Runs the catalogue refresh now in the background (the 10-minute job's work, under its lease): {started: true, message: '${INVEST_MSG.refreshStarted}'}, or {started: false, message} when another refresh runs; {configured: false} without INVEST_TOKEN`,
  })
  async refreshNow(): Promise<{ started: boolean; message: string } | { configured: false }> {
    if (!this.configured) return { configured: false };
    const started = await this.start();
    if (!started) return { started: false, message: INVEST_MSG.refreshBusy };
    void started.run.then(
      (r) => this.workers.record(REFRESH_WORKER, r.errors.length ? r.errors.join(' | ') : null),
      (err) => this.workers.record(REFRESH_WORKER, (err as Error).message),
    );
    return { started: true, message: INVEST_MSG.refreshStarted };
  }

  @Rpc('invest.getStatus', {
    role: Role.user,
    summary: "The broker's configuration and how fresh the investment data is: {configured, api_url, token: 'set'|'not set', catalogue: {bonds, ts_update}, coupons: {bonds, ts_update}, prices: {ts_update}, rates: [{currency, rate, ts}], job: {last_run, last_error}, limits_per_minute}",
  })
  async getStatus(): Promise<InvestStatus> {
    const s = await this.catalogue.stats();
    const rates = await this.catalogue.rateRowsList();
    let job: InvestStatus['job'] = { last_run: null, last_error: null };
    try {
      const v = await this.workers.view(REFRESH_WORKER);
      job = { last_run: v.last_run, last_error: v.last_error };
    } catch { /* the job is not registered (no JobsModule in this process) */ }
    const d = this.catalogue.client.describe();
    return {
      configured: d.configured, api_url: d.target, token: d.credential ?? 'not set',
      catalogue: { bonds: s.bonds, ts_update: s.catalogueTs }, coupons: { bonds: s.withCoupons, ts_update: s.couponTs }, prices: { ts_update: s.priceTs },
      rates: rates.map((r) => ({ currency: r.currency, rate: Number(r.rate), ts: r.ts })), job, limits_per_minute: { ...TBANK_LIMITS },
    };
  }
}
