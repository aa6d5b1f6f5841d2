/**
 * Compilations in a real browser (Debian's Chromium) against the real app (build the UI first): a
 * content user (role 10) creates a compilation on /compilation/add (the four required fields, items by
 * the item-id editor with an unknown id listed, by title search), reorders the items by dragging with
 * the mouse and with the keyboard, saves (the stored order is the one on screen); the auto compilation
 * refuses a range outside 1-90 days with 'Min 1 and max 90 days' and no Run, fills the list from the
 * input stream (nothing saved until Save), shows the Russian hint when empty; the /compilation cards
 * with `q` in the URL; restore from the history; delete behind a confirm.
 */
/// <reference lib="dom" />
import { getDataSourceToken } from '@nestjs/typeorm';
import type { Browser, Page } from 'playwright-core';
import type { DataSource } from 'typeorm';
import { startApp, type TestApp } from '../helpers/app.js';
import { sleep } from '../helpers/wait.js';
import { expectNoPageErrors, launchBrowser, MOBILE, pathOf, screenshot, signedInPage } from '../helpers/browser.js';

const T = 120_000;
const CONTENT = { login: 'user10', password: 'user10-password-1' };
let t: TestApp;
let browser: Browser;
let ds: DataSource;
let hash: string;
const pages: Page[] = [];
const today = Math.floor(Date.now() / 86_400_000);

const itemIds = (page: Page) => page.locator('[data-testid="items"] [data-sortable-id]').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-sortable-id'))));
/** Polls until `fn` answers `want` (10 s), then asserts it. */
async function settles<T>(fn: () => Promise<T>, want: T, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  let last = await fn();
  while (JSON.stringify(last) !== JSON.stringify(want) && Date.now() < end) {
    await sleep(100);
    last = await fn();
  }
  expect(last).toEqual(want);
}
const stored = async (id: number) => (await t.rest<any>(hash, 'GET', `/compilation/get_list?Id_compilation=${id}&joinItems=1`)).body.result;

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  hash = (await t.session(10)).hash;
  ds = t.app.get<DataSource>(getDataSourceToken());
  await ds.query("INSERT INTO book_cats (Id_cat, cat_title) VALUES (1, 'Фэнтези'), (2, 'Детективы')");
  const books = Array.from({ length: 8 }, (_, i) => [i + 1, `Книга ${['Альфа', 'Бета', 'Гамма', 'Дельта', 'Эпсилон', 'Дзета', 'Эта', 'Тета'][i]}`, 100 * (i + 1), 1]);
  await ds.query(`INSERT INTO books (Id_book, book_title, views, book_cat) VALUES ${books.map(() => '(?, ?, ?, ?)').join(', ')}`, books.flat());
  // Reads today: book b clicked b times, all in category 1.
  await ds.query(`INSERT INTO stream_days (Id_cat, Id_book, ts, shows, clicks, pos_sum, pos_n) VALUES ${books.map(() => '(1, ?, ?, 100, ?, 0, 0)').join(', ')}`,
    books.flatMap((b) => [b[0], today, b[0]]));
  browser = await launchBrowser();
}, T);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});
afterEach(() => expectNoPageErrors(pages));

test('create: required fields, item-id editor with unknown ids, title search, drag with mouse and keyboard, save keeps the order', async () => {
  const page = await signedInPage(browser, pages, t.url, '/compilation/add', CONTENT);
  await page.locator('input[name="meta_title"]').waitFor();
  // The four titles are required.
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('title is required', { exact: true }).waitFor();
  await page.locator('input[name="meta_title"]').fill('Подборка недели');
  await page.locator('textarea[name="meta_description"]').fill('Описание');
  await page.locator('input[name="meta_h1"]').fill('Лучшее за неделю');
  await page.locator('input[name="title_short"]').fill('Неделя');

  // Item-id editor: 'Items id' required; unknown ids listed, not dropped.
  await page.getByRole('button', { name: 'Items id' }).click();
  const dlg = page.getByRole('dialog');
  await dlg.getByRole('button', { name: 'Apply', exact: true }).click();
  await dlg.getByText('Items id is required').waitFor();
  await dlg.locator('textarea[name="items_id"]').fill('1\n2, 3 999\nabc');
  await dlg.getByRole('button', { name: 'Apply', exact: true }).click();
  await expect(dlg.getByTestId('items-unknown').textContent()).resolves.toMatch(/Unknown ids: 999.*Not ids: abc/);
  await dlg.locator('textarea[name="items_id"]').fill('1\n2, 3 4');
  await dlg.getByRole('button', { name: 'Apply', exact: true }).click();
  await dlg.waitFor({ state: 'hidden' });
  expect(await itemIds(page)).toEqual([1, 2, 3, 4]);

  // By title search.
  await page.getByLabel('Book title').fill('Тета');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('button', { name: 'Add 8' }).click();
  // By id: an unknown id is refused with its id.
  await page.getByLabel('Book id').fill('777');
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await page.getByText('Unknown item ids: 777').waitFor();
  expect(await itemIds(page)).toEqual([1, 2, 3, 4, 8]);

  // Mouse: drag item 4 above item 1.
  const handle = (id: number) => page.locator(`[data-testid="items"] [data-sortable-id="${id}"] .sortable-handle`);
  const from = (await handle(4).boundingBox())!;
  const to = (await handle(1).boundingBox())!;
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  for (let i = 1; i <= 10; i++) await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2 + ((to.y - from.y - 6) * i) / 10);
  await page.mouse.up();
  await settles(() => itemIds(page), [4, 1, 2, 3, 8]);

  // Keyboard: item 8 up two places (Space lifts, arrows move, Space drops).
  await handle(8).focus();
  await page.keyboard.press('Space');
  await page.waitForTimeout(150);
  await page.keyboard.press('ArrowUp');
  await page.waitForTimeout(150);
  await page.keyboard.press('ArrowUp');
  await page.waitForTimeout(150);
  await page.keyboard.press('Space');
  await settles(() => itemIds(page), [4, 1, 8, 2, 3]);
  // Remove one.
  await page.getByRole('button', { name: 'Remove item 2' }).click();
  expect(await itemIds(page)).toEqual([4, 1, 8, 3]);

  await page.getByRole('button', { name: 'Save' }).click();
  await page.waitForURL((u) => /^\/compilation\/edit\/\d+$/.test(u.pathname));
  const id = Number(pathOf(page).split('/').pop());
  expect((await stored(id)).items.map((i: any) => i.item_id)).toEqual([4, 1, 8, 3]);
  await screenshot(page, 'compilation-edit-1280');
}, T);

test('auto compilation: 1-90 days or the helper and no Run; fills the list for review (nothing saved); the empty hint', async () => {
  const { Id_compilation } = (await t.rest<any>(hash, 'POST', '/compilation/save', { meta_title: 'Авто', meta_description: 'D', meta_h1: 'H', title_short: 'А', items: [1] })).body.result;
  const page = await signedInPage(browser, pages, t.url, `/compilation/edit/${Id_compilation}`, CONTENT);
  await page.getByRole('button', { name: 'Auto compilation' }).click();
  const dlg = page.getByRole('dialog');
  const days = dlg.locator('input[name="days"]');
  for (const bad of ['0', '91', '']) {
    await days.fill(bad);
    await dlg.getByText('Min 1 and max 90 days').waitFor();
    expect(await dlg.getByRole('button', { name: 'Run' }).count()).toBe(0);
  }
  await days.fill('90');
  expect(await dlg.getByText('Min 1 and max 90 days').isVisible()).toBe(false);
  await days.fill('7');
  await dlg.getByLabel('top').check();
  await screenshot(page, 'compilation-auto-1280');
  await dlg.getByRole('button', { name: 'Run' }).click();
  await dlg.waitFor({ state: 'hidden' });
  expect(await itemIds(page)).toEqual([8, 7, 6, 5, 4, 3, 2, 1]);
  // Nothing saved until Save.
  expect((await stored(Id_compilation)).items.map((i: any) => i.item_id)).toEqual([1]);

  // Empty: new (views under 50) in category 2.
  await page.getByRole('button', { name: 'Auto compilation' }).click();
  await dlg.getByLabel('new').check();
  await dlg.locator('select[name="Id_cat"]').selectOption('2');
  await dlg.getByRole('button', { name: 'Run' }).click();
  await expect(dlg.getByTestId('auto-empty').textContent()).resolves.toBe('Ничего не найдено: увеличьте количество дней или добавьте категорию');
  await dlg.locator('.modal-footer').getByRole('button', { name: 'Close' }).click();
  await page.getByRole('button', { name: 'Save' }).click();
  await settles(async () => (await stored(Id_compilation)).items.map((i: any) => i.item_id), [8, 7, 6, 5, 4, 3, 2, 1]);
}, T);

test('list cards with q and p_ in the URL; restore from the history; delete behind a confirm', async () => {
  const save = async (body: object) => (await t.rest<any>(hash, 'POST', '/compilation/save', { meta_description: 'D', meta_h1: 'H', items: [2], ...body })).body.result.Id_compilation;
  const id = await save({ meta_title: 'Морские истории', title_short: 'Море' });
  await save({ Id_compilation: id, meta_title: 'Морские истории 2', title_short: 'Море', items: [2, 3] });
  const page = await signedInPage(browser, pages, t.url, '/compilation', CONTENT);
  await page.locator(`.app-compilation-card[data-id="${id}"]`).waitFor();
  await page.getByRole('link', { name: 'Create new' }).waitFor();
  await page.getByLabel('q').fill('Морск');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.waitForURL((u) => u.searchParams.get('q') === 'Морск');
  await settles(() => page.locator('.app-compilation-card').count(), 1);
  await screenshot(page, 'compilation-list-1280');
  await page.getByRole('link', { name: `Edit ${id}` }).click();
  await page.waitForURL((u) => u.pathname === `/compilation/edit/${id}`);

  // History: one earlier version; restore it (a new save).
  const entry = page.locator('[data-testid="history"] [data-history]');
  await settles(() => entry.count(), 1);
  await entry.getByRole('button', { name: 'Restore' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Yes' }).click();
  await settles(async () => (await stored(id)).meta_title, 'Морские истории');
  await settles(() => entry.count(), 2);
  await page.locator('input[name="meta_title"]').waitFor();
  expect(await page.locator('input[name="meta_title"]').inputValue()).toBe('Морские истории');

  // Delete: confirm first; 'Compilation delete!'; back to the list.
  await page.getByRole('button', { name: 'Delete' }).first().click();
  await page.getByRole('dialog').getByRole('button', { name: 'Yes' }).click();
  await page.getByText('Compilation delete!').waitFor();
  await page.waitForURL((u) => u.pathname === '/compilation');
  expect((await t.rest(hash, 'GET', `/compilation/get_list?Id_compilation=${id}`)).status).toBe(404);
  // An unknown one: 'Compilation not found'.
  await page.goto(`${t.url}/compilation/edit/${id}`);
  await page.getByText('Compilation not found').waitFor();

  const phone = await signedInPage(browser, pages, t.url, '/compilation', CONTENT, MOBILE);
  await phone.locator('.app-compilation-card').first().waitFor();
  await screenshot(phone, 'compilation-list-390');
  await phone.goto(`${t.url}/compilation/edit/${(await save({ meta_title: 'Телефон', title_short: 'Т', items: [1, 2, 3] }))}`);
  await phone.locator('[data-testid="items"]').waitFor();
  await screenshot(phone, 'compilation-edit-390');
}, T);
