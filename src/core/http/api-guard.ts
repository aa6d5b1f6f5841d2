import type { IncomingMessage } from 'node:http';
import type { ErrorEnvelope } from '../../contracts/envelope.js';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** A request as the guards read it: its method and headers (Node's message, or Fastify's request). */
type Incoming = Pick<IncomingMessage, 'method' | 'headers'>;

/**
 * A refusal answered before the body is read: its HTTP status and envelope; `close` ends the
 * connection after the answer, so an unread body is not waited for.
 */
export interface Refusal { code: number; envelope: ErrorEnvelope; close?: boolean }

const refusal = (code: number, status: ErrorEnvelope['status'], message: string): Refusal => ({ code, envelope: { status, message, code } });

/** Whether the request carries a body (a length above zero, or a chunked one). */
const hasBody = (req: Incoming) => Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;

/** `application/json`, with or without parameters (`; charset=utf-8`). */
export const isJson = (contentType: string | undefined) => (contentType ?? '').split(';')[0].trim().toLowerCase() === 'application/json';

/**
 * Whether a write comes from another site: the browser says so in Sec-Fetch-Site (`cross-site`,
 * `same-site`: another host of the same site); browsers that do not send it send Origin, which must
 * then name this host (the Host header, or X-Forwarded-Host behind a trusted proxy). Requests without
 * either (curl, scripts, the node agents) are not from a browser page and pass.
 */
export function crossSite(req: Incoming, trustProxy: boolean): boolean {
  const site = String(req.headers['sec-fetch-site'] ?? '').toLowerCase();
  if (site) return site === 'cross-site' || site === 'same-site';
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  if (origin === 'null') return true;
  let host: string;
  try { host = new URL(origin).host.toLowerCase(); } catch { return true; }
  const own = [req.headers.host, trustProxy ? req.headers['x-forwarded-host'] : undefined]
    .flatMap((h) => (Array.isArray(h) ? h : h ? String(h).split(',') : []))
    .map((h) => h.trim().toLowerCase());
  return !own.includes(host);
}

/**
 * Writes under /api (POST, PUT, PATCH, DELETE): refused with 403 when they come from another site,
 * and with 415 when their body is not JSON (the UI sends JSON everywhere; a form-encoded or text body
 * is what a cross-site form or a "simple" cross-origin request sends). Checked before the body is read
 * (bootstrap.ts); null lets the request go on.
 */
export function apiWriteRefusal(req: Incoming, trustProxy: boolean): Refusal | null {
  if (!WRITES.has(req.method ?? '')) return null;
  if (crossSite(req, trustProxy)) return refusal(403, 'error', 'Cross-site requests are refused: use the console itself');
  if (hasBody(req) && !isJson(req.headers['content-type'])) {
    return refusal(415, 'http', 'Unsupported body: send JSON (Content-Type: application/json)');
  }
  return null;
}
