import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import getRawBody from 'raw-body';
import { AppError } from '../errors.js';
import { limitBytes } from '../storage/upload-gate.js';

/** A request the upload gate (upload-gate.ts) let through with the larger body limit. */
export type UploadGatedRequest = IncomingMessage & { uploadLimit?: number };

/**
 * The one body parser (docs/architecture.md "Request path"): JSON only, read with raw-body (the reader
 * of Express's body-parser) under a limit chosen per request: BODY_LIMIT, or the upload limit the
 * upload gate granted before a byte was read. A body declared past its limit is refused unread (413;
 * the exception filter closes the connection); a chunked one when it passes the limit. Like
 * body-parser's strict mode, the body is an object or an array; an empty body is `{}`.
 * Every other content type is refused (415) by Fastify: the API guard answers the /api writes first.
 */
export function registerJsonBody(fastify: FastifyInstance, bodyLimit: string, uploadMaxBytes: number) {
  const ordinary = limitBytes(bodyLimit);
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', (request, payload, done) => {
    const upload = (request.raw as UploadGatedRequest).uploadLimit;
    getRawBody(payload, { length: request.headers['content-length'], limit: upload ?? ordinary, encoding: 'utf8' }, (err, text) => {
      if (err) {
        const e = err as Error & { type?: string; status?: number };
        if (e.type === 'entity.too.large') {
          const message = upload
            ? `Request body is larger than ${Math.floor(upload / 1024)}kb: an upload is at most ${uploadMaxBytes / 1024 / 1024} MB (STORAGE_MAX_MB), sent as base64`
            : `Request body is larger than ${bodyLimit}`;
          return done(new AppError(413, message, 'http'), undefined);
        }
        return done(new AppError(e.status && e.status >= 400 && e.status < 500 ? e.status : 400, e.message, 'http'), undefined);
      }
      const first = /\S/.exec(text);
      if (!first) return done(null, {});
      if (first[0] !== '{' && first[0] !== '[') return done(new AppError(400, 'Malformed JSON body: a JSON object or array is expected', 'parse'), undefined);
      try {
        done(null, JSON.parse(text) as unknown);
      } catch (parse) {
        done(new AppError(400, `Malformed JSON body: ${(parse as Error).message}`, 'parse'), undefined);
      }
    });
  });
}
