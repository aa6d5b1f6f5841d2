/**
 * Retries of outside calls (docs/architecture.md "Outside services"): only for idempotent calls (a GET,
 * a search, a report read; a mail the server refused with a 4xx reply, which it did not take), only
 * for failures that may pass (`OutsideError.retryable`: no connection, 408/425/429/500/502/503/504, an
 * SMTP 4xx), never for 400/401/403/404 or our own time-out (the time-out is the caller's budget: trying
 * again would double the wait on a screen). The wait is the service's Retry-After when it sent one
 * (a wait longer than `maxRetryAfterMs` is not waited: the error goes back with its retryAfterMs),
 * else an exponential back-off with jitter (half fixed, half random).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { cancelled, OutsideError } from './outside-error.js';

export interface RetryPolicy {
  /** Tries in all (1: no retry). */
  tries: number;
  /** The first back-off, doubled each try. */
  baseMs?: number;
  /** The longest back-off. */
  maxMs?: number;
  /** The longest Retry-After honoured. */
  maxRetryAfterMs?: number;
}

export const DEFAULT_RETRY: Required<RetryPolicy> = { tries: 3, baseMs: 250, maxMs: 5_000, maxRetryAfterMs: 30_000 };

/** The back-off before try `attempt + 1` (attempt counts from 1): half of base*2^(attempt-1), plus a random half. */
export function backoffMs(attempt: number, policy: RetryPolicy, random = Math.random): number {
  const p = { ...DEFAULT_RETRY, ...policy };
  const cap = Math.min(p.maxMs, p.baseMs * 2 ** (attempt - 1));
  return Math.round(cap / 2 + random() * (cap / 2));
}

/**
 * Runs `fn`, and again after a wait while it fails with a retryable OutsideError, `policy.tries` times
 * at most. `idempotent: false` runs it once whatever happens. `onRetry` hears each retry (logs, tests).
 */
export async function withRetry<T>(
  fn: (attempt: number) => Promise<T>,
  opts: { idempotent: boolean; policy?: RetryPolicy; signal?: AbortSignal; onRetry?: (err: OutsideError, waitMs: number, attempt: number) => void },
): Promise<T> {
  const policy = { ...DEFAULT_RETRY, ...opts.policy };
  const tries = opts.idempotent ? Math.max(1, policy.tries) : 1;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (!(err instanceof OutsideError) || !err.retryable || attempt >= tries) throw err;
      let wait = backoffMs(attempt, policy);
      if (err.retryAfterMs !== undefined) {
        if (err.retryAfterMs > policy.maxRetryAfterMs) throw err;
        wait = Math.max(wait, err.retryAfterMs);
      }
      opts.onRetry?.(err, wait, attempt);
      try {
        await sleep(wait, undefined, { signal: opts.signal });
      } catch {
        throw cancelled(err.service);
      }
    }
  }
}
