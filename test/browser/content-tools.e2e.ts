/**
 * The worker list and the small tools in a real browser (Debian's Chromium) against the real app
 * (issue 19 "Worker list and small tools"; build the UI first): an admin stops and starts a worker on
 * /worker (the server's switch follows); /service/clear_empty_line trims lines, drops the empty ones and
 * copies the result; /content/cat_weight_sort reorders categories by mouse and by keyboard, asks before
 * leaving an unsaved order and stores it; /privacy reads signed out with the configured operator.
 */
/// <reference lib="dom" />
import { getDataSourceToken } from '@nestjs/typeorm';
import type { Browser, Page } from 'playwright-core';
import type { DataSource } from 'typeorm';
import { ADMIN, startApp, type TestApp } from '../helpers/app.js';
import { expectNoPageErrors, launchBrowser, MOBILE, newPage, screenshot, signedInPage } from '../helpers/browser.js';

const T = 90_000;
const CONTENT = { login: 'user10', password: 'user10-password-1' };
const VIEWER = { login: 'user100', password: 'user100-password-1' };
const PRIVACY = { PRIVACY_OPERATOR_NAME: 'ИП Петров Пётр Петрович', PRIVACY_OPERATOR_EMAIL: 'privacy@books.example', PRIVACY_POLICY_URL: 'https://books.example/privacy' };

let t: TestApp;
let admin: string;
let browser: Browser;
const pages: Page[] = [];

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0', ...PRIVACY });
  admin = (await t.session(1)).hash;
  await t.session(10);
  await t.session(100);
  const ds = t.app.get<DataSource>(getDataSourceToken());
  await ds.query("INSERT INTO book_cats (Id_cat, cat_title, count_books) VALUES (1, 'Фэнтези', 10), (2, 'Детективы', 20), (3, 'Поэзия', 30), (4, 'История', 40)");
  browser = await launchBrowser();
}, T);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});
afterEach(() => expectNoPageErrors(pages));

const titles = (page: Page) => page.getByTestId('cat-weight-list').getByTestId('cat-weight-title').allTextContents();
const savedOrder = async () => (await t.ok<any[]>(admin, 'cat.getWeights', {})).map((c) => c.cat_title);

test('/worker: Stop and Start switch the worker on the server', async () => {
  const page = await signedInPage(browser, pages, t.url, '/worker', ADMIN);
  const status = page.getByTestId('worker-status-monitoring-collect');
  await status.waitFor();
  expect(await status.textContent()).toBe('ok');
  await screenshot(page, 'worker-1280');
  await page.getByRole('button', { name: 'Stop Monitoring collector' }).click();
  await page.getByText('Worker stopped').first().waitFor();
  await page.getByRole('button', { name: 'Start Monitoring collector' }).waitFor();
  expect(await status.textContent()).toBe('stopped');
  const row = async () => (await t.ok<any>(admin, 'worker.getList', {})).list.find((w: any) => w.name === 'monitoring-collect');
  expect(await row()).toMatchObject({ status: 'stopped' });
  await page.getByRole('button', { name: 'Start Monitoring collector' }).click();
  await page.getByRole('button', { name: 'Stop Monitoring collector' }).waitFor();
  expect(await row()).toMatchObject({ status: 'ok' });
  const mobile = await signedInPage(browser, pages, t.url, '/worker', ADMIN, MOBILE);
  await mobile.getByTestId('worker-status-firewall-worker').waitFor();
  await screenshot(mobile, 'worker-390');
}, T);

test('/service/clear_empty_line: trims each line, drops the empty ones, copies the result', async () => {
  const page = await signedInPage(browser, pages, t.url, '/service/clear_empty_line', VIEWER);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
  const box = page.locator('textarea[name="text"]');
  await box.fill('  первая строка  \n\n   \n\tвторая\t\r\n\n  третья');
  await page.getByRole('button', { name: 'Clear empty lines' }).click();
  expect(await box.inputValue()).toBe('первая строка\nвторая\nтретья');
  expect(await page.getByTestId('line-count').textContent()).toBe('3 lines');
  await page.getByRole('button', { name: 'Copy' }).click();
  await page.getByText('Copied').first().waitFor();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('первая строка\nвторая\nтретья');
  await screenshot(page, 'clear-empty-line-1280');
}, T);

test('/content/cat_weight_sort: reorder by mouse and by keyboard; leaving unsaved asks; Save stores the order', async () => {
  const page = await signedInPage(browser, pages, t.url, '/content/cat_weight_sort', CONTENT);
  await page.getByTestId('cat-weight-list').waitFor();
  expect(await titles(page)).toEqual(['Фэнтези', 'Детективы', 'Поэзия', 'История']);

  // mouse: drag Поэзия's handle above Фэнтези
  const from = await page.getByLabel('Move Поэзия').boundingBox();
  const to = await page.getByLabel('Move Фэнтези').boundingBox();
  if (!from || !to) throw new Error('no handle boxes');
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  for (let i = 1; i <= 10; i++) await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2 + ((to.y - from.y - 8) * i) / 10);
  await page.mouse.up();
  await page.waitForFunction(() => document.querySelector('[data-testid="cat-weight-title"]')?.textContent === 'Поэзия');
  expect(await titles(page)).toEqual(['Поэзия', 'Фэнтези', 'Детективы', 'История']);

  // leaving with the order unsaved asks; Cancel stays with the order (dnd-kit swallows clicks for 50 ms after a drop)
  await page.waitForTimeout(120);
  const dialog = new Promise<string>((resolve) => page.once('dialog', (d) => { const m = `${d.type()}: ${d.message()}`; void d.dismiss().then(() => resolve(m)); }));
  await page.locator('.app-sidebar a[href="/book/categories"]').click();
  expect(await dialog).toBe('confirm: You have unsaved changes. Leave without saving?');
  expect(new URL(page.url()).pathname).toBe('/content/cat_weight_sort');
  expect(await titles(page)).toEqual(['Поэзия', 'Фэнтези', 'Детективы', 'История']);

  // keyboard: Фэнтези down two places (Space, ArrowDown ×2, Space)
  const handle = page.getByLabel('Move Фэнтези');
  await handle.focus();
  await page.keyboard.press('Space');
  await page.waitForTimeout(150); // dnd-kit measures the rows after the lift
  await page.keyboard.press('ArrowDown');
  await page.waitForTimeout(150);
  await page.keyboard.press('ArrowDown');
  await page.waitForTimeout(150);
  await page.keyboard.press('Space');
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="cat-weight-title"]')].map((e) => e.textContent).join(',') === 'Поэзия,Детективы,История,Фэнтези');
  expect(await savedOrder()).toEqual(['Фэнтези', 'Детективы', 'Поэзия', 'История']); // nothing saved yet

  await screenshot(page, 'cat-weight-sort-1280');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Order saved').first().waitFor();
  await page.getByRole('button', { name: 'Save' }).waitFor({ state: 'detached' });
  expect(await savedOrder()).toEqual(['Поэзия', 'Детективы', 'История', 'Фэнтези']);
  expect((await t.ok(admin, 'book_cats.get', {})).list.map((c: any) => c.cat_title)).toEqual(['Поэзия', 'Детективы', 'История', 'Фэнтези']);
  await page.reload();
  await page.getByTestId('cat-weight-list').waitFor();
  expect(await titles(page)).toEqual(['Поэзия', 'Детективы', 'История', 'Фэнтези']);
  const mobile = await signedInPage(browser, pages, t.url, '/content/cat_weight_sort', CONTENT, MOBILE);
  await mobile.getByTestId('cat-weight-list').waitFor();
  await screenshot(mobile, 'cat-weight-sort-390');
}, T);

test('/privacy: readable without signing in, with the configured operator, e-mail and policy URL', async () => {
  for (const size of [{}, MOBILE]) {
    const page = await newPage(browser, size);
    pages.push(page);
    await page.goto(t.url + '/privacy');
    await page.getByRole('heading', { name: 'Политика в отношении обработки персональных данных' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/privacy'); // not sent to /auth
    expect(await page.locator('section h2').count()).toBe(12);
    const text = (await page.locator('article').textContent()) ?? '';
    expect(text).toContain('ИП Петров Пётр Петрович');
    expect(text).toContain('индивидуальным предпринимателем');
    expect(text).toContain('в течение 10 дней');
    expect(text).toContain('действует бессрочно');
    expect(text).toMatch(/Фамилия, имя, отчество[^]*Электронный адрес[^]*Номера телефонов[^]*место рождения/);
    expect(await page.locator('[data-item="12.3"]').textContent()).toContain('https://books.example/privacy');
    expect(await page.locator('[data-item="12.4"]').count()).toBe(0);
    expect(await page.locator('a[href="mailto:privacy@books.example"]').count()).toBeGreaterThan(1);
    expect(await page.getByText('Not configured').count()).toBe(0);
    await screenshot(page, `privacy-${size === MOBILE ? 390 : 1280}`);
  }
}, T);

test('/comments: a comment a site reported waits in the queue; Hide takes it out and the site can read the decision', async () => {
  const token = (await t.ok<{ token: string }>(admin, 'stream.siteSave', { name: 'books.example' })).token;
  const res = await fetch(`${t.url}/api/input_stream/ingest`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'X-Site-Token': token },
    body: JSON.stringify({ batch_id: 'b1', events: [], comments: [{ id: 'c1', author: 'Гость', text: 'Реклама казино', time: Math.floor(Date.now() / 1000), reason: 'spam' }] }),
  });
  expect(res.status).toBe(200);
  const page = await signedInPage(browser, pages, t.url, '/comments', ADMIN);
  await page.getByTestId('comment-text').filter({ hasText: 'Реклама казино' }).waitFor();
  await screenshot(page, 'comments-1280');
  await page.getByRole('button', { name: 'Hide' }).click();
  await page.getByText('Comment hidden').first().waitFor();
  await page.getByText('Nothing waits for moderation').waitFor();
  await page.getByRole('button', { name: 'Hidden' }).click();
  await page.getByTestId('comment-text').filter({ hasText: 'Реклама казино' }).waitFor();
  expect(new URL(page.url()).search).toBe('?status=2');
  const d = await fetch(`${t.url}/api/comments/decisions`, { headers: { 'X-Site-Token': token } });
  expect(((await d.json()) as any).result.list.map((x: any) => [x.id, x.decision])).toEqual([['c1', 'hidden']]);
}, T);
