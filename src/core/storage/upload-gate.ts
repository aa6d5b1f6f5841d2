import { Logger } from '@nestjs/common';
import express, { type NextFunction, type Request, type Response } from 'express';
import { Role, roleAllows } from '../../contracts/roles.js';
import type { AuthService } from '../auth/auth.service.js';

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

/** A request the gate let through to the upload parser: the limit that applied (for the 413 message). */
export type UploadGatedRequest = Request & { uploadLimit?: number };

/** `1mb`, `512kb` (BODY_LIMIT's form) in bytes. */
export function limitBytes(limit: string): number {
  const m = /^(\d+)(kb|mb)$/i.exec(limit);
  if (!m) throw new Error(`not a body limit: ${limit}`);
  return Number(m[1]) * (m[2].toLowerCase() === 'mb' ? 1024 * 1024 : 1024);
}

/**
 * The larger JSON body of UPLOAD_ROUTES, only for a caller who may upload: mounted by bootstrap.ts
 * before the ordinary JSON parser, it checks the `User` session header (a live session of an active
 * user with the route's role) **before a byte of the body is read**, and only then parses the body
 * with the upload limit. Anyone else (no session, an ended one, a weaker role) keeps BODY_LIMIT: a
 * body whose Content-Length is past it is answered 413 at once, unread, and the connection closed
 * (the ordinary parser would read the whole body to discard it); a smaller one goes on to the
 * ordinary parser and the guard's 401/403. Other routes and methods are not touched.
 */
export function uploadBodyGate(auth: AuthService, maxBytes: number, bodyLimit: string) {
  const log = new Logger('Storage');
  const limit = uploadBodyLimit(maxBytes);
  const ordinary = limitBytes(bodyLimit);
  const parser = express.json({ limit });
  const tooLarge = (req: Request, res: Response, next: NextFunction) => {
    if (Number(req.headers['content-length'] ?? 0) <= ordinary) return next();
    res.setHeader('Connection', 'close');
    res.status(413).json({ status: 'http', message: `Request body is larger than ${bodyLimit}`, code: 413 });
  };
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'POST') return next();
    // A body declared within BODY_LIMIT is the ordinary parser's either way (the upload parser would
    // read it alike): no session lookup for it, so an RPC call reads its session once (in the guard).
    if (req.headers['transfer-encoding'] === undefined && Number(req.headers['content-length'] ?? 0) <= ordinary) return next();
    const path = req.path.length > 1 ? req.path.replace(/\/$/, '') : req.path;
    const route = UPLOAD_ROUTES.find((r) => r.path === path);
    if (!route) return next();
    const header = req.headers['user'];
    const hash = Array.isArray(header) ? header[0] : header;
    if (!hash) return tooLarge(req, res, next);
    auth.verify(hash).then(
      (actor) => {
        if (!actor || !roleAllows(actor.role, route.role)) return tooLarge(req, res, next);
        (req as UploadGatedRequest).uploadLimit = limit;
        parser(req, res, next);
      },
      (err: unknown) => {
        // The session store cannot be read (database down): the ordinary limit, parser and guard answer.
        log.warn(`upload gate: ${(err as Error)?.message ?? err}`);
        tooLarge(req, res, next);
      },
    );
  };
}
