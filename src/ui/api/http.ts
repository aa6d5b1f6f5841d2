import { API_TIMEOUT_MS, TIMEOUT_MESSAGE, TIMEOUT_STATUS } from '../../contracts/constants.js';
import type { Envelope, ErrorEnvelope } from '../../contracts/envelope.js';
import { MSG } from '../../contracts/messages.js';
import { clearSession, getHash, setInpoint } from './session.js';

/** The client's own failure: the time-out of 000 §7 ('Time wait end', status -1). */
export interface TimeoutEnvelope {
  status: typeof TIMEOUT_STATUS;
  message: string;
  code?: undefined;
  fields?: undefined;
}
export type Failure = ErrorEnvelope | TimeoutEnvelope;
/** What every client call resolves to: the server's envelope, or a failure made up here. */
export type Result<T> = { status: 'ok'; result: T } | Failure;

/** A failed call as an exception: status, message (shown to the user), HTTP code and per-field messages. */
export class ApiError extends Error {
  readonly status: Failure['status'];
  readonly code?: number;
  readonly fields?: Record<string, string>;
  constructor(f: Failure) {
    super(f.message);
    this.name = 'ApiError';
    this.status = f.status;
    this.code = f.code;
    this.fields = f.fields;
  }
  get isTimeout() {
    return this.status === TIMEOUT_STATUS;
  }
}

/** Message of anything thrown, for an alert or a notification. */
export const errorText = (err: unknown): string =>
  err instanceof Error ? err.message : typeof err === 'string' ? err : JSON.stringify(err);

export interface CallOptions {
  /** Time-out in ms; 30 s by default (000 §9). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Do not end the session on 401 (the login call itself answers 401 for bad credentials). */
  noAuthRedirect?: boolean;
}

type UnauthorizedHandler = (inpoint: string) => void;
let onUnauthorized: UnauthorizedHandler = () => {
  if (location.pathname !== '/auth') location.assign('/auth');
};
/** The app registers its router navigation here; the default reloads on /auth. */
export function setUnauthorizedHandler(fn: UnauthorizedHandler) {
  onUnauthorized = fn;
}

/** 401 from any call: the session is gone. Clear it, remember where the user was, go to /auth. */
export function sessionEnded() {
  const here = location.pathname + location.search;
  clearSession();
  setInpoint(here);
  onUnauthorized(here);
}

const timeout = (): TimeoutEnvelope => ({ status: TIMEOUT_STATUS, message: TIMEOUT_MESSAGE });

/**
 * What a call that never reached the server says (fetch rejects with a bare TypeError, 'Failed to
 * fetch' in Chromium, 'NetworkError when attempting…' in Firefox): the network is down, the server
 * is stopped, or the connection broke before the answer arrived.
 */
export const UNREACHABLE_MESSAGE = MSG.unreachable;

/**
 * One HTTP call under /api. Never throws: resolves to the parsed JSON body (an envelope or, for the
 * RPC batch, an array of them) or a failure envelope: time-out -> 'Time wait end' (-1); network
 * failure -> 'http' with UNREACHABLE_MESSAGE; non-JSON body -> 'parse' with the parser's message; HTTP error -> the body's
 * message. A 401 also ends the session (see sessionEnded).
 */
export async function httpCall(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown, opts: CallOptions = {}): Promise<{ httpStatus: number; body: unknown }> {
  const ctl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctl.abort();
  }, opts.timeoutMs ?? API_TIMEOUT_MS);
  const onAbort = () => ctl.abort();
  opts.signal?.addEventListener('abort', onAbort);
  const hash = getHash();
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (hash) headers.User = hash;
  try {
    const res = await fetch('/api' + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: ctl.signal,
      credentials: 'same-origin',
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch (e) {
      // 000 §8: a non-JSON body is reported as the parse error text.
      return { httpStatus: res.status, body: { status: 'parse', message: (e as Error).message, code: res.status } satisfies ErrorEnvelope };
    }
    if (res.status === 401 && !opts.noAuthRedirect) sessionEnded();
    if (!res.ok && !Array.isArray(parsed)) {
      const env = parsed as Partial<ErrorEnvelope> | null;
      const message = typeof env?.message === 'string' && env.message ? env.message : res.status === 401 ? MSG.sessionRequired : `HTTP ${res.status} ${res.statusText}`;
      const status = env?.status && env.status !== ('ok' as string) ? env.status : 'http';
      return { httpStatus: res.status, body: { status, message, code: env?.code ?? res.status, ...(env?.fields ? { fields: env.fields } : {}) } satisfies ErrorEnvelope };
    }
    return { httpStatus: res.status, body: parsed };
  } catch (e) {
    if (timedOut) return { httpStatus: 0, body: timeout() };
    // Cancelled by the caller (a page left, a newer load): not a failure to show as a network problem.
    if ((e as Error).name === 'AbortError' || opts.signal?.aborted) return { httpStatus: 0, body: { status: 'http', message: 'Request cancelled' } satisfies ErrorEnvelope };
    return { httpStatus: 0, body: { status: 'http', message: UNREACHABLE_MESSAGE } satisfies ErrorEnvelope };
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
  }
}

/** Normalises any body into one envelope. */
export function asEnvelope<T>(body: unknown): Result<T> {
  const e = body as Envelope<T> | TimeoutEnvelope | null;
  if (e && typeof e === 'object' && 'status' in e) {
    if (e.status === 'ok') return e as Result<T>;
    return { ...(e as Failure), message: String((e as Failure).message ?? 'Error') };
  }
  return { status: 'parse', message: 'Unexpected answer: not an envelope' };
}

/** Unwraps an envelope: its result, or throws ApiError. */
export function unwrap<T>(e: Result<T>): T {
  if (e.status === 'ok') return e.result;
  throw new ApiError(e);
}
