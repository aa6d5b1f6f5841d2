/**
 * /wb in a real Chromium against the real app and the local Wildberries servers (issue 23; docs/wb.md),
 * as a user without admin rights: before any sync the list is empty and renders nothing; after the
 * admin's sync, a range chosen in the URL shows every card with the figures the API answers for that
 * range and their totals; the range form moves the URL; a column header sorts (in the URL); the second
 * variant's columns; a row opens the card's daily Highcharts chart (orders, buyouts, ad spend, the
 * price and its brain.js forecast).
 */
/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import type { WbReport } from '../../src/contracts/wb.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { expectNoPageErrors, launchBrowser, pathOf, screenshot, signedInPage } from '../helpers/browser.js';
import { defaultWbState, startFakeWb, type FakeWb } from '../helpers/fakes/wb.js';

const T = 120_000;
const BOB = { login: 'bob', password: 'bob-password-1' };
const TODAY = new Date().toISOString().slice(0, 10);
const addDays = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
const FROM = addDays(TODAY, -13);
const money = (v: number) => v.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
let t: TestApp;
let wb: FakeWb;
let browser: Browser;
let admin: string;
let bob: string;
const pages: Page[] = [];

beforeAll(async () => {
  wb = await startFakeWb(defaultWbState(TODAY, { days: 60 }));
  t = await startApp({ CRON_ENABLED: '0', TZ: 'UTC', WB_FINANCE_INTERVAL_MS: '50', WB_FUNNEL_INTERVAL_MS: '10', ...wb.env });
  admin = (await t.session(1)).hash;
  bob = (await t.session(100, 'bob')).hash;
  browser = await launchBrowser();
}, T);
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await wb?.close();
});
afterEach(() => expectNoPageErrors(pages));

test('before any sync the list is empty and renders nothing; the page says nothing was synced', async () => {
  const page = await signedInPage(browser, pages, t.url, '/wb', BOB);
  await page.getByTestId('wb-sync-state').getByText('Nothing synced yet: run a sync').waitFor();
  expect(await page.getByTestId('wb-table').count()).toBe(0);
  expect(await page.getByRole('button', { name: 'Sync the range' }).count()).toBe(0); // not an admin
  await page.close();
}, T);

test('a chosen range in the URL: every card with the API\'s figures, totals, the range form, sorting, the second variant', async () => {
  await t.ok(admin, 'wb.sync', { dateFrom: addDays(TODAY, -59), dateTo: TODAY });
  const want = await t.ok<WbReport>(bob, 'wb.Report.createReportItems', { dateFrom: FROM, dateTo: TODAY });
  const page = await signedInPage(browser, pages, t.url, `/wb?dateFrom=${FROM}&dateTo=${TODAY}`, BOB);
  const table = page.getByTestId('wb-table');
  await table.waitFor();
  expect(await table.locator('tbody tr').count()).toBe(5);
  expect(await table.locator('thead th').allInnerTexts()).toEqual(['Cards ▲', 'Orders and cancellations', 'Sales', 'Returns', 'Before payout', 'Sales sum', 'Returns sum', 'Logistics', 'Advertising']);
  const c1 = want.list.find((r) => r.nmID === 300001)!;
  const row1 = table.locator('tbody tr[data-nm="300001"] td');
  expect(await row1.nth(0).innerText()).toContain('Книга 1');
  expect(await row1.nth(4).innerText()).toBe(money(c1.ppvz_for_pay));
  expect(await row1.nth(8).innerText()).toBe(money(c1.ad));
  const totals = page.getByTestId('wb-totals').locator('td');
  expect(await totals.nth(0).innerText()).toBe('Total: 5 cards');
  expect(await totals.nth(4).innerText()).toBe(money(want.totals.ppvz_for_pay));
  await screenshot(page, 'wb-table');

  // sort by before payout: the biggest first, in the URL
  await table.locator('thead th[data-col="ppvz_for_pay"]').click();
  await page.waitForURL((u) => u.searchParams.get('sort') === 'ppvz_for_pay' && u.searchParams.get('order') === 'desc');
  const byPayout = [...want.list].sort((a, b) => b.ppvz_for_pay - a.ppvz_for_pay || a.nmID - b.nmID).map((r) => String(r.nmID));
  // the URL changes before the table re-renders: wait for the descending order's first row
  await page.waitForFunction((nm) => document.querySelector('[data-testid="wb-table"] tbody tr')?.getAttribute('data-nm') === nm, byPayout[0]);
  expect(await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-nm')))).toEqual(byPayout);
  await table.locator('thead th[data-col="ppvz_for_pay"]').click();
  await page.waitForURL((u) => u.searchParams.get('sort') === 'ppvz_for_pay' && !u.searchParams.has('order'));
  // the URL changes before the table re-renders: wait for the ascending order's first row
  await page.waitForFunction((nm) => document.querySelector('[data-testid="wb-table"] tbody tr')?.getAttribute('data-nm') === nm, byPayout[byPayout.length - 1]);

  // another range through the form: the URL and the figures follow
  const from2 = addDays(TODAY, -3);
  const to2 = addDays(TODAY, -1);
  await page.locator('#wb-from').fill(from2);
  await page.locator('#wb-to').fill(to2);
  await page.getByRole('button', { name: 'Show' }).click();
  await page.waitForURL((u) => u.searchParams.get('dateFrom') === from2 && u.searchParams.get('dateTo') === to2);
  const want2 = await t.ok<WbReport>(bob, 'wb.Report.createReportItems', { dateFrom: from2, dateTo: to2 });
  await page.getByTestId('wb-totals').locator('td').nth(4).filter({ hasText: money(want2.totals.ppvz_for_pay) }).waitFor();

  // the second variant's columns
  await page.getByRole('button', { name: 'Funnel and costs' }).click();
  await page.waitForURL((u) => u.searchParams.get('variant') === '2');
  await table.locator('thead th', { hasText: 'Opened card' }).waitFor();
  expect(await table.locator('thead th').allInnerTexts()).toEqual(['Cards ▲', 'Ad spend', 'Delivery cost', 'Logistics', 'Storage', 'Bought for amount', 'Opened card', 'Added to cart', 'Ordered pieces', 'Bought pieces', 'Average orders per day']);
  const f2 = wb.state.funnel[300002];
  const row2 = table.locator('tbody tr[data-nm="300002"] td');
  expect(await row2.nth(6).innerText()).toBe(f2.openCount.toLocaleString('en-US'));
  expect(await row2.nth(5).innerText()).toBe(money(f2.buyoutSum));
  expect(pathOf(page)).toContain('sort=ppvz_for_pay');
  await page.close();
}, T);

test('a row opens the card\'s daily chart: orders, buyouts, ad spend, the price and its forecast', async () => {
  const page = await signedInPage(browser, pages, t.url, `/wb?dateFrom=${FROM}&dateTo=${TODAY}`, BOB);
  await page.getByTestId('wb-table').locator('tbody tr[data-nm="300001"]').click();
  await page.waitForURL((u) => u.searchParams.get('nm') === '300001');
  const chart = page.getByTestId('wb-chart');
  await chart.locator('.highcharts-series-0 path.highcharts-point').first().waitFor({ state: 'attached' });
  expect(await chart.locator('.highcharts-legend-item').allTextContents()).toEqual(['Orders', 'Buyouts', 'Ad spend', 'Price paid', 'Forecast (brain.js)']);
  expect(await chart.locator('.highcharts-series-0 path.highcharts-point').count()).toBe(14);
  await page.getByTestId('wb-brain-note').getByText(/held-out days it was off by/).waitFor({ timeout: 60_000 });
  // the forecast line: a point for each day of the range past the first `step` days of history, and 7 days past its end
  const forecastPoints = async () => chart.locator('g.highcharts-series-4.highcharts-line-series path').evaluateAll((ps) => Math.max(0, ...ps.map((p) => (p.getAttribute('d') ?? '').split(/[ML]/).length - 1)));
  expect(await forecastPoints()).toBeGreaterThanOrEqual(14 + 7);
  await screenshot(page, 'wb-chart');
  await page.getByRole('button', { name: 'Close' }).click();
  await page.waitForURL((u) => !u.searchParams.has('nm'));
  await page.getByTestId('wb-card-chart').waitFor({ state: 'detached' });
  await page.close();
}, T);
