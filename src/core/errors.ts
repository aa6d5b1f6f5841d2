import { ZodError, type ZodType, type z } from 'zod';
import type { Envelope, EnvelopeStatus, ErrorEnvelope } from '../contracts/envelope.js';
import { DB_UNREACHABLE_MESSAGE, isDbUnreachable } from './database/db-errors.js';
import { dbOutage } from './database/db-outage.js';

/**
 * A failure the user should read. Services throw these; the exception filter (REST) and the RPC
 * controller (per method) turn them into an envelope and an HTTP status, in this one place.
 */
export class AppError extends Error {
  constructor(
    readonly httpStatus: number,
    message: string,
    readonly status: Exclude<EnvelopeStatus, 'ok'> = 'error',
    readonly fields?: Record<string, string>,
  ) {
    super(message);
  }

  toEnvelope(): ErrorEnvelope {
    const e: ErrorEnvelope = { status: this.status, message: this.message, code: this.httpStatus };
    if (this.fields) e.fields = this.fields;
    return e;
  }
}

/**
 * Codes (docs/api.md "Status codes"): 400 is for a body that cannot be read (malformed JSON, answered
 * before any method runs); well-formed input that is refused, by its shape or by the state it meets,
 * is 422 `rules` naming the field (`invalid`, or a schema's `fromZod`).
 */
/** Well-formed input refused (by a rule or the state it meets): 422 `rules`, naming the field when there is one. */
export const invalid = (message: string, fields?: Record<string, string>) => new AppError(422, message, 'rules', fields);
export const notFound = (message: string) => new AppError(404, message, 'empty');
export const conflict = (message: string) => new AppError(409, message, 'rules');
export const unauthorized = (message: string) => new AppError(401, message, 'error');
export const forbidden = (message: string) => new AppError(403, message, 'error');
export const tooMany = (message: string) => new AppError(429, message, 'error');
/** A peer (SSH node, TLS host, external service) failed: reported, not thrown as a 500. */
export const upstream = (message: string) => new AppError(502, message, 'http');

/** Turns a zod error into a 422 'rules' failure whose message names the fields. */
export function fromZod(err: ZodError): AppError {
  const fields: Record<string, string> = {};
  for (const issue of err.issues) {
    const key = issue.path.join('.') || '_';
    fields[key] ??= issue.message;
  }
  const message = Object.entries(fields)
    .map(([k, v]) => (k === '_' ? v : `${k}: ${v}`))
    .join('; ');
  return new AppError(422, message, 'rules', fields);
}

/** Validates input against a schema, throwing a 422 AppError that names each bad field. */
export function parseInput<S extends ZodType>(schema: S, value: unknown): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw fromZod(r.error);
  return r.data;
}

/**
 * Maps anything thrown into an envelope and status; unknown errors become a bare 500 (logged elsewhere).
 * An unreachable database (db-errors.ts) is 503 'db' for every caller (RPC, REST, sockets), not
 * unexpected: the outage is logged once by dbOutage, not as a stack per call.
 */
export function toFailure(err: unknown): { httpStatus: number; envelope: ErrorEnvelope; unexpected: boolean } {
  if (err instanceof AppError) return { httpStatus: err.httpStatus, envelope: err.toEnvelope(), unexpected: false };
  if (isDbUnreachable(err)) {
    dbOutage.noteUnreachable(err);
    return { httpStatus: 503, envelope: { status: 'db', message: DB_UNREACHABLE_MESSAGE, code: 503 }, unexpected: false };
  }
  if (err instanceof ZodError) {
    const e = fromZod(err);
    return { httpStatus: e.httpStatus, envelope: e.toEnvelope(), unexpected: false };
  }
  const anyErr = err as { getStatus?: () => number; getResponse?: () => unknown; message?: string; code?: string; statusCode?: number };
  if (typeof anyErr?.getStatus === 'function') {
    // Nest HttpException (404 route, 413 body, ...)
    const status = anyErr.getStatus();
    const resp = anyErr.getResponse?.() as { message?: string | string[] } | string | undefined;
    const msg = typeof resp === 'string' ? resp : Array.isArray(resp?.message) ? resp.message.join('; ') : (resp?.message ?? anyErr.message ?? 'Error');
    return { httpStatus: status, envelope: { status: status >= 500 ? 'error' : 'http', message: String(msg), code: status }, unexpected: status >= 500 };
  }
  // Fastify's own refusals of a request it cannot route or read (an unsupported body type, a malformed URL).
  if (anyErr?.code?.startsWith('FST_') && anyErr.statusCode && anyErr.statusCode >= 400 && anyErr.statusCode < 500) {
    return { httpStatus: anyErr.statusCode, envelope: { status: 'http', message: anyErr.message ?? 'Bad request', code: anyErr.statusCode }, unexpected: false };
  }
  if (anyErr?.code && /^ER_|^SQLITE_/.test(anyErr.code)) {
    if (/DUP_ENTRY|CONSTRAINT_UNIQUE/.test(anyErr.code)) {
      return { httpStatus: 409, envelope: { status: 'db', message: 'A record with this value already exists', code: 409 }, unexpected: false };
    }
    return { httpStatus: 500, envelope: { status: 'db', message: 'Database error', code: 500 }, unexpected: true };
  }
  return { httpStatus: 500, envelope: { status: 'error', message: 'Internal error', code: 500 }, unexpected: true };
}

/**
 * A socket message's acknowledgement: `{status: 'ok', result}` with what `fn` gives, or the failure's
 * envelope (an unexpected error is logged with its stack through `log`, never sent).
 */
export async function socketAnswer(fn: () => unknown, log?: { error(message: string): void }): Promise<Envelope> {
  try {
    return { status: 'ok', result: await fn() };
  } catch (err) {
    const f = toFailure(err);
    if (f.unexpected) log?.error((err as Error)?.stack ?? String(err));
    return f.envelope;
  }
}
