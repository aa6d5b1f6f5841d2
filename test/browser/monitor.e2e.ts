/**
 * Monitoring screens (issue 10, 000 §2 "Monitoring", §3, §9) in a real browser (Debian's Chromium)
 * against the real app (run `npm run build` first), with history seeded through the app's own
 * MonitoringStore and rounds collected over SSH from a real OpenSSH server on loopback:
 * - the load tiles (colours of 000 §9, a dash for null) and a chart per server render; a server without
 *   history says 'No data for this range';
 * - changing the range refetches, keeps the previous charts on screen while the answer is on its way,
 *   puts range_minutes and quality in the URL, and a reload keeps them; a coarse tier draws the
 *   min/max band;
 * - an 'update_nginx' event (a round run through monitoring.collectNow by another client) refreshes the
 *   chart and the tiles without a reload;
 * - /monitor2: node averages sorted with the same colours, and the balancing view;
 * - an admin's 'Collect now' shows each server's result; a role-100 user sees the screens without it.
 */
/// <reference lib="dom" />
import type { Browser, Page, Route } from 'playwright-core';
import { MONITOR_METRICS } from '../../src/contracts/monitoring.js';
import { MonitoringStore, type MinuteRow } from '../../src/modules/monitoring/monitoring-store.service.js';
import { startApp, ADMIN, type TestApp } from '../helpers/app.js';
import { MOBILE, expectNoPageErrors, launchBrowser, pathOf, screenshot, signedInPage } from '../helpers/browser.js';
import { startSshd, type Sshd } from '../helpers/sshd.js';

const T = 90_000;
const VIEWER = { login: 'viewer', password: 'viewer-password-1' };

let t: TestApp;
let browser: Browser;
let sshd: Sshd;
let admin: string;
const pages: Page[] = [];
const ids: Record<string, number> = {};

const ok = <T = any>(method: string, args?: unknown) => t.ok<T>(admin, method, args);

/** A signed-in page (own context) at `path`. */
const signedIn = (path: string, who = ADMIN, size?: { width: number; height: number }): Promise<Page> => signedInPage(browser, pages, t.url, path, who, size);

const card = (page: Page, server: string) => page.locator(`.app-mon-card[data-server="${server}"]`);
const tile = (page: Page, server: string) => page.locator(`.app-mon-tile[data-server="${server}"]`);

/** Minute rows of one server: `la1(i)` for i = 0 (oldest) .. n-1, the last one `endAgo` minutes ago. */
function history(serverId: number, nowMin: number, n: number, endAgo: number, la1: (i: number) => number): MinuteRow[] {
  const rows: MinuteRow[] = [];
  for (let i = 0; i < n; i++) {
    const row = { server_id: serverId, ts: nowMin - endAgo - (n - 1 - i) } as MinuteRow;
    for (const m of MONITOR_METRICS) row[m] = null;
    row.la1 = la1(i);
    row.la5 = la1(i);
    row.la15 = la1(i);
    rows.push(row);
  }
  return rows;
}

beforeAll(async () => {
  sshd = await startSshd();
  t = await startApp({ CRON_ENABLED: '0' });
  browser = await launchBrowser();
  admin = (await t.session(1)).hash;
  await t.session(100, VIEWER.login);
  const servers: Array<[string, Record<string, unknown>]> = [
    // read over SSH from the loopback sshd (the machine's real /proc/loadavg)
    ['mon-web-1', { type: 8, ip: '127.0.0.1', sshport: sshd.port, sshlogin: sshd.user, sshpass: sshd.password }],
    // no credentials: never collected, no history
    ['mon-web-2', { type: 8, ip_local: '127.0.0.12' }],
    ['mon-db-1', { type: 6, ip_local: '127.0.0.21', balance_db: 1 }],
    ['mon-proxy-1', { type: 1, ip_local: '127.0.0.19' }],
  ];
  for (const [name, f] of servers) ids[name] = (await ok('srv.save_server', { name, ...f })).Id;

  const store = t.app.get(MonitoringStore);
  const now = store.nowMin();
  await store.writeMinutes([
    // 2 hours ending 2 minutes ago (still the latest reading for the tiles): 12..13.19 (green), the last 12.5
    ...history(ids['mon-web-1'], now, 120, 2, (i) => (i === 119 ? 12.5 : 12 + (i % 20) / 16)),
    ...history(ids['mon-db-1'], now, 120, 2, () => 25),
    ...history(ids['mon-proxy-1'], now, 120, 2, () => 35),
  ]);
}, T);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await sshd?.stop();
});

afterEach(() => expectNoPageErrors(pages));

test('tiles and charts render from the stored history; a server without history says so', async () => {
  const page = await signedIn('/monitor/web');
  await card(page, 'mon-web-1').locator('.highcharts-area-series path.highcharts-graph').first().waitFor();
  // tiles of the web type only, coloured by 000 §9, a dash for no reading
  await tile(page, 'mon-web-1').waitFor();
  expect(await page.locator('.app-mon-tile').evaluateAll((els) => els.map((e) => e.getAttribute('data-server')).sort())).toEqual(['mon-web-1', 'mon-web-2']);
  expect(await tile(page, 'mon-web-1').getByTestId('cpu_la').textContent()).toBe('12.50');
  expect(await tile(page, 'mon-web-1').getAttribute('data-colour')).toBe('green');
  expect(await tile(page, 'mon-web-2').getByTestId('cpu_la').textContent()).toBe('-');
  // the 3-hour default reads raw minutes: no band
  expect(await card(page, 'mon-web-1').getAttribute('data-tier')).toBe('minute');
  expect(Number(await card(page, 'mon-web-1').getAttribute('data-points'))).toBe(120);
  expect(await card(page, 'mon-web-1').locator('.highcharts-arearange-series').count()).toBe(0);
  expect(await card(page, 'mon-web-1').locator('.highcharts-markers .highcharts-point').count()).toBe(0); // a line, no markers
  await card(page, 'mon-web-2').getByText('No data for this range').waitFor();
  expect(await card(page, 'mon-web-2').locator('.highcharts-container').count()).toBe(0);
  await screenshot(page, 'monitor-web');

  // /monitor: the grouped types (0, 1, 2, 5, 6, 9) chart; every server has a tile
  await page.getByRole('navigation', { name: 'Server category' }).getByRole('link', { name: 'Overview' }).click();
  await card(page, 'mon-db-1').waitFor();
  expect(await page.locator('.app-mon-card').evaluateAll((els) => els.map((e) => e.getAttribute('data-server')).sort())).toEqual(['mon-db-1', 'mon-proxy-1']);
  expect(await tile(page, 'mon-db-1').getAttribute('data-colour')).toBe('amber');
  expect(await tile(page, 'mon-proxy-1').getAttribute('data-colour')).toBe('red');
  expect(await tile(page, 'mon-web-1').getAttribute('data-colour')).toBe('green');
}, T);

test('a new range refetches with the previous charts kept on screen; range and quality live in the URL', async () => {
  const page = await signedIn('/monitor/web');
  await card(page, 'mon-web-1').locator('.highcharts-container').waitFor();
  expect(await page.getByLabel('Range').inputValue()).toBe('180');
  expect(await page.getByLabel('Quality').inputValue()).toBe('');

  // Hold the week's answer: meanwhile the 3-hour chart stays, marked busy.
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const asked: string[] = [];
  await page.route(/\/api\/monitoring\/srv\/chart\?/, async (route: Route) => {
    asked.push(new URL(route.request().url()).search);
    if (new URL(route.request().url()).searchParams.get('minutes') === '10080') await held;
    await route.continue();
  });
  await page.getByLabel('Range').selectOption('10080');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('range_minutes') === '10080');
  await page.locator('.app-mon-charts[aria-busy="true"]').waitFor();
  expect(await card(page, 'mon-web-1').getAttribute('data-tier')).toBe('minute');
  expect(await card(page, 'mon-web-1').locator('.highcharts-container').count()).toBe(1);
  release();
  // a week reads hours: the average with the min/max band
  await page.locator('.app-mon-card[data-server="mon-web-1"][data-tier="hour"]').waitFor();
  await card(page, 'mon-web-1').locator('.highcharts-arearange-series').first().waitFor();
  await page.locator('.app-mon-charts[aria-busy="false"]').waitFor();
  expect(asked.some((q) => new URLSearchParams(q).get('minutes') === '10080' && new URLSearchParams(q).get('type') === '8')).toBe(true);

  await page.getByLabel('Quality').selectOption('1');
  await page.locator('.app-mon-card[data-server="mon-web-1"][data-tier="day"]').waitFor();
  expect(pathOf(page)).toBe('/monitor/web?range_minutes=10080&quality=1');

  // a reload keeps the filter and answers the same tier
  await page.unroute(/\/api\/monitoring\/srv\/chart\?/);
  await page.reload();
  await page.locator('.app-mon-card[data-server="mon-web-1"][data-tier="day"]').waitFor();
  expect(await page.getByLabel('Range').inputValue()).toBe('10080');
  expect(await page.getByLabel('Quality').inputValue()).toBe('1');
  // switching the category keeps the filter
  await page.getByRole('navigation', { name: 'Server category' }).getByRole('link', { name: 'db' }).click();
  await page.waitForURL((u) => u.pathname === '/monitor/db');
  expect(pathOf(page)).toBe('/monitor/db?range_minutes=10080&quality=1');
  await page.locator('.app-mon-card[data-server="mon-db-1"][data-tier="day"]').waitFor();
  // so does switching to the node-load view and back
  const views = page.getByRole('navigation', { name: 'Monitor views' });
  await views.getByRole('link', { name: 'Node load' }).click();
  await page.waitForURL((u) => u.pathname === '/monitor2/db');
  expect(pathOf(page)).toBe('/monitor2/db?range_minutes=10080&quality=1');
  expect(await page.getByLabel('Range').inputValue()).toBe('10080');
  await page.locator('.app-mon-bar-row[data-server="mon-db-1"]').waitFor();
  await views.getByRole('link', { name: 'Charts' }).click();
  await page.waitForURL((u) => u.pathname === '/monitor/db');
  await page.locator('.app-mon-card[data-server="mon-db-1"][data-tier="day"]').waitFor();
  // back to the default range: the parameter leaves the URL
  await page.getByLabel('Range').selectOption('180');
  await page.getByLabel('Quality').selectOption('');
  await page.waitForURL((u) => u.search === '');
  await page.locator('.app-mon-card[data-server="mon-db-1"][data-tier="minute"]').waitFor();
}, T);

test("an 'update_nginx' after a round refreshes the chart and the tiles without a reload", async () => {
  const page = await signedIn('/monitor/web');
  const web1 = card(page, 'mon-web-1');
  await web1.locator('.highcharts-container').waitFor();
  const before = Number(await web1.getAttribute('data-last'));
  const pointsBefore = Number(await web1.getAttribute('data-points'));
  await page.evaluate(() => ((window as unknown as { __kept: number }).__kept = 1));

  // Another client runs a round: the loopback sshd is read over SSH, and the event reaches this page.
  const round = await ok<Array<{ Id: number; name: string; ok: boolean; cpu_la?: number; error?: string; reason?: string }>>('monitoring.collectNow', {});
  const mine = round.find((r) => r.name === 'mon-web-1');
  expect(mine).toMatchObject({ ok: true });
  expect(typeof mine!.cpu_la).toBe('number');
  expect(round.find((r) => r.name === 'mon-web-2')).toMatchObject({ ok: false, reason: 'no_credentials' }); // no credentials: not tried, and said so

  await page.waitForFunction((b) => Number(document.querySelector('.app-mon-card[data-server="mon-web-1"]')?.getAttribute('data-last')) > b, before * 1);
  // the new minute, after a gap point where no round ran
  expect(Number(await web1.getAttribute('data-points'))).toBeGreaterThan(pointsBefore);
  expect(Number(await web1.getAttribute('data-last'))).toBeGreaterThan(before);
  // the new reading stands alone after the gap: drawn as a marker
  await web1.locator('.highcharts-markers .highcharts-point').first().waitFor();
  // the tile shows the value just read (the machine's own load), not the seeded 12.50
  await page.waitForFunction(() => document.querySelector('.app-mon-tile[data-server="mon-web-1"] [data-testid="cpu_la"]')?.textContent !== '12.50');
  expect(await tile(page, 'mon-web-1').getByTestId('cpu_la').textContent()).toBe(mine!.cpu_la!.toFixed(2));
  // the same document: no reload happened
  expect(await page.evaluate(() => (window as unknown as { __kept?: number }).__kept)).toBe(1);
}, T);

test('/monitor2: node averages sorted and coloured; the balancing view', async () => {
  const page = await signedIn('/monitor2');
  const bars = () => page.locator('.app-mon-bar-row').evaluateAll((els) => els.map((e) => [e.getAttribute('data-server'), e.getAttribute('data-colour'), e.querySelector('.app-mon-bar-value')?.textContent]));
  await page.locator('.app-mon-bar-row').first().waitFor();
  // the grouped types, highest first, coloured as the tiles
  expect(await bars()).toEqual([['mon-proxy-1', 'red', '35.00'], ['mon-db-1', 'amber', '25.00']]);

  const proxy = page.locator('[data-section="Proxy"]');
  await proxy.locator('tr[data-server="mon-proxy-1"]').waitFor();
  expect(await proxy.locator('tr[data-server="mon-proxy-1"] .app-mon-load').getAttribute('data-colour')).toBe('red');
  const db = page.locator('[data-section="db"] tr[data-server="mon-db-1"]');
  await db.waitFor();
  expect(await db.locator('td').nth(4).textContent()).toBe('Master');
  expect(await page.locator('[data-section="WEBCluster"] tr[data-server="mon-web-2"] .app-mon-load').textContent()).toBe('-');
  await screenshot(page, 'monitor2');

  // /monitor2/web: that type only; a server never read comes last with a dash
  await page.getByRole('navigation', { name: 'Server category' }).getByRole('link', { name: 'web' }).click();
  await page.waitForURL((u) => u.pathname === '/monitor2/web');
  await page.waitForFunction(() => document.querySelector('.app-mon-bar-row')?.getAttribute('data-server') === 'mon-web-1');
  const web = await bars();
  expect(web.map((r) => r[0])).toEqual(['mon-web-1', 'mon-web-2']);
  expect(web[0][1]).toBe('green');
  expect(web[1]).toEqual(['mon-web-2', 'none', '-']);
}, T);

test("an admin's Collect now shows each server's result; a role-100 user sees the screens without it", async () => {
  const page = await signedIn('/monitor/web');
  await card(page, 'mon-web-1').locator('.highcharts-container').waitFor();
  await page.getByRole('button', { name: 'Collect now' }).click();
  const table = page.getByRole('table', { name: 'Collection results' });
  await table.waitFor();
  await table.locator('tr[data-server="mon-web-1"]').getByText('ok').waitFor();
  // Issue 18: the servers on without credentials were left out ("Collected 0 servers of 0"): each now
  // says why, with a link to its dialog.
  await page.locator('.app-notify', { hasText: /Collected 1 of \d+ servers switched on/ }).first().waitFor();
  const noCred = table.locator('tr[data-server="mon-web-2"]').getByTestId('collect-reason');
  expect(await noCred.getAttribute('data-reason')).toBe('no_credentials');
  await noCred.getByText('Not tried: no SSH address, login, or password/private key', { exact: false }).waitFor();
  await screenshot(page, 'monitor-collect-reasons');
  await noCred.getByRole('link', { name: 'Open the server dialog' }).click();
  await page.waitForURL((u) => u.pathname === '/srv/srv_map' && u.searchParams.get('edit') === String(ids['mon-web-2']));
  await page.getByRole('dialog').getByRole('textbox').first().waitFor();
  await page.goto(t.url + '/monitor/web');
  await card(page, 'mon-web-1').locator('.highcharts-container').waitFor();

  const user = await signedIn('/monitor/web', VIEWER);
  await card(user, 'mon-web-1').locator('.highcharts-container').waitFor();
  await tile(user, 'mon-web-1').waitFor();
  expect(await user.getByRole('button', { name: 'Collect now' }).count()).toBe(0);
  expect(await user.locator('aside.app-sidebar a[href="/monitor"]').count()).toBe(1);
}, T);

test('at 390 px the charts take the width and nothing scrolls sideways', async () => {
  const page = await signedIn('/monitor/web', ADMIN, MOBILE);
  await card(page, 'mon-web-1').locator('.highcharts-container').waitFor();
  await screenshot(page, 'monitor-web-390');
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
  const box = (await card(page, 'mon-web-1').locator('.highcharts-container').boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(MOBILE.width);
  expect(box.width).toBeGreaterThan(MOBILE.width / 2);
}, T);
