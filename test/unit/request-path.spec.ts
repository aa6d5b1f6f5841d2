import helmet from 'helmet';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { constantHeaders } from '../../src/core/http/security-headers.js';

/** A real Node response (nothing is written: headers are only set) with a request of the given path. */
function exchange(url = '/api/health') {
  const req = new IncomingMessage(new Socket());
  req.url = url;
  req.method = 'GET';
  return { req, res: new ServerResponse(req) };
}
const headersOf = (res: ServerResponse) => (res as unknown as { getRawHeaderNames(): string[] }).getRawHeaderNames().map((n) => [n, res.getHeader(n)]);
type Middleware = Parameters<typeof constantHeaders>[0];

describe('request path (bootstrap.ts)', () => {
  test("constantHeaders replays exactly the headers helmet sets, with helmet's spelling and order", async () => {
    const options = { contentSecurityPolicy: { directives: { 'style-src': ["'self'", "'unsafe-inline'"], 'upgrade-insecure-requests': null } }, strictTransportSecurity: false };
    const live = exchange();
    const replayed = exchange('/another/path?q=1');
    replayed.res.setHeader('X-Powered-By', 'something');
    expect(await new Promise((resolve) => helmet(options)(live.req, live.res, resolve))).toBeUndefined();
    constantHeaders(helmet(options))(replayed.res);
    expect(headersOf(replayed.res)).toEqual(headersOf(live.res));
    expect(replayed.res.getHeader('Content-Security-Policy')).toContain("style-src 'self' 'unsafe-inline'");
  });

  test('constantHeaders refuses a middleware whose headers depend on the request', () => {
    const byPath: Middleware = (req, res, next) => { res.setHeader('X-Path', req.url ?? ''); next(); };
    expect(() => constantHeaders(byPath)).toThrow(/reads req\./);
    const later: Middleware = (_req, _res, next) => { setImmediate(next); };
    expect(() => constantHeaders(later)).toThrow(/synchronously/);
  });
});
