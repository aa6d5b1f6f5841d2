/**
 * Authors merge in a real browser (Debian's Chromium) against the real app (run `npm run build` first):
 * a content user (role 10) opens /author/marge, sees the candidate with its reason, marks it 'Yes',
 * the 'Saved list' button appears and saves ('Saved ok!'), merges behind a confirm (the books move in
 * the database), then undoes the merge from the history (authors and books back). A role-100 user
 * sees the list read-only.
 */
/// <reference lib="dom" />
import { getDataSourceToken } from '@nestjs/typeorm';
import type { Browser, Page } from 'playwright-core';
import type { DataSource } from 'typeorm';
import { startApp, type TestApp } from '../helpers/app.js';
import { expectNoPageErrors, launchBrowser, screenshot, signedInPage } from '../helpers/browser.js';

const T = 90_000;
const CONTENT = { login: 'user10', password: 'user10-password-1' };
const VIEWER = { login: 'user100', password: 'user100-password-1' };

let t: TestApp;
let browser: Browser;
let ds: DataSource;
const pages: Page[] = [];
const owners = async () => Object.fromEntries((await ds.query('SELECT Id_book, book_owner FROM books ORDER BY Id_book')).map((r: any) => [Number(r.Id_book), Number(r.book_owner)]));

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  await t.session(10);
  await t.session(100);
  ds = t.app.get<DataSource>(getDataSourceToken());
  await ds.query("INSERT INTO authors (Id_author, a_fio) VALUES (1, 'Толстой Лев Николаевич'), (2, 'Л. Н. Толстой'), (3, 'Антон Чехов')");
  await ds.query("INSERT INTO books (Id_book, book_title, book_owner) VALUES (101, 'Война и мир', 1), (201, 'Анна Каренина', 2), (202, 'Воскресение', 2), (301, 'Вишнёвый сад', 3)");
  browser = await launchBrowser();
}, T);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

test('merge two authors on /author/marge, then undo it from the history', async () => {
  const page = await signedInPage(browser, pages, t.url, '/author/marge', CONTENT);
  const card = page.locator('.app-author-card[data-author="1"]');
  await card.waitFor();
  expect(await page.locator('.app-author-card').count()).toBe(2); // 1 and 2 (each the other's candidate); not Чехов
  const cand = card.locator('.app-author-cand[data-cand="2"]');
  await card.getByText('is this the same author?').waitFor();
  await expect(cand.textContent()).resolves.toContain('initials');
  expect(await page.getByRole('button', { name: 'Saved list' }).count()).toBe(0);

  await cand.getByLabel('Yes').check();
  await page.getByRole('button', { name: 'Saved list' }).click();
  await page.getByText('Saved ok!').first().waitFor();
  expect((await ds.query('SELECT new_relay FROM authors WHERE Id_author = 1'))[0].new_relay).toBe('2');
  await page.getByRole('button', { name: 'Saved list' }).waitFor({ state: 'detached' });

  await card.getByRole('button', { name: 'Merge 1' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByText(/into Толстой Лев Николаевич/).waitFor();
  await dialog.getByRole('button', { name: 'Yes' }).click();
  await page.getByText('Merged into Толстой Лев Николаевич: 2 books moved').waitFor();
  expect(await owners()).toEqual({ 101: 1, 201: 1, 202: 1, 301: 3 });
  await page.getByText('No author has a candidate duplicate left').waitFor();
  const row = page.locator('.app-merge-history tr[data-merge]').first();
  await expect(row.textContent()).resolves.toContain('Л. Н. Толстой (2)');
  await screenshot(page, 'author-marge-merged');

  await row.getByRole('button', { name: 'Undo' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Yes' }).click();
  await page.getByText('Merge undone: 2 books returned').waitFor();
  expect(await owners()).toEqual({ 101: 1, 201: 2, 202: 2, 301: 3 });
  await page.locator('.app-author-card[data-author="2"]').waitFor();
  await row.getByText(/Undone/).waitFor();
  expectNoPageErrors(pages);
}, T);

test('role 100 sees the candidates read-only', async () => {
  const page = await signedInPage(browser, pages, t.url, '/author/marge', VIEWER);
  const cand = page.locator('.app-author-card[data-author="1"] .app-author-cand[data-cand="2"]');
  await cand.waitFor();
  expect(await cand.getByLabel('Yes').isDisabled()).toBe(true);
  expect(await page.getByRole('button', { name: /^Merge/ }).count()).toBe(0);
  expect(await page.getByRole('button', { name: 'Undo' }).count()).toBe(0);
  expectNoPageErrors(pages);
}, T);
