/**
 * The app shell and the kit as a new user met them (issue 18, "What a new user tripped over"), in a
 * real Chromium against the real app:
 * - a slow page answer: no "past the end" and no "0 rows" before the count is known (paginated table);
 * - the left menu lights one item, the longest matching route (/firewall/* lights its own item, not
 *   Traffic as well; /srv/terminal/recordings not Terminals);
 * - the top bar fits from 993 px up (Logout wholly inside the viewport);
 * - every route above a role renders the 403 page and nothing of the screen (role 10 and role 100),
 *   from the route table's role (/input_stream/sites is admin);
 * - counts in the right number, one "Page 1 of 4" on the book page, audit days in yyyy-mm-dd, the
 *   server dialog's "SSH access" section, /register for a signed-in user, README on registration.
 * Screenshots at 1280, 1000 and 390 px when UI_SCREENSHOTS names a directory.
 */
/// <reference lib="dom" />
import { getDataSourceToken } from '@nestjs/typeorm';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page, Route } from 'playwright-core';
import type { DataSource } from 'typeorm';
import { MSG } from '../../src/contracts/messages.js';
import { ADMIN, startApp, type TestApp } from '../helpers/app.js';
import { expectNoPageErrors, launchBrowser, loginAs, MOBILE, newPage, pathOf, screenshot, signedInPage } from '../helpers/browser.js';
import { concretePath, uiRoutes } from '../helpers/ui-routes.js';

const T = 180_000;
const EDITOR = { login: 'editor', password: 'editor-password-1' };
const VIEWER = { login: 'viewer', password: 'viewer-password-1' };
let t: TestApp;
let browser: Browser;
const pages: Page[] = [];

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  const admin = (await t.session(1)).hash;
  await t.session(10, EDITOR.login);
  await t.session(100, VIEWER.login);
  // A long display name: the top bar must still fit.
  const me = (await t.ok(admin, 'user.getList', { page: 1, limit: 50 })).list.find((u: { login: string }) => u.login === ADMIN.login);
  await t.ok(admin, 'user.save', { uid: me.uid, name: 'Administrator of the console' });
  const ds = t.app.get<DataSource>(getDataSourceToken());
  await ds.query("INSERT INTO authors (Id_author, a_fio) VALUES (1, 'Толстой Лев Николаевич'), (2, 'Л. Н. Толстой')");
  await ds.query("INSERT INTO books (Id_book, book_title, book_owner) VALUES (101, 'Война и мир', 1), (201, 'Анна Каренина', 2), (202, 'Воскресение', 2)");
  await t.ok(admin, 'content.import', { entity: 'books', rows: [{ Id_book: 6001, book_title: 'Зелёный маяк', book_pages: 4, book_owner: 77 }] });
  await t.ok(admin, 'content.import', { entity: 'pages', rows: [1, 2, 3, 4].map((num) => ({ bid: 6001, num, body: `Страница ${num}` })) });
  browser = await launchBrowser();
}, T);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});
afterEach(() => expectNoPageErrors(pages));

test('/book/list?p_=5 on a slow answer: "Page 5" beside the spinner, past the end only once the count is known', async () => {
  const page = await newPage(browser);
  pages.push(page);
  await loginAs(page, t.url, ADMIN.login, ADMIN.password);
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let held!: () => void;
  const holding = new Promise<void>((r) => (held = r));
  await page.route('**/api', async (route: Route) => {
    if (route.request().method() === 'POST' && (route.request().postData() ?? '').includes('book.getList')) {
      held();
      await released;
    }
    await route.continue();
  });
  await page.goto(`${t.url}/book/list?p_=5`);
  await holding;
  await page.locator('.app-ptable [role="status"]').first().waitFor();
  await page.locator('.app-pager-info').waitFor();
  await screenshot(page, 'shell-booklist-pending');
  expect(await page.locator('.app-pager-info').textContent()).toBe('Page 5');
  expect(await page.locator('main').textContent()).not.toMatch(/past the end|0 rows/);
  release();
  await page.getByTestId('past-end').waitFor();
  expect(await page.locator('.app-pager-info').textContent()).toBe('Page 5 is past the end (1 page) · 4 rows');
}, T);

test('the left menu lights one item, the longest matching route, on every menu screen and below it', async () => {
  const page = await signedInPage(browser, pages, t.url, '/', ADMIN);
  const links = page.locator('.app-sidebar a.app-menu-link:not(.app-menu-home)');
  await links.first().waitFor();
  const items = await links.evaluateAll((els) => els.map((e) => e.getAttribute('href') ?? ''));
  expect(items).toEqual(expect.arrayContaining(['/firewall', '/firewall/iptables_rules', '/srv/terminal', '/srv/terminal/recordings']));
  const lit = async () => page.locator('.app-sidebar .app-menu-link.active').evaluateAll((els) => els.map((e) => e.getAttribute('href')));
  const check = async (path: string, expected: string) => {
    await page.waitForURL((u) => u.pathname === path);
    await page.locator(`.app-sidebar .app-menu-link.active[href="${expected}"]`).waitFor();
    expect({ path, lit: await lit() }).toEqual({ path, lit: [expected] });
    expect(await page.locator('.app-topmenu .nav-link.dropdown-toggle.active').count()).toBe(1);
  };
  for (const href of items) {
    await page.locator(`.app-sidebar a.app-menu-link[href="${href}"]`).click();
    await check(href, href);
  }
  // [opened, the item lit, the path it lands on: /srv/srv_map/1 hands over to /srv/srv_map?server=1]
  for (const [path, expected, lands] of [
    ['/srv/terminal/recordings/1', '/srv/terminal/recordings', '/srv/terminal/recordings/1'],
    ['/srv/srv_map/1', '/srv/srv_map', '/srv/srv_map'],
    ['/cfg/app_cron/add', '/cfg/app_cron', '/cfg/app_cron/add'],
  ]) {
    await page.goto(t.url + path);
    await page.locator('.app-sidebar .app-menu-link.active').first().waitFor();
    await check(lands, expected);
  }
}, T);

test('the top bar fits at 993, 1000 and 1024 px (and 1280): Logout wholly inside the viewport', async () => {
  for (const width of [993, 1000, 1024, 1280]) {
    const page = await newPage(browser, { width, height: 800 });
    pages.push(page);
    await loginAs(page, t.url, ADMIN.login, ADMIN.password);
    await page.goto(`${t.url}/firewall/iptables_rules`);
    const logout = page.locator('header .app-logout');
    await logout.waitFor();
    await screenshot(page, `shell-${width}`);
    const box = (await logout.boundingBox())!;
    const fits = await logout.evaluate((el) => ({ clipped: el.scrollWidth > el.clientWidth, text: (el as HTMLElement).innerText }));
    expect({ width, left: box.x >= 0, right: box.x + box.width <= width, ...fits }).toEqual({ width, left: true, right: true, clipped: false, text: 'Logout' });
    const header = await page.locator('header.app-topbar').evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    expect(header.scroll).toBeLessThanOrEqual(header.client);
    await page.close();
  }
  const mobile = await newPage(browser, MOBILE);
  pages.push(mobile);
  await loginAs(mobile, t.url, ADMIN.login, ADMIN.password);
  await mobile.goto(`${t.url}/firewall/iptables_rules`);
  await mobile.getByRole('button', { name: 'Open menu' }).click();
  await mobile.locator('.app-drawer .app-menu-link.active').waitFor();
  expect(await mobile.locator('.app-drawer .app-menu-link.active').allTextContents()).toEqual(['IP rules']);
  await screenshot(mobile, 'shell-390');
}, T);

const FORM_PARTS = 'main input, main select, main textarea, main form';
/** Pages at once in the route sweeps below: the waits for a page's network to go quiet overlap. */
const LANES = 3;

/** Visits `items` in LANES pages of `page`'s context (the same session) at once, each page taking the next item when done. */
async function inLanes<T>(page: Page, items: readonly T[], visit: (p: Page, item: T) => Promise<void>): Promise<void> {
  const more = await Promise.all(Array.from({ length: LANES - 1 }, () => page.context().newPage()));
  let next = 0;
  try {
    await Promise.all([page, ...more].map(async (p) => {
      while (next < items.length) await visit(p, items[next++]);
    }));
  } finally {
    await Promise.all(more.map((p) => p.close()));
  }
}

test.each([
  ['role 10', EDITOR, 10],
  ['role 100', VIEWER, 100],
] as const)('%s: every route above the role renders the 403 page and nothing of the screen', async (_, who, role) => {
  const page = await signedInPage(browser, pages, t.url, '/', who);
  const above = uiRoutes().filter((r) => !r.public && r.role !== undefined && r.role < role);
  expect(above.map((r) => r.path)).toContain('/input_stream/sites');
  if (role === 100) expect(above.map((r) => r.path)).toContain('/book/list');
  const shown: Array<{ path: string; forbidden: boolean; formParts: number }> = [];
  await inLanes(page, above, async (p, r) => {
    await p.goto(t.url + concretePath(r.path));
    await p.locator('.app-forbidden').waitFor({ timeout: 5000 }).catch(() => undefined);
    shown.push({ path: r.path, forbidden: await p.locator('.app-forbidden').isVisible(), formParts: await p.locator(FORM_PARTS).count() });
  });
  expect(shown).toHaveLength(above.length);
  expect(shown.filter((s) => !s.forbidden || s.formParts > 0)).toEqual([]);
  expect(await page.locator('.app-forbidden').textContent()).toContain(MSG.forbidden);
}, T);

test('counts in the right number ("1 book"), one "Page 1 of 4" on the book page', async () => {
  const page = await signedInPage(browser, pages, t.url, '/author/marge', EDITOR);
  const card = page.locator('.app-author-card[data-author="1"]');
  await card.waitFor();
  await card.getByText('Id 1 · 1 book', { exact: true }).waitFor();
  expect(await page.locator('main').textContent()).not.toMatch(/\b1 books\b/);
  expect(await page.locator('.app-author-card[data-author="2"]').getByText('Id 2 · 2 books', { exact: true }).count()).toBe(1);

  await page.goto(`${t.url}/book/edit/open/6001-1`);
  await page.getByTestId('page-body').waitFor();
  await page.getByRole('button', { name: 'Page 2' }).waitFor();
  const text = await page.locator('main').innerText();
  await screenshot(page, 'shell-book-edit');
  expect(text.match(/Page 1 of 4/g)).toHaveLength(1);
  expect(text).not.toMatch(/\b4 rows\b/);
}, T);

test('audit days are typed yyyy-mm-dd (not the browser\'s mm/dd/yyyy); a wrong day is refused', async () => {
  const page = await signedInPage(browser, pages, t.url, '/audit', ADMIN);
  const from = page.getByLabel('From', { exact: true });
  await from.waitFor();
  expect(await from.getAttribute('type')).toBe('text');
  expect(await from.getAttribute('placeholder')).toBe('yyyy-mm-dd');
  await from.fill('03/10/2021');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.getByText('Write days as yyyy-mm-dd').waitFor();
  expect(pathOf(page)).toBe('/audit');
  await from.fill('2021-03-10');
  await page.getByLabel('To', { exact: true }).fill('2021-03-11');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.waitForURL((u) => u.search.includes('from=2021-03-10'));
  expect(pathOf(page)).toBe('/audit?from=2021-03-10&to=2021-03-11');
  await screenshot(page, 'shell-audit');
  const mobile = await signedInPage(browser, pages, t.url, '/audit?from=2021-03-10', ADMIN, MOBILE);
  await mobile.getByLabel('From', { exact: true }).waitFor();
  await screenshot(mobile, 'shell-audit-390');
}, T);

test('the server dialog: "SSH login" is the field, the section is "SSH access"', async () => {
  const page = await signedInPage(browser, pages, t.url, '/srv/srv_map', ADMIN);
  await page.getByRole('button', { name: 'Add server', exact: true }).click();
  const dialog = page.getByRole('dialog');
  await dialog.locator('input[name="sshlogin"]').waitFor();
  expect(await dialog.locator('legend').allTextContents()).toContain('SSH access');
  expect(await dialog.getByText('SSH login', { exact: true }).count()).toBe(1);
}, T);

test('/register: bare for a visitor; a signed-in user is sent home, never a sign-up form in the signed-in layout', async () => {
  const visitor = await newPage(browser);
  pages.push(visitor);
  await visitor.goto(`${t.url}/register`);
  await visitor.getByRole('form', { name: 'Register' }).waitFor();
  expect(await visitor.locator('.app-sidebar').count()).toBe(0);

  const page = await signedInPage(browser, pages, t.url, '/register', ADMIN);
  await page.waitForURL((u) => u.pathname === '/');
  expect(await page.getByRole('form', { name: 'Register' }).count()).toBe(0);
}, T);

test('README says that a self-registered account waits for an admin to activate it', () => {
  const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
  expect(readme).toMatch(/\/register/);
  expect(readme).toMatch(/self-registered account is created \*\*inactive\*\*[^]*?until an admin switches it active/);
});

test.each([
  ['role 10', EDITOR, 10],
  ['role 100', VIEWER, 100],
] as const)('%s: no route the role may open answers Forbidden (the route table\'s roles are not weaker than the server\'s)', async (_, who, role) => {
  const page = await signedInPage(browser, pages, t.url, '/', who);
  const open = uiRoutes().filter((r) => !r.public && (r.role === undefined || r.role >= role) && r.path !== '/logout');
  const forbidden: string[] = [];
  let visited = 0;
  await inLanes(page, open, async (p, r) => {
    await p.goto(t.url + concretePath(r.path));
    await p.waitForLoadState('networkidle');
    if (await p.getByText(MSG.forbidden).count()) forbidden.push(r.path);
    visited++;
  });
  expect(visited).toBe(open.length);
  expect(forbidden).toEqual([]);
}, T);
