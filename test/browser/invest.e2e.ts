/**
 * Investments in a real Chromium against the real app (issue 22; docs/invest.md "Screens"), the broker
 * being the local T-Bank Invest API of test/helpers/fakes/tbank.ts (its coupon dates are relative to
 * today: account 2000000001 holds a bond paying in 5 days, one in 20 days and others later):
 * - /invest lists the broker's account; its page shows the bond table with INVEST_BOND_COLUMNS' labels in
 *   order, the next-coupon cell red under 10 days, green under 30, plain otherwise, and the totals; a price
 *   the refresh changes arrives over the socket (invest.update) without a reload;
 * - the forecast page draws the Highcharts calendar chart, and the monthly sums it shows are getForecast's
 *   (default size 30,000,000, and with an empty size: the quantities held, kept in `?size=`);
 * - the screener: paging sets `p_`; sort, risk level and currency go into the URL, and a reload keeps
 *   them and the rows.
 */
/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { INVEST_BOND_COLUMNS, INVEST_FORECAST_DEFAULT_SIZE, INVEST_MSG, INVEST_SCREENER_PAGE, type InvestForecast } from '../../src/contracts/invest.js';
import { InvestLiveService } from '../../src/modules/invest/services/live.service.js';
import { InvestRefreshService } from '../../src/modules/invest/services/refresh.service.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { expectNoPageErrors, launchBrowser, pathOf, screenshot, signedInPage } from '../helpers/browser.js';
import { dayFrom, defaultTbankState, schedule, startFakeTbank, type FakeTbank, type TbankState } from '../helpers/fakes/tbank.js';
import { waitFor } from '../helpers/wait.js';

const T = 120_000;
const ALICE = { login: 'alice', password: 'alice-password-1' };
const ACC = '2000000001';
const TODAY = new Date().toISOString().slice(0, 10);
let broker: FakeTbank;
let t: TestApp;
let browser: Browser;
let alice: string;
const pages: Page[] = [];

/** Twenty more catalogue bonds (coupon i * 1 % a year, risk i % 4, every fifth in EUR): the screener has two pages. */
function withScreenerBonds(s: TbankState): TbankState {
  for (let i = 1; i <= 20; i++) {
    const maturity = dayFrom(TODAY, 300 + i * 40);
    s.bonds.push({
      figi: `BBG00S0000${String(i).padStart(2, '0')}`, ticker: `RU000SCR0${String(i).padStart(2, '0')}`, classCode: 'TQCB', isin: `RU000SCR${i}`, name: `Screener bond ${i}`,
      currency: i % 5 === 0 ? 'eur' : 'rub', nominal: '1000', couponQuantityPerYear: 2, maturityDate: maturity, placementDate: dayFrom(TODAY, -900),
      callDate: null, floating: false, amortization: false, perpetual: false, riskLevel: ['RISK_LEVEL_UNSPECIFIED', 'RISK_LEVEL_LOW', 'RISK_LEVEL_MODERATE', 'RISK_LEVEL_HIGH'][i % 4], aci: '0',
      price: String(90 + (i % 7)),
      coupons: schedule({ first: dayFrom(TODAY, 30 + i), maturity, period: 182, currency: i % 5 === 0 ? 'eur' : 'rub', value: () => String(i * 5) }),
    });
  }
  return s;
}

/** The page's money format (2 places, comma thousands separators). */
const money = (v: number) => v.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

beforeAll(async () => {
  broker = await startFakeTbank(withScreenerBonds(defaultTbankState()));
  t = await startApp({ CRON_ENABLED: '0', TZ: 'UTC', INVEST_API_URL: broker.url, INVEST_TOKEN: broker.state.token });
  alice = (await t.session(100, 'alice')).hash;
  await t.app.get(InvestRefreshService).refresh(); // the catalogue, schedules and prices (the job's work)
  browser = await launchBrowser();
}, T);
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await broker?.close();
});
afterEach(() => expectNoPageErrors(pages));

test('the account table: the spec columns in order, next coupon red under 10 days, green under 30, plain beyond; totals; a live price', async () => {
  const page = await signedInPage(browser, pages, t.url, '/invest', ALICE);
  await page.getByTestId('invest-status').waitFor();
  await page.getByRole('link', { name: 'Брокерский счёт' }).waitFor();
  await screenshot(page, 'invest-index');
  await page.getByRole('link', { name: 'Брокерский счёт' }).click();
  await page.waitForURL((u) => u.pathname === `/invest/account/${ACC}`);
  const table = page.getByTestId('invest-bonds');
  await table.locator('tbody tr[data-ticker="SU26238RMFS4"]').waitFor();
  expect(await table.locator('thead th').allInnerTexts()).toEqual(INVEST_BOND_COLUMNS.map((c) => c.label));
  const held = broker.state.portfolios[ACC].filter((p) => p.instrumentType === 'bond');
  expect(await table.locator('tbody tr').count()).toBe(held.length);

  const next = (ticker: string) => table.locator(`tbody tr[data-ticker="${ticker}"] td[data-col="next_coupon"]`);
  // RU000HIDDEN pays in 5 days, RU000LOWCPN in 20, SU26238RMFS4 in 64 (the fake's schedules)
  expect(await next('RU000HIDDEN').getAttribute('data-variant')).toBe('danger');
  expect(await next('RU000HIDDEN').getAttribute('class')).toContain('table-danger');
  expect(await next('RU000HIDDEN').innerText()).toContain(dayFrom(TODAY, 5));
  expect(await next('RU000LOWCPN').getAttribute('data-variant')).toBe('success');
  expect(await next('RU000LOWCPN').getAttribute('class')).toContain('table-success');
  expect(await next('SU26238RMFS4').getAttribute('data-variant')).toBe('none');
  expect(await next('SU26238RMFS4').getAttribute('class')).toBeNull();
  // risk level labels ('-' for unspecified), the quantity, the totals row
  expect(await table.locator('tbody tr[data-ticker="RU000HIDDEN"] td[data-col="riskLevel"]').innerText()).toBe('-');
  expect(await table.locator('tbody tr[data-ticker="RU000HIDDEN"] td[data-col="quantity"]').innerText()).toBe('2.5');
  const portfolio = await t.ok(alice, 'invest.User.getPortfolio', { accountId: ACC, joinCoupon: 0 });
  expect(await page.getByTestId('invest-totals').innerText()).toContain(`${money(portfolio.totals.value_rub)} RUB`);
  await screenshot(page, 'invest-account');

  // a refreshed price arrives over the socket and is applied in place
  await waitFor('the page subscribed', () => t.app.get(InvestLiveService).count >= 1, 10_000);
  broker.state.bonds.find((b) => b.ticker === 'SU26238RMFS4')!.price = '62.015625';
  await t.app.get(InvestRefreshService).refresh();
  await page.waitForFunction(() => document.querySelector('tr[data-ticker="SU26238RMFS4"] td[data-col="price"]')?.textContent?.includes('620.16') ?? false, undefined, { timeout: 15_000 });
  await page.close();
  await waitFor('unsubscribed on leave', () => t.app.get(InvestLiveService).count === 0, 10_000);
}, T);

test('the forecast: the Highcharts calendar chart is drawn and the monthly sums are getForecast\'s (default size, then the quantities held)', async () => {
  const page = await signedInPage(browser, pages, t.url, `/invest/account/${ACC}/model`, ALICE);
  // Highcharts 12 draws a column as path.highcharts-point (no rect): one per month and series
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="invest-calendar-chart"] svg .highcharts-series path.highcharts-point').length > 0, undefined, { timeout: 15_000 });
  const calendar = await t.ok(alice, 'invest.Item.getCalendar', { accountId: ACC, size: INVEST_FORECAST_DEFAULT_SIZE });
  expect(await page.locator('[data-testid="invest-calendar-chart"] .highcharts-series-0 path.highcharts-point').count()).toBe(calendar.months.length);
  expect(await page.locator('input[name="size"]').inputValue()).toBe(String(INVEST_FORECAST_DEFAULT_SIZE));

  const check = async (f: InvestForecast) => {
    expect(f.months.filter((m) => m.sum > 0).length).toBeGreaterThan(3);
    await page.getByTestId('invest-forecast-total').filter({ hasText: `${money(f.total)} RUB` }).waitFor();
    const shown = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll('[data-month]')].map((e) => [e.getAttribute('data-month'), e.textContent])));
    expect(shown).toEqual(Object.fromEntries(f.months.map((m) => [m.month, money(m.sum)])));
  };
  await check(await t.ok<InvestForecast>(alice, 'invest.Item.getForecast', { accountId: ACC, size: INVEST_FORECAST_DEFAULT_SIZE }));

  await page.locator('input[name="size"]').fill('');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.waitForURL((u) => u.searchParams.get('size') === '');
  const held = await t.ok<InvestForecast>(alice, 'invest.Item.getForecast', { accountId: ACC });
  await check(held);
  await page.reload();
  await check(held);
  // a month of the calendar opens its events
  await page.locator('[data-testid="invest-calendar"] tr[data-cal-month] button').first().click();
  expect(await page.locator('[data-testid="invest-calendar"] table').count()).toBeGreaterThan(0);
  // the .ics export through the page's button: a real file download of the coming payments (the held quantities now)
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download .ics' }).click()]);
  expect(download.suggestedFilename()).toMatch(/\.ics$/);
  const ics = await new Promise<string>((resolve, reject) => {
    void download.createReadStream().then((st) => { let out = ''; st.on('data', (c: Buffer) => (out += c.toString('utf8'))); st.on('end', () => resolve(out)); st.on('error', reject); }, reject);
  });
  expect(ics.startsWith('BEGIN:VCALENDAR\r\n')).toBe(true);
  expect((ics.match(/BEGIN:VEVENT/g) ?? []).length).toBeGreaterThan(3);
  await screenshot(page, 'invest-model');
  await page.close();
}, T);

test('the screener: paging sets p_; sort, risk level and currency go into the URL, and a reload keeps them and the rows', async () => {
  const page = await signedInPage(browser, pages, t.url, '/invest/bounds_screener', ALICE);
  const rows = () => page.getByTestId('invest-bonds').locator('tbody tr[data-figi]');
  const figis = () => page.evaluate(() => [...document.querySelectorAll('[data-testid="invest-bonds"] tbody tr[data-figi]')].map((r) => r.getAttribute('data-figi')).join());
  await rows().first().waitFor();
  expect(await rows().count()).toBe(INVEST_SCREENER_PAGE);
  expect(await page.locator('select[name="sort"]').inputValue()).toBe('coupon_percent');
  expect(await page.getByTestId('invest-bonds').locator('thead th').allInnerTexts()).toEqual([...INVEST_BOND_COLUMNS.map((c) => c.label), 'ytm']);
  const first = await t.ok(alice, 'invest.Item.getBondsFilter', {});
  expect(await figis()).toBe(first.list.map((b: { figi: string }) => b.figi).join());

  await page.getByRole('button', { name: 'Page 2' }).click();
  await page.waitForURL((u) => u.searchParams.get('p_') === '2');
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="invest-bonds"] tbody tr[data-figi]').length === n, first.count - INVEST_SCREENER_PAGE);

  await page.locator('select[name="sort"]').selectOption('ytm');
  await page.waitForURL((u) => u.searchParams.get('sort') === 'ytm' && !u.searchParams.has('p_'));
  await page.locator('select[name="riskLevel"]').selectOption('3');
  await page.waitForURL((u) => u.searchParams.get('riskLevel') === '3');
  await page.locator('select[name="currency"]').selectOption('rub');
  await page.waitForURL((u) => u.searchParams.get('currency') === 'rub');
  const want = await t.ok(alice, 'invest.Item.getBondsFilter', { sort: 'ytm', riskLevel: 3, currency: 'rub' });
  expect(want.list.length).toBeGreaterThan(1);
  const wantFigis = want.list.map((b: { figi: string }) => b.figi).join();
  await page.waitForFunction((w) => [...document.querySelectorAll('[data-testid="invest-bonds"] tbody tr[data-figi]')].map((r) => r.getAttribute('data-figi')).join() === w, wantFigis);
  const url = pathOf(page);

  await page.reload();
  await page.waitForFunction((w) => [...document.querySelectorAll('[data-testid="invest-bonds"] tbody tr[data-figi]')].map((r) => r.getAttribute('data-figi')).join() === w, wantFigis);
  expect(pathOf(page)).toBe(url);
  expect(await page.locator('select[name="sort"]').inputValue()).toBe('ytm');
  expect(await page.locator('select[name="riskLevel"]').inputValue()).toBe('3');
  expect(await page.locator('select[name="currency"]').inputValue()).toBe('rub');
  await screenshot(page, 'invest-screener');
  await page.close();
}, T);

test('a local account: created from /invest, positions added (one the catalogue lacks is marked), edited and deleted behind a confirmation; the account deleted', async () => {
  const page = await signedInPage(browser, pages, t.url, '/invest', ALICE);
  await page.getByRole('button', { name: 'New local account' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
  await page.getByRole('dialog').getByText('name is required').waitFor();
  await page.getByRole('dialog').locator('input[name="name"]').fill('My bonds');
  await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
  await page.getByRole('link', { name: 'My bonds' }).click();
  await page.waitForURL((u) => /^\/invest\/account_local\/\d+$/.test(u.pathname));

  const add = async (ticker: string, quantity: string) => {
    await page.getByRole('button', { name: 'Add position' }).click();
    const d = page.getByRole('dialog');
    await d.locator('input[name="ticker"]').fill(ticker);
    await d.locator('input[name="quantity"]').fill(quantity);
    await d.getByRole('button', { name: 'Save' }).click();
    await d.waitFor({ state: 'detached' });
  };
  // the server's schema in the browser: ticker or figi, a quantity above 0
  await page.getByRole('button', { name: 'Add position' }).click();
  await page.getByRole('dialog').locator('input[name="quantity"]').fill('1');
  await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
  await page.getByRole('dialog').getByText(INVEST_MSG.tickerOrFigi).waitFor();
  await page.getByRole('dialog').locator('input[name="ticker"]').fill('SU26238RMFS4');
  await page.getByRole('dialog').locator('input[name="quantity"]').fill('0');
  await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
  await page.getByRole('dialog').getByText('quantity must be more than 0').waitFor();
  page.once('dialog', (d) => void d.accept()); // Cencel with edits asks first (UNSAVED_MESSAGE)
  await page.getByRole('dialog').getByRole('button', { name: 'Cencel' }).click();
  await page.getByRole('dialog').waitFor({ state: 'detached' });

  await add('SU26238RMFS4', '4');
  await add('NOSUCHBOND', '1');
  const table = page.getByTestId('invest-bonds');
  await table.locator('tbody tr[data-ticker="SU26238RMFS4"] td[data-col="quantity"]').filter({ hasText: '4' }).waitFor();
  await page.getByTestId('invest-positions').locator('tr', { hasText: 'NOSUCHBOND' }).getByText(INVEST_MSG.notInCatalogue).waitFor();

  // edit the quantity
  await page.getByTestId('invest-positions').locator('tr', { hasText: 'SU26238RMFS4' }).getByRole('button', { name: 'Edit' }).click();
  await page.getByRole('dialog').locator('input[name="quantity"]').fill('6.5');
  await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
  await table.locator('tbody tr[data-ticker="SU26238RMFS4"] td[data-col="quantity"]').filter({ hasText: '6.5' }).waitFor();

  // delete a position and the account, each behind a confirmation
  await page.getByTestId('invest-positions').locator('tr', { hasText: 'NOSUCHBOND' }).getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Yes' }).click();
  await page.getByTestId('invest-positions').locator('tr', { hasText: 'NOSUCHBOND' }).waitFor({ state: 'detached' });
  await screenshot(page, 'invest-local');
  await page.getByRole('link', { name: '← All accounts' }).click();
  await page.getByTestId('invest-locals').locator('tr', { hasText: 'My bonds' }).getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog').getByText(INVEST_MSG.deleteAccountConfirm).waitFor();
  await page.getByRole('dialog').getByRole('button', { name: 'Yes' }).click();
  await page.getByRole('link', { name: 'My bonds' }).waitFor({ state: 'detached' });
  expect(await t.ok(alice, 'invest.User.getLocalAccounts', {})).toEqual([]);
  await page.close();
}, T);
