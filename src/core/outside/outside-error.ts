/**
 * The one error of outside-service clients (docs/architecture.md "Outside services"): a reason, the
 * service, and the upstream status when there was one. The reason is mapped from the upstream status
 * here and only here (`reasonOfStatus`), and so is what the console answers for each reason
 * (`ANSWER_OF_REASON`) and whether a call may be tried again (`retryableStatus`). It is an AppError, so
 * an RPC method that lets it through answers a clear envelope, never a 5xx of its own.
 */
import type { EnvelopeStatus } from '../../contracts/envelope.js';
import { maskSecretText } from '../../contracts/secrets.js';
import { AppError } from '../errors.js';

export const OUTSIDE_REASONS = ['config', 'auth', 'rate', 'timeout', 'unreachable', 'upstream', 'answer'] as const;
/**
 * config: the service is not configured (or configured wrongly) here; auth: it refused our credentials;
 * rate: it (or our pacer) says too many calls; timeout: no answer in time; unreachable: no connection;
 * upstream: it answered with an error; answer: its answer could not be read (not JSON, wrong shape, too large).
 */
export type OutsideReason = (typeof OUTSIDE_REASONS)[number];

/**
 * What the console answers for each reason. Never 401/403: those mean the console's own session and
 * role (the UI signs out on 401); an outside service refusing our token is a 502 like any upstream failure.
 */
export const ANSWER_OF_REASON: Record<OutsideReason, { httpStatus: number; status: Exclude<EnvelopeStatus, 'ok'> }> = {
  config: { httpStatus: 422, status: 'rules' },
  auth: { httpStatus: 502, status: 'http' },
  rate: { httpStatus: 503, status: 'http' },
  timeout: { httpStatus: 504, status: 'http' },
  unreachable: { httpStatus: 502, status: 'http' },
  upstream: { httpStatus: 502, status: 'http' },
  answer: { httpStatus: 502, status: 'http' },
};

/** The reason of an upstream HTTP status (3xx: a redirect we do not follow). */
export function reasonOfStatus(status: number): OutsideReason {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate';
  if (status === 408 || status === 504) return 'timeout';
  return 'upstream';
}

/**
 * Statuses worth another try of an idempotent call: the service was busy or a proxy in front of it
 * failed. Never 400, 401, 403, 404 or any other 4xx: the same request gets the same answer.
 */
export function retryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status === 500 || status === 502 || status === 503 || status === 504;
}

export interface OutsideErrorOptions {
  /** The upstream HTTP status (or SMTP reply code) when the service answered. */
  status?: number;
  /** Whether another try may succeed; by default from the reason and status (see `retryableStatus`). */
  retryable?: boolean;
  /** The service asked us to wait this long (Retry-After), in ms. */
  retryAfterMs?: number;
  /** What the console answers instead of ANSWER_OF_REASON (a client whose failures mean something else to its screens). */
  httpStatus?: number;
  envelope?: Exclude<EnvelopeStatus, 'ok'>;
  fields?: Record<string, string>;
}

export class OutsideError extends AppError {
  /** The upstream status (HTTP status or SMTP reply code), when the service answered. */
  readonly upstreamStatus?: number;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;

  constructor(
    readonly service: string,
    readonly reason: OutsideReason,
    message: string,
    opts: OutsideErrorOptions = {},
  ) {
    const answer = ANSWER_OF_REASON[reason];
    // Upstream text (an error body, an SMTP reply) may echo what we sent: masked like the logs.
    super(opts.httpStatus ?? answer.httpStatus, maskSecretText(message), opts.envelope ?? answer.status, opts.fields);
    this.name = 'OutsideError';
    this.upstreamStatus = opts.status;
    this.retryAfterMs = opts.retryAfterMs;
    this.retryable = opts.retryable ?? (reason === 'unreachable' || reason === 'rate' || (opts.status !== undefined && retryableStatus(opts.status)));
  }
}

/** A call the caller gave up on (its signal aborted): not the service's failure, never retried. */
export const cancelled = (label: string) => new AppError(499, `${label}: cancelled`, 'http');

/** The time a Retry-After header asks for, in ms (seconds or an HTTP date), or undefined. */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : Math.max(0, t - now);
}
