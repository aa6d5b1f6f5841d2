/**
 * The audit screen and the kit's paginated table in a real browser (Debian's Chromium at 1280 x 800)
 * against the real app (run `npm run build:ui` first): a page past the end says so and links to the
 * last page (filters kept), '1 row', every column within the viewport at 1280 px, a row opens its
 * detail with the whole arguments (a deep link `?id=` that survives reload), a server status switch
 * made on the map names the server in the audit, and the date range filter (in the URL, so it
 * survives reload).
 */
/// <reference lib="dom" />
import { getDataSourceToken } from '@nestjs/typeorm';
import type { Browser, Page } from 'playwright-core';
import type { DataSource } from 'typeorm';
import type { AuditRow, Paged } from '../../src/contracts/auth.js';
import { MSG } from '../../src/contracts/messages.js';
import { AuditEntity } from '../../src/core/audit/audit.entity.js';
import { ADMIN, startApp, type TestApp } from '../helpers/app.js';
import { DESKTOP, expectNoPageErrors, launchBrowser, openSignedIn, screenshot } from '../helpers/browser.js';

const T = 60_000;

let t: TestApp;
let browser: Browser;
let admin: string;
const pages: Page[] = [];
const LONG = 'a-long-value-'.repeat(40);

/** A signed-in admin page on `path` (query included). */
async function adminPage(path: string): Promise<Page> {
  const u = new URL(path, t.url);
  const page = await openSignedIn(browser, t.url, u.pathname, ADMIN.login, ADMIN.password);
  pages.push(page);
  if (u.search) await page.goto(t.url + path);
  return page;
}
const ok = <T = any>(method: string, args?: unknown) => t.ok<T>(admin, method, args);
const rows = (page: Page) => page.locator('table.app-table tbody tr');
const rowCount = (page: Page, n: number) => page.waitForFunction((k) => document.querySelectorAll('table.app-table tbody tr').length === k, n);

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  browser = await launchBrowser();
  admin = (await t.session(1)).hash;
  // 60 audited renames (two pages of 50), the last ones with long arguments and a long refusal message.
  const me = await t.session(1);
  const batch = { methods: Array(30).fill('user.save'), args: Array(30).fill({ uid: me.uid, name: 'Administrator' }), host: 0 };
  for (let i = 0; i < 2; i++) expect((await t.rest<Array<{ status: string }>>(admin, 'POST', '', batch)).body.every((e) => e.status === 'ok')).toBe(true);
  const long = await t.rpc(admin, 'srv.save_server', { name: 'long-args', type: 8, ip: '203.0.113.9', sshlogin: LONG.slice(0, 60), cluster_key: 'k-secret-1', unknown_field: LONG });
  expect(long.status).toBeLessThan(500);
  // A refusal with a long message and long arguments (the widest row an operator meets).
  const refused = await t.rpc(admin, 'cfg.saveAppCron', { name: `refused ${LONG.slice(0, 100)}`, cmd: `path=srv/action|method=${'noSuchThing'.repeat(8)}|arg=${LONG.slice(0, 200)}` });
  expect(refused.env.status).toBe('rules');
}, T);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

afterEach(() => expectNoPageErrors(pages));

test("a page past the end says so and links to the last page (filters kept); '1 row', not '1 rows'", async () => {
  const page = await adminPage('/audit?p_=99');
  const count = (await ok<Paged<AuditRow>>('audit.getList', { limit: 1 })).count;
  const last = Math.ceil(count / 50);
  expect(last).toBeGreaterThanOrEqual(2);
  const past = page.getByTestId('past-end');
  await past.waitFor();
  expect((await past.textContent())?.replace(/\s+/g, ' ')).toContain(`Page 99 is past the end: there are only ${last} pages.`);
  expect(await page.locator('.app-pager-info').first().textContent()).toBe(`Page 99 is past the end (${last} pages) · ${count} rows`);
  expect(await page.getByText(`Page ${last} of ${last}`).count()).toBe(0);
  await screenshot(page, 'audit-past-end');
  await past.getByRole('link', { name: `Go to the last page (${last})` }).click();
  await page.waitForURL((u) => u.searchParams.get('p_') === String(last));
  await rowCount(page, count - (last - 1) * 50);
  expect(await page.locator('.app-pager-info').first().textContent()).toBe(`Page ${last} of ${last} · ${count} rows`);

  // With a filter: the link keeps it. One matching row reads '1 row'.
  await page.goto(t.url + '/audit?method=srv.save_server&p_=7');
  await page.getByTestId('past-end').getByRole('link', { name: 'Go to the first page' }).click();
  await page.waitForURL((u) => u.pathname + u.search === '/audit?method=srv.save_server');
  await rowCount(page, 1);
  expect(await page.locator('.app-pager-info').first().textContent()).toBe('Page 1 of 1 · 1 row');
}, T);

test('at 1280 px every column is within the viewport; a row opens its detail with the whole arguments (deep link ?id=)', async () => {
  const page = await adminPage('/audit');
  expect(page.viewportSize()).toEqual(DESKTOP);
  await rowCount(page, 50);
  const fit = await page.evaluate(() => {
    const table = document.querySelector('table.app-table')!;
    const wrap = table.parentElement!;
    const cells = [...table.querySelectorAll('thead th'), ...table.querySelectorAll('tbody td')];
    return {
      width: innerWidth,
      titles: [...table.querySelectorAll('thead th')].map((th) => th.textContent),
      outside: [...new Set(cells.filter((c) => c.getBoundingClientRect().right > innerWidth || c.getBoundingClientRect().left < 0).map((c) => table.querySelectorAll('thead th')[(c as HTMLTableCellElement).cellIndex].textContent))],
      scrolls: wrap.scrollWidth > wrap.clientWidth,
      pageScrolls: document.documentElement.scrollWidth > innerWidth,
    };
  });
  expect(fit).toEqual({ width: 1280, titles: ['Time', 'Login', 'Method', 'Object', 'Args', 'Outcome', 'IP', 'ms'], outside: [], scrolls: false, pageScrolls: false });
  await screenshot(page, 'audit-1280');

  // The save with long arguments: clipped in the table, whole in the detail.
  const entry = (await ok<Paged<AuditRow>>('audit.getList', { method: 'srv.save_server' })).list[0];
  const row = page.locator(`table.app-table tbody tr:has(a[href*="id=${entry.Id}"])`);
  expect(await row.locator('td').nth(2).textContent()).toBe('srv.save_server');
  const argsCell = row.locator('td').nth(4).locator('div');
  expect(await argsCell.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
  await row.locator('td').nth(2).click();
  await page.waitForURL((u) => u.searchParams.get('id') === String(entry.Id));
  const dialog = page.getByRole('dialog');
  await dialog.getByText(`Audit entry #${entry.Id}`).waitFor();
  const pretty = JSON.stringify(JSON.parse(entry.args), null, 2);
  expect(await dialog.getByTestId('audit-args').textContent()).toBe(pretty);
  expect(pretty).toContain(LONG.slice(0, 300));
  expect(pretty).toContain('"cluster_key": "***"');
  expect(await dialog.getByTestId('audit-target').textContent()).toBe(entry.target ?? '—');
  await screenshot(page, 'audit-detail');

  // The deep link survives reload and can be opened on its own; closing drops it from the URL.
  await page.reload();
  await page.getByRole('dialog').getByTestId('audit-args').waitFor();
  expect(await page.getByRole('dialog').getByTestId('audit-args').textContent()).toBe(pretty);
  await page.getByRole('dialog').getByRole('button', { name: 'Close' }).first().click();
  await page.waitForURL((u) => !u.searchParams.has('id'));
  await page.getByRole('dialog').waitFor({ state: 'detached' });

  // Keyboard: Enter on a focused row opens it too; an unknown id says so.
  await row.focus();
  await page.keyboard.press('Enter');
  await page.waitForURL((u) => u.searchParams.has('id'));
  await page.getByRole('dialog').getByTestId('audit-args').waitFor();
  await page.goto(t.url + '/audit?id=99999999');
  await page.getByRole('dialog').getByText('Audit entry 99999999 not found').waitFor();
}, T);

test("a server status switched on the map shows the server's name in the audit (list and detail)", async () => {
  const { Id } = await ok<{ Id: number }>('srv.save_server', { name: 'audit-switch-1', type: 8, ip: '203.0.113.21' });
  const map = await adminPage('/srv/srv_map');
  const sw = map.getByRole('switch', { name: 'Status audit-switch-1' });
  expect(await sw.isChecked()).toBe(true);
  await sw.click();
  await map.locator('.app-notify', { hasText: MSG.saveServerOk }).first().waitFor();

  await map.goto(t.url + '/audit?method=srv.save_server');
  const first = rows(map).first();
  await first.locator('td', { hasText: `server audit-switch-1 (#${Id})` }).waitFor();
  const entry = (await ok<Paged<AuditRow>>('audit.getList', { method: 'srv.save_server' })).list[0];
  expect(JSON.parse(entry.args)).toEqual({ Id, status: 0 });
  await first.locator('td').nth(2).click();
  expect(await map.getByRole('dialog').getByTestId('audit-target').textContent()).toBe(`server audit-switch-1 (#${Id})`);
}, T);

test('the date range filter asks the server, lives in the URL and survives reload', async () => {
  // Rows on known local days (noon, so the browser's and Node's zones need not be the same to the hour).
  const repo = t.app.get<DataSource>(getDataSourceToken()).getRepository(AuditEntity);
  const day = (d: number, n: string) => ({ ts: new Date(2021, 2, d, 12, 0, 0), uid: null, login: 'ranger', method: `range.${n}`, args: '{}', target: null, outcome: 'ok' as const, message: null, ip: null, duration_ms: 0 });
  await repo.insert([day(9, 'before'), day(10, 'first'), day(11, 'second'), day(12, 'after')]);

  const page = await adminPage('/audit?login=ranger');
  await rowCount(page, 4);
  await page.getByLabel('From', { exact: true }).fill('2021-03-10');
  await page.getByLabel('To', { exact: true }).fill('2021-03-11');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.waitForURL((u) => u.searchParams.get('from') === '2021-03-10' && u.searchParams.get('to') === '2021-03-11' && u.searchParams.get('login') === 'ranger');
  const methods = () => page.evaluate(() => [...document.querySelectorAll('table.app-table tbody tr')].map((tr) => tr.children[2].textContent));
  await rowCount(page, 2);
  expect(await methods()).toEqual(['range.second', 'range.first']);

  await page.reload();
  await rowCount(page, 2);
  expect(await methods()).toEqual(['range.second', 'range.first']);
  expect(await page.getByLabel('From', { exact: true }).inputValue()).toBe('2021-03-10');
  expect(await page.getByLabel('To', { exact: true }).inputValue()).toBe('2021-03-11');

  // One day; an end before the start is refused in the form (the URL stays); Reset clears every filter.
  await page.getByLabel('From', { exact: true }).fill('2021-03-12');
  await page.getByLabel('To', { exact: true }).fill('2021-03-12');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.waitForURL((u) => u.searchParams.get('from') === '2021-03-12');
  await rowCount(page, 1);
  expect(await methods()).toEqual(['range.after']);
  await page.getByLabel('To', { exact: true }).fill('2021-03-01');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.getByRole('alert').getByText('The end of the range is before its start').waitFor();
  expect(new URL(page.url()).searchParams.get('to')).toBe('2021-03-12');
  await page.getByRole('button', { name: 'Reset' }).click();
  await page.waitForURL((u) => u.pathname === '/audit' && u.search === '');
  await rowCount(page, 50);
}, T);
