/**
 * The UI follows its session live (issue 7): a signed-in admin page whose user another session
 * demotes to role 100 loses the admin menu items, and the open admin screen turns into the 403 page,
 * without a reload; promoted back they return. When the session is ended elsewhere (the account
 * deactivated, or a logout through the API) the page goes to /auth at once, with no click, keeping
 * the entry point. Run `npm run build:ui` first.
 *
 * The app's CSP forbids eval, so in-page checks are functions (never strings); the DOM lib types them.
 */
/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import type { SessionValues } from '../../src/contracts/auth.js';
import { MENU } from '../../src/contracts/menu.js';
import { ROLE_NAMES, roleAllows } from '../../src/contracts/roles.js';
import { hashPassword } from '../../src/core/auth/auth.service.js';
import { UserEntity } from '../../src/core/auth/user.entity.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { expectNoPageErrors, launchBrowser, openSignedIn, screenshot, storageItem } from '../helpers/browser.js';

const T = 60_000;
const LOGIN = 'boss';
const PASSWORD = 'boss-password-1';

let t: TestApp;
let browser: Browser;
let admin: SessionValues;
let uid: number;
const pages: Page[] = [];

beforeAll(async () => {
  t = await startApp();
  browser = await launchBrowser();
  admin = await t.session(1);
  // A second admin, made in the database (registration is throttled per address).
  const users = t.app.get(DataSource).getRepository(UserEntity);
  const r = await users.insert({ login: LOGIN, name: 'Boss', role: 1, active: 1, password_hash: await hashPassword(PASSWORD), created_at: new Date(), last_login: null });
  uid = (r.identifiers[0] as { uid: number }).uid;
}, T);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

afterEach(() => expectNoPageErrors(pages));

const sidebarPaths = async (page: Page): Promise<string[]> =>
  (await page.locator('aside.app-sidebar a.app-menu-link').evaluateAll((els) => els.map((e) => e.getAttribute('href') ?? ''))).filter((h) => h !== '/').sort();

const needOf = (path: string) => {
  for (const g of MENU) for (const i of g.items) if (i.path === path) return i.role ?? g.role ?? Infinity;
  return Infinity;
};

/** Signed in as the second admin on /users, the realtime socket connected; marks the document to prove later that it was not reloaded. */
async function openAsBoss(): Promise<Page> {
  await t.ok(admin.hash, 'user.save', { uid, role: 1, active: 1 });
  const page = await openSignedIn(browser, t.url, '/users', LOGIN, PASSWORD);
  pages.push(page);
  await page.locator('.app-live[data-status="connected"]').waitFor();
  await page.locator('table.app-table').waitFor();
  await page.evaluate(() => {
    (window as unknown as { __sameDocument: number }).__sameDocument = 1;
  });
  return page;
}
const sameDocument = (page: Page) => page.evaluate(() => (window as unknown as { __sameDocument?: number }).__sameDocument === 1);

test('demoted to 100 by another session: the admin menu items and the admin screen go without a reload; promoted back they return', async () => {
  const page = await openAsBoss();
  const adminMenu = await sidebarPaths(page);
  expect(adminMenu).toEqual(expect.arrayContaining(['/users', '/audit']));
  const userMenu = adminMenu.filter((p) => roleAllows(100, needOf(p)));
  expect(userMenu.length).toBeLessThan(adminMenu.length);

  await t.ok(admin.hash, 'user.save', { uid, role: 100 });
  await page.locator('aside.app-sidebar a.app-menu-link[href="/users"]').waitFor({ state: 'detached' });
  expect(await sidebarPaths(page)).toEqual(userMenu);
  expect(await page.locator('aside.app-sidebar .app-menu-group-label', { hasText: 'Admin' }).count()).toBe(0);
  // The open admin screen is refused in place; the top bar shows the new role.
  await page.locator('.app-forbidden').waitFor();
  expect(await page.locator('table.app-table').count()).toBe(0);
  await page.locator('.app-user', { hasText: ROLE_NAMES[100] }).first().waitFor({ state: 'attached' });
  expect(await storageItem(page, 'role')).toBe('100');
  expect(await sameDocument(page)).toBe(true);
  await screenshot(page, 'session-live-demoted');

  await t.ok(admin.hash, 'user.save', { uid, role: 1 });
  await page.locator('aside.app-sidebar a.app-menu-link[href="/users"]').waitFor();
  expect(await sidebarPaths(page)).toEqual(adminMenu);
  await page.locator('table.app-table').waitFor();
  expect(await page.locator('.app-forbidden').count()).toBe(0);
  expect(await storageItem(page, 'role')).toBe('1');
  expect(await sameDocument(page)).toBe(true);
}, T);

test('deactivated by another session: the page goes to /auth at once', async () => {
  const page = await openAsBoss();
  await t.ok(admin.hash, 'user.save', { uid, active: 0 });
  await page.waitForURL((u) => u.pathname === '/auth');
  expect(await storageItem(page, 'hash')).toBeNull();
  expect(await storageItem(page, 'inpoint')).toBe('/users');
  expect(await page.locator('aside.app-sidebar').count()).toBe(0);
}, T);

test('the session signed out through the API: the page goes to /auth at once, without any click', async () => {
  const page = await openAsBoss();
  const hash = await storageItem(page, 'hash');
  expect((await t.rest(hash, 'POST', '/user/logout', {})).status).toBe(200);
  await page.waitForURL((u) => u.pathname === '/auth');
  expect(await storageItem(page, 'hash')).toBeNull();
  expect(await storageItem(page, 'inpoint')).toBe('/users');
}, T);
