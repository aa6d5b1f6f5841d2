/**
 * Report dashboards in a real Chromium against the real app (docs/report.md "Screen"): the filter in
 * the URL with its defaults, tabs by tab_number and a chart drawn from the input stream; the edit
 * dialog: a new report starts with the defaults, the drawing section only for type 0 or more and the
 * metrika section only for type -1, count_day from 1 to more switches detail from hours to days and
 * back; save, then delete with confirmation; the partner totals (number row and line chart) for role 1 only.
 */
/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { expectNoPageErrors, launchBrowser, pathOf, screenshot, signedInPage } from '../helpers/browser.js';
import type { FakeHttp } from '../helpers/fake-http.js';
import { RSYA_TOKEN, rsyaValue, startFakeRsya } from '../helpers/fakes/rsya.js';

const T = 90_000;
const EDITOR = { login: 'user10', password: 'user10-password-1' };
const ADMIN = { login: 'admin', password: 'admin-password-1' };

let t: TestApp;
let browser: Browser;
let content: string;
let rsya: FakeHttp;
const pages: Page[] = [];

beforeAll(async () => {
  rsya = await startFakeRsya();
  t = await startApp({ CRON_ENABLED: '0', RSYA_URL: rsya.url, RSYA_TOKEN });
  content = (await t.session(10)).hash;
  const save = async (body: Record<string, unknown>) => (await t.rest<any>(content, 'POST', '/report/save', body)).body.result.Id as number;
  await save({ title: 'Shows by hour', colums: 'shows,clicks', sort_number: 2 });
  await save({ title: 'First by sort', colums: 'shows', sort_number: 1 });
  await save({ title: 'Misc report', tab_number: 5 });
  await save({ title: 'Weekly', count_day: 7, quality: 1 });
  // one hour of shows through the input stream's ingest (a site's batch)
  const admin = (await t.session(1)).hash;
  const { token } = await t.ok<{ token: string }>(admin, 'stream.siteSave', { name: 'books.example' });
  const res = await fetch(`${t.url}/api/input_stream/ingest`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'X-Site-Token': token },
    body: JSON.stringify({ batch_id: 'r-1', events: [{ cat: 1, book: 5, shows: 40, clicks: 4, pos: 2, time: Math.floor(Date.now() / 1000) }] }),
  });
  if (res.status !== 200) throw new Error(`ingest: ${res.status} ${await res.text()}`);
  browser = await launchBrowser();
}, T);
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await rsya?.close();
});
afterEach(() => expectNoPageErrors(pages));

const select = (p: Page, name: string) => p.locator(`select[name="${name}"]`);

test('the filter in the URL, tabs by tab_number, charts by sort_number; no partner totals below role 1', async () => {
  const page = await signedInPage(browser, pages, t.url, '/report/list', EDITOR);
  await page.getByTestId('report-tab-1').waitFor();
  expect(await select(page, 'filter-quality').inputValue()).toBe('0');
  expect(await select(page, 'filter-status').inputValue()).toBe('1');
  expect(await select(page, 'filter-count_day').inputValue()).toBe('1');
  const cards = page.locator('[data-testid^="report-card-"]');
  await cards.nth(1).waitFor();
  expect(await cards.locator('.card-header .fw-semibold').allTextContents()).toEqual(['First by sort ', 'Shows by hour ']);
  await cards.nth(1).getByTestId('report-chart').locator('.highcharts-series-0').first().waitFor();
  expect(await cards.nth(1).getByTestId('report-chart').locator('.highcharts-legend-item').allTextContents()).toEqual(['Shows', 'Clicks']);
  expect(await page.getByTestId('rsya-panel').count()).toBe(0);
  await page.getByTestId('report-tab-5').click();
  await page.getByText('Misc report').waitFor();
  expect(pathOf(page)).toBe('/report/list?tab=5');
  await select(page, 'filter-count_day').selectOption('7');
  await select(page, 'filter-quality').selectOption('1');
  await page.getByTestId('report-tab-1').click();
  await page.getByText('Weekly').waitFor();
  expect(new URLSearchParams(new URL(page.url()).search).get('count_day')).toBe('7');
  expect(new URLSearchParams(new URL(page.url()).search).get('quality')).toBe('1');
  await screenshot(page, 'report-list');
}, T);

test('the edit dialog: defaults, sections per type, the hours/days switch; save and delete with confirmation', async () => {
  const page = await signedInPage(browser, pages, t.url, '/report/list', EDITOR);
  await page.getByTestId('report-new').click();
  const dialog = page.getByTestId('report-dialog');
  await dialog.waitFor();
  // a new report starts with the defaults
  expect(await dialog.locator('input[name="title"]').inputValue()).toBe('');
  expect(await select(page, 'type').inputValue()).toBe('0');
  expect(await select(page, 'status').inputValue()).toBe('1');
  expect(await select(page, 'quality').inputValue()).toBe('0');
  expect(await select(page, 'count_day').inputValue()).toBe('1');
  expect(await select(page, 'tab_number').inputValue()).toBe('1');
  expect(await dialog.locator('input[name="colums"]').inputValue()).toBe('shows,clicks');
  // type 0 or more: the drawing section, no metrika section
  expect(await page.getByTestId('report-section-drawing').count()).toBe(1);
  expect(await page.getByTestId('report-section-metrika').count()).toBe(0);
  await select(page, 'type').selectOption('-1');
  await page.getByTestId('report-section-metrika').waitFor();
  expect(await page.getByTestId('report-section-drawing').count()).toBe(0);
  expect(await dialog.locator('input[name="colums"]').inputValue()).toBe('ym:s:visits');
  expect(await page.getByTestId('report-section-metrika').innerText()).toContain('Yandex Metrika is not configured (METRIKA_TOKEN)');
  await screenshot(page, 'report-dialog-metrika');
  await select(page, 'type').selectOption('1');
  await page.getByTestId('report-section-drawing').waitFor();
  expect(await page.getByTestId('report-section-metrika').count()).toBe(0);
  // count_day 1 -> 7: hours -> days; 7 -> 30: stays days; back to 1: hours
  await select(page, 'count_day').selectOption('7');
  expect(await select(page, 'quality').inputValue()).toBe('1');
  await select(page, 'count_day').selectOption('30');
  expect(await select(page, 'quality').inputValue()).toBe('1');
  await select(page, 'count_day').selectOption('1');
  expect(await select(page, 'quality').inputValue()).toBe('0');
  // weeks chosen by hand are kept while the day count changes between larger values; back to 1: hours
  await select(page, 'count_day').selectOption('90');
  await select(page, 'quality').selectOption('3');
  await select(page, 'count_day').selectOption('180');
  expect(await select(page, 'quality').inputValue()).toBe('3');
  await select(page, 'count_day').selectOption('1');
  expect(await select(page, 'quality').inputValue()).toBe('0');
  await select(page, 'count_day').selectOption('7');
  expect(await select(page, 'quality').inputValue()).toBe('1');
  // a bad save shows the server's message by the field
  await page.getByTestId('report-save').click();
  await dialog.getByText('title is required').waitFor();
  await dialog.locator('input[name="title"]').fill('Новый отчёт');
  await select(page, 'table').selectOption('banners');
  expect(await dialog.locator('input[name="colums"]').inputValue()).toBe('views,clicks');
  await page.getByTestId('report-save').click();
  await page.getByText('Insert ok!').first().waitFor();
  const list = (await t.rest<any>(content, 'GET', '/report/get?count_day=7&quality=1')).body.result.list;
  const saved = list.find((r: any) => r.title === 'Новый отчёт');
  expect(saved).toMatchObject({ type: 1, table: 'banners', colums: 'views,clicks', count_day: 7, quality: 1, status: 1 });

  // delete with confirmation: Cencel keeps it, Yes removes it
  await page.goto(`${t.url}/report/list?count_day=7&quality=1`);
  const card = page.getByTestId(`report-card-${saved.Id}`);
  await card.waitFor();
  await card.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('button', { name: 'Cencel' }).click();
  expect((await t.rest<any>(content, 'GET', `/report/get?Id=${saved.Id}`)).status).toBe(200);
  await card.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('button', { name: 'Yes' }).click();
  await page.getByText('Delete ok!').first().waitFor();
  await card.waitFor({ state: 'detached' });
  expect((await t.rest<any>(content, 'GET', `/report/get?Id=${saved.Id}`)).status).toBe(404);
}, T);

test('partner totals for role 1: a number row and a line chart of partner_wo_nds over the last 30 days', async () => {
  const page = await signedInPage(browser, pages, t.url, '/report/list', ADMIN);
  const panel = page.getByTestId('rsya-panel');
  await panel.getByTestId('rsya-chart').locator('.highcharts-series-0').first().waitFor();
  let sum = 0;
  for (let d = 30; d >= 0; d--) sum += rsyaValue(new Date(Date.now() - d * 86_400_000).toISOString().slice(0, 10));
  const shown = (await panel.getByTestId('rsya-total').innerText()).replace(/[^\d.]/g, '');
  expect(Number(shown)).toBeCloseTo(sum, 2);
  expect(await panel.getByTestId('rsya-numbers').innerText()).toMatch(/Days\s+31/);
  expect(rsya.requests[0].query.getAll('period')).toEqual([new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10), new Date().toISOString().slice(0, 10)]);
  await screenshot(page, 'report-rsya');
}, T);
