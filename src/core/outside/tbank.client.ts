/**
 * The T-Bank Invest API (REST gateway; EXTERNAL-APIS.md "T-Bank Invest API"; docs/invest.md "The
 * broker"): INVEST_API_URL (default https://invest-public-api.tbank.ru/rest), INVEST_TOKEN,
 * INVEST_TIMEOUT_MS. Every call is `POST {base}/tinkoff.public.invest.api.contract.v1.<Service>/<Method>`
 * with a JSON body and `Authorization: Bearer <token>` (the token in that header only: never in a URL,
 * a log line, an error, an answer or the database).
 *
 * - **Pacing**: one Pacer per broker service with its declared limits per minute (Instruments 200,
 *   Users 100, Operations 200, MarketData 600), one lane per token. After a 429, or an answer saying
 *   the window is spent (`x-ratelimit-remaining: 0`), the whole service waits for the window's reset
 *   (`x-ratelimit-reset`, seconds; or Retry-After) before its next call, so calls queued behind it do
 *   not hammer the broker.
 * - **Retries**: every method here is a read (idempotent): 429 and 5xx (and no connection) are tried
 *   again with jittered back-off honouring the reset; 400/401/403/404 never.
 * - **Errors**: the broker's `{code, message, description}` is read from the error body and named in
 *   the OutsideError's message ("T-Bank Invest API answered 401: authentication token is missing or
 *   invalid (code 16, description 40003)"), with the reason of its status (auth, rate, upstream, ...).
 *
 * The client is thin: decoded answers (tbank.wire.ts, Quotations as exact decimal strings) and
 * OutsideErrors. Caching, tables and methods are the invest area's (src/modules/invest).
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ZodType, z } from 'zod';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import type { OutsideServiceView } from '../../contracts/outside.js';
import { decodeJson, namedMessages, sendOutside, type Endpoint, type OutsideResponse } from './http.js';
import { cancelled, OutsideError, reasonOfStatus, retryAfterMs } from './outside-error.js';
import { laneOf, Pacer } from './pacer.js';
import { withRetry, type RetryPolicy } from './retry.js';
import {
  AccountsWire, BondByWire, BondsWire, CouponsWire, ErrorWire, LastPricesWire, PortfolioWire,
  type TbankAccount, type TbankBond, type TbankCoupon, type TbankLastPrice, type TbankPortfolio,
} from './tbank.wire.js';

export const TBANK_SERVICE = 'tbank';
export const TBANK_PREFIX = '/tinkoff.public.invest.api.contract.v1.';

/** The broker's services and their declared limits of unary calls per minute (EXTERNAL-APIS.md; the broker's limits.md). */
export const TBANK_LIMITS = {
  InstrumentsService: 200,
  UsersService: 100,
  OperationsService: 200,
  MarketDataService: 600,
} as const;
export type TbankService = keyof typeof TBANK_LIMITS;

/** Instrument ids per GetLastPrices call. */
export const LAST_PRICES_CHUNK = 300;

/** Screens: 3 tries, a reset longer than 30 s is not waited (the error says when to come back). Jobs wait up to a minute's window. */
const SCREEN_RETRY: RetryPolicy = { tries: 3, baseMs: 250, maxMs: 5_000, maxRetryAfterMs: 30_000 };
const JOB_RETRY: RetryPolicy = { tries: 5, baseMs: 500, maxMs: 10_000, maxRetryAfterMs: 65_000 };

export interface TbankCallOptions {
  signal?: AbortSignal;
  /** A job's call: more tries, and a full minute's reset is waited out. */
  patient?: boolean;
}

/** The broker's triple from an error body, when it sent one. */
export interface TbankBrokerError {
  code: string;
  message: string;
  description: string;
}

export class TbankError extends OutsideError {
  constructor(message: string, reason: ConstructorParameters<typeof OutsideError>[1], readonly broker: TbankBrokerError | null, opts: ConstructorParameters<typeof OutsideError>[3]) {
    super(TBANK_SERVICE, reason, message, opts);
    this.name = 'TbankError';
  }
}

@Injectable()
export class TbankClient {
  private readonly log = new Logger('TbankClient');
  private readonly ep: Endpoint;
  readonly pacers: Record<TbankService, Pacer>;
  /** Per service: no call before this time (a spent window: after a 429 or `x-ratelimit-remaining: 0`). */
  private readonly pausedUntil = new Map<TbankService, number>();
  /** Tests lower the back-off; the policies otherwise are the constants above. */
  retry: { screen: RetryPolicy; job: RetryPolicy } = { screen: SCREEN_RETRY, job: JOB_RETRY };

  constructor(@Inject(APP_CONFIG) private readonly cfg: AppConfig) {
    const ms = cfg.invest.timeoutMs;
    this.ep = {
      service: TBANK_SERVICE,
      baseUrl: cfg.invest.token ? cfg.invest.apiUrl : null,
      timeoutMs: ms,
      maxBytes: 64 * 1024 * 1024, // the bonds catalogue is a few MB
      auth: cfg.invest.token ? { header: 'authorization', value: `Bearer ${cfg.invest.token}` } : null,
      messages: namedMessages('T-Bank Invest API', 'The broker is not configured (INVEST_TOKEN)'),
    };
    this.pacers = Object.fromEntries(
      Object.entries(TBANK_LIMITS).map(([service, perMinute]) => [service, new Pacer(`${TBANK_SERVICE}.${service}`, { perMinute, concurrent: 4, maxWaitMs: 120_000 })]),
    ) as Record<TbankService, Pacer>;
  }

  /** A token is set (INVEST_API_URL always has a value: the broker's default). */
  get configured(): boolean {
    return !!this.cfg.invest.token;
  }

  /** The pacer lane of the configured token (a digest: the token itself is never kept as a key). */
  get lane(): string {
    return laneOf(this.cfg.invest.token ?? '');
  }

  describe(): OutsideServiceView {
    return {
      service: TBANK_SERVICE,
      configured: this.configured,
      target: this.cfg.invest.apiUrl,
      credential: this.configured ? 'set' : 'not set',
      env: ['INVEST_API_URL', 'INVEST_TOKEN', 'INVEST_TIMEOUT_MS'],
      details: { timeout_ms: this.cfg.invest.timeoutMs, ...Object.fromEntries(Object.entries(TBANK_LIMITS).map(([k, v]) => [`${k}_per_minute`, v])) },
    };
  }

  // -------------------------------------------------------------------------------------------
  // Calls

  /** UsersService/GetAccounts. */
  async getAccounts(opts: TbankCallOptions = {}): Promise<TbankAccount[]> {
    return (await this.call('UsersService', 'GetAccounts', {}, AccountsWire, opts)).accounts;
  }

  /** OperationsService/GetPortfolio {accountId} (totals and positions in the account's currency, RUB). */
  async getPortfolio(accountId: string, opts: TbankCallOptions = {}): Promise<TbankPortfolio> {
    return this.call('OperationsService', 'GetPortfolio', { accountId, currency: 'RUB' }, PortfolioWire, opts);
  }

  /** InstrumentsService/Bonds {instrumentStatus}: the catalogue (BASE: the bonds tradable through the API). */
  async bonds(status: 'INSTRUMENT_STATUS_BASE' | 'INSTRUMENT_STATUS_ALL' = 'INSTRUMENT_STATUS_BASE', opts: TbankCallOptions = {}): Promise<TbankBond[]> {
    return (await this.call('InstrumentsService', 'Bonds', { instrumentStatus: status }, BondsWire, opts)).instruments;
  }

  /** InstrumentsService/BondBy {idType: FIGI, id}: one bond (a position the catalogue does not hold). */
  async bondBy(figi: string, opts: TbankCallOptions = {}): Promise<TbankBond> {
    return (await this.call('InstrumentsService', 'BondBy', { idType: 'INSTRUMENT_ID_TYPE_FIGI', id: figi }, BondByWire, opts)).instrument;
  }

  /** InstrumentsService/GetBondCoupons {instrumentId, from, to}: the schedule between two days (inclusive). */
  async bondCoupons(instrumentId: string, from: string, to: string, opts: TbankCallOptions = {}): Promise<TbankCoupon[]> {
    const body = { instrumentId, figi: instrumentId, from: `${from}T00:00:00Z`, to: `${to}T23:59:59Z` };
    return (await this.call('InstrumentsService', 'GetBondCoupons', body, CouponsWire, opts)).events;
  }

  /** MarketDataService/GetLastPrices {instrumentId: [...]} in chunks (bonds: points = % of nominal). */
  async lastPrices(ids: string[], opts: TbankCallOptions = {}): Promise<TbankLastPrice[]> {
    const out: TbankLastPrice[] = [];
    for (let i = 0; i < ids.length; i += LAST_PRICES_CHUNK) {
      const part = ids.slice(i, i + LAST_PRICES_CHUNK);
      out.push(...(await this.call('MarketDataService', 'GetLastPrices', { instrumentId: part }, LastPricesWire, opts)).lastPrices);
    }
    return out;
  }

  // -------------------------------------------------------------------------------------------

  /** One call: paced per service and token, retried when it may pass, decoded against its wire schema. */
  private async call<S extends ZodType>(service: TbankService, method: string, body: unknown, schema: S, opts: TbankCallOptions): Promise<z.output<S>> {
    if (!this.configured) throw new OutsideError(TBANK_SERVICE, 'config', this.ep.messages!.notConfigured!());
    const pacer = this.pacers[service];
    const res = await withRetry(
      () => pacer.run(this.lane, async () => {
        await this.waitWindow(service, opts.signal);
        const r = await sendOutside(this.ep, { method: 'POST', path: `${TBANK_PREFIX}${service}/${method}`, body, okOnly: false, signal: opts.signal });
        this.noteWindow(service, r);
        if (r.status < 200 || r.status >= 300) throw this.brokerError(service, method, r);
        return r;
      }, opts.signal),
      {
        idempotent: true,
        policy: opts.patient ? this.retry.job : this.retry.screen,
        signal: opts.signal,
        onRetry: (err, wait, attempt) => this.log.warn(`${service}/${method}: ${err.message}; try ${attempt + 1} in ${wait} ms`),
      },
    );
    return decodeJson(this.ep, res, schema);
  }

  /** How long the service's calls wait for its window (ms; 0: none). */
  windowWait(service: TbankService): number {
    return Math.max(0, (this.pausedUntil.get(service) ?? 0) - Date.now());
  }

  /** Waits while the service's window is spent (after a 429 or `x-ratelimit-remaining: 0`). */
  private async waitWindow(service: TbankService, signal?: AbortSignal) {
    const wait = (this.pausedUntil.get(service) ?? 0) - Date.now();
    if (wait <= 0) return;
    try {
      await sleep(wait, undefined, { signal });
    } catch {
      throw cancelled(TBANK_SERVICE);
    }
  }

  /** The broker's window headers: a 429, or a spent window, pauses the whole service until its reset. */
  private noteWindow(service: TbankService, r: OutsideResponse) {
    const resetMs = windowResetMs(r);
    const remaining = r.headers.get('x-ratelimit-remaining');
    if (r.status === 429 || (remaining !== null && remaining.trim() === '0')) {
      const until = Date.now() + (resetMs ?? 1000);
      if (until > (this.pausedUntil.get(service) ?? 0)) this.pausedUntil.set(service, until);
    }
  }

  /** The OutsideError of a non-2xx answer, naming the broker's {code, message, description}. */
  private brokerError(service: TbankService, method: string, r: OutsideResponse): TbankError {
    let broker: TbankBrokerError | null = null;
    try {
      const parsed = ErrorWire.safeParse(JSON.parse(r.text()));
      if (parsed.success && (parsed.data.message || parsed.data.code !== undefined)) {
        broker = { code: String(parsed.data.code ?? ''), message: String(parsed.data.message ?? ''), description: String(parsed.data.description ?? '') };
      }
    } catch { /* not JSON: the start of the body is named instead */ }
    const detail = broker
      ? `${broker.message || 'error'} (code ${broker.code || '-'}${broker.description ? `, description ${broker.description}` : ''})`
      : r.text().replace(/\s+/g, ' ').trim().slice(0, 300);
    const tracking = r.headers.get('x-tracking-id');
    const message = this.scrub(`T-Bank Invest API answered ${r.status} to ${service}/${method}${detail ? `: ${detail}` : ''}${tracking ? ` [tracking id ${tracking}]` : ''}`);
    return new TbankError(message, reasonOfStatus(r.status), broker, { status: r.status, retryAfterMs: r.status === 429 ? windowResetMs(r) ?? 1000 : retryAfterMs(r.headers.get('retry-after')) });
  }

  /** An error text that echoed the token (a broker that repeats the request) never carries it. */
  private scrub(text: string): string {
    const token = this.cfg.invest.token;
    return token && token.length >= 4 ? text.split(token).join('***') : text;
  }
}

/** How long until the broker's window resets: `x-ratelimit-reset` (seconds), else Retry-After; undefined when neither. */
function windowResetMs(r: OutsideResponse): number | undefined {
  const reset = r.headers.get('x-ratelimit-reset');
  if (reset !== null && /^\d+(\.\d+)?$/.test(reset.trim())) return Math.ceil(Number(reset.trim()) * 1000);
  return retryAfterMs(r.headers.get('retry-after'));
}
