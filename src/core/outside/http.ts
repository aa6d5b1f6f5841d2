/**
 * The one request path of outside-service clients (docs/architecture.md "Outside services"): the base
 * URL from config, credentials in a header only (a URL with a user part or a secret-looking query
 * parameter is refused before anything is sent), a time-out over the whole call (connect, headers and
 * body), redirects never followed, the answer's size capped, and one log line per call with the URL
 * masked. Failures are OutsideErrors; the wording of each is the client's (`Endpoint.messages`).
 */
import { Logger } from '@nestjs/common';
import type { ZodType, z } from 'zod';
import { isSecretName, maskSecretText } from '../../contracts/secrets.js';
import { AppError } from '../errors.js';
import { OutsideError, reasonOfStatus, retryAfterMs, type OutsideReason } from './outside-error.js';

/** Answers larger than this are refused unless the endpoint says otherwise. */
export const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;

/** How a client words its failures (each gets what it needs to say which call failed and why). */
export interface EndpointMessages {
  timeout(ms: number): string;
  /** `code`: the socket error's code (ECONNREFUSED, ENOTFOUND, ...), `message`: its text. */
  unreachable(code: string | undefined, message: string): string;
  /** A non-2xx answer; `detail` is the start of its body. */
  status(status: number, detail: string): string;
  tooLarge(maxBytes: number): string;
  /** The body is not JSON (`detail`: the parser's message). */
  notJson(detail: string): string;
  /** The JSON is not of the expected shape (`detail`: the first field and what is wrong with it). */
  unexpected(detail: string): string;
  notConfigured(): string;
  /** The caller went away (answered 499, never retried). */
  cancelled(): string;
}

export interface Endpoint {
  /** The service's name in errors, logs and the pacer ('ai-report', 'agent', ...). */
  service: string;
  /** From config; null or '' when the service is not configured here. */
  baseUrl: string | null;
  timeoutMs: number;
  maxBytes?: number;
  /** The credential, sent only as this header (`Authorization: Bearer …`, `X-Cluster-Key: …`). */
  auth?: { header: string; value: string } | null;
  messages?: Partial<EndpointMessages>;
}

export interface OutsideRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Appended to the base URL (which may have a path of its own). */
  path: string;
  query?: Record<string, string | number | boolean | undefined | Array<string | number>>;
  /** Sent as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
  accept?: string;
  /** The caller going away (an RPC call's signal). */
  signal?: AbortSignal;
  /**
   * false: answers of any status come back to the client (it reads error bodies itself); by default
   * a non-2xx answer is an OutsideError with the reason of its status.
   */
  okOnly?: boolean;
}

export interface OutsideResponse {
  status: number;
  headers: Headers;
  body: Buffer;
  text(): string;
}

const log = new Logger('Outside');

const defaults = (service: string): EndpointMessages => ({
  timeout: (ms) => `${service}: no answer within ${ms / 1000} s`,
  unreachable: (code, message) => `${service}: cannot be reached (${code ?? message})`,
  status: (status, detail) => `${service}: answered ${status}${detail ? `: ${detail}` : ''}`,
  tooLarge: (max) => `${service}: the answer is larger than ${max} bytes`,
  notJson: (detail) => `${service}: the answer is not JSON (${detail})`,
  unexpected: (detail) => `${service}: unexpected answer (${detail})`,
  notConfigured: () => `${service} is not configured`,
  cancelled: () => `${service}: cancelled`,
});

export const messagesOf = (ep: Endpoint): EndpointMessages => ({ ...defaults(ep.service), ...ep.messages });

/**
 * The wording of a service named for people ('T-Bank Invest API answered 401: ...', 'Yandex Metrika
 * cannot be reached (ECONNREFUSED)'), and the sentence that says what to set when it is not configured.
 */
export const namedMessages = (label: string, notConfigured: string): EndpointMessages => ({
  timeout: (ms) => `${label}: no answer within ${ms / 1000} s`,
  unreachable: (code, message) => `${label} cannot be reached (${code ?? message})`,
  status: (status, detail) => `${label} answered ${status}${detail ? `: ${detail}` : ''}`,
  tooLarge: (max) => `${label}: the answer is larger than ${max} bytes`,
  notJson: (detail) => `${label} answered no JSON (${detail})`,
  unexpected: (detail) => `${label}: unexpected answer (${detail})`,
  notConfigured: () => notConfigured,
  cancelled: () => `${label}: cancelled`,
});

/** The URL of a request: base + path + query. Refuses credentials in the URL (they go in a header). */
export function requestUrl(ep: Endpoint, req: Pick<OutsideRequest, 'path' | 'query'>): URL {
  if (!ep.baseUrl) throw new OutsideError(ep.service, 'config', messagesOf(ep).notConfigured());
  const u = new URL(ep.baseUrl.replace(/\/+$/, '') + req.path);
  if (u.username || u.password) throw new OutsideError(ep.service, 'config', `${ep.service}: credentials belong in a header, not in the URL`);
  for (const [k, v] of Object.entries(req.query ?? {})) {
    if (v === undefined) continue;
    for (const item of Array.isArray(v) ? v : [v]) u.searchParams.append(k, String(item));
  }
  for (const k of u.searchParams.keys()) {
    if (isSecretName(k)) throw new OutsideError(ep.service, 'config', `${ep.service}: '${k}' looks like a credential: send it in a header, not in the URL`);
  }
  return u;
}

/** The failure of a call that got no answer: time-out, the caller's abort, or no connection. */
export function transportError(ep: Endpoint, err: unknown, signal?: AbortSignal): AppError {
  if (err instanceof AppError) return err;
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  const m = messagesOf(ep);
  if (signal?.aborted || e.name === 'AbortError') return new AppError(499, m.cancelled(), 'http');
  if (e.name === 'TimeoutError') return new OutsideError(ep.service, 'timeout', m.timeout(ep.timeoutMs));
  const code = e.cause?.code;
  const message = e.cause?.message ?? e.message ?? 'error';
  return new OutsideError(ep.service, 'unreachable', m.unreachable(code, message));
}

/** The OutsideError of a non-2xx answer (its reason from the status, in outside-error.ts). */
export function statusError(ep: Endpoint, res: OutsideResponse, reason: OutsideReason = reasonOfStatus(res.status)): OutsideError {
  const detail = res.text().replace(/\s+/g, ' ').trim().slice(0, 300);
  return new OutsideError(ep.service, reason, messagesOf(ep).status(res.status, detail), {
    status: res.status,
    retryAfterMs: retryAfterMs(res.headers.get('retry-after')),
  });
}

/** Reads a body up to `max` bytes; past it, stops reading and fails. */
async function readCapped(ep: Endpoint, res: Response, max: number): Promise<Buffer> {
  if (!res.body) return Buffer.alloc(0);
  const declared = Number(res.headers.get('content-length'));
  if (declared > max) {
    await res.body.cancel().catch(() => undefined);
    throw new OutsideError(ep.service, 'answer', messagesOf(ep).tooLarge(max), { status: res.status });
  }
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw new OutsideError(ep.service, 'answer', messagesOf(ep).tooLarge(max), { status: res.status });
    }
    parts.push(value);
  }
  return Buffer.concat(parts);
}

/**
 * Opens a call and answers the fetch Response once its headers are in, for a client that reads the
 * body as a stream (the agent's follow). The time-out is the caller's: pass a `signal`, aborted with a
 * `TimeoutError` DOMException for a time-out (any other abort is a cancel). Nothing is capped: the
 * client reads and bounds the stream itself.
 */
export async function openOutside(ep: Endpoint, req: OutsideRequest & { signal: AbortSignal }): Promise<Response> {
  const url = requestUrl(ep, req);
  try {
    return await fetch(url, { method: req.method ?? 'GET', headers: headersOf(ep, req), body: bodyOf(req), signal: req.signal, redirect: 'manual' });
  } catch (err) {
    // the caller's signal carries why it ended: a TimeoutError reason is a time-out, an AbortError a cancel
    throw transportError(ep, err);
  }
}

function headersOf(ep: Endpoint, req: OutsideRequest): Record<string, string> {
  return {
    accept: req.accept ?? 'application/json',
    ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}),
    ...req.headers,
    ...(ep.auth ? { [ep.auth.header]: ep.auth.value } : {}),
  };
}

const bodyOf = (req: OutsideRequest) => (req.body !== undefined ? JSON.stringify(req.body) : undefined);

/**
 * One call: answers status, headers and the whole body (at most `maxBytes`). A 3xx is never followed
 * (an upstream error naming where it pointed). With `okOnly` (the default) a non-2xx is an OutsideError.
 */
export async function sendOutside(ep: Endpoint, req: OutsideRequest): Promise<OutsideResponse> {
  const url = requestUrl(ep, req);
  const started = Date.now();
  const timeout = AbortSignal.timeout(ep.timeoutMs);
  const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
  const where = maskSecretText(`${req.method ?? 'GET'} ${url.origin}${url.pathname}`);
  let res: OutsideResponse;
  try {
    const r = await fetch(url, { method: req.method ?? 'GET', headers: headersOf(ep, req), body: bodyOf(req), signal, redirect: 'manual' });
    const body = await readCapped(ep, r, ep.maxBytes ?? DEFAULT_MAX_BYTES);
    res = { status: r.status, headers: r.headers, body, text: () => body.toString('utf8') };
  } catch (err) {
    const e = transportError(ep, err, req.signal);
    log.warn(`${ep.service} ${where}: ${e.message} (${Date.now() - started} ms)`);
    throw e;
  }
  log.debug(`${ep.service} ${where} ${res.status} (${Date.now() - started} ms, ${res.body.length} bytes)`);
  if (res.status >= 300 && res.status < 400) {
    const to = res.headers.get('location');
    throw new OutsideError(ep.service, 'upstream', messagesOf(ep).status(res.status, `a redirect${to ? ` to ${maskSecretText(to)}` : ''}, not followed`), { status: res.status });
  }
  if (req.okOnly !== false && (res.status < 200 || res.status >= 300)) {
    const e = statusError(ep, res);
    log.warn(`${ep.service} ${where}: ${e.message}`);
    throw e;
  }
  return res;
}

/** The body as JSON checked against a wire schema (`<service>.wire.ts`); else an `answer` OutsideError. */
export function decodeJson<S extends ZodType>(ep: Endpoint, res: OutsideResponse, schema: S): z.output<S> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(res.text());
  } catch (e) {
    throw new OutsideError(ep.service, 'answer', messagesOf(ep).notJson((e as Error).message), { status: res.status });
  }
  const r = schema.safeParse(parsed);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new OutsideError(ep.service, 'answer', messagesOf(ep).unexpected(`${issue.path.join('.') || 'body'}: ${issue.message}`), { status: res.status });
  }
  return r.data;
}
