/**
 * The Wildberries seller APIs (EXTERNAL-APIS.md "Wildberries seller APIs"; docs/wb.md "The adapter"):
 * one token (WB_TOKEN) and one base per API family (WB_CONTENT_URL, WB_STATISTICS_URL, WB_ANALYTICS_URL,
 * WB_ADVERT_URL); the client appends the documented paths. Every call carries `Authorization: <token>`
 * (no "Bearer"; the token in that header only: never in a URL, a log line, an error, an answer or the
 * database).
 *
 * - **Calls**: cards `POST {content}/content/v2/get/cards/list` (cursor paging), the finance report
 *   `GET {statistics}/api/v5/supplier/reportDetailByPeriod` (paged by rrdid until 204 or a short page),
 *   the sales funnel `POST {analytics}/api/analytics/v3/sales-funnel/products` (limit/offset), ad spend
 *   `GET {advert}/adv/v1/upd` and the adverts with their cards `GET {advert}/api/advert/v2/adverts`.
 * - **Pacing** per family and token: content 100 calls a minute; the finance report one call per
 *   WB_FINANCE_INTERVAL_MS (60 s: its limit is one a minute; tests lower it); the funnel one per
 *   WB_FUNNEL_INTERVAL_MS (20 s: three a minute); promotion one a second. Calls wait their turn (a job
 *   pulling a year waits as long as it takes), they are never refused for the pace. After a 429 the
 *   family waits for `X-Ratelimit-Retry` / `X-Ratelimit-Reset` / Retry-After before its next call.
 * - **Retries**: every call here reads (the POSTs are searches): 429, 5xx and lost connections are tried
 *   again with jittered back-off honouring the wait; 400/401/403/404 never.
 * - **Errors** name the service's `{title, detail, code, requestId}`.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ZodType, z } from 'zod';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import type { OutsideServiceView } from '../../contracts/outside.js';
import { decodeJson, namedMessages, sendOutside, type Endpoint, type OutsideRequest, type OutsideResponse } from './http.js';
import { cancelled, OutsideError, reasonOfStatus, retryAfterMs } from './outside-error.js';
import { laneOf, Pacer } from './pacer.js';
import { withRetry, type RetryPolicy } from './retry.js';
import {
  AdvertsWire, CardsWire, ErrorWire, FinanceWire, FunnelWire, UpdWire,
  type WbAdvertWire, type WbCard, type WbFinanceRow, type WbFunnelProduct, type WbUpdRow,
} from './wb.wire.js';

export const WB_SERVICE = 'wb';
export type WbFamily = 'content' | 'statistics' | 'analytics' | 'advert';

export const WB_PATHS = {
  cards: '/content/v2/get/cards/list',
  finance: '/api/v5/supplier/reportDetailByPeriod',
  funnel: '/api/analytics/v3/sales-funnel/products',
  upd: '/adv/v1/upd',
  adverts: '/api/advert/v2/adverts',
} as const;

/** Cards per page (the API's maximum), finance rows per page (≤ 100,000), funnel products per page, adverts per list call, days per /adv/v1/upd call. */
export const WB_CARDS_LIMIT = 100;
export const WB_FINANCE_LIMIT = 100_000;
export const WB_FUNNEL_LIMIT = 1000;
export const WB_ADVERTS_CHUNK = 50;
export const WB_UPD_DAYS = 31;

const LABEL: Record<WbFamily, string> = { content: 'Wildberries content API', statistics: 'Wildberries statistics API', analytics: 'Wildberries analytics API', advert: 'Wildberries promotion API' };

const SCREEN_RETRY: RetryPolicy = { tries: 3, baseMs: 250, maxMs: 5_000, maxRetryAfterMs: 30_000 };
const JOB_RETRY: RetryPolicy = { tries: 5, baseMs: 1000, maxMs: 20_000, maxRetryAfterMs: 130_000 };

export interface WbCallOptions {
  signal?: AbortSignal;
  /** A job's call: more tries and longer waits (a sync is a job's work even when an admin starts it). */
  patient?: boolean;
}

export class WbError extends OutsideError {
  constructor(message: string, reason: ConstructorParameters<typeof OutsideError>[1], readonly family: WbFamily, opts: ConstructorParameters<typeof OutsideError>[3]) {
    super(WB_SERVICE, reason, message, opts);
    this.name = 'WbError';
  }
}

@Injectable()
export class WildberriesClient {
  private readonly log = new Logger('WildberriesClient');
  private readonly eps: Record<WbFamily, Endpoint>;
  readonly pacers: Record<WbFamily, Pacer>;
  /** Minimum spacing between two calls of a family (ms): the finance report and the funnel. */
  readonly spacing: Record<WbFamily, number>;
  private readonly nextAt = new Map<WbFamily, number>();
  private readonly pausedUntil = new Map<WbFamily, number>();
  /** Tests lower the back-off. */
  retry: { screen: RetryPolicy; job: RetryPolicy } = { screen: SCREEN_RETRY, job: JOB_RETRY };
  /** Rows asked per finance page (the API's maximum; tests lower it to see the rrdid paging). */
  financeLimit = WB_FINANCE_LIMIT;

  constructor(@Inject(APP_CONFIG) private readonly cfg: AppConfig) {
    const w = cfg.wb;
    const base: Record<WbFamily, string> = { content: w.contentUrl, statistics: w.statisticsUrl, analytics: w.analyticsUrl, advert: w.advertUrl };
    const ep = (family: WbFamily): Endpoint => ({
      service: WB_SERVICE,
      baseUrl: w.token ? base[family] : null,
      timeoutMs: w.timeoutMs,
      maxBytes: 256 * 1024 * 1024, // a finance page of 100,000 rows is tens of MB
      auth: w.token ? { header: 'authorization', value: w.token } : null,
      messages: namedMessages(LABEL[family], 'The marketplace is not configured (WB_TOKEN)'),
    });
    this.eps = { content: ep('content'), statistics: ep('statistics'), analytics: ep('analytics'), advert: ep('advert') };
    const pacer = (family: WbFamily, limits: ConstructorParameters<typeof Pacer>[1]) => new Pacer(`${WB_SERVICE}.${family}`, { concurrent: 1, maxWaitMs: 24 * 3_600_000, ...limits });
    this.pacers = { content: pacer('content', { perMinute: 100 }), statistics: pacer('statistics', {}), analytics: pacer('analytics', {}), advert: pacer('advert', { perSecond: 1 }) };
    this.spacing = { content: 0, statistics: w.financeIntervalMs, analytics: w.funnelIntervalMs, advert: 0 };
  }

  get configured(): boolean {
    return !!this.cfg.wb.token;
  }

  /** The pacer lane of the configured token (a digest: the token itself is never a key). */
  get lane(): string {
    return laneOf(this.cfg.wb.token ?? '');
  }

  describe(): OutsideServiceView {
    const w = this.cfg.wb;
    return {
      service: WB_SERVICE,
      configured: this.configured,
      target: [w.contentUrl, w.statisticsUrl, w.analyticsUrl, w.advertUrl].join(' '),
      credential: this.configured ? 'set' : 'not set',
      env: ['WB_TOKEN', 'WB_CONTENT_URL', 'WB_STATISTICS_URL', 'WB_ANALYTICS_URL', 'WB_ADVERT_URL', 'WB_TIMEOUT_MS', 'WB_FINANCE_INTERVAL_MS', 'WB_FUNNEL_INTERVAL_MS', 'WB_SYNC_DAYS'],
      details: { timeout_ms: w.timeoutMs, finance_interval_ms: w.financeIntervalMs, funnel_interval_ms: w.funnelIntervalMs, content_per_minute: 100, advert_per_second: 1, sync_days: w.syncDays },
    };
  }

  // -------------------------------------------------------------------------------------------
  // Calls

  /** Every card, page after page: the cursor's updatedAt and nmID go into the next request until a page has fewer than the limit. */
  async allCards(opts: WbCallOptions = {}): Promise<WbCard[]> {
    const out: WbCard[] = [];
    let cursor: { limit: number; updatedAt?: string; nmID?: number } = { limit: WB_CARDS_LIMIT };
    for (let page = 0; page < 10_000; page++) {
      const body = { settings: { sort: { ascending: true }, filter: { withPhoto: -1 }, cursor } };
      const r = await this.call('content', { method: 'POST', path: WB_PATHS.cards, body }, CardsWire, opts);
      out.push(...r.cards);
      if (r.cursor.total < WB_CARDS_LIMIT || !r.cards.length) break;
      cursor = { limit: WB_CARDS_LIMIT, updatedAt: r.cursor.updatedAt ?? undefined, nmID: r.cursor.nmID ?? undefined };
    }
    return out;
  }

  /**
   * The finance report of [dateFrom, dateTo], page after page by rrdid (the last row's rrd_id) until a
   * 204 or a page shorter than the limit; each page goes to `onPage` as it comes (a year is large).
   */
  async financeReport(dateFrom: string, dateTo: string, onPage: (rows: WbFinanceRow[]) => Promise<void>, opts: WbCallOptions & { limit?: number } = {}): Promise<number> {
    const limit = opts.limit ?? this.financeLimit;
    let rrdid = 0;
    let total = 0;
    for (;;) {
      const r = await this.call('statistics', { method: 'GET', path: WB_PATHS.finance, query: { dateFrom, dateTo, limit, rrdid } }, FinanceWire, opts, true);
      if (r === null || !r.length) break;
      await onPage(r);
      total += r.length;
      if (r.length < limit) break;
      rrdid = r[r.length - 1].rrd_id;
    }
    return total;
  }

  /** The sales funnel of a period for every card (limit/offset pages). */
  async funnel(start: string, end: string, opts: WbCallOptions & { limit?: number } = {}): Promise<WbFunnelProduct[]> {
    const limit = opts.limit ?? WB_FUNNEL_LIMIT;
    const out: WbFunnelProduct[] = [];
    for (let offset = 0; ; offset += limit) {
      const r = await this.call('analytics', { method: 'POST', path: WB_PATHS.funnel, body: { selectedPeriod: { start, end }, nmIds: [], limit, offset } }, FunnelWire, opts);
      out.push(...r.data.products);
      if (r.data.products.length < limit) break;
    }
    return out;
  }

  /** Ad spend (the promotion invoices) of [from, to], asked WB_UPD_DAYS days at a time; each row with its day. */
  async adSpend(from: string, to: string, opts: WbCallOptions = {}): Promise<WbUpdRow[]> {
    const out: WbUpdRow[] = [];
    for (let a = from; a <= to; a = addDays(a, WB_UPD_DAYS)) {
      const b = addDays(a, WB_UPD_DAYS - 1) < to ? addDays(a, WB_UPD_DAYS - 1) : to;
      const rows = await this.call('advert', { method: 'GET', path: WB_PATHS.upd, query: { from: a, to: b } }, UpdWire, opts, true);
      for (const r of rows ?? []) {
        const t = Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(r.updTime) ? r.updTime : `${r.updTime}Z`);
        out.push({ ...r, day: Number.isNaN(t) ? a : new Date(t).toISOString().slice(0, 10) });
      }
    }
    return out;
  }

  /** The adverts with their cards (nm_settings), WB_ADVERTS_CHUNK ids a call. */
  async adverts(ids: number[], opts: WbCallOptions = {}): Promise<WbAdvertWire[]> {
    const out: WbAdvertWire[] = [];
    for (let i = 0; i < ids.length; i += WB_ADVERTS_CHUNK) {
      const part = ids.slice(i, i + WB_ADVERTS_CHUNK);
      const r = await this.call('advert', { method: 'GET', path: WB_PATHS.adverts, query: { ids: part.join(',') } }, AdvertsWire, opts);
      out.push(...r.adverts);
    }
    return out;
  }

  // -------------------------------------------------------------------------------------------

  /** How long a family's next call waits for its spacing or a 429's window (ms; 0: none). */
  waitOf(family: WbFamily): number {
    return Math.max(0, (this.nextAt.get(family) ?? 0) - Date.now(), (this.pausedUntil.get(family) ?? 0) - Date.now());
  }

  private call<S extends ZodType>(family: WbFamily, req: OutsideRequest, schema: S, opts: WbCallOptions, emptyOk: true): Promise<z.output<S> | null>;
  private call<S extends ZodType>(family: WbFamily, req: OutsideRequest, schema: S, opts: WbCallOptions): Promise<z.output<S>>;
  /** One call: paced per family and token, retried when it may pass, decoded against its wire schema (204 or an empty body: null when `emptyOk`). */
  private async call<S extends ZodType>(family: WbFamily, req: OutsideRequest, schema: S, opts: WbCallOptions, emptyOk = false): Promise<z.output<S> | null> {
    const ep = this.eps[family];
    if (!this.configured) throw new OutsideError(WB_SERVICE, 'config', ep.messages!.notConfigured!());
    const res = await withRetry(
      () => this.pacers[family].run(this.lane, async () => {
        await this.waitTurn(family, opts.signal);
        const r = await sendOutside(ep, { ...req, okOnly: false, signal: opts.signal });
        this.noteWindow(family, r);
        if (r.status < 200 || r.status >= 300) throw this.serviceError(family, req, r);
        return r;
      }, opts.signal),
      {
        idempotent: true,
        policy: opts.patient ? this.retry.job : this.retry.screen,
        signal: opts.signal,
        onRetry: (err, wait, attempt) => this.log.warn(`${req.method ?? 'GET'} ${req.path}: ${err.message}; try ${attempt + 1} in ${wait} ms`),
      },
    );
    if (res.status === 204 || res.body.length === 0) {
      if (emptyOk) return null;
      throw new OutsideError(WB_SERVICE, 'answer', ep.messages!.unexpected!(`an empty answer (${res.status}) to ${req.path}`), { status: res.status });
    }
    return decodeJson(ep, res, schema);
  }

  /** Waits for the family's spacing (the finance report: one call a minute) and for a 429's window; then books the next turn. */
  private async waitTurn(family: WbFamily, signal?: AbortSignal) {
    for (;;) {
      const wait = this.waitOf(family);
      if (wait <= 0) break;
      try {
        await sleep(wait, undefined, { signal });
      } catch {
        throw cancelled(WB_SERVICE);
      }
    }
    if (this.spacing[family] > 0) this.nextAt.set(family, Date.now() + this.spacing[family]);
  }

  /** A 429 pauses the whole family until the service's window passes (X-Ratelimit-Retry, X-Ratelimit-Reset, Retry-After; else the spacing or 1 s). */
  private noteWindow(family: WbFamily, r: OutsideResponse) {
    if (r.status !== 429) return;
    const until = Date.now() + (windowMs(r) ?? Math.max(1000, this.spacing[family]));
    if (until > (this.pausedUntil.get(family) ?? 0)) this.pausedUntil.set(family, until);
  }

  /** The OutsideError of a non-2xx answer, naming the service's {title, detail, code, requestId}. */
  private serviceError(family: WbFamily, req: OutsideRequest, r: OutsideResponse): WbError {
    let detail = '';
    try {
      const p = ErrorWire.safeParse(JSON.parse(r.text()));
      if (p.success) {
        const e = p.data;
        const head = [e.title, e.detail ?? e.message ?? e.errorText].filter(Boolean).join(': ');
        const tail = [e.code !== undefined ? `code ${e.code}` : '', e.requestId ? `request id ${e.requestId}` : ''].filter(Boolean).join(', ');
        detail = `${head}${tail ? ` (${tail})` : ''}`;
      }
    } catch { /* not JSON: the start of the body */ }
    if (!detail) detail = r.text().replace(/\s+/g, ' ').trim().slice(0, 300);
    const message = this.scrub(`${LABEL[family]} answered ${r.status} to ${req.method ?? 'GET'} ${req.path}${detail ? `: ${detail}` : ''}`);
    return new WbError(message, reasonOfStatus(r.status), family, { status: r.status, retryAfterMs: r.status === 429 ? windowMs(r) ?? 1000 : retryAfterMs(r.headers.get('retry-after')) });
  }

  /** An error text that echoed the token never carries it. */
  private scrub(text: string): string {
    const token = this.cfg.wb.token;
    return token && token.length >= 4 ? text.split(token).join('***') : text;
  }
}

/** The wait a 429 asks for: X-Ratelimit-Retry (seconds), X-Ratelimit-Reset (seconds), else Retry-After. */
function windowMs(r: OutsideResponse): number | undefined {
  for (const h of ['x-ratelimit-retry', 'x-ratelimit-reset']) {
    const v = r.headers.get(h);
    if (v !== null && /^\d+(\.\d+)?$/.test(v.trim())) return Math.ceil(Number(v.trim()) * 1000);
  }
  return retryAfterMs(r.headers.get('retry-after'));
}

const addDays = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
