/**
 * Yandex Metrika's Reporting API (EXTERNAL-APIS.md "Yandex Metrika Reporting API"; docs/report.md
 * "Yandex Metrika"): METRIKA_URL (default https://api-metrika.yandex.net), METRIKA_TOKEN,
 * REPORT_TIMEOUT_MS. `GET {base}/stat/v1/data` and `GET {base}/stat/v1/data/bytime` with
 * `Authorization: OAuth <token>` (the token in that header only: never in a URL, a log line, an error,
 * an answer or the database).
 *
 * - **Pacing**: the documented quotas per user (token lane): 3 requests at once, 30 a second, 5,000 a
 *   day. A 429 pauses the whole client for its Retry-After (else a second) so queued calls wait.
 * - **Retries**: reads only: 429 and 5xx (and no connection) again with jittered back-off; 400/401/403/404 never.
 * - **Errors**: Metrika's `{errors: [{error_type, message}], code, message}` is named in the message.
 *
 * The client is thin: decoded answers (metrika.wire.ts) and OutsideErrors. Caching and reports are
 * the report area's (src/modules/report).
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ZodType, z } from 'zod';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import type { OutsideServiceView } from '../../contracts/outside.js';
import { decodeJson, namedMessages, sendOutside, type Endpoint, type OutsideResponse } from './http.js';
import { MetrikaByTimeWire, MetrikaDataWire, MetrikaErrorWire, type MetrikaByTime, type MetrikaData } from './metrika.wire.js';
import { cancelled, OutsideError, reasonOfStatus, retryAfterMs } from './outside-error.js';
import { laneOf, Pacer } from './pacer.js';
import { withRetry, type RetryPolicy } from './retry.js';

export const METRIKA_SERVICE = 'metrika';
/** Documented quotas (per user): 3 at once, 30 a second, 5,000 a day. */
export const METRIKA_LIMITS = { concurrent: 3, perSecond: 30, perDay: 5000 } as const;

export interface MetrikaQuery {
  ids: string;
  metrics: string[];
  date1: string;
  date2: string;
  dimensions?: string;
  filters?: string;
  sort?: string;
  limit?: number;
}

@Injectable()
export class MetrikaClient {
  private readonly log = new Logger('MetrikaClient');
  private readonly ep: Endpoint;
  readonly pacer = new Pacer(METRIKA_SERVICE, { ...METRIKA_LIMITS, maxWaitMs: 60_000 });
  private pausedUntil = 0;
  /** Tests lower the back-off. */
  retry: RetryPolicy = { tries: 3, baseMs: 250, maxMs: 5_000, maxRetryAfterMs: 30_000 };

  constructor(@Inject(APP_CONFIG) private readonly cfg: AppConfig) {
    const ms = cfg.report.timeoutMs;
    const token = cfg.report.metrikaToken;
    this.ep = {
      service: METRIKA_SERVICE,
      baseUrl: token ? cfg.report.metrikaUrl : null,
      timeoutMs: ms,
      maxBytes: 16 * 1024 * 1024,
      auth: token ? { header: 'authorization', value: `OAuth ${token}` } : null,
      messages: namedMessages('Yandex Metrika', 'Yandex Metrika is not configured (METRIKA_TOKEN)'),
    };
  }

  get configured(): boolean {
    return !!this.cfg.report.metrikaToken;
  }

  get lane(): string {
    return laneOf(this.cfg.report.metrikaToken ?? '');
  }

  describe(): OutsideServiceView {
    return {
      service: METRIKA_SERVICE,
      configured: this.configured,
      target: this.cfg.report.metrikaUrl,
      credential: this.configured ? 'set' : 'not set',
      env: ['METRIKA_URL', 'METRIKA_TOKEN', 'REPORT_TIMEOUT_MS'],
      details: { timeout_ms: this.cfg.report.timeoutMs, concurrent: METRIKA_LIMITS.concurrent, per_second: METRIKA_LIMITS.perSecond, per_day: METRIKA_LIMITS.perDay },
    };
  }

  /** GET /stat/v1/data (a table: one row per dimension value). */
  data(q: MetrikaQuery, signal?: AbortSignal): Promise<MetrikaData> {
    return this.get('/stat/v1/data', { ...this.params(q), ...(q.limit ? { limit: q.limit } : {}) }, MetrikaDataWire, signal);
  }

  /** GET /stat/v1/data/bytime (each metric an array of points, one per `group` interval). */
  byTime(q: MetrikaQuery & { group: 'hour' | 'day' | 'week' | 'month' }, signal?: AbortSignal): Promise<MetrikaByTime> {
    return this.get('/stat/v1/data/bytime', { ...this.params(q), group: q.group }, MetrikaByTimeWire, signal);
  }

  private params(q: MetrikaQuery): Record<string, string> {
    return {
      ids: q.ids,
      metrics: q.metrics.join(','),
      date1: q.date1,
      date2: q.date2,
      ...(q.dimensions ? { dimensions: q.dimensions } : {}),
      ...(q.filters ? { filters: q.filters } : {}),
      ...(q.sort ? { sort: q.sort } : {}),
      accuracy: 'full',
    };
  }

  private async get<S extends ZodType>(path: string, query: Record<string, string | number>, schema: S, signal?: AbortSignal): Promise<z.output<S>> {
    if (!this.configured) throw new OutsideError(METRIKA_SERVICE, 'config', this.ep.messages!.notConfigured!());
    const res = await withRetry(
      () => this.pacer.run(this.lane, async () => {
        await this.waitPause(signal);
        const r = await sendOutside(this.ep, { method: 'GET', path, query, okOnly: false, signal });
        if (r.status === 429) this.pausedUntil = Math.max(this.pausedUntil, Date.now() + (retryAfterMs(r.headers.get('retry-after')) ?? 1000));
        if (r.status < 200 || r.status >= 300) throw this.error(path, r);
        return r;
      }, signal),
      { idempotent: true, policy: this.retry, signal, onRetry: (err, wait, attempt) => this.log.warn(`${path}: ${err.message}; try ${attempt + 1} in ${wait} ms`) },
    );
    return decodeJson(this.ep, res, schema);
  }

  private async waitPause(signal?: AbortSignal) {
    const wait = this.pausedUntil - Date.now();
    if (wait <= 0) return;
    try {
      await sleep(wait, undefined, { signal });
    } catch {
      throw cancelled(METRIKA_SERVICE);
    }
  }

  /** The OutsideError of a non-2xx answer, naming Metrika's error type and message. */
  private error(path: string, r: OutsideResponse): OutsideError {
    let detail = '';
    try {
      const p = MetrikaErrorWire.safeParse(JSON.parse(r.text()));
      if (p.success) {
        const e = p.data.errors?.[0];
        detail = [e?.error_type, e?.message ?? p.data.message].filter(Boolean).join(': ');
      }
    } catch { /* not JSON */ }
    if (!detail) detail = r.text().replace(/\s+/g, ' ').trim().slice(0, 300);
    const message = this.scrub(`Yandex Metrika answered ${r.status} to ${path}${detail ? `: ${detail}` : ''}`);
    return new OutsideError(METRIKA_SERVICE, reasonOfStatus(r.status), message, { status: r.status, retryAfterMs: retryAfterMs(r.headers.get('retry-after')) });
  }

  private scrub(text: string): string {
    const token = this.cfg.report.metrikaToken;
    return token && token.length >= 4 ? text.split(token).join('***') : text;
  }
}
