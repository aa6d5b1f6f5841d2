/**
 * Yandex Search API v2, web search (EXTERNAL-APIS.md "Yandex Search API v2"; Yandex Cloud Search API
 * documentation "Text search in synchronous mode", "Quotas and limits"; docs/position.md "The source"):
 * YANDEX_SEARCH_URL (default https://searchapi.api.cloud.yandex.net), YANDEX_SEARCH_API_KEY,
 * YANDEX_SEARCH_FOLDER_ID, YANDEX_SEARCH_TIMEOUT_MS. One call: `POST {base}/v2/web/search` with
 * `{query: {searchType, queryText, page}, groupSpec: {groupMode: GROUP_MODE_DEEP, groupsOnPage,
 * docsInGroup: 1}, region, folderId, responseFormat: FORMAT_XML}` and `Authorization: Api-Key <key>` (the
 * key in that header only: never in a URL, a log line, an error, an answer or the database); the answer
 * `{rawData}` is base64 of the XML page (yandex-search.wire.ts).
 *
 * - **Pacing**: the service's quotas for synchronous requests (10 a second, 10,000 an hour; configurable
 *   as YANDEX_SEARCH_PER_SECOND / YANDEX_SEARCH_PER_HOUR for a folder whose quota was changed), one lane
 *   per key. A 429 pauses every call of the key for its Retry-After (or a second).
 * - **Retries**: a search is a read: 429, 5xx and no connection are tried again with jittered back-off;
 *   400/401/403/404 never.
 * - **Errors**: the API's `{code, message}` body, or the XML's `<error code>`, named in the OutsideError.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import type { OutsideServiceView } from '../../contracts/outside.js';
import { decodeJson, namedMessages, sendOutside, type Endpoint, type OutsideResponse } from './http.js';
import { cancelled, OutsideError, reasonOfStatus, retryAfterMs } from './outside-error.js';
import { laneOf, Pacer } from './pacer.js';
import { withRetry, type RetryPolicy } from './retry.js';
import { decodeSearchPage, SearchAnswerWire, SearchErrorWire, SearchXmlError, XmlError, type SearchPage } from './yandex-search.wire.js';

export const YANDEX_SEARCH_SERVICE = 'yandex-search';
export const YANDEX_SEARCH_PATH = '/v2/web/search';
export const YANDEX_SEARCH_NOT_CONFIGURED = 'Yandex Search API is not configured (YANDEX_SEARCH_API_KEY, YANDEX_SEARCH_FOLDER_ID)';

const SCREEN_RETRY: RetryPolicy = { tries: 3, baseMs: 250, maxMs: 5_000, maxRetryAfterMs: 30_000 };
const JOB_RETRY: RetryPolicy = { tries: 5, baseMs: 500, maxMs: 10_000, maxRetryAfterMs: 65_000 };

export interface SearchRequest {
  queryText: string;
  /** 0-based page. */
  page: number;
  groupsOnPage: number;
  /** Yandex region id (lr). */
  region: number;
  /** SEARCH_TYPE_RU by default. */
  searchType?: string;
}

export interface SearchCallOptions {
  signal?: AbortSignal;
  /** A job's call: more tries, longer waits honoured. */
  patient?: boolean;
}

@Injectable()
export class YandexSearchClient {
  private readonly log = new Logger('YandexSearchClient');
  private readonly ep: Endpoint;
  readonly pacer: Pacer;
  private pausedUntil = 0;
  /** Tests lower the back-off. */
  retry: { screen: RetryPolicy; job: RetryPolicy } = { screen: SCREEN_RETRY, job: JOB_RETRY };

  constructor(@Inject(APP_CONFIG) private readonly cfg: AppConfig) {
    const p = cfg.position;
    const ms = p.timeoutMs;
    this.ep = {
      service: YANDEX_SEARCH_SERVICE,
      baseUrl: this.configured ? p.searchUrl : null,
      timeoutMs: ms,
      maxBytes: 16 * 1024 * 1024,
      auth: p.apiKey ? { header: 'authorization', value: `Api-Key ${p.apiKey}` } : null,
      messages: namedMessages('Yandex Search API', YANDEX_SEARCH_NOT_CONFIGURED),
    };
    this.pacer = new Pacer(YANDEX_SEARCH_SERVICE, { perSecond: p.perSecond, perHour: p.perHour, concurrent: Math.min(10, p.perSecond), maxWaitMs: 15 * 60_000 });
  }

  get configured(): boolean {
    return !!(this.cfg.position.apiKey && this.cfg.position.folderId);
  }

  get lane(): string {
    return laneOf(this.cfg.position.apiKey ?? '');
  }

  get limits(): { perSecond: number; perHour: number } {
    return { perSecond: this.cfg.position.perSecond, perHour: this.cfg.position.perHour };
  }

  describe(): OutsideServiceView {
    return {
      service: YANDEX_SEARCH_SERVICE,
      configured: this.configured,
      target: this.cfg.position.searchUrl,
      credential: this.cfg.position.apiKey ? 'set' : 'not set',
      env: ['YANDEX_SEARCH_URL', 'YANDEX_SEARCH_API_KEY', 'YANDEX_SEARCH_FOLDER_ID', 'YANDEX_SEARCH_TIMEOUT_MS', 'YANDEX_SEARCH_PER_SECOND', 'YANDEX_SEARCH_PER_HOUR'],
      details: { folder_id: this.cfg.position.folderId ? 'set' : 'not set', timeout_ms: this.cfg.position.timeoutMs, per_second: this.cfg.position.perSecond, per_hour: this.cfg.position.perHour },
    };
  }

  /** One page of results (paced, retried, decoded). */
  async search(req: SearchRequest, opts: SearchCallOptions = {}): Promise<SearchPage> {
    if (!this.configured) throw new OutsideError(YANDEX_SEARCH_SERVICE, 'config', YANDEX_SEARCH_NOT_CONFIGURED);
    const body = {
      query: { searchType: req.searchType ?? 'SEARCH_TYPE_RU', queryText: req.queryText, page: req.page },
      groupSpec: { groupMode: 'GROUP_MODE_DEEP', groupsOnPage: req.groupsOnPage, docsInGroup: 1 },
      region: String(req.region),
      folderId: this.cfg.position.folderId,
      responseFormat: 'FORMAT_XML',
    };
    const res = await withRetry(
      () => this.pacer.run(this.lane, async () => {
        await this.waitWindow(opts.signal);
        const r = await sendOutside(this.ep, { method: 'POST', path: YANDEX_SEARCH_PATH, body, okOnly: false, signal: opts.signal });
        if (r.status === 429) this.pausedUntil = Math.max(this.pausedUntil, Date.now() + (retryAfterMs(r.headers.get('retry-after')) ?? 1000));
        if (r.status < 200 || r.status >= 300) throw this.apiError(r);
        return r;
      }, opts.signal),
      {
        idempotent: true,
        policy: opts.patient ? this.retry.job : this.retry.screen,
        signal: opts.signal,
        onRetry: (err, wait, attempt) => this.log.warn(`search: ${err.message}; try ${attempt + 1} in ${wait} ms`),
      },
    );
    const answer = decodeJson(this.ep, res, SearchAnswerWire);
    try {
      return decodeSearchPage(answer.rawData);
    } catch (e) {
      if (e instanceof SearchXmlError) {
        throw new OutsideError(YANDEX_SEARCH_SERVICE, 'upstream', this.scrub(`Yandex Search API answered error ${e.code}: ${e.message}`), { status: res.status, retryable: false });
      }
      if (e instanceof XmlError) throw new OutsideError(YANDEX_SEARCH_SERVICE, 'answer', `Yandex Search API: unexpected answer (rawData: ${e.message})`, { status: res.status });
      throw e;
    }
  }

  private async waitWindow(signal?: AbortSignal) {
    const wait = this.pausedUntil - Date.now();
    if (wait <= 0) return;
    try {
      await sleep(wait, undefined, { signal });
    } catch {
      throw cancelled(YANDEX_SEARCH_SERVICE);
    }
  }

  /** The OutsideError of a non-2xx answer, naming the API's `{code, message}`. */
  private apiError(r: OutsideResponse): OutsideError {
    let detail = '';
    try {
      const p = SearchErrorWire.safeParse(JSON.parse(r.text()));
      if (p.success) {
        const e = typeof p.data.error === 'object' ? p.data.error : null;
        const message = p.data.message ?? e?.message ?? (typeof p.data.error === 'string' ? p.data.error : '');
        const code = p.data.code ?? e?.code;
        if (message || code !== undefined) detail = `${message || 'error'}${code !== undefined ? ` (code ${code})` : ''}`;
      }
    } catch { /* not JSON: the start of the body */ }
    if (!detail) detail = r.text().replace(/\s+/g, ' ').trim().slice(0, 300);
    const requestId = r.headers.get('x-request-id');
    return new OutsideError(YANDEX_SEARCH_SERVICE, reasonOfStatus(r.status), this.scrub(`Yandex Search API answered ${r.status}${detail ? `: ${detail}` : ''}${requestId ? ` [request id ${requestId}]` : ''}`), {
      status: r.status,
      retryAfterMs: retryAfterMs(r.headers.get('retry-after')) ?? (r.status === 429 ? 1000 : undefined),
    });
  }

  /** An error text that echoed the key never carries it. */
  private scrub(text: string): string {
    const key = this.cfg.position.apiKey;
    return key && key.length >= 4 ? text.split(key).join('***') : text;
  }
}
