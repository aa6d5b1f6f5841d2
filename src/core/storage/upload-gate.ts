import { Logger } from '@nestjs/common';
import { Role, roleAllows } from '../../contracts/roles.js';
import type { AuthService } from '../auth/auth.service.js';
import type { UploadGatedRequest } from '../http/json-body.js';

/**
 * The routes whose body may carry an upload (base64 inside the JSON body: the API is JSON only), with
 * the weakest role that sends one: the RPC root (`network_info.Files.send`, admins), POST
 * /api/storage/upload (admins) and POST /api/abs/set_abs (banners, content editors). Matched exactly
 * (a trailing slash allowed). An area whose save carries an image adds its route here.
 */
export const UPLOAD_ROUTES: ReadonlyArray<{ path: string; role: number }> = [
  { path: '/api', role: Role.admin },
  { path: '/api/storage/upload', role: Role.admin },
  { path: '/api/abs/set_abs', role: Role.content },
];

/** The JSON body limit of an upload: base64 of `maxBytes` (4/3) and the record's other fields. */
export function uploadBodyLimit(maxBytes: number): number {
  return Math.ceil((maxBytes * 4) / 3) + 64 * 1024;
}

/** `1mb`, `512kb` (BODY_LIMIT's form) in bytes. */
export function limitBytes(limit: string): number {
  const m = /^(\d+)(kb|mb)$/i.exec(limit);
  if (!m) throw new Error(`not a body limit: ${limit}`);
  return Number(m[1]) * (m[2].toLowerCase() === 'mb' ? 1024 * 1024 : 1024);
}

/**
 * The larger JSON body of UPLOAD_ROUTES, only for a caller who may upload: run by bootstrap.ts when a
 * request arrives, it checks the `User` session header (a live session of an active user with the
 * route's role) **before a byte of the body is read**, and only then grants the upload limit to the
 * body parser (json-body.ts). Anyone else (no session, an ended one, a weaker role) keeps BODY_LIMIT:
 * a body whose Content-Length is past it is answered 413 at once, unread, and the connection closed;
 * a smaller one goes on to the guard's 401/403. Other routes and methods are not touched. A body
 * declared within BODY_LIMIT costs no session lookup (the parser would read it alike), so an RPC call
 * reads its session once (in the guard). Returns a promise only when it looks the session up.
 */
export function uploadBodyGate(auth: AuthService, maxBytes: number, bodyLimit: string) {
  const log = new Logger('Storage');
  const limit = uploadBodyLimit(maxBytes);
  const ordinary = limitBytes(bodyLimit);
  return (req: UploadGatedRequest, path: string): Promise<void> | undefined => {
    if (req.method !== 'POST') return;
    if (req.headers['transfer-encoding'] === undefined && Number(req.headers['content-length'] ?? 0) <= ordinary) return;
    const bare = path.length > 1 ? path.replace(/\/$/, '') : path;
    const route = UPLOAD_ROUTES.find((r) => r.path === bare);
    const header = req.headers['user'];
    const hash = Array.isArray(header) ? header[0] : header;
    if (!route || !hash) return;
    return auth.verify(hash).then(
      (actor) => { if (actor && roleAllows(actor.role, route.role)) req.uploadLimit = limit; },
      // The session store cannot be read (database down): the ordinary limit, parser and guard answer.
      (err: unknown) => { log.warn(`upload gate: ${(err as Error)?.message ?? err}`); },
    );
  };
}
