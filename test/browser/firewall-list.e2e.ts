/**
 * The traffic screen's IP list (issue 8 "Screens", 000 §2, §9; docs/firewall.md "/firewall: traffic") in a
 * real browser (Debian's Chromium) against the real app (`npm run build` first), with 120 addresses of one
 * domain (IPv4 in three /24s of two /16s, IPv6 in two /48s of one /32), stored as the worker stores them
 * (the real parser, AccessLogStore.commit):
 * - 30 addresses a page: page 2 through the paginator, kept through a reload, and a deep link to page 4;
 * - the log rows of a page's addresses are preloaded in groups of 10: one batched POST /api of ten
 *   firewall.getTrafficRows calls, the next group only after the previous one answered; an open address
 *   then shows its rows with no further call; a page already seen is not asked again;
 * - grouping by the first 2 or 3 octets (IPv6: 2 or 3 hextets): headers with addresses and requests of
 *   the whole group, groups by their total, paging by addresses;
 * - Top 5 / 10 / 50 / 100 and the default head 200 change the list and the URL.
 */
/// <reference lib="dom" />
import { join } from 'node:path';
import type { Browser, Page, Request } from 'playwright-core';
import { startApp, ADMIN, type TestApp } from '../helpers/app.js';
import { expectNoPageErrors, launchBrowser, loginAs, newPage, signedInPage } from '../helpers/browser.js';
import { seedLines } from '../helpers/access-log-seed.js';

const T = 120_000;
const HOST = 'list.example';
const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';

let t: TestApp;
let browser: Browser;
const pages: Page[] = [];

/** 120 addresses: 60 in 203.0.113.0/24, 30 in 198.51.100.0/24, 20 in 198.51.101.0/24, 6 in 2001:db8:1::/48, 4 in 2001:db8:2::/48. */
const IPS: string[] = [
  ...Array.from({ length: 60 }, (_, i) => `203.0.113.${i + 1}`),
  ...Array.from({ length: 30 }, (_, i) => `198.51.100.${i + 1}`),
  ...Array.from({ length: 20 }, (_, i) => `198.51.101.${i + 1}`),
  ...Array.from({ length: 6 }, (_, i) => `2001:db8:1::${i + 1}`),
  ...Array.from({ length: 4 }, (_, i) => `2001:db8:2::${i + 1}`),
];
/** Distinct request counts 1..120 (i * 37 mod 121 is a permutation), so the order is fixed. */
const COUNT = new Map(IPS.map((ip, i) => [ip, ((i + 1) * 37) % 121]));
/** The top list as the report orders it: by count, most first. */
const BY_COUNT = [...IPS].sort((a, b) => COUNT.get(b)! - COUNT.get(a)!);

/** The group names the screen shows (docs: first 2 or 3 octets; IPv6 first 2 or 3 hextets). */
const GROUP: Record<2 | 3, (ip: string) => string> = {
  2: (ip) => (ip.startsWith('2001:db8:') ? '2001:db8:*' : `${ip.split('.').slice(0, 2).join('.')}.*`),
  3: (ip) => (ip.startsWith('2001:db8:') ? `2001:db8:${ip.split(':')[2]}:*` : `${ip.split('.').slice(0, 3).join('.')}.*`),
};
/** What a page of the grouped list must show: each group (by total, most first) headed once a page, its addresses by count. */
function groupedPage(levels: 2 | 3, list: string[], page: number): string[] {
  const totals = new Map<string, { ips: number; count: number }>();
  for (const ip of list) {
    const g = totals.get(GROUP[levels](ip)) ?? { ips: 0, count: 0 };
    totals.set(GROUP[levels](ip), { ips: g.ips + 1, count: g.count + COUNT.get(ip)! });
  }
  const ordered = [...list].sort((a, b) => {
    const ga = GROUP[levels](a);
    const gb = GROUP[levels](b);
    return ga === gb ? COUNT.get(b)! - COUNT.get(a)! : totals.get(gb)!.count - totals.get(ga)!.count;
  });
  const out: string[] = [];
  let last = '';
  for (const ip of ordered.slice((page - 1) * 30, page * 30)) {
    const g = GROUP[levels](ip);
    if (g !== last) {
      const { ips, count } = totals.get(g)!;
      out.push(`# ${g} · ${ips} addresses · ${count.toLocaleString('en-US')} requests`);
      last = g;
    }
    out.push(ip);
  }
  return out;
}

function consoleLine(ip: string, url: string, code: number, at: Date) {
  const mon = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][at.getUTCMonth()];
  const p2 = (n: number) => String(n).padStart(2, '0');
  const time = `${p2(at.getUTCDate())}/${mon}/${at.getUTCFullYear()}:${p2(at.getUTCHours())}:${p2(at.getUTCMinutes())}:${p2(at.getUTCSeconds())} +0000`;
  return `${ip} - - [${time}] "GET ${url} HTTP/1.1" ${code} 512 "https://ref.example/" "${BROWSER_UA}" "-" "${HOST}" 0.010 0.012`;
}

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  browser = await launchBrowser();
  const now = Date.now();
  const lines: string[] = [];
  IPS.forEach((ip, i) => {
    // within the last hour (the default range); the newest line of each address names it: /newest/<ip>
    for (let k = 0; k < COUNT.get(ip)!; k++) {
      lines.push(consoleLine(ip, k === 0 ? `/newest/${ip}` : `/page/${k}`, 200, new Date(now - (60 + i * 3 + k * 11) * 1000)));
    }
  });
  await seedLines(t.app, lines, 900_002, '10.99.0.2');
}, T);

afterAll(async () => {
  await browser?.close();
  await t?.close();
}, 60_000);

afterEach(() => expectNoPageErrors(pages));

const signedIn = (path: string): Promise<Page> => signedInPage(browser, pages, t.url, path, ADMIN);

const listRows = (page: Page) => page.locator('[data-testid="ip-list"] tr[data-ip]');
const ipList = (page: Page) => listRows(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-ip')));
/** The list in order: group headers as '# <text>', addresses as themselves. */
const listItems = (page: Page) => page.locator('[data-testid="ip-list"] tbody tr').evaluateAll((els) =>
  els.map((e) => (e.hasAttribute('data-ip') ? e.getAttribute('data-ip')! : `# ${(e.textContent ?? '').trim()}`)));
/** Waits until the list shows exactly `want` (addresses or, with headers, items). */
async function expectList(page: Page, want: string[], items = false) {
  const read = () => (items ? listItems(page) : ipList(page));
  const until = Date.now() + 15_000;
  let got: (string | null)[] = [];
  while (Date.now() < until) {
    got = await read();
    if (JSON.stringify(got) === JSON.stringify(want)) return;
    await page.waitForTimeout(100);
  }
  expect(got).toEqual(want);
}
const search = (page: Page) => new URL(page.url()).searchParams;

/** The batched POST /api calls of firewall.getTrafficRows: the addresses asked per request, and the order of sends and answers. */
function watchPreload(page: Page) {
  const batches: string[][] = [];
  const events: string[] = [];
  const ids = new Map<Request, number>();
  const rowsCall = (r: Request) => r.method() === 'POST' && (r.postData() ?? '').includes('firewall.getTrafficRows');
  page.on('request', (r) => {
    if (!rowsCall(r)) return;
    const body = JSON.parse(r.postData()!) as { methods: string[]; args: Array<{ ip: string; host: string }> };
    expect(body.methods.every((m) => m === 'firewall.getTrafficRows')).toBe(true);
    expect(body.args.every((a) => a.host === HOST)).toBe(true);
    ids.set(r, batches.length);
    events.push(`send ${batches.length}`);
    batches.push(body.args.map((a) => a.ip));
  });
  page.on('requestfinished', (r) => { if (ids.has(r)) events.push(`answer ${ids.get(r)}`); });
  return { batches, events };
}

test('30 addresses a page: page 2 through the paginator, kept through a reload; a deep link to page 4', async () => {
  const page = await signedIn(`/firewall?host=${HOST}`);
  await expectList(page, BY_COUNT.slice(0, 30));
  await page.getByTestId('traffic-summary').getByText(`from 120 addresses`, { exact: false }).waitFor();
  await page.locator('.app-pager-info').first().getByText('Page 1 of 4 · 120 rows').waitFor();

  await page.getByRole('button', { name: 'Page 2' }).first().click();
  await expectList(page, BY_COUNT.slice(30, 60));
  expect(search(page).get('p_')).toBe('2');
  await page.reload();
  await expectList(page, BY_COUNT.slice(30, 60));
  await page.locator('.app-pager-info').first().getByText('Page 2 of 4').waitFor();

  const deep = await signedIn(`/firewall?host=${HOST}&p_=4`);
  await expectList(deep, BY_COUNT.slice(90, 120));
  await deep.getByRole('button', { name: 'Previous page' }).first().click();
  await expectList(deep, BY_COUNT.slice(60, 90));
  expect(search(deep).get('p_')).toBe('3');
}, T);

test('the log rows of a page are preloaded in groups of 10, one group after another; an open address needs no further call', async () => {
  const page = await newPage(browser, {});
  pages.push(page);
  await loginAs(page, t.url, ADMIN.login, ADMIN.password);
  const w = watchPreload(page);
  await page.goto(`${t.url}/firewall?host=${HOST}`);
  await expectList(page, BY_COUNT.slice(0, 30));
  // every row of the page shows its newest request once its group is in
  for (const ip of BY_COUNT.slice(0, 30)) {
    await page.locator(`[data-testid="ip-list"] tr[data-ip="${ip}"] .app-fw-newest`).getByText(`/newest/${ip}`).waitFor();
  }
  expect(w.batches).toEqual([BY_COUNT.slice(0, 10), BY_COUNT.slice(10, 20), BY_COUNT.slice(20, 30)]);
  expect(w.events).toEqual(['send 0', 'answer 0', 'send 1', 'answer 1', 'send 2', 'answer 2']);

  // opening an address of the page (the last one preloaded) shows its rows from the preload
  const ip = BY_COUNT[29];
  await page.getByRole('button', { name: `Open ${ip}`, exact: true }).click();
  const detail = page.locator(`[data-testid="ip-detail"][data-ip="${ip}"]`);
  await detail.locator('[data-testid="log-rows"]').getByText(`/newest/${ip}`).waitFor();
  expect(await detail.locator('[data-testid="log-rows"] tbody tr').count()).toBe(COUNT.get(ip)!);
  expect(w.batches).toHaveLength(3);

  // page 2: its 30 addresses in three more groups; back to page 1: nothing asked again
  await page.getByRole('button', { name: 'Page 2' }).first().click();
  for (const p2 of BY_COUNT.slice(30, 60)) {
    await page.locator(`[data-testid="ip-list"] tr[data-ip="${p2}"] .app-fw-newest`).getByText(`/newest/${p2}`).waitFor();
  }
  expect(w.batches.slice(3)).toEqual([BY_COUNT.slice(30, 40), BY_COUNT.slice(40, 50), BY_COUNT.slice(50, 60)]);
  await page.getByRole('button', { name: 'Page 1' }).first().click();
  await expectList(page, BY_COUNT.slice(0, 30));
  await page.locator(`[data-testid="ip-list"] tr[data-ip="${BY_COUNT[0]}"] .app-fw-newest`).waitFor();
  expect(w.batches).toHaveLength(6);
  // a page of fewer than 10 (Top 5) is one group of what is not loaded yet: none here
  await page.getByRole('button', { name: 'Top 5', exact: true }).click();
  await expectList(page, BY_COUNT.slice(0, 5));
  expect(w.batches).toHaveLength(6);
}, T);

test('grouping by the first 2 or 3 octets (IPv6: hextets): headers with the whole group, groups by total, paging by addresses', async () => {
  const page = await signedIn(`/firewall?host=${HOST}&p_=2`);
  await expectList(page, BY_COUNT.slice(30, 60));
  await page.getByRole('button', { name: '2 octets' }).click();
  // the page goes back to 1
  await page.waitForURL((u) => u.searchParams.get('group') === '2' && !u.searchParams.has('p_'));
  await expectList(page, groupedPage(2, BY_COUNT, 1), true);
  for (const p of [2, 3, 4]) {
    await page.getByRole('button', { name: `Page ${p}` }).first().click();
    await expectList(page, groupedPage(2, BY_COUNT, p), true);
  }
  // every address once, in 3 groups: 203.0.* (60), 198.51.* (50: two /24s), 2001:db8:* (10: two /48s)
  const all2 = [1, 2, 3, 4].flatMap((p) => groupedPage(2, BY_COUNT, p));
  expect(new Set(all2.filter((x) => !x.startsWith('#'))).size).toBe(120);
  expect([...new Set(all2.filter((x) => x.startsWith('#')))].map((h) => h.split(' · ').slice(0, 2).join(' · ')).sort())
    .toEqual(['# 198.51.* · 50 addresses', '# 2001:db8:* · 10 addresses', '# 203.0.* · 60 addresses']);

  // a reload keeps grouping and page
  await page.reload();
  await expectList(page, groupedPage(2, BY_COUNT, 4), true);

  await page.getByRole('button', { name: '3 octets' }).click();
  await page.waitForURL((u) => u.searchParams.get('group') === '3' && !u.searchParams.has('p_'));
  const all3: string[] = [];
  for (const p of [1, 2, 3, 4]) {
    if (p > 1) await page.getByRole('button', { name: `Page ${p}` }).first().click();
    await expectList(page, groupedPage(3, BY_COUNT, p), true);
    all3.push(...await listItems(page));
  }
  expect([...new Set(all3.filter((x) => x.startsWith('#')))].map((h) => h.split(' · ').slice(0, 2).join(' · ')).sort()).toEqual([
    '# 198.51.100.* · 30 addresses', '# 198.51.101.* · 20 addresses', '# 2001:db8:1:* · 6 addresses', '# 2001:db8:2:* · 4 addresses', '# 203.0.113.* · 60 addresses',
  ]);

  await page.getByRole('button', { name: 'No groups' }).click();
  await page.waitForURL((u) => !u.searchParams.has('group'));
  await expectList(page, BY_COUNT.slice(0, 30), true);
}, T);

test('Top 5, 10, 50, 100 and the default head 200 change the list and the URL; a deep link keeps the bucket', async () => {
  const page = await signedIn(`/firewall?host=${HOST}&p_=3`);
  await expectList(page, BY_COUNT.slice(60, 90));
  const pager = page.locator('.app-pager-info').first();
  for (const [n, shown, pagesText] of [[5, 5, 'Page 1 of 1 · 5 rows'], [10, 10, 'Page 1 of 1 · 10 rows'], [50, 30, 'Page 1 of 2 · 50 rows'], [100, 30, 'Page 1 of 4 · 100 rows']] as const) {
    await page.getByRole('button', { name: `Top ${n}`, exact: true }).click();
    await page.waitForURL((u) => u.searchParams.get('top') === String(n) && !u.searchParams.has('p_'));
    await expectList(page, BY_COUNT.slice(0, shown));
    await pager.getByText(pagesText).waitFor();
    expect(await page.getByRole('button', { name: `Top ${n}`, exact: true }).getAttribute('aria-pressed')).toBe('true');
  }
  // the last page of Top 100 ends at the 100th address
  await page.getByRole('button', { name: 'Last page' }).first().click();
  await expectList(page, BY_COUNT.slice(90, 100));
  // Top 200 is the default: it leaves the URL
  await page.getByRole('button', { name: 'Top 200', exact: true }).click();
  await page.waitForURL((u) => !u.searchParams.has('top') && !u.searchParams.has('p_'));
  await expectList(page, BY_COUNT.slice(0, 30));
  await pager.getByText('Page 1 of 4 · 120 rows').waitFor();

  const deep = await signedIn(`/firewall?host=${HOST}&top=10`);
  await expectList(deep, BY_COUNT.slice(0, 10));
  expect(await deep.getByRole('button', { name: 'Top 10', exact: true }).getAttribute('aria-pressed')).toBe('true');
}, T);
