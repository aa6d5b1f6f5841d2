/**
 * The Yandex partner (ad network, RSYA) statistics API (EXTERNAL-APIS.md "Yandex Partner (ad network)
 * statistics API"; docs/report.md "Partner totals"): RSYA_URL (default https://partner.yandex.ru),
 * RSYA_TOKEN, REPORT_TIMEOUT_MS. `GET {base}/api/statistics2/get.json?lang=ru&period=D1&period=D2&
 * field=partner_wo_nds&dimension_field=date|day` with `Authorization: OAuth <token>` (repeated
 * parameters, not `field[0]=`); the token in that header only.
 *
 * - **Pacing**: the API publishes no figure we could find; the client keeps to 2 calls at once, 5 a
 *   second and 1,000 an hour per token (docs/report.md), and a 429 pauses it for its Retry-After.
 * - **Retries**: reads only: 429 and 5xx again with jittered back-off; 400/401/403/404 never.
 * - **Errors**: the answer's `{errors: [...]}` is named in the message; `result` other than "ok" is an error.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import type { OutsideServiceView } from '../../contracts/outside.js';
import { decodeJson, namedMessages, sendOutside, type Endpoint, type OutsideResponse } from './http.js';
import { cancelled, OutsideError, reasonOfStatus, retryAfterMs } from './outside-error.js';
import { laneOf, Pacer } from './pacer.js';
import { withRetry, type RetryPolicy } from './retry.js';
import { pointsOf, RsyaErrorWire, RsyaStatWire } from './rsya.wire.js';

export const RSYA_SERVICE = 'rsya';
export const RSYA_PATH = '/api/statistics2/get.json';
export const RSYA_LIMITS = { concurrent: 2, perSecond: 5, perHour: 1000 } as const;

@Injectable()
export class RsyaClient {
  private readonly log = new Logger('RsyaClient');
  private readonly ep: Endpoint;
  readonly pacer = new Pacer(RSYA_SERVICE, { ...RSYA_LIMITS, maxWaitMs: 60_000 });
  private pausedUntil = 0;
  retry: RetryPolicy = { tries: 3, baseMs: 250, maxMs: 5_000, maxRetryAfterMs: 30_000 };

  constructor(@Inject(APP_CONFIG) private readonly cfg: AppConfig) {
    const ms = cfg.report.timeoutMs;
    const token = cfg.report.rsyaToken;
    this.ep = {
      service: RSYA_SERVICE,
      baseUrl: token ? cfg.report.rsyaUrl : null,
      timeoutMs: ms,
      maxBytes: 8 * 1024 * 1024,
      auth: token ? { header: 'authorization', value: `OAuth ${token}` } : null,
      messages: namedMessages('Yandex partner statistics', 'Yandex partner statistics are not configured (RSYA_TOKEN)'),
    };
  }

  get configured(): boolean {
    return !!this.cfg.report.rsyaToken;
  }

  get lane(): string {
    return laneOf(this.cfg.report.rsyaToken ?? '');
  }

  describe(): OutsideServiceView {
    return {
      service: RSYA_SERVICE,
      configured: this.configured,
      target: this.cfg.report.rsyaUrl,
      credential: this.configured ? 'set' : 'not set',
      env: ['RSYA_URL', 'RSYA_TOKEN', 'REPORT_TIMEOUT_MS'],
      details: { timeout_ms: this.cfg.report.timeoutMs, concurrent: RSYA_LIMITS.concurrent, per_second: RSYA_LIMITS.perSecond, per_hour: RSYA_LIMITS.perHour },
    };
  }

  /** partner_wo_nds per day between two days (inclusive): [{date, value}], oldest first. */
  async partnerByDay(date1: string, date2: string, signal?: AbortSignal): Promise<Array<{ date: string; value: number }>> {
    if (!this.configured) throw new OutsideError(RSYA_SERVICE, 'config', this.ep.messages!.notConfigured!());
    const query = { lang: 'ru', period: [date1, date2], field: 'partner_wo_nds', dimension_field: 'date|day' };
    const res = await withRetry(
      () => this.pacer.run(this.lane, async () => {
        await this.waitPause(signal);
        const r = await sendOutside(this.ep, { method: 'GET', path: RSYA_PATH, query, okOnly: false, signal });
        if (r.status === 429) this.pausedUntil = Math.max(this.pausedUntil, Date.now() + (retryAfterMs(r.headers.get('retry-after')) ?? 1000));
        if (r.status < 200 || r.status >= 300) throw this.error(r);
        return r;
      }, signal),
      { idempotent: true, policy: this.retry, signal, onRetry: (err, wait, attempt) => this.log.warn(`${RSYA_PATH}: ${err.message}; try ${attempt + 1} in ${wait} ms`) },
    );
    // an "ok" status with {errors} or result != ok is the service refusing the request
    try {
      const e = RsyaErrorWire.safeParse(JSON.parse(res.text()));
      if (e.success && (e.data.errors?.length || (e.data.result && e.data.result !== 'ok'))) throw this.error(res, 'upstream');
    } catch (err) {
      if (err instanceof OutsideError) throw err;
    }
    return pointsOf(decodeJson(this.ep, res, RsyaStatWire));
  }

  private async waitPause(signal?: AbortSignal) {
    const wait = this.pausedUntil - Date.now();
    if (wait <= 0) return;
    try {
      await sleep(wait, undefined, { signal });
    } catch {
      throw cancelled(RSYA_SERVICE);
    }
  }

  private error(r: OutsideResponse, reason = reasonOfStatus(r.status)): OutsideError {
    let detail = '';
    try {
      const p = RsyaErrorWire.safeParse(JSON.parse(r.text()));
      if (p.success) {
        detail = (p.data.errors ?? []).map((e) => (typeof e === 'string' ? e : [e.id, e.message ?? e.msg ?? e.description].filter((x) => x !== undefined && x !== '').join(' '))).filter(Boolean).join('; ') || (p.data.message ?? '');
      }
    } catch { /* not JSON */ }
    if (!detail) detail = r.text().replace(/\s+/g, ' ').trim().slice(0, 300);
    const token = this.cfg.report.rsyaToken;
    let message = `Yandex partner statistics answered ${r.status}${detail ? `: ${detail}` : ''}`;
    if (token && token.length >= 4) message = message.split(token).join('***');
    return new OutsideError(RSYA_SERVICE, reason, message, { status: r.status, retryAfterMs: retryAfterMs(r.headers.get('retry-after')) });
  }
}
