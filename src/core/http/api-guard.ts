import type { NextFunction, Request, Response } from 'express';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Every answer under /api: never stored by a browser or a proxy (the sign-in answer holds the session hash). */
export function noStore(_req: Request, res: Response, next: NextFunction) {
  res.setHeader('Cache-Control', 'no-store');
  next();
}

const refuse = (res: Response, code: number, status: string, message: string) => res.status(code).json({ status, message, code });

/** Whether the request carries a body (a length above zero, or a chunked one). */
const hasBody = (req: Request) => Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;

/** `application/json`, with or without parameters (`; charset=utf-8`). */
export const isJson = (contentType: string | undefined) => (contentType ?? '').split(';')[0].trim().toLowerCase() === 'application/json';

/**
 * Whether a write comes from another site: the browser says so in Sec-Fetch-Site (`cross-site`,
 * `same-site`: another host of the same site); browsers that do not send it send Origin, which must
 * then name this host (the Host header, or X-Forwarded-Host behind a trusted proxy). Requests without
 * either (curl, scripts, the node agents) are not from a browser page and pass.
 */
export function crossSite(req: Request, trustProxy: boolean): boolean {
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
 * is what a cross-site form or a "simple" cross-origin request sends). Runs before any body parser.
 */
export function apiWriteGuard(trustProxy: boolean) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!WRITES.has(req.method)) return next();
    if (crossSite(req, trustProxy)) return refuse(res, 403, 'error', 'Cross-site requests are refused: use the console itself');
    if (hasBody(req) && !isJson(req.headers['content-type'])) {
      return refuse(res, 415, 'http', 'Unsupported body: send JSON (Content-Type: application/json)');
    }
    next();
  };
}
