import fastifyCompress from '@fastify/compress';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import expressStaticGzip from 'express-static-gzip';

/** Paths the UI never answers: the API, socket.io, the agents' /sync routes and the stored files. */
const NOT_UI = /^\/(api|socket\.io|sync|storage|files)(\/|$)/;
/** Vite's content-hashed build output: a changed file gets a new name, so it may be kept for a year. */
const HASHED = /\/assets\/[^/]+$/;
/** The pre-compressed copy of a file that express-static-gzip picked (index.html.br, app-x1.js.gz). */
const COPY_SUFFIX = /\.(br|gz)$/;

/** Answers above this many bytes are compressed (JSON under /api); smaller ones gain nothing. */
export const COMPRESS_THRESHOLD = 1024;

/**
 * Cache headers of the UI's files: hashed assets are immutable for a year; index.html (also as the SPA
 * fallback of a deep link) is `no-cache`, so the browser revalidates it (ETag, 304) on every visit and
 * picks up a new build at once.
 */
function uiCacheHeaders(res: ServerResponse, path: string) {
  const file = path.replace(COPY_SUFFIX, '');
  if (HASHED.test(file)) res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
  else res.setHeader('Cache-Control', 'no-cache');
}

/**
 * The built React UI (docs/architecture.md "Serving the UI"). The build writes a brotli (.br) and a gzip
 * (.gz) copy beside every JS, CSS, HTML and SVG file (vite-plugin-compression2 in src/ui/vite.config.ts);
 * express-static-gzip answers the copy the request accepts (br before gzip before the plain file) with
 * Content-Encoding, the original file's Content-Type, the copy's Content-Length and `Vary:
 * Accept-Encoding`. It lists the copies when the app starts: a UI rebuilt under a running process is
 * served, but its new files uncompressed until a restart.
 *
 * Every other GET or HEAD outside NOT_UI gets index.html (compressed the same way), so deep links
 * survive a reload; a missing file under /assets/ is a 404, never index.html under a script's name.
 */
export function uiStatic(uiDir: string): RequestHandler[] {
  const files = expressStaticGzip(uiDir, {
    enableBrotli: true,
    orderPreference: ['br', 'gzip'],
    index: 'index.html',
    serveStatic: { setHeaders: uiCacheHeaders, index: false, redirect: false },
  }) as RequestHandler;
  const serve: RequestHandler = (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || NOT_UI.test(req.path)) return next();
    files(req, res, next);
  };
  const fallback: RequestHandler = (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || NOT_UI.test(req.path) || req.path.startsWith('/assets/')) return next();
    req.url = '/index.html';
    files(req, res, next);
  };
  return [serve, fallback];
}

/**
 * JSON answers above 1 KB compressed (brotli or gzip, per Accept-Encoding) by @fastify/compress. Only
 * `application/json`: the streamed downloads under /api (the money CSV export, the asciicast of a
 * terminal recording) pass untouched, so a stream's back-pressure and Content-Length stay as their
 * routes set them; the UI's files have their pre-compressed copies (uiStatic). A request that accepts
 * no encoding (health probes, scripts, the agents) gets its answer as it is.
 */
export async function registerJsonCompression(app: NestFastifyApplication) {
  await app.register(fastifyCompress, { threshold: COMPRESS_THRESHOLD, encodings: ['br', 'gzip'], customTypes: /^application\/json(?:;|$)/ });
}
