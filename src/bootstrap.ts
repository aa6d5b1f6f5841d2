import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import express from 'express';
import type { FastifyReply, FastifyRequest } from 'fastify';
import helmet from 'helmet';
import type { AppConfig } from '../config/config.js';
import { AppModule } from './app.module.js';
import { apiWriteRefusal, type Refusal } from './core/http/api-guard.js';
import { registerJsonBody } from './core/http/json-body.js';
import { constantHeaders } from './core/http/security-headers.js';
import { registerJsonCompression, uiStatic } from './core/http/ui-static.js';
import { AuthedSocketAdapter } from './core/realtime/socket.adapter.js';
import { JsonLogger } from './core/logger.js';
import { ingestTokenGate } from './modules/input-stream/input-stream.controller.js';
import { InputStreamService } from './modules/input-stream/input-stream.service.js';
import { AuthService } from './core/auth/auth.service.js';
import { FILES_PATH, StorageService } from './core/storage/storage.service.js';
import { uploadBodyGate, uploadBodyLimit } from './core/storage/upload-gate.js';
import { STORAGE_PATH } from './contracts/storage.js';

/** Paths under /api, in any case (Nest's routes match without case: /API/health is /api/health). */
const API_PATH = /^\/api(?:[/?]|$)/i;
/** The input stream's ingest route. */
const INGEST_PATH = /^\/api\/input_stream\/ingest\/?(?:\?|$)/i;
/** The node agents' paths (docs/agent.md): served by the agents, not the console, which answers them with a JSON 404 rather than the UI's index.html. */
const SYNC_PATH = /^\/sync(?:[/?]|$)/i;

/**
 * Builds the application (without listening): used by main.ts and by the end-to-end tests, so tests
 * run exactly what production runs.
 *
 * The HTTP stack is NestJS on Fastify (docs/architecture.md "Request path"). When a request arrives,
 * one hook decides its branch: an /api request gets helmet's headers, `no-store`, the write guard and
 * the body gates, all before its body is read, then Fastify's router and Nest; a GET or HEAD anywhere
 * else (the UI, /storage, /files) is answered by the site's Express router on Node's own request and
 * response, as it was before Fastify; the rest (other methods, the agents' /sync paths: a JSON 404 here) goes to Nest.
 */
export async function createApp(cfg: AppConfig, logger = new JsonLogger(cfg.logLevel)): Promise<INestApplication> {
  const adapter = new FastifyAdapter({
    trustProxy: cfg.trustProxy,
    // Express's matching, which the API and its clients were built on: no case, a trailing slash allowed.
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true },
    // The largest body any request may be granted (an upload); each request's own limit is json-body.ts's.
    bodyLimit: uploadBodyLimit(cfg.storage.maxBytes),
    // No Nest middleware (MiddlewareConsumer) in this app: the hook below is the only per-request step.
    skipMiddie: true,
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(cfg), adapter, { bodyParser: false, logger });
  const fastify = app.getHttpAdapter().getInstance();
  registerJsonBody(fastify, cfg.bodyLimit, cfg.storage.maxBytes);
  await registerJsonCompression(app);

  // helmet's headers, recorded once and set on every response (security-headers.ts): helmet decides them.
  const securityHeaders = constantHeaders(
    helmet({
      contentSecurityPolicy: {
        directives: { 'style-src': ["'self'", "'unsafe-inline'"], 'img-src': ["'self'", 'data:', 'blob:'], 'upgrade-insecure-requests': null },
      },
      strictTransportSecurity: false,
    }),
  );
  const ingestGate = ingestTokenGate(app.get(InputStreamService, { strict: false }));
  const uploadGate = uploadBodyGate(app.get(AuthService, { strict: false }), cfg.storage.maxBytes, cfg.bodyLimit);
  // Stored images are served read-only under /storage, the legacy banner files under /files; then the
  // built React UI with its pre-compressed copies, and index.html for every other GET path (deep links).
  const storage = app.get(StorageService, { strict: false });
  const site = express();
  site.disable('x-powered-by');
  site.set('trust proxy', cfg.trustProxy);
  site.use(STORAGE_PATH, storage.serve());
  site.use(FILES_PATH, storage.serveLegacy());
  site.use(uiStatic(cfg.uiDir));

  const refuse = (reply: FastifyReply, r: Refusal) => {
    if (r.close) reply.header('Connection', 'close');
    return reply.code(r.code).send(r.envelope);
  };
  // Callback-style: most requests pass without a promise; only the gates that look something up make one.
  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    securityHeaders(reply.raw);
    const url = request.url;
    if (API_PATH.test(url)) {
      // Every /api answer (errors, 404s and the RPC batch included) is no-store; writes are JSON from
      // this site only, refused before the body is read.
      reply.header('Cache-Control', 'no-store');
      const refusal = apiWriteRefusal(request.raw, cfg.trustProxy);
      if (refusal) return void refuse(reply, refusal);
      // Routes whose credential is not a session check it before the body too (docs/input-stream.md).
      // Uploads (docs/architecture.md "Storage"): the routes that carry an image as base64 take a larger
      // JSON body than BODY_LIMIT, for a caller whose session (checked before the body is read) may upload.
      const q = url.indexOf('?');
      const gate = INGEST_PATH.test(url)
        ? ingestGate(request)
        : uploadGate(request.raw, q < 0 ? url : url.slice(0, q));
      if (!gate) return done();
      gate.then((denied) => (denied ? void refuse(reply, denied) : done()), done);
      return;
    }
    if ((request.method === 'GET' || request.method === 'HEAD') && !SYNC_PATH.test(url)) {
      reply.hijack();
      // An Express app takes Node's own request and response (it adds its methods to them itself).
      // What the site does not answer (a missing /assets/ file, a path the UI never serves): a JSON 404.
      site(request.raw as express.Request, reply.raw as unknown as express.Response, () => {
        const res = reply.raw;
        res.statusCode = 404;
        res.setHeader('Content-Type', 'application/json; charset=utf-8');
        res.end(JSON.stringify({ status: 'http', message: `Cannot ${request.method} ${url}`, code: 404 }));
      });
      return;
    }
    done();
  });
  app.setGlobalPrefix('api');
  const sockets = new AuthedSocketAdapter(app, cfg.redisUrl);
  await sockets.connectRedis();
  app.useWebSocketAdapter(sockets);
  return app;
}
