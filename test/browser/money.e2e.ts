/**
 * Money in a real Chromium against the real app (issue 21; docs/money.md), as a user without admin
 * rights (money is a personal tool): the menu item, a new box (description required), adding a
 * transaction with tag suggestions (tags already entered are not suggested again) and the required
 * type ('Не указан тип записи'), the day grouping and balance on the box page, the irreversible delete
 * confirm, and the report: the Highcharts columns are drawn, clicking a column lists the transactions
 * behind it (their count is the column's), clicking a tag lists that tag's.
 */
/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app.js';
import { expectNoPageErrors, launchBrowser, MOBILE, pathOf, screenshot, signedInPage } from '../helpers/browser.js';

const T = 120_000;
const ALICE = { login: 'alice', password: 'alice-password-1' };
let t: TestApp;
let browser: Browser;
let alice: string;
let bid: number;
const pages: Page[] = [];

const day = (n: number) => {
  const d = new Date();
  d.setDate(d.getDate() - n);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  alice = (await t.session(100, 'alice')).hash;
  bid = (await t.ok(alice, 'money.boxUpdate', { title: 'Семья', description: 'Family budget' })).bid;
  const rows: Array<[number, string, string, number]> = [
    [1, '50000.00', 'salary', 20], [0, '1200.50', 'food,market', 18], [0, '300.00', 'food,cafe', 18], [0, '45.10', 'fuel,car', 12],
    [0, '99.90', 'food', 7], [1, '0.10', 'cashback', 7], [0, '15.00', 'cafe', 3], [0, '7.77', 'fuel', 1],
  ];
  for (const [type, val, tags, ago] of rows) await t.ok(alice, 'money.setTransaction', { bid, type, val, tags, time_set: day(ago), description: `${tags} ${val}` });
  browser = await launchBrowser();
}, T);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});
afterEach(() => expectNoPageErrors(pages));

test('a user without admin rights sees Money in the menu and adds a box (description required)', async () => {
  const page = await signedInPage(browser, pages, t.url, '/', ALICE);
  await page.locator('.app-sidebar a[href="/money"]').click();
  await page.waitForURL((u) => u.pathname === '/money');
  await page.getByRole('link', { name: 'Семья' }).waitFor();
  await page.getByRole('link', { name: 'Add box' }).click();
  await page.waitForURL((u) => u.pathname === '/money/add');
  await page.locator('input[name="title"]').fill('Travel');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('description is required').waitFor();
  await page.locator('textarea[name="description"]').fill('Trips');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.waitForURL((u) => /^\/money\/box\/\d+$/.test(u.pathname));
  await page.getByText('Insert ok!').first().waitFor();
  expect(await page.getByTestId('money-balance').innerText()).toBe('0.00');
  await page.close();
}, T);

test('Add transaction: type required, tag suggestions without the tags entered, the balance and the day group', async () => {
  const page = await signedInPage(browser, pages, t.url, `/money/box/${bid}`, ALICE);
  const before = (await t.ok(alice, 'money.getBox', { bid })).balance as string;
  await page.getByRole('link', { name: 'Add transaction' }).click();
  await page.waitForURL((u) => u.pathname === `/money/box/${bid}/add_transaction`);
  await page.locator('input[name="val"]').fill('12.35');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Не указан тип записи').waitFor();
  await page.locator('select[name="type"]').selectOption('0');

  const tags = page.locator('input[name="tags"]');
  const list = page.getByRole('listbox', { name: 'Tag suggestions' });
  await tags.fill('fo');
  const shown = () => page.evaluate(() => [...document.querySelectorAll('[role="listbox"] [role="option"]')].map((o) => [...o.querySelectorAll('span')].map((x) => x.textContent).join(' ')).join());
  await page.waitForFunction(() => [...document.querySelectorAll('[role="listbox"] [role="option"] span:first-child')].map((o) => o.textContent).join() === 'food');
  expect(await shown()).toBe('food 3');
  await list.getByRole('option', { name: /^food/ }).click();
  expect(await tags.inputValue()).toBe('food, ');
  // after a comma: tags used together with 'food', without 'food'
  await page.waitForFunction(() => [...document.querySelectorAll('[role="listbox"] [role="option"] span:first-child')].map((o) => o.textContent).sort().join() === 'cafe,market');
  await tags.pressSequentially('f');
  // typing again: 'f' is in fuel and cafe (those starting with it first); food is entered already
  await page.waitForFunction(() => [...document.querySelectorAll('[role="listbox"] [role="option"] span:first-child')].map((o) => o.textContent).join() === 'fuel,cafe');
  await tags.press('ArrowDown');
  await tags.press('Enter');
  expect(await tags.inputValue()).toBe('food, fuel, ');
  await page.locator('textarea[name="description"]').fill('Обед и бензин');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.waitForURL((u) => u.pathname === `/money/box/${bid}`);
  await page.getByText('Insert ok!').first().waitFor();

  const saved = (await t.ok(alice, 'money.getTransactions', { bid, q: 'Обед' })).list[0];
  expect(saved).toMatchObject({ type: 0, val: '12.35', tags: 'food,fuel', time_set: day(0), description: 'Обед и бензин' });
  const want = (Number(before.replace('.', '')) - 1235) / 100;
  await page.waitForFunction((w) => document.querySelector('[data-testid="money-balance"]')?.textContent === w, want.toLocaleString('en-US', { minimumFractionDigits: 2 }));
  // grouped by day: today's header, then the new row with its tags
  const row = page.locator(`tr[data-trid="${saved.trid}"]`);
  expect(await row.innerText()).toMatch(/Expense\s+−12\.35\s+food\s*fuel\s+Обед и бензин/);
  expect(await page.locator(`tr.app-money-day[data-day="${day(0)}"]`).innerText()).toMatch(new RegExp(`${day(0)}\\s+−12\\.35`));

  // delete asks, and says it cannot be undone; Cencel keeps it
  await row.getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByRole('dialog');
  expect(await dialog.innerText()).toMatch(/Deletion is irreversible/);
  await dialog.getByRole('button', { name: 'Cencel' }).click();
  await dialog.waitFor({ state: 'hidden' });
  expect((await t.ok(alice, 'money.getTransaction', { trid: saved.trid })).trid).toBe(saved.trid);
  await screenshot(page, 'money-box');
  await page.close();
}, T);

test('the report: columns drawn, a click on a column lists its transactions, a tag lists its own; at desktop and phone widths', async () => {
  // the page's default range: 30 days ago to today, the browser's days
  const rep = await t.ok(alice, 'money.getReport', { bid, from: day(30), to: day(0) });
  const idx = 30 - 18;
  expect(rep.periods[idx].period).toBe(day(18));
  expect(rep.periods[idx]).toMatchObject({ expense: '1500.50', count: 2 });
  for (const size of [undefined, MOBILE]) {
    const page = await signedInPage(browser, pages, t.url, `/money/box/${bid}`, ALICE, size);
    await page.getByRole('link', { name: 'Report', exact: true }).click();
    await page.waitForURL((u) => u.pathname === `/money/report/${bid}`);
    const chart = page.getByTestId('money-chart');
    await chart.locator('.highcharts-series-1 path.highcharts-point').first().waitFor();
    expect(await chart.locator('.highcharts-legend-item').allTextContents()).toEqual(['Income', 'Expense', 'Balance']);
    // one column per day of the default range (30 days ago to today)
    expect(await chart.locator('.highcharts-series-1 path.highcharts-point').count()).toBe(31);
    const money = (v: string) => Number(v).toLocaleString('en-US', { minimumFractionDigits: 2 }).replace(/[.,]/g, (c) => `\\${c}`);
    expect(await page.getByTestId('money-totals').innerText()).toMatch(new RegExp(`Income\\s+${money(rep.totals.income)}\\s+Expense\\s+${money(rep.totals.expense)}`));
    expect(await page.getByTestId('shares-note').innerText()).toMatch(/shares of the tags overlap/);
    // the expense column of 18 days ago: two transactions
    await chart.locator('.highcharts-series-1 path.highcharts-point').nth(idx).click({ force: true });
    const behind = page.getByTestId('money-behind');
    await behind.getByText(/2 transactions/).waitFor();
    expect(await behind.locator('tr[data-trid]').count()).toBe(2);
    expect(await behind.innerText()).toMatch(/−1,200\.50/);
    expect(await behind.innerText()).toMatch(/−300\.00/);
    // a tag: food, as many transactions as its row counts (some of them carry other tags too)
    const food = rep.tag_rows.find((x: any) => x.tag === 'food');
    expect(food.count).toBeGreaterThanOrEqual(3);
    await page.locator('tr[data-tag="food"]').click();
    await behind.getByText(`tag food · ${food.count} transactions`).waitFor();
    expect(await behind.locator('tr[data-trid]').count()).toBe(food.count);
    await screenshot(page, `money-report-${size ? 'phone' : 'desktop'}`);
    await page.close();
  }
}, T);

test('a user cannot open another user\'s box by its id', async () => {
  const bob = (await t.session(100, 'bob')).hash;
  const other = (await t.ok(bob, 'money.boxUpdate', { title: 'Bob only', description: 'private' })).bid;
  const page = await signedInPage(browser, pages, t.url, `/money/box/${other}`, ALICE);
  await page.getByText('Box not found').first().waitFor();
  expect(await page.getByText('Bob only').count()).toBe(0);
  expect(pathOf(page)).toBe(`/money/box/${other}`);
  await page.close();
}, T);
