/**
 * Banners in a real Chromium against the real app (docs/content.md "Banners"): a content editor adds a
 * banner with an image picked in the file input (a real PNG made with sharp), the saved banner shows
 * the stored image (/storage/<alias>); a banner with counters reported by a site shows the counters and its
 * daily Highcharts chart (views, clicks, CTR), at desktop and phone widths.
 */
/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { startApp, type TestApp } from '../helpers/app.js';
import { expectNoPageErrors, launchBrowser, MOBILE, pathOf, screenshot, signedInPage } from '../helpers/browser.js';

const T = 90_000;
const EDITOR = { login: 'user10', password: 'user10-password-1' };
const VIEWER = { login: 'user100', password: 'user100-password-1' };

let t: TestApp;
let browser: Browser;
let Idb: number;
const pages: Page[] = [];

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  const admin = (await t.session(1)).hash;
  await t.session(10);
  await t.session(100);
  Idb = (await t.rest<any>(admin, 'POST', '/abs/set_abs', { title: 'Новинки недели', target: 'https://books.example/new', status: 0, rate: 20 })).body.result.Idb;
  const { token } = await t.ok<{ token: string }>(admin, 'stream.siteSave', { name: 'books.example' });
  const now = Math.floor(Date.now() / 1000);
  const banners = [];
  for (let d = 0; d < 10; d++) banners.push({ Idb, time: now - d * 86_400, views: 1000 + d * 50, clicks: 20 + d });
  const res = await fetch(`${t.url}/api/input_stream/ingest`, { method: 'POST', headers: { 'content-type': 'application/json', 'X-Site-Token': token }, body: JSON.stringify({ batch_id: 'b-1', banners }) });
  expect(res.status).toBe(200);
  browser = await launchBrowser();
}, T);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

test("a banner's page shows its counters and the daily chart of views, clicks and CTR", async () => {
  for (const size of [undefined, MOBILE]) {
    const page = await signedInPage(browser, pages, t.url, '/abs/list', VIEWER, size);
    await page.getByRole('link', { name: 'Новинки недели' }).click();
    await page.waitForURL((u) => u.pathname === `/abs/edit/${Idb}`);
    const chart = page.getByTestId('banner-chart');
    await chart.locator('.highcharts-series-2 path').first().waitFor();
    expect(await chart.locator('.highcharts-legend-item').allTextContents()).toEqual(['Views', 'Clicks', 'CTR']);
    // 30 days on the axis (days without reports as zero columns).
    expect(await chart.locator('.highcharts-series-0 path.highcharts-point').count()).toBe(30);
    const counters = await page.getByTestId('banner-counters').innerText();
    // 12,250 views and 245 clicks in all: CTR 2.0%.
    expect(counters.replace(/\s+/g, ' ')).toMatch(/Views 12[ ,.\u00a0]?250 Views today 1[ ,.\u00a0]?000 Clicks 245 Clicks today 20 CTR 2\.0%/);
    // A viewer (role 100) reads; no Save.
    expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
    await screenshot(page, `banner-chart-${size ? 'phone' : 'desktop'}`);
    await page.close();
  }
}, T);

test('Add new block: the picked image is shown, uploaded with Save and shown from the storage', async () => {
  const page = await signedInPage(browser, pages, t.url, '/abs/list', EDITOR);
  await page.getByRole('link', { name: 'Add new block' }).click();
  await page.waitForURL((u) => u.pathname === '/abs/add');
  await page.locator('input[name="title"]').fill('Аудиокниги');
  await page.locator('input[name="target"]').fill('https://books.example/audio');
  const png = await sharp({ create: { width: 234, height: 60, channels: 3, background: '#198754' } }).png().toBuffer();
  await page.locator('input[type="file"]').setInputFiles({ name: 'banner.png', mimeType: 'image/png', buffer: png });
  const img = page.getByTestId('banner-image');
  await img.waitFor();
  expect(await img.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
  await page.getByRole('button', { name: 'Save' }).click();
  await page.waitForURL((u) => /^\/abs\/edit\/\d+$/.test(u.pathname));
  await page.getByText('Save ok!').first().waitFor();
  await page.waitForFunction(() => /^\/storage\/[0-9a-f]{32}$/.test(document.querySelector('[data-testid="banner-image"]')?.getAttribute('src') ?? ''));
  // The stored picture loaded in the page: its real size.
  expect(await img.evaluate((el) => [(el as HTMLImageElement).complete, (el as HTMLImageElement).naturalWidth, (el as HTMLImageElement).naturalHeight])).toEqual([true, 234, 60]);
  const id = Number(pathOf(page).split('/').pop());
  const saved = (await t.rest<any>((await t.session(10)).hash, 'GET', `/abs/get?Idb=${id}`)).body.result;
  expect(saved).toMatchObject({ title: 'Аудиокниги', target: 'https://books.example/audio', status: 0, rate: 10, img: await img.getAttribute('src') });
  await screenshot(page, 'banner-upload');
  expectNoPageErrors(pages);
}, T);
