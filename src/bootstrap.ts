import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import express, { type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import type { AppConfig } from '../config/config.js';
import { AppModule } from './app.module.js';
import { apiWriteGuard, noStore } from './core/http/api-guard.js';
import { chain } from './core/http/chain.js';
import { constantHeaders } from './core/http/security-headers.js';
import { jsonCompression, uiStatic } from './core/http/ui-static.js';
import { AuthedSocketAdapter } from './core/realtime/socket.adapter.js';
import { JsonLogger } from './core/logger.js';
import { ingestTokenGate } from './modules/input-stream/input-stream.controller.js';
import { InputStreamService } from './modules/input-stream/input-stream.service.js';
import { AuthService } from './core/auth/auth.service.js';
import { FILES_PATH, StorageService } from './core/storage/storage.service.js';
import { uploadBodyGate, type UploadGatedRequest } from './core/storage/upload-gate.js';
import { STORAGE_PATH } from './contracts/storage.js';

/** Paths under /api: Express matches mount paths without case, and Nest's routes too (/API/health is /api/health). */
const API_PATH = /^\/api(?:\/|$)/i;
/** The input stream's ingest routes (the prefix ingestTokenGate was mounted on). */
const INGEST_PATH = /^\/api\/input_stream\/ingest(?:\/|$)/i;

/**
 * Builds the application (without listening): used by main.ts and by the end-to-end tests, so tests
 * run exactly what production runs.
 */
export async function createApp(cfg: AppConfig, logger = new JsonLogger(cfg.logLevel)): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(cfg), { bodyParser: false, logger });
  app.set('trust proxy', cfg.trustProxy);
  app.disable('x-powered-by');
  // No ETag on JSON answers: every /api answer is no-store (nothing revalidates it), and computing one
  // hashed each body and turned it into a Buffer, which Node writes apart from the headers (a small
  // string goes out with them in one piece). The UI's files and /storage keep theirs (serve-static and
  // storage.service.ts set their own).
  app.set('etag', false);
  // helmet's headers, recorded once and replayed per request (security-headers.ts): helmet decides them.
  app.use(
    constantHeaders(helmet({
      contentSecurityPolicy: {
        directives: { 'style-src': ["'self'", "'unsafe-inline'"], 'img-src': ["'self'", 'data:', 'blob:'], 'upgrade-insecure-requests': null },
      },
      strictTransportSecurity: false,
    })),
  );
  // One branch per request, chosen once (docs/architecture.md "Request path"): an /api request walks only
  // the API's middleware, everything else only the site's, instead of every request passing ~10 layers.
  const json = express.json({ limit: cfg.bodyLimit });
  const ingestGate = ingestTokenGate(app.get(InputStreamService, { strict: false }));
  const uploadGate = uploadBodyGate(app.get(AuthService, { strict: false }), cfg.storage.maxBytes, cfg.bodyLimit);
  const api = chain(
    // Every /api answer (errors, 404s and the RPC batch included) is no-store; writes are JSON from this
    // site only. Before the body parser, so a refused body is never parsed.
    noStore,
    apiWriteGuard(cfg.trustProxy),
    // JSON answers over 1 KB go out compressed (br or gzip); streamed downloads are not JSON and pass as they are.
    jsonCompression(),
    // Routes whose credential is not a session check it before the body too (docs/input-stream.md).
    (req, res, next) => (INGEST_PATH.test(req.path) ? ingestGate(req, res, next) : next()),
    // Uploads (docs/architecture.md "Storage"): the routes that carry an image as base64 take a larger
    // JSON body than BODY_LIMIT, for a caller whose session (checked before the body is read) may upload.
    // Only a body declared past BODY_LIMIT, or chunked, costs the gate's session lookup (upload-gate.ts).
    uploadGate,
    // JSON only: no route takes a form body (the UI sends JSON everywhere; apiWriteGuard refuses the rest).
    json,
  );
  // Stored images are served read-only under /storage, the legacy banner files under /files; then the
  // built React UI with its pre-compressed copies, and index.html for every other GET path (deep links).
  const storage = app.get(StorageService, { strict: false });
  const site = express.Router();
  site.use(STORAGE_PATH, storage.serve());
  site.use(FILES_PATH, storage.serveLegacy());
  site.use(uiStatic(cfg.uiDir));
  site.use(json);
  app.use((req: Request, res: Response, next: NextFunction) => (API_PATH.test(req.path) ? api(req, res, next) : site(req, res, next)));
  // Body parser failures (malformed JSON, oversized body) answer an envelope, never an HTML stack.
  app.use((err: { status?: number; type?: string; message?: string }, req: Request, res: Response, next: NextFunction) => {
    if (!err) return next();
    const status = err.status && err.status >= 400 && err.status < 500 ? err.status : 400;
    const upload = (req as UploadGatedRequest).uploadLimit;
    // An oversized body is not read any further: the connection closes after the answer.
    if (err.type === 'entity.too.large') res.setHeader('Connection', 'close');
    const message =
      err.type === 'entity.too.large' && upload
        ? `Request body is larger than ${Math.floor(upload / 1024)}kb: an upload is at most ${cfg.storage.maxBytes / 1024 / 1024} MB (STORAGE_MAX_MB), sent as base64`
      : err.type === 'entity.too.large' ? `Request body is larger than ${cfg.bodyLimit}`
      : err.type === 'entity.parse.failed' ? `Malformed JSON body: ${err.message}`
      : err.message ?? 'Bad request';
    res.status(status).json({ status: err.type === 'entity.parse.failed' ? 'parse' : 'http', message, code: status });
  });
  app.setGlobalPrefix('api', { exclude: ['sync/{*path}'] });
  const adapter = new AuthedSocketAdapter(app, cfg.redisUrl);
  await adapter.connectRedis();
  app.useWebSocketAdapter(adapter);
  return app;
}
