/**
 * The UI's first visit per route in Debian's Chromium (playwright-core, /usr/bin/chromium) against the
 * real app serving the built UI (dist/ui, or BENCH_UI_DIR): which JS and CSS files a first visit loads
 * and their transferred (compressed) bytes, and the time to the first meaningful paint (the route's
 * page heading, or the sign-in form, painted) with a cold cache (a new browser context) and a warm one
 * (the same context, visited again). Signed-in routes start with the admin's session already stored,
 * as after a sign-in in an earlier visit. Writes the "ui" section of bench/README.md.
 */
import { join } from 'node:path';
import { execSync } from 'node:child_process';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { encodeAuthKey } from '../src/contracts/auth-key.js';
import { ROOT, machine, startBenchApp, writeSection } from './lib.js';

const ROUTES = ['/auth', '/', '/srv/srv_map', '/firewall', '/book/list'];
const RUNS = Number(process.env.BENCH_UI_RUNS ?? 5);
/** The route's meaningful content: the sign-in form, or the page's heading (kit PageTitle). */
const PAINTED = (route: string) => (route === '/auth' ? 'form[aria-label="Sign in"]' : 'main.app-body h1');

interface Load { js: Array<{ file: string; bytes: number }>; css: number; paintMs: number }

const uiDir = process.env.BENCH_UI_DIR ?? join(ROOT, 'dist', 'ui');
const s = await startBenchApp({ UI_DIR: uiDir });
const signIn = await fetch(`${s.url}/api/user/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: encodeAuthKey('admin', 'bench-password-1') }) });
/** The values the sign-in page stores (000 §3), put into each signed-in context's local storage. */
const session = ((await signIn.json()) as { result: Record<string, string | number> }).result;
const browser: Browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
});

async function newContext(signedIn: boolean): Promise<BrowserContext> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  if (signedIn) {
    await ctx.addInitScript((v) => {
      const ls = (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage;
      for (const [k, x] of Object.entries(v)) ls.setItem(k, String(x));
    }, session);
  }
  return ctx;
}

/** One visit of `route` in `ctx`: the scripts and styles that came over the network, and the paint time. */
async function visit(ctx: BrowserContext, route: string): Promise<Load> {
  const page = await ctx.newPage();
  const js: Load['js'] = [];
  let css = 0;
  const pending: Array<Promise<void>> = [];
  page.on('requestfinished', (req) => {
    const path = new URL(req.url()).pathname;
    if (!/\.(js|css)$/.test(path)) return;
    pending.push(req.sizes().then((z) => {
      if (path.endsWith('.css')) css += Math.max(0, z.responseBodySize);
      else js.push({ file: path.replace(/^\/assets\//, ''), bytes: Math.max(0, z.responseBodySize) });
    }));
  });
  // The page itself notes when the content arrives (a MutationObserver from the first byte), and the frame
  // that paints it (the next animation frame): Playwright's own wait polls at growing intervals (up to 500 ms).
  await page.addInitScript((selector) => {
    type Doc = { querySelector(s: string): unknown };
    const g = globalThis as unknown as { document: Doc; __paintedAt?: number; MutationObserver: new (cb: () => void) => { observe(n: unknown, o: object): void; disconnect(): void }; requestAnimationFrame(cb: () => void): void };
    const obs = new g.MutationObserver(() => {
      if (!g.document.querySelector(selector)) return;
      obs.disconnect();
      g.requestAnimationFrame(() => { g.__paintedAt = performance.now(); });
    });
    obs.observe(g.document, { childList: true, subtree: true });
  }, PAINTED(route));
  await page.goto(s.url + route, { waitUntil: 'commit' });
  await page.locator(PAINTED(route)).first().waitFor({ state: 'attached', timeout: 30_000 });
  await page.waitForFunction(() => (globalThis as unknown as { __paintedAt?: number }).__paintedAt !== undefined);
  const paintMs = await page.evaluate(() => (globalThis as unknown as { __paintedAt: number }).__paintedAt);
  await page.waitForLoadState('networkidle');
  await Promise.all(pending);
  await page.close();
  return { js: js.sort((a, b) => b.bytes - a.bytes), css, paintMs };
}

const kb = (n: number) => (n / 1024).toFixed(1);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const bytesRows: string[] = [];
const fileLists: string[] = [];
const paintRows: string[] = [];
const load0 = execSync('uptime').toString().trim().replace(/.*load average:\s*/, '');
for (const route of ROUTES) {
  const cold: number[] = [];
  const warm: number[] = [];
  let first: Load | undefined;
  let warmJs = 0;
  for (let i = 0; i < RUNS; i++) {
    const ctx = await newContext(route !== '/auth');
    const c = await visit(ctx, route);
    const w = await visit(ctx, route);
    await ctx.close();
    first ??= c;
    cold.push(c.paintMs);
    warm.push(w.paintMs);
    warmJs = w.js.reduce((a, f) => a + f.bytes, 0);
  }
  const total = first!.js.reduce((a, f) => a + f.bytes, 0);
  const top = first!.js.slice(0, 4).map((f) => `${f.file.replace(/-[\w-]{8}\.js$/, '')} ${kb(f.bytes)}`).join(', ');
  fileLists.push(`- ${route}: ${first!.js.map((f) => `${f.file.replace(/-[\w-]{8}\.js$/, '')} ${kb(f.bytes)}`).join(', ')}`);
  bytesRows.push(`| ${route} | ${first!.js.length} | **${kb(total)}** | ${kb(first!.css)} | ${kb(warmJs)} | ${top} |`);
  paintRows.push(`| ${route} | ${Math.round(median(cold))} | ${Math.round(Math.min(...cold))}-${Math.round(Math.max(...cold))} | ${Math.round(median(warm))} | ${Math.round(Math.min(...warm))}-${Math.round(Math.max(...warm))} |`);
}
const load1 = execSync('uptime').toString().trim().replace(/.*load average:\s*/, '');
const chromiumVersion = browser.version();
await browser.close();
await s.close();

writeSection('ui', [
  '## UI: bytes and first paint per route (`bench/ui.ts`)',
  '',
  `Chromium ${chromiumVersion} headless (playwright-core, Debian's /usr/bin/chromium) against the real app on loopback serving the built UI with its brotli copies; ${machine()}, ${new Date().toISOString().slice(11, 16)} UTC; load average ${load0} before and ${load1} after (1/5/15 min). The machine is shared with other work: times vary with its load, bytes do not. Run: \`npm run bench ui\`.`,
  '',
  'First visit with an empty cache; signed-in routes start with the admin session already stored. Bytes are the transferred (brotli) bodies as Chromium counted them; "JS warm" is what a second visit in the same context fetched again (hashed files are `immutable`, index.html is revalidated).',
  '',
  '| route | JS files | JS KB (br) | CSS KB (br) | JS warm KB | largest files, KB |',
  '|---|---|---|---|---|---|',
  ...bytesRows,
  '',
  'Before issue 25 (landed main, 2026-11-26) nothing was compressed: /auth loaded 570 KB of JS and / 469 KB (gzip would have made them 181 / 150 KB). The bundle per route (every JS file of the first visit, KB as transferred; chunk names without their hash; `esm` is socket.io-client; the large `fields` chunk is zod with src/contracts/fields.ts, the small one kit/fields.tsx):',
  '',
  ...fileLists,
  '',
  `Time to the first meaningful paint: from navigation start until the frame that paints the sign-in form or the page's heading (\`performance.now()\` in the page, in the first animation frame after a MutationObserver saw it in the DOM; Playwright's own wait polls too coarsely to time it), ${RUNS} runs each; cold = a new context, warm = the same context visited again.`,
  '',
  '| route | cold ms (median) | cold range | warm ms (median) | warm range |',
  '|---|---|---|---|---|',
  ...paintRows,
].join('\n'));
process.exit(0);
