import { Injectable } from '@nestjs/common';
import { POSITION_PAGE_SIZE, type PositionEngine } from '../../../contracts/position.js';
import { AnswerCache } from '../../../core/outside/answer-cache.js';
import { OutsideError } from '../../../core/outside/outside-error.js';
import { YANDEX_SEARCH_SERVICE, YandexSearchClient } from '../../../core/outside/yandex-search.client.js';
import { sameSite } from '../../../core/outside/yandex-search.wire.js';
import { findInPages } from '../schedule.js';
import type { PositionFound, PositionSource, PositionSourceQuery } from './source.js';

/** 001 §9: answers of outside services are kept 600 s. */
export const SEARCH_CACHE_TTL_MS = 600_000;
/** Pages kept at most (each entry: the page's result URLs, not the XML). */
export const SEARCH_CACHE_MAX = 20_000;

/**
 * Yandex Search API v2 (src/core/outside/yandex-search.client.ts): 10 results a page, one request per
 * page down to the depth. Each page's result URLs are kept in the answer cache (outside_cache) for
 * 600 s, keyed by region, page and text, so a second check of the same query (check now twice, two
 * projects with one query, a second instance) sends nothing. A failure is never hidden behind an older
 * page: the check fails (and the query is marked stale) instead.
 */
@Injectable()
export class YandexPositionSource implements PositionSource {
  readonly engine: PositionEngine = 'yandex';
  readonly pageSize = POSITION_PAGE_SIZE;

  constructor(private readonly client: YandexSearchClient, private readonly cache: AnswerCache) {}

  get configured(): boolean {
    return this.client.configured;
  }

  get limits() {
    return this.client.limits;
  }

  async find(q: PositionSourceQuery, opts: { signal?: AbortSignal; patient?: boolean } = {}): Promise<PositionFound> {
    let requests = 0;
    const r = await findInPages(
      async (page) => {
        const key = `${q.region}|${this.pageSize}|${page}|${q.text.toLowerCase()}`;
        const got = await this.cache.read<Array<{ url: string }>>(YANDEX_SEARCH_SERVICE, key, { ttlMs: SEARCH_CACHE_TTL_MS, maxEntries: SEARCH_CACHE_MAX }, async () => {
          requests++;
          const res = await this.client.search({ queryText: q.text, page, groupsOnPage: this.pageSize, region: q.region }, opts);
          return res.docs.map((d) => ({ url: d.url }));
        });
        if (got.stale) throw new OutsideError(YANDEX_SEARCH_SERVICE, 'upstream', got.error ?? 'Yandex Search API: no fresh answer');
        return got.value;
      },
      (url) => sameSite(url, q.domain),
      q.depth,
      this.pageSize,
    );
    return { pos: r.pos, url: r.url, requests, top: q.depth };
  }
}
