import helmet from 'helmet';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { chain } from '../../src/core/http/chain.js';
import { constantHeaders } from '../../src/core/http/security-headers.js';

/** A real Node response (nothing is written: headers are only set) with a request of the given path. */
function exchange(url = '/api/health') {
  const req = new IncomingMessage(new Socket());
  req.url = url;
  req.method = 'GET';
  const res = new ServerResponse(req);
  return { req: req as unknown as Request, res: res as unknown as Response };
}
const run = (mw: RequestHandler, x: ReturnType<typeof exchange>) => new Promise<unknown>((resolve) => mw(x.req, x.res, resolve as NextFunction));
const headersOf = (res: Response) => (res as unknown as { getRawHeaderNames(): string[] }).getRawHeaderNames().map((n) => [n, res.getHeader(n)]);

describe('request path (bootstrap.ts)', () => {
  test("constantHeaders replays exactly the headers helmet sets, with helmet's spelling and order", async () => {
    const options = { contentSecurityPolicy: { directives: { 'style-src': ["'self'", "'unsafe-inline'"], 'upgrade-insecure-requests': null } }, strictTransportSecurity: false };
    const live = exchange();
    const replayed = exchange('/another/path?q=1');
    replayed.res.setHeader('X-Powered-By', 'something');
    expect(await run(helmet(options), live)).toBeUndefined();
    expect(await run(constantHeaders(helmet(options)), replayed)).toBeUndefined();
    expect(headersOf(replayed.res)).toEqual(headersOf(live.res));
    expect(replayed.res.getHeader('Content-Security-Policy')).toContain("style-src 'self' 'unsafe-inline'");
  });

  test('constantHeaders refuses a middleware whose headers depend on the request', () => {
    const byPath: RequestHandler = (req, res, next) => { res.setHeader('X-Path', req.path); next(); };
    expect(() => constantHeaders(byPath)).toThrow(/reads req\./);
    const later: RequestHandler = (_req, _res, next) => { setImmediate(next); };
    expect(() => constantHeaders(later)).toThrow(/synchronously/);
  });

  test('chain runs its middleware in order; an error passed on or thrown skips the rest', async () => {
    const seen: string[] = [];
    const mark = (name: string): RequestHandler => (_req, _res, next) => { seen.push(name); next(); };
    expect(await run(chain(mark('a'), mark('b')), exchange())).toBeUndefined();
    expect(seen).toEqual(['a', 'b']);
    const failure = new Error('refused');
    expect(await run(chain(mark('c'), (_req, _res, next) => next(failure), mark('never')), exchange())).toBe(failure);
    expect(await run(chain((() => { throw failure; }) as RequestHandler, mark('never')), exchange())).toBe(failure);
    expect(seen).toEqual(['a', 'b', 'c']);
  });
});
