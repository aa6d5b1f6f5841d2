/**
 * Todo in a real Chromium against the real app (issue 21; docs/todo.md): a user adds a todo from the list
 * (title, type, rich text, an alert from the picker in 5-minute steps), finishes it ('Todo close!') and
 * restores it ('Todo restore OK!') on its page, with the history showing who and when; the filters live
 * in the URL. A todo's alert arrives in every open tab of its owner (the top-right notification and the
 * bell's unread count), and reading it in one tab clears the count in the other.
 */
/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { expectNoPageErrors, launchBrowser, pathOf, screenshot, signedInPage } from '../helpers/browser.js';

const T = 120_000;
let t: TestApp;
let browser: Browser;
const pages: Page[] = [];
const ALICE = { login: 'alice', password: 'alice-password-1' };

beforeAll(async () => {
  t = await startApp({ TODO_ALERT_SCAN_MS: '200', TZ: 'Europe/Moscow' });
  await t.session(100, 'alice');
  browser = await launchBrowser();
}, T);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});
afterEach(() => expectNoPageErrors(pages));

test('add a todo with an alert, finish it and restore it; the history says who and when', async () => {
  const page = await signedInPage(browser, pages, t.url, '/todo', ALICE);
  await page.getByRole('link', { name: 'Add', exact: true }).click();
  await page.waitForURL((u) => u.pathname === '/todo/create');
  await page.locator('input[name="title"]').fill('Check the ad budget');
  await page.locator('select[name="type"]').selectOption({ label: 'Direct' });
  await page.locator('[data-testid="richtext-text"] .ProseMirror').click();
  await page.keyboard.type('Compare with last week');
  // The picker: adding an alert starts at now on the 5-minute step, in the console's zone.
  await page.getByRole('button', { name: 'Add alert', exact: true }).click();
  const minutes = await page.getByLabel('Alert minute').locator('option').allTextContents();
  expect(minutes).toEqual(['00', '05', '10', '15', '20', '25', '30', '35', '40', '45', '50', '55']);
  await page.getByText('time zone Europe/Moscow').waitFor();
  await page.getByLabel('Alert method 1').selectOption({ label: 'Every week' });
  await page.getByLabel('Alert weekday 1').selectOption({ label: 'Friday' });
  await page.getByLabel('Alert hour').selectOption('09');
  await page.getByLabel('Alert minute').selectOption('30');
  await screenshot(page, 'todo-create');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByText('Insert ok!').first().waitFor();
  await page.waitForURL((u) => /^\/todo\/show\/\d+$/.test(u.pathname));
  const Id = Number(pathOf(page).split('/').pop());
  await page.getByTestId('todo-alert').getByText('Every week on Friday at 09:30').waitFor();
  expect(await page.getByTestId('todo-text').innerHTML()).toContain('Compare with last week');
  const stored = await t.ok((await t.session(100, 'alice')).hash, 'todo.get', { Id });
  expect(stored).toMatchObject({ title: 'Check the ad budget', type: 1, status: 0, alert_type: '3,5' });
  expect(stored.alert_next).toBeGreaterThan(Date.now() / 1000);

  await page.getByRole('button', { name: 'Finish', exact: true }).click();
  await page.getByText('Todo close!').first().waitFor();
  await page.getByTestId('todo-status').getByText('Finished').waitFor();
  await page.getByRole('button', { name: 'Restore', exact: true }).click();
  await page.getByText('Todo restore OK!').first().waitFor();
  await page.getByTestId('todo-status').getByText('In progress').waitFor();
  const history = page.getByTestId('todo-history-entry');
  await expect(history.count()).resolves.toBe(2);
  await expect(history.nth(0).textContent()).resolves.toMatch(/^Restored\s*by User alice\s*\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/);
  await expect(history.nth(1).textContent()).resolves.toMatch(/^Finished\s*by User alice/);
  await screenshot(page, 'todo-show');

  // Edit opens the form with the todo; the list's filters live in the URL.
  await page.getByRole('link', { name: 'Edit', exact: true }).click();
  await page.waitForURL((u) => u.pathname === `/todo/edit/${Id}`);
  await expect(page.locator('input[name="title"]').inputValue()).resolves.toBe('Check the ad budget');
  await page.goto(`${t.url}/todo?status=-1`);
  await page.getByText('No finished todos.').waitFor();
  await page.getByLabel('Status').selectOption({ label: 'In progress' });
  await page.getByRole('link', { name: 'Check the ad budget' }).waitFor();
  await page.getByLabel('Type').selectOption({ label: 'SEO' });
  await page.waitForURL((u) => u.search === '?type=6');
  await page.getByText('No todos in progress.').waitFor();
}, T);

test('an alert arrives in every open tab of its owner; reading it in one tab clears the count in the other', async () => {
  const tab1 = await signedInPage(browser, pages, t.url, '/', ALICE);
  const tab2 = await signedInPage(browser, pages, t.url, '/todo', ALICE);
  for (const p of [tab1, tab2]) await p.locator('.app-live[data-status="connected"]').waitFor();
  const alice = await t.session(100, 'alice');
  const title = 'Call the printer';
  const { Id } = await t.ok(alice.hash, 'todo.insert', { title, alert_type: '1,0', ts_alert: Math.floor(Date.now() / 1000) + 2 });
  for (const p of [tab1, tab2]) {
    await p.locator('.app-notify').filter({ hasText: `Todo: ${title}` }).waitFor({ timeout: 30_000 });
    await p.getByTestId('notify-unread').getByText('1', { exact: true }).waitFor();
  }
  await tab1.getByTestId('notify-bell').click();
  await screenshot(tab1, 'todo-bell');
  await tab1.getByTestId('notify-item').filter({ hasText: `Todo: ${title}` }).click();
  await tab1.waitForURL((u) => u.pathname === `/todo/show/${Id}`);
  await tab1.getByTestId('notify-unread').waitFor({ state: 'detached' });
  await tab2.getByTestId('notify-unread').waitFor({ state: 'detached' });
  expect((await t.ok(alice.hash, 'notify.getList', {})).unread).toBe(0);
}, T);
