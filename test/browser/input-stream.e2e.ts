/**
 * Input stream screens in a real browser against the real app (run `npm run build` first): a site
 * posts a batch through the ingestion endpoint with its token; a role-100 user opens /input_stream,
 * follows the Category button to the category table and from it /input_stream/cat/{id}, where each
 * book has its three area charts (position, shows/clicks, CTR%) drawn by the lazily loaded Highcharts;
 * the Items button lists the books with their stats.
 */
/// <reference lib="dom" />
import { getDataSourceToken } from '@nestjs/typeorm';
import type { Browser, Page } from 'playwright-core';
import type { DataSource } from 'typeorm';
import { startApp, type TestApp } from '../helpers/app.js';
import { expectNoPageErrors, launchBrowser, pathOf, screenshot, signedInPage } from '../helpers/browser.js';

const T = 90_000;
const VIEWER = { login: 'user100', password: 'user100-password-1' };

let t: TestApp;
let browser: Browser;
const pages: Page[] = [];

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  const admin = (await t.session(1)).hash;
  await t.session(100);
  const ds = t.app.get<DataSource>(getDataSourceToken());
  await ds.query("INSERT INTO book_cats (Id_cat, cat_title) VALUES (1, 'Фэнтези')");
  await ds.query("INSERT INTO books (Id_book, book_title) VALUES (11, 'Книга один'), (12, 'Книга два')");
  const { token } = await t.ok<{ token: string }>(admin, 'stream.siteSave', { name: 'books.example' });
  const now = Math.floor(Date.now() / 1000);
  const events = [];
  for (let d = 0; d < 5; d++) {
    events.push({ cat: 1, book: 11, pos: 1 + d, shows: 100 + d * 10, clicks: 10 - d, time: now - d * 86_400 });
    events.push({ cat: 1, book: 12, pos: 8 - d, shows: 50, clicks: d, time: now - d * 86_400 });
  }
  const res = await fetch(`${t.url}/api/input_stream/ingest`, { method: 'POST', headers: { 'content-type': 'application/json', 'X-Site-Token': token }, body: JSON.stringify({ batch_id: 'seed-1', events }) });
  expect(res.status).toBe(200);
  browser = await launchBrowser();
}, T);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

test('Category button, category table, and three area charts per book', async () => {
  const page = await signedInPage(browser, pages, t.url, '/input_stream', VIEWER);
  await page.getByText('Shows').first().waitFor();
  await page.getByRole('link', { name: 'Category' }).click();
  await page.waitForURL((u) => u.pathname === '/input_stream/cat');
  await page.getByRole('link', { name: 'Фэнтези' }).click();
  await page.waitForURL((u) => u.pathname === '/input_stream/cat/1');
  const book = page.locator('.app-stream-book[data-book="11"]');
  await book.waitFor();
  // Three charts per book, each an SVG with an area series drawn.
  await book.locator('.app-stream-chart[data-chart="ctr"] .highcharts-series path').first().waitFor();
  for (const b of ['11', '12']) {
    for (const c of ['position', 'counts', 'ctr']) {
      const chart = page.locator(`.app-stream-book[data-book="${b}"] .app-stream-chart[data-chart="${c}"]`);
      expect(await chart.locator('svg.highcharts-root').count()).toBe(1);
      expect(await chart.locator('.highcharts-area').count()).toBeGreaterThan(0);
    }
  }
  expect(await book.locator('.highcharts-title').allTextContents()).toEqual(['Page position', 'Shows / clicks', 'CTR %']);
  await screenshot(page, 'input-stream-cat');

  await page.getByRole('button', { name: '30 days' }).click();
  await page.waitForURL((u) => u.searchParams.get('days') === '30');
  await page.getByRole('link', { name: 'Items' }).click();
  await page.waitForURL((u) => u.pathname === '/input_stream/items');
  await page.getByRole('cell', { name: 'Книга один' }).waitFor();
  expect(pathOf(page)).toBe('/input_stream/items');
  expectNoPageErrors(pages);
}, T);
