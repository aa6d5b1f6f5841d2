/**
 * The shared helpers of outside-service clients (src/core/outside; docs/architecture.md "Outside
 * services") against a local HTTP server (test/helpers/fake-http.ts): the request path (the credential
 * in a header, never in the URL; a time-out; no redirects; the size cap; a closed connection), the
 * reasons mapped from the status, retries (a retry that then succeeds, honouring Retry-After; never on
 * 400/401/403/404; never for a call that is not idempotent) and the pacer (calls at once, calls per
 * second); the mail settings. The answer cache and the clients on the real app: test/api/outside.e2e.ts.
 */
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { z } from 'zod';
import { loadConfig, parseSmtpUrl } from '../../config/config.js';
import { decodeJson, sendOutside, type Endpoint } from '../../src/core/outside/http.js';
import { OutsideError, reasonOfStatus, retryableStatus } from '../../src/core/outside/outside-error.js';
import { laneOf, Pacer } from '../../src/core/outside/pacer.js';
import { backoffMs, withRetry } from '../../src/core/outside/retry.js';
import { startFakeHttp, type FakeHttp } from '../helpers/fake-http.js';

Logger.overrideLogger(false); // the helpers' per-call log lines (the app's logger is tested in test/api/outside.e2e.ts)
const TOKEN = 'tok-0123456789-abcdef';
let fake: FakeHttp;
beforeAll(async () => {
  fake = await startFakeHttp({ 'GET /v1/items': { body: { items: [1, 2] } }, 'POST /v1/report': { body: { ok: true } } });
});
afterEach(() => { fake.release(); fake.reset(); });
afterAll(async () => { await fake.close(); });

const ep = (o: Partial<Endpoint> = {}): Endpoint => ({ service: 'demo', baseUrl: fake.url, timeoutMs: 2_000, auth: { header: 'Authorization', value: `Bearer ${TOKEN}` }, ...o });
const failure = async (p: Promise<unknown>): Promise<OutsideError> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof OutsideError) return e;
    throw e;
  }
  throw new Error('expected a failure');
};
const pick = (e: OutsideError) => ({ reason: e.reason, httpStatus: e.httpStatus, message: e.message });
const Items = z.object({ items: z.array(z.number()) });
/** A GET as clients make it: tried again when the failure may pass. */
const getItems = (e = ep()) => withRetry(async () => decodeJson(e, await sendOutside(e, { path: '/v1/items' }), Items), { idempotent: true, policy: { tries: 3, baseMs: 20, maxMs: 50 } });

describe('the request path', () => {
  test('the token goes in its header, never in the URL; the answer is read through the wire schema', async () => {
    expect(await getItems()).toEqual({ items: [1, 2] });
    const [r] = fake.requests;
    expect(r.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(r.url).toBe('/v1/items');
    expect(r.url).not.toContain(TOKEN);
  });

  test('a token in the URL is refused before anything is sent: a user part, or a secret-looking query parameter', async () => {
    expect(await failure(sendOutside(ep({ baseUrl: fake.url.replace('http://', `http://u:${TOKEN}@`) }), { path: '/v1/items' }))).toMatchObject({ reason: 'config' });
    for (const name of ['token', 'api_key', 'access_token', 'apikey', 'password']) {
      const e = await failure(sendOutside(ep(), { path: '/v1/items', query: { [name]: TOKEN } }));
      expect({ name, reason: e.reason }).toEqual({ name, reason: 'config' });
    }
    expect(fake.requests).toEqual([]);
  });

  test('not configured: reason config (422), nothing sent', async () => {
    const e = await failure(sendOutside(ep({ baseUrl: null }), { path: '/v1/items' }));
    expect({ reason: e.reason, httpStatus: e.httpStatus, message: e.message }).toEqual({ reason: 'config', httpStatus: 422, message: 'demo is not configured' });
  });

  test('a time-out: reason timeout, 504, worded by the client; our own time-out is not tried again', async () => {
    fake.script('GET /v1/items', { hold: true });
    const e = await failure(getItems(ep({ timeoutMs: 300, messages: { timeout: (ms) => `demo did not answer within ${ms} ms` } })));
    expect({ reason: e.reason, httpStatus: e.httpStatus, message: e.message }).toEqual({ reason: 'timeout', httpStatus: 504, message: 'demo did not answer within 300 ms' });
    expect(fake.to('GET /v1/items')).toHaveLength(1);
  });

  test('a closed connection: reason unreachable, tried again (3 tries in all), then the error', async () => {
    fake.script('GET /v1/items', { close: true }, { close: true }, { close: true });
    const e = await failure(getItems());
    expect({ reason: e.reason, httpStatus: e.httpStatus }).toEqual({ reason: 'unreachable', httpStatus: 502 });
    expect(fake.to('GET /v1/items')).toHaveLength(3);
  });

  test('nobody listening: unreachable naming the code', async () => {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const port = (s.address() as { port: number }).port;
    await new Promise((r) => s.close(r));
    const e = await failure(sendOutside(ep({ baseUrl: `http://127.0.0.1:${port}` }), { path: '/x' }));
    expect(pick(e)).toEqual({ reason: 'unreachable', httpStatus: 502, message: 'demo: cannot be reached (ECONNREFUSED)' });
  });

  test('a redirect is not followed', async () => {
    fake.route('GET /v1/moved', { status: 302, headers: { location: `${fake.url}/v1/items` } });
    const e = await failure(sendOutside(ep(), { path: '/v1/moved' }));
    expect(e).toMatchObject({ reason: 'upstream', upstreamStatus: 302 });
    expect(fake.requests.map((r) => r.path)).toEqual(['/v1/moved']);
  });

  test('an answer past the size cap is refused (reason answer), declared or not', async () => {
    fake.route('GET /v1/big', { body: 'x'.repeat(5000) });
    expect(pick(await failure(sendOutside(ep({ maxBytes: 1000 }), { path: '/v1/big' })))).toEqual({ reason: 'answer', httpStatus: 502, message: 'demo: the answer is larger than 1000 bytes' });
    fake.route('GET /v1/chunked', { write: (res) => { res.writeHead(200); for (let i = 0; i < 10; i++) res.write('y'.repeat(500)); res.end(); } });
    expect(await failure(sendOutside(ep({ maxBytes: 1000 }), { path: '/v1/chunked' }))).toMatchObject({ reason: 'answer' });
    expect((await sendOutside(ep({ maxBytes: 5000 }), { path: '/v1/big' })).body.length).toBe(5000);
  });

  test('an answer that is not JSON, or not of the wire shape: reason answer', async () => {
    fake.script('GET /v1/items', { body: '<html>' }, { body: { items: 'none' } });
    expect(await failure(getItems())).toMatchObject({ reason: 'answer', httpStatus: 502 });
    expect(pick(await failure(getItems()))).toEqual({ reason: 'answer', httpStatus: 502, message: 'demo: unexpected answer (items: Invalid input: expected array, received string)' });
  });
});

describe('reasons and retries', () => {
  test('the status decides the reason, in one place', () => {
    expect([401, 403, 429, 408, 504, 400, 404, 422, 500, 502, 503, 302].map((s) => [s, reasonOfStatus(s)])).toEqual([
      [401, 'auth'], [403, 'auth'], [429, 'rate'], [408, 'timeout'], [504, 'timeout'], [400, 'upstream'], [404, 'upstream'], [422, 'upstream'], [500, 'upstream'], [502, 'upstream'], [503, 'upstream'], [302, 'upstream'],
    ]);
    expect([400, 401, 403, 404, 409, 422].some(retryableStatus)).toBe(false);
    expect([408, 429, 500, 502, 503, 504].every(retryableStatus)).toBe(true);
  });

  test('a retry that then succeeds, after the Retry-After the service asked for', async () => {
    fake.script('GET /v1/items', { status: 503, retryAfter: 1, body: { error: 'busy' } });
    expect(await getItems()).toEqual({ items: [1, 2] });
    const [a, b] = fake.to('GET /v1/items');
    expect(fake.to('GET /v1/items')).toHaveLength(2);
    expect(b.at - a.at).toBeGreaterThanOrEqual(990); // waited as asked, not the 20 ms back-off
  });

  test('429 is retried as rate; too long a Retry-After is not waited: the error carries it', async () => {
    fake.script('GET /v1/items', { status: 429, body: 'slow down' });
    expect(await getItems()).toEqual({ items: [1, 2] });
    fake.script('GET /v1/items', { status: 429, retryAfter: 3600 });
    const e = await failure(getItems());
    expect({ reason: e.reason, retryAfterMs: e.retryAfterMs }).toEqual({ reason: 'rate', retryAfterMs: 3_600_000 });
    expect(fake.to('GET /v1/items')).toHaveLength(3);
  });

  test.each([[401, 'auth'], [403, 'auth'], [400, 'upstream'], [404, 'upstream']])('no retry on %i (%s)', async (status, reason) => {
    fake.script('GET /v1/items', { status, body: { error: 'no' } });
    const e = await failure(getItems());
    expect({ reason: e.reason, upstreamStatus: e.upstreamStatus, httpStatus: e.httpStatus }).toEqual({ reason, upstreamStatus: status, httpStatus: 502 });
    expect(fake.to('GET /v1/items')).toHaveLength(1);
  });

  test('a call that is not idempotent is made once, whatever the failure', async () => {
    fake.script('POST /v1/report', { status: 503 });
    const e = await failure(withRetry(() => sendOutside(ep(), { method: 'POST', path: '/v1/report', body: {} }), { idempotent: false }));
    expect(e.upstreamStatus).toBe(503);
    expect(fake.to('POST /v1/report')).toHaveLength(1);
  });

  test('back-off: half fixed, half random, doubling up to the cap', () => {
    const p = { tries: 5, baseMs: 100, maxMs: 1000 };
    expect([1, 2, 3, 4, 5].map((n) => [backoffMs(n, p, () => 0), backoffMs(n, p, () => 1)])).toEqual([[50, 100], [100, 200], [200, 400], [400, 800], [500, 1000]]);
  });
});

describe('the pacer', () => {
  test('calls at once: never more than declared in flight, the others wait in order', async () => {
    const pacer = new Pacer('demo', { concurrent: 2 });
    let most = 0;
    fake.route('GET /v1/slow', () => { most = Math.max(most, fake.open.size); return { hold: true }; });
    const arrived = async (n: number) => { while (fake.to('GET /v1/slow').length < n) await new Promise((r) => setTimeout(r, 10)); };
    const calls = Array.from({ length: 5 }, (_, i) => pacer.run(laneOf(TOKEN), () => sendOutside(ep(), { path: '/v1/slow', query: { i } })));
    await arrived(2);
    expect(pacer.load(laneOf(TOKEN))).toEqual({ active: 2, waiting: 3 });
    fake.release(); // answers the two held: the next two go
    await arrived(4);
    expect(pacer.load(laneOf(TOKEN))).toEqual({ active: 2, waiting: 1 });
    fake.release();
    await arrived(5);
    fake.release();
    await Promise.all(calls);
    expect(most).toBe(2);
    expect(fake.to('GET /v1/slow').map((r) => r.query.get('i'))).toEqual(['0', '1', '2', '3', '4']);
  });

  test('calls per second per token: no second ever holds more than declared; another token has its own lane', async () => {
    const pacer = new Pacer('demo', { perSecond: 2 });
    // when the pacer gave each call its turn (the time it paces: arrival at the server, or even the
    // callback's first line, adds a loaded machine's jitter)
    const started: Record<string, number[]> = { A: [], B: [] };
    const run = (token: string, i: number) => pacer.run(laneOf(token), (at) => {
      started[token].push(at);
      return sendOutside(ep({ auth: { header: 'Authorization', value: token } }), { path: '/v1/items', query: { i } });
    });
    await Promise.all([...Array.from({ length: 5 }, (_, i) => run('A', i)), run('B', 9), run('B', 10)]);
    const times = (tok: string) => fake.to('GET /v1/items').filter((r) => r.headers.authorization === tok).map((r) => r.at);
    expect(times('A')).toHaveLength(5);
    const a = started.A;
    // any three calls of one token start at least a second apart (first to third)
    for (let i = 2; i < a.length; i++) expect(a[i] - a[i - 2]).toBeGreaterThanOrEqual(1000);
    // token B was not held behind A's queue
    expect(times('B')).toHaveLength(2);
    expect(Math.max(...started.B)).toBeLessThan(a[2]);
  });

  test('a turn further away than maxWaitMs is refused at once with reason rate', async () => {
    const pacer = new Pacer('demo', { perMinute: 1, maxWaitMs: 1000 });
    await pacer.run('x', async () => 1);
    const e = await failure(pacer.run('x', async () => 2));
    expect(e).toMatchObject({ reason: 'rate', httpStatus: 503 });
    expect(e.retryAfterMs).toBeGreaterThan(50_000);
  });
});

describe('mail configuration (SMTP_URL, ALERT_MAIL_FROM, ALERT_MAIL_TO)', () => {
  const dir = () => mkdtempSync(join(tmpdir(), 'mail-cfg-'));
  test('unset or empty: not configured; the sender defaults to console@<hostname>', () => {
    for (const env of [{}, { SMTP_URL: '', ALERT_MAIL_TO: '', ALERT_MAIL_FROM: '' }]) {
      expect(loadConfig({ DATA_DIR: dir(), ...env }).mail).toEqual({ smtp: null, timeoutMs: 15_000, from: `console@${hostname()}`, alertTo: [] });
    }
  });

  test('smtp:// and smtps://, default ports, credentials percent-decoded, recipients split', () => {
    expect(loadConfig({ DATA_DIR: dir(), SMTP_URL: 'smtp://alerts:p%40ss%3Aw0rd@mail.example.org:2525', ALERT_MAIL_TO: 'ops@example.org, oncall@example.org' }).mail)
      .toMatchObject({ smtp: { host: 'mail.example.org', port: 2525, secure: false, user: 'alerts', pass: 'p@ss:w0rd' }, alertTo: ['ops@example.org', 'oncall@example.org'] });
    expect(parseSmtpUrl('smtp://mail.example.org')).toEqual({ host: 'mail.example.org', port: 587, secure: false, user: null, pass: null });
    expect(parseSmtpUrl('SMTPS://u@[2001:db8::1]')).toEqual({ host: '2001:db8::1', port: 465, secure: true, user: 'u', pass: null });
  });

  test('bad values stop the start naming the variable, never echoing the password', () => {
    for (const bad of ['http://mail.example.org', 'smtp://', 'smtp://u:secret-pw@mail.example.org/path', 'smtp://u:secret-pw@mail.example.org?tls=0', 'smtp://u:secret-pw@mail.example.org:99999']) {
      let message = '';
      try { loadConfig({ DATA_DIR: dir(), SMTP_URL: bad }); } catch (e) { message = (e as Error).message; }
      expect({ bad, named: message.includes('SMTP_URL'), leaked: message.includes('secret-pw') }).toEqual({ bad, named: true, leaked: false });
    }
    expect(() => loadConfig({ DATA_DIR: dir(), ALERT_MAIL_TO: 'ops@example.org, not-an-address' })).toThrow(/ALERT_MAIL_TO/);
    expect(() => loadConfig({ DATA_DIR: dir(), ALERT_MAIL_FROM: 'console' })).toThrow(/ALERT_MAIL_FROM/);
  });
});
