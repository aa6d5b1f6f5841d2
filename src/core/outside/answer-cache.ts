/**
 * The answer cache of outside services (docs/architecture.md "Outside services"; table outside_cache,
 * migration 1810000000000). `read(service, key, policy, fetch)`:
 *
 * - a fresh entry (younger than the policy's TTL) is answered without calling the service;
 * - otherwise `fetch` runs, once per key at a time on this instance (single-flight: callers asking
 *   meanwhile share it, and one caller going away does not cancel it for the others); a good answer is
 *   stored with its time;
 * - when `fetch` fails with an OutsideError and a last good answer exists, that answer is returned
 *   marked `stale` with the time it came and the error (recorded on the entry); without one the error
 *   is thrown. Other errors (bugs, bad input) are thrown as they are.
 *
 * Entries are evicted least recently used first past the policy's `maxEntries` per service. Screens
 * that must not spend quota read with `peek` (no call out).
 */
import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThanOrEqual, type Repository } from 'typeorm';
import { OutsideCacheEntity } from './outside-cache.entity.js';
import { cancelled, OutsideError } from './outside-error.js';

export interface CachePolicy {
  /** How long an answer is fresh. */
  ttlMs: number;
  /** Entries kept for the service at most (least recently used go first); default 10,000. */
  maxEntries?: number;
}

export interface Cached<T> {
  value: T;
  /** ISO time the answer came from the service. */
  fetched: string;
  /** Answered from the cache (no call made now, or the call failed). */
  cached: boolean;
  /** Past its TTL: the call to refresh it failed (`error` says why) or was not made (`peek`). */
  stale: boolean;
  /** The failure of the refresh, when `stale` came from one. */
  error?: string;
}

export const DEFAULT_MAX_ENTRIES = 10_000;

/** Keys longer than a column holds are kept as their digest. */
const keyOf = (key: string) => (key.length <= 190 ? key : `sha256:${createHash('sha256').update(key).digest('hex')}`);

@Injectable()
export class AnswerCache {
  private readonly flights = new Map<string, Promise<Cached<unknown>>>();
  /** Last used_at given by this instance: kept increasing so the eviction order is exact. */
  private clock = 0;

  constructor(@InjectRepository(OutsideCacheEntity) private readonly rows: Repository<OutsideCacheEntity>) {}

  private tick(): number {
    this.clock = Math.max(Date.now(), this.clock + 1);
    return this.clock;
  }

  /** The entry as it is, without calling out (stale when past its TTL); null when there is none. */
  async peek<T>(service: string, key: string): Promise<Cached<T> | null> {
    const row = await this.rows.findOne({ where: { service, cache_key: keyOf(key) } });
    if (!row || row.value === null || row.fetched_at === null) return null;
    return this.view<T>(row, true);
  }

  private view<T>(row: OutsideCacheEntity, cached: boolean, now = Date.now()): Cached<T> {
    const stale = row.expires_at === null || row.expires_at <= now;
    return {
      value: row.value as T,
      fetched: new Date(row.fetched_at!).toISOString(),
      cached,
      stale,
      ...(stale && row.error ? { error: row.error } : {}),
    };
  }

  /** A fresh answer from the cache, else `fetch` (shared per key), else the last good answer marked stale. */
  async read<T>(service: string, key: string, policy: CachePolicy, fetch: () => Promise<T>, opts: { signal?: AbortSignal } = {}): Promise<Cached<T>> {
    const k = keyOf(key);
    const row = await this.rows.findOne({ where: { service, cache_key: k } });
    const now = Date.now();
    if (row && row.value !== null && row.fetched_at !== null && row.expires_at !== null && row.expires_at > now) {
      await this.rows.update({ service, cache_key: k }, { used_at: this.tick() });
      return this.view<T>(row, true, now);
    }
    const flightKey = `${service}\n${k}`;
    let flight = this.flights.get(flightKey) as Promise<Cached<T>> | undefined;
    if (!flight) {
      flight = this.refresh<T>(service, k, policy, fetch).finally(() => this.flights.delete(flightKey));
      this.flights.set(flightKey, flight);
    }
    return opts.signal ? raceAbort(flight, opts.signal, service) : flight;
  }

  private async refresh<T>(service: string, k: string, policy: CachePolicy, fetch: () => Promise<T>): Promise<Cached<T>> {
    let value: T;
    try {
      value = await fetch();
    } catch (err) {
      if (!(err instanceof OutsideError)) throw err;
      const row = await this.rows.findOne({ where: { service, cache_key: k } });
      if (!row || row.value === null || row.fetched_at === null) throw err;
      await this.rows.update({ service, cache_key: k }, { error: err.message, error_at: Date.now(), used_at: this.tick() });
      return { value: row.value as T, fetched: new Date(row.fetched_at).toISOString(), cached: true, stale: true, error: err.message };
    }
    const fetched = Date.now();
    await this.put(service, k, value, policy, fetched);
    return { value, fetched: new Date(fetched).toISOString(), cached: false, stale: false };
  }

  /** Stores a good answer (a job that fetched it itself, or `read`). */
  async put<T>(service: string, key: string, value: T, policy: CachePolicy, fetched = Date.now()): Promise<void> {
    const k = keyOf(key);
    const fields = { value: value as object, fetched_at: fetched, expires_at: fetched + policy.ttlMs, used_at: this.tick(), error: null, error_at: null };
    const r = await this.rows.update({ service, cache_key: k }, fields);
    if ((r.affected ?? 0) > 0) return;
    try {
      await this.rows.insert({ service, cache_key: k, ...fields });
    } catch {
      await this.rows.update({ service, cache_key: k }, fields); // inserted meanwhile (another instance)
      return;
    }
    await this.evict(service, policy.maxEntries ?? DEFAULT_MAX_ENTRIES);
  }

  /** Keeps the `max` most recently used entries of a service. */
  private async evict(service: string, max: number): Promise<void> {
    const n = await this.rows.count({ where: { service } });
    if (n <= max) return;
    const old = await this.rows.find({ where: { service }, select: { cache_key: true, used_at: true }, order: { used_at: 'ASC' }, take: n - max });
    if (!old.length) return;
    await this.rows.delete({ service, used_at: LessThanOrEqual(old[old.length - 1].used_at) });
  }

  /** Entries of a service (tests, status). */
  count(service: string): Promise<number> {
    return this.rows.count({ where: { service } });
  }

  /** Forgets a service's entries (or one key). */
  async clear(service: string, key?: string): Promise<void> {
    await this.rows.delete(key === undefined ? { service } : { service, cache_key: keyOf(key) });
  }
}

/** Rejects when `signal` aborts (the caller went away), leaving the shared call running for the others. */
function raceAbort<T>(p: Promise<T>, signal: AbortSignal, service: string): Promise<T> {
  const gone = () => cancelled(service);
  if (signal.aborted) return Promise.reject(gone());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(gone());
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
