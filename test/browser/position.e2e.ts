/**
 * Search positions in a real Chromium against the real app and a local Yandex Search API v2
 * (test/helpers/fakes/yandex-search.ts; issue 23; docs/position.md): the projects list with query
 * counts and average position, a new project through the dialog, pasting queries, Check now, the
 * project's query table (current position, change, sparkline, a stale mark after a failed check,
 * 20 a page with p_), the top-stats chart, and the query dialog opened by `?open=` (its history chart
 * and table) and closed again (the parameter goes).
 */
/// <reference lib="dom" />
import { getDataSourceToken } from '@nestjs/typeorm';
import type { Browser, Page } from 'playwright-core';
import type { DataSource } from 'typeorm';
import { dayMinus } from '../../src/modules/position/schedule.js';
import { ADMIN, startApp, type TestApp } from '../helpers/app.js';
import { expectNoPageErrors, launchBrowser, signedInPage } from '../helpers/browser.js';
import { serp, startFakeYandex, YANDEX_ROUTE, type FakeYandex } from '../helpers/fakes/yandex-search.js';

const T = 120_000;
const DOMAIN = 'shop.example';
let t: TestApp;
let fake: FakeYandex;
let browser: Browser;
let admin: string;
const pages: Page[] = [];

beforeAll(async () => {
  fake = await startFakeYandex();
  fake.state.serps = { 'red shoes': serp(DOMAIN, 3), 'blue shoes': serp(DOMAIN, 15), 'green shoes': serp(DOMAIN, 0) };
  t = await startApp({ CRON_ENABLED: '0', YANDEX_SEARCH_URL: fake.url, YANDEX_SEARCH_API_KEY: fake.state.key, YANDEX_SEARCH_FOLDER_ID: fake.state.folderId });
  admin = (await t.session(1)).hash;
  browser = await launchBrowser();
}, T);
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await fake?.close();
});
afterEach(() => expectNoPageErrors(pages));

test('a project from the dialog, pasted queries, Check now: the table with positions, change, sparkline and stale mark', async () => {
  const page = await signedInPage(browser, pages, t.url, '/position/projects', ADMIN);
  await page.getByText('No projects yet').waitFor();
  await page.getByTestId('project-add').click();
  await page.locator('input[name="name"]').fill('Shoes');
  await page.locator('input[name="domain"]').fill('https://www.shop.example/catalog');
  await page.getByTestId('project-save').click();
  await page.getByText('Save ok!').first().waitFor();
  await page.getByRole('link', { name: 'Shoes' }).click();
  await page.waitForURL((u) => /^\/position\/project\/\d+$/.test(u.pathname));
  const id = Number(new URL(page.url()).pathname.split('/').pop());
  expect(await page.getByTestId('project-info').innerText()).toContain('www.shop.example');

  await page.getByTestId('queries-add').click();
  await page.locator('textarea[name="queries"]').fill('red shoes\nblue shoes\n\ngreen shoes\nRED  shoes');
  await page.locator('input[name="cat_id"]').fill('12');
  await page.getByTestId('queries-save').click();
  await page.getByText('Added 3, already there 1').waitFor();
  await page.getByTestId('queries-table').getByText('red shoes').waitFor();

  // yesterday's places, so the change and the sparkline have two points
  const ds = t.app.get<DataSource>(getDataSourceToken());
  const qs = (await ds.query('SELECT id_query, query_text FROM position_queries WHERE id_project = ?', [id])) as Array<{ id_query: number; query_text: string }>;
  const qid = (text: string) => Number(qs.find((q) => q.query_text === text)!.id_query);
  for (const [text, pos] of [['red shoes', 5], ['blue shoes', 11]] as const) {
    await ds.query('INSERT INTO position_history (id_query, day, id_project, pos, top, url, checked_at) VALUES (?, ?, ?, ?, 100, ?, 0)', [qid(text), dayMinus(Date.now(), 1), id, pos, '']);
  }

  await page.getByTestId('check-now').click();
  await page.getByText('Checked 3, failed 0').waitFor();
  const row = (text: string) => page.getByTestId('queries-table').locator('tr', { hasText: text });
  await row('red shoes').getByTestId('place').getByText('3', { exact: true }).waitFor();
  expect(await row('red shoes').getByTestId('change').innerText()).toBe('▲2');
  expect(await row('blue shoes').getByTestId('place').innerText()).toBe('15');
  expect(await row('blue shoes').getByTestId('change').innerText()).toBe('▼4');
  expect(await row('green shoes').getByTestId('place').innerText()).toBe('not in top 100');
  expect(await row('red shoes').getByTestId('sparkline').count()).toBe(1);
  expect(await row('red shoes').locator('td').nth(1).innerText()).toBe('12');
  // the top-stats chart draws the queries found
  await page.getByTestId('position-top-chart').locator('.highcharts-series').first().waitFor();
  expect(await page.getByTestId('position-top-chart').locator('.highcharts-legend-item text').allTextContents()).toEqual(expect.arrayContaining(['red shoes', 'blue shoes']));

  // a failed check: the last position stays, marked stale
  await ds.query("DELETE FROM outside_cache WHERE service = 'yandex-search'");
  fake.script(YANDEX_ROUTE, ...Array.from({ length: 12 }, () => ({ status: 401, body: { code: 16, message: 'Unauthenticated' } })));
  await page.getByTestId('check-now').click();
  await page.getByText('Checked 0, failed 3').waitFor();
  await row('red shoes').locator('[data-state="stale"]').waitFor();
  expect(await row('red shoes').getByTestId('place').innerText()).toContain('3');
  expect(await row('red shoes').locator('[data-state="stale"]').getAttribute('title')).toContain('answered 401');

  // the projects list: query count and average position (3 and 15: 9)
  await page.getByRole('link', { name: 'Projects' }).click();
  await page.waitForURL((u) => u.pathname === '/position/projects');
  const p = page.getByTestId(`project-${id}`);
  expect(await p.getByTestId('queries').innerText()).toBe('3');
  expect(await p.getByTestId('avg').innerText()).toBe('9.0');
  await page.close();
}, T);

test('the query dialog opens from ?open= with its history chart and closes back to the table; p_ pages by 20', async () => {
  const { id_project } = await t.ok(admin, 'position.saveProject', { name: 'Paged', domain: DOMAIN });
  await t.ok(admin, 'position.saveQueries', { id_project, queries: Array.from({ length: 25 }, (_, i) => `item ${i + 1}`).join('\n') });
  const q22 = (await t.ok(admin, 'position.getQueries', { id_project, p_: 2 })).list.find((q: any) => q.query_text === 'item 22');
  const ds = t.app.get<DataSource>(getDataSourceToken());
  for (const [ago, pos] of [[0, 4], [1, 6], [2, null], [3, 9]] as const) {
    await ds.query('INSERT INTO position_history (id_query, day, id_project, pos, top, url, checked_at) VALUES (?, ?, ?, ?, 100, ?, 0)', [q22.id_query, dayMinus(Date.now(), ago), id_project, pos, pos ? `https://${DOMAIN}/item-22` : '']);
  }
  await ds.query('UPDATE position_queries SET pos = 4, pos_top = 100, pos_date = ?, checked = ? WHERE id_query = ?', [dayMinus(Date.now(), 0), Date.now(), q22.id_query]);

  const page = await signedInPage(browser, pages, t.url, `/position/project/${id_project}?p_=2&open=${q22.id_query}`, ADMIN);
  const dialog = page.getByTestId('query-dialog');
  await dialog.waitFor();
  expect(await page.locator('.modal-title').innerText()).toBe('Query: item 22');
  await dialog.getByTestId('position-history-chart').locator('.highcharts-series path.highcharts-graph').first().waitFor();
  expect(await dialog.getByTestId('query-history').locator('tbody tr td:nth-child(2)').allInnerTexts()).toEqual(['4', '6', 'not in top 100', '9']);
  // close: the parameter goes, the page stays
  await page.locator('.modal .btn-close').click();
  await page.waitForURL((u) => !u.searchParams.has('open') && u.searchParams.get('p_') === '2');
  await dialog.waitFor({ state: 'detached' });
  const rows = page.getByTestId('queries-table').locator('tbody tr');
  expect(await rows.count()).toBe(5);
  // open again from the table: the link sets ?open=
  await page.getByTestId('queries-table').getByRole('link', { name: 'item 22' }).click();
  await page.waitForURL((u) => u.searchParams.get('open') === String(q22.id_query));
  await dialog.waitFor();
  // the browser's Back closes it
  await page.goBack();
  await dialog.waitFor({ state: 'detached' });
  // page one holds 20
  await page.goto(`${t.url}/position/project/${id_project}`);
  await page.getByTestId('queries-table').getByText('item 1', { exact: true }).waitFor();
  expect(await rows.count()).toBe(20);
  await page.close();
}, T);
