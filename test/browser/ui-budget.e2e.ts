/**
 * The built UI's byte budgets and how it is served (issue 25 "UI"; docs/architecture.md "Serving the
 * UI"). Against the real app serving TEST_UI_DIR (else dist/ui, built with `npm run build:ui`):
 * - a first visit of each key route in Chromium (a new context: empty cache; signed-in routes with the
 *   session already stored) transfers at most BUDGET_KB of JavaScript, counted as Chromium received it
 *   (brotli). Bytes are deterministic for a given build, unlike times, so this is a CI gate: a change that
 *   pulls a heavy module into the first load of a route fails here;
 * - files are answered br > gzip > plain per Accept-Encoding, with the original Content-Type, the
 *   copy's Content-Length and `Vary: Accept-Encoding`; hashed assets are immutable for a year,
 *   index.html and the SPA fallback of a deep link `no-cache`; a missing asset is a 404;
 * - a JSON answer over 1 KB is compressed, a smaller one is not, and /api stays no-store.
 *
 * Budgets (KB of brotli JS), measured 2026-11-27 (bench/README.md "UI", `bench/ui.ts`) plus a margin:
 * /auth 97.7 -> 100 (the goal; react-dom 54 + react-router 27 are 81 of it), / 144 -> 200 (the
 * goal), /srv/srv_map 184 -> 200, /firewall 192 -> 210, /book/list 173 -> 190 (about 10 %: a new
 * dependency of a page or of the shell must be a decision, not an accident).
 */
/// <reference lib="dom" />
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { launchBrowser } from '../helpers/browser.js';

const T = 60_000;
const UI_DIR = process.env.TEST_UI_DIR ?? join(import.meta.dirname, '..', '..', 'dist', 'ui');
const BUDGET_KB: Record<string, number> = { '/auth': 100, '/': 200, '/srv/srv_map': 200, '/firewall': 210, '/book/list': 190 };
/** The route's page content: the sign-in form, or the page heading (kit PageTitle). */
const painted = (route: string) => (route === '/auth' ? 'form[aria-label="Sign in"]' : 'main.app-body h1');

let t: TestApp;
let browser: Browser;
let session: Record<string, string | number>;

beforeAll(async () => {
  t = await startApp({ UI_DIR });
  browser = await launchBrowser();
  session = { ...(await t.session(1)) };
}, T);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** A raw GET (no decoding): status, headers and the body bytes as sent. */
function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(t.url + path, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject).end();
  });
}

/** JS bytes (as transferred) of a first visit of `route` in a new context. */
async function firstVisitJs(route: string): Promise<{ total: number; files: string[] }> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  if (route !== '/auth') {
    await ctx.addInitScript((v) => {
      for (const [k, x] of Object.entries(v)) localStorage.setItem(k, String(x));
    }, session);
  }
  const page = await ctx.newPage();
  const sizes: Array<Promise<{ file: string; bytes: number }>> = [];
  page.on('requestfinished', (req) => {
    const path = new URL(req.url()).pathname;
    if (path.endsWith('.js')) sizes.push(req.sizes().then((z) => ({ file: path, bytes: z.responseBodySize })));
  });
  await page.goto(t.url + route);
  await page.locator(painted(route)).first().waitFor({ state: 'attached' });
  await page.waitForLoadState('networkidle');
  const files = await Promise.all(sizes);
  await ctx.close();
  return { total: files.reduce((a, f) => a + f.bytes, 0), files: files.map((f) => `${f.file} ${f.bytes}`) };
}

const visited = new Map<string, string[]>();

test.each(Object.keys(BUDGET_KB))('first visit of %s stays within its JS budget (brotli)', async (route) => {
  const { total, files } = await firstVisitJs(route);
  visited.set(route, files);
  expect(files.length).toBeGreaterThan(0);
  // On failure the message lists every file with its size.
  expect({ route, kb: Math.round(total / 102.4) / 10, withinBudget: total <= BUDGET_KB[route] * 1024, files: total <= BUDGET_KB[route] * 1024 ? [] : files })
    .toEqual({ route, kb: expect.any(Number), withinBudget: true, files: [] });
}, T);

test('the sign-in page loads no zod, socket.io, dropdown or charts', async () => {
  const files = visited.get('/auth') ?? (await firstVisitJs('/auth')).files;
  const names = files.map((f) => f.split(' ')[0]);
  expect(names.length).toBeGreaterThan(0);
  expect(names.filter((n) => /\/(fields|esm|Dropdown|LayoutMenus|TopExtras|highcharts|terminal)-/.test(n))).toEqual([]);
}, T);

test('assets: br > gzip > plain by Accept-Encoding, Vary, Content-Type, the copy\'s Content-Length, immutable', async () => {
  const entry = /src="(\/assets\/[^"]+\.js)"/.exec(readFileSync(join(UI_DIR, 'index.html'), 'utf8'))![1];
  const file = join(UI_DIR, entry);
  const plain = readFileSync(file);
  const immutable = 'public, max-age=31536000, immutable';

  const br = await get(entry, { 'accept-encoding': 'gzip, deflate, br' });
  expect([br.status, br.headers['content-encoding'], String(br.headers['content-type']).toLowerCase(), br.headers.vary, br.headers['cache-control']])
    .toEqual([200, 'br', 'text/javascript; charset=utf-8', 'Accept-Encoding', immutable]);
  expect(Number(br.headers['content-length'])).toBe(statSync(file + '.br').size);
  expect(brotliDecompressSync(br.body).equals(plain)).toBe(true);
  expect(br.body.length).toBeLessThan(plain.length / 3);

  const gz = await get(entry, { 'accept-encoding': 'gzip' });
  expect([gz.headers['content-encoding'], gz.headers.vary, gz.headers['cache-control']]).toEqual(['gzip', 'Accept-Encoding', immutable]);
  expect(Number(gz.headers['content-length'])).toBe(statSync(file + '.gz').size);
  expect(gunzipSync(gz.body).equals(plain)).toBe(true);

  const none = await get(entry, { 'accept-encoding': 'identity' });
  expect([none.headers['content-encoding'], none.headers.vary, Number(none.headers['content-length'])]).toEqual([undefined, 'Accept-Encoding', plain.length]);
  expect(none.body.equals(plain)).toBe(true);

  // The stylesheet too, and every JS/CSS file over 1 KB has both copies.
  const css = /href="(\/assets\/[^"]+\.css)"/.exec(readFileSync(join(UI_DIR, 'index.html'), 'utf8'))![1];
  const c = await get(css, { 'accept-encoding': 'br' });
  expect([c.headers['content-encoding'], String(c.headers['content-type']).toLowerCase()]).toEqual(['br', 'text/css; charset=utf-8']);
  const assets = readdirSync(join(UI_DIR, 'assets')).filter((f) => /\.(js|css)$/.test(f) && statSync(join(UI_DIR, 'assets', f)).size > 1024);
  expect(assets.length).toBeGreaterThan(10);
  const missing = assets.filter((f) => !readdirSync(join(UI_DIR, 'assets')).includes(`${f}.br`) || !readdirSync(join(UI_DIR, 'assets')).includes(`${f}.gz`));
  expect(missing).toEqual([]);

  // A hashed name that does not exist is a 404, never index.html under a script's name.
  expect((await get('/assets/nope-12345678.js', { 'accept-encoding': 'br' })).status).toBe(404);
});

test('index.html, / and a deep link: compressed, no-cache, helmet headers kept', async () => {
  const html = readFileSync(join(UI_DIR, 'index.html'));
  for (const path of ['/', '/index.html', '/srv/srv_map?p_=2', '/book/edit/open/12']) {
    const r = await get(path, { 'accept-encoding': 'br, gzip' });
    expect([path, r.status, r.headers['content-encoding'], String(r.headers['content-type']).toLowerCase(), r.headers['cache-control'], r.headers.vary])
      .toEqual([path, 200, 'br', 'text/html; charset=utf-8', 'no-cache', 'Accept-Encoding']);
    expect(brotliDecompressSync(r.body).equals(html)).toBe(true);
    expect(r.headers['content-security-policy']).toContain("default-src 'self'");
    expect(r.headers['x-content-type-options']).toBe('nosniff');
  }
  // Unknown API paths stay JSON 404s (no SPA fallback under /api).
  const api = await get('/api/no/such/thing', { 'accept-encoding': 'br' });
  expect(api.status).toBe(404);
  expect(api.headers['content-type']).toMatch(/^application\/json/);
});

test('JSON answers over 1 KB are compressed (br, gzip), smaller ones are not; /api stays no-store', async () => {
  const admin = await t.session(1);
  const body = JSON.stringify({ methods: Array(20).fill('user.me'), args: Array(20).fill(null), host: 0 });
  const post = (enc: string) => fetch(`${t.url}/api`, { method: 'POST', headers: { 'content-type': 'application/json', User: admin.hash, 'accept-encoding': enc }, body });
  const br = await post('br, gzip');
  // Vary's value is a header name: case does not matter (@fastify/compress writes it in lower case).
  expect([br.status, br.headers.get('content-encoding'), br.headers.get('vary')?.toLowerCase(), br.headers.get('cache-control')]).toEqual([200, 'br', 'accept-encoding', 'no-store']);
  const answer = (await br.json()) as Array<{ status: string }>;
  expect(answer).toHaveLength(20);
  expect(JSON.stringify(answer).length).toBeGreaterThan(1024);
  expect((await post('gzip')).headers.get('content-encoding')).toBe('gzip');
  expect((await post('identity')).headers.get('content-encoding')).toBeNull();

  const health = await get('/api/health', { 'accept-encoding': 'br, gzip' });
  expect(health.status).toBe(200);
  expect(health.body.length).toBeLessThan(1024);
  expect([health.headers['content-encoding'], health.headers['cache-control']]).toEqual([undefined, 'no-store']);
});
