/**
 * The platform UI in a real browser (Debian's Chromium via playwright-core) against the real app
 * (startApp serves dist/ui: run `npm run build:ui` first). Covers: redirect to /auth when logged out
 * and return to the entry point after login, the login form, menu by role and the route table, 403,
 * deep-link reload with p_, 404, notification stacking, users admin, logout, the mobile drawer and the
 * realtime handshake. Set UI_SCREENSHOTS=/some/dir to also save screenshots.
 *
 * The app's CSP forbids eval, so in-page checks are functions (never strings); the DOM lib below types them.
 */
/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { MENU } from '../../src/contracts/menu.js';
import { MSG } from '../../src/contracts/messages.js';
import { roleAllows } from '../../src/contracts/roles.js';
import { SessionEntity } from '../../src/core/auth/user.entity.js';
import { sha256 } from '../../src/core/crypto/secret-box.js';
import { ADMIN, startApp, type TestApp } from '../helpers/app.js';
import { MOBILE, expectNoPageErrors, launchBrowser, loginAs, newPage, pathOf, screenshot, storageItem } from '../helpers/browser.js';

const T = 60_000;

let t: TestApp;
let browser: Browser;
const pages: Page[] = [];

async function open(opts?: { width?: number; height?: number }): Promise<Page> {
  const p = await newPage(browser, opts);
  pages.push(p);
  return p;
}

/** Client-side navigation (no reload): the router re-renders for the new path. */
async function spaGo(page: Page, path: string) {
  await page.evaluate((p) => {
    history.pushState({}, '', p);
    dispatchEvent(new PopStateEvent('popstate'));
  }, path);
  await page.waitForURL((u) => u.pathname + u.search === path);
}

const sidebarPaths = async (page: Page): Promise<string[]> =>
  (await page.locator('aside.app-sidebar a.app-menu-link').evaluateAll((els) => els.map((e) => e.getAttribute('href') ?? ''))).filter((h) => h !== '/');

beforeAll(async () => {
  t = await startApp();
  browser = await launchBrowser();
  // Enough audit rows for two pages (50 a page): renames of the admin are audited writes.
  const admin = await t.session(1);
  const batch = { methods: Array(40).fill('user.save'), args: Array(40).fill({ uid: admin.uid, name: 'Administrator' }), host: 0 };
  for (let i = 0; i < 2; i++) {
    const r = await t.rest<Array<{ status: string }>>(admin.hash, 'POST', '', batch);
    expect(r.body.every((e) => e.status === 'ok')).toBe(true);
  }
}, T);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

// No uncaught exception or console error in any page of the test.
afterEach(() => expectNoPageErrors(pages));

test('logged out: a deep link goes to /auth; login through the form returns to it, and it survives reload', async () => {
  const page = await open();
  await page.goto(t.url + '/audit?p_=2');
  await page.waitForURL((u) => u.pathname === '/auth');
  expect(await storageItem(page, 'inpoint')).toBe('/audit?p_=2');
  // The sign-in screen: title, login, password, error area, link to /register, Next; no menus.
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  const form = page.getByRole('form', { name: 'Sign in' });
  expect(await form.getByLabel('Password').getAttribute('type')).toBe('password');
  expect(await page.getByRole('link', { name: 'Register' }).getAttribute('href')).toBe('/register');
  expect(await form.getByRole('button', { name: 'Next' }).getAttribute('type')).toBe('submit');
  expect(await page.locator('aside.app-sidebar').count()).toBe(0);
  await screenshot(page, 'auth-desktop');

  // A wrong password: Enter submits, the server's message shows in the alert, nothing is stored.
  await form.getByLabel('Login').fill(ADMIN.login);
  await form.getByLabel('Password').fill('wrong-password');
  await form.getByLabel('Password').press('Enter');
  await expect(page.getByTestId('auth-error').textContent()).resolves.toBe(MSG.badCredentials);
  expect(await storageItem(page, 'hash')).toBeNull();
  expect(await storageItem(page, 'attemts')).toBe('1');

  await loginAs(page, t.url, ADMIN.login, ADMIN.password);
  expect(pathOf(page)).toBe('/audit?p_=2');
  expect(await storageItem(page, 'role')).toBe('1');
  expect(await storageItem(page, 'attemts')).toBeNull();

  const total = (await t.rpc<{ count: number }>(await storageItem(page, 'hash'), 'audit.getList', { page: 1, limit: 1 })).env;
  if (total.status !== 'ok') throw new Error(JSON.stringify(total));
  const count = total.result.count;
  expect(count).toBeGreaterThan(50);
  const rows = page.locator('table.app-table tbody tr');
  const checkPage2 = async () => {
    await page.locator('.pagination .page-item.active', { hasText: '2' }).first().waitFor();
    await expect(page.locator('.app-pager-info').first().textContent()).resolves.toBe(`Page 2 of ${Math.ceil(count / 50)} · ${count} rows`);
    await page.waitForFunction((n) => document.querySelectorAll('table.app-table tbody tr').length === n, Math.min(50, count - 50));
  };
  await checkPage2();
  await screenshot(page, 'audit-page2-desktop');

  await page.reload();
  expect(pathOf(page)).toBe('/audit?p_=2');
  await checkPage2();

  // Back to page 1: p_ leaves the URL, 50 rows; the pager goes forward again.
  await page.getByRole('button', { name: 'Previous page' }).first().click();
  await page.waitForURL((u) => u.pathname === '/audit' && !u.searchParams.has('p_'));
  await page.waitForFunction(() => document.querySelectorAll('table.app-table tbody tr').length === 50);
  await page.getByRole('button', { name: 'Page 2' }).first().click();
  await page.waitForURL((u) => u.searchParams.get('p_') === '2');

  // Filters go to the URL and reset the page; every row matches.
  await page.getByLabel('Method contains').fill('user.auth');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.waitForURL((u) => u.searchParams.get('method') === 'user.auth' && !u.searchParams.has('p_'));
  await page.waitForFunction(() => {
    const r = [...document.querySelectorAll('table.app-table tbody tr')];
    return r.length > 0 && r.every((tr) => tr.children[2].textContent === 'user.auth');
  });
  await page.getByLabel('Outcome').selectOption('error');
  await page.waitForURL((u) => u.searchParams.get('outcome') === 'error');
  // The one failed sign-in above is listed, with its message.
  await page.waitForFunction((msg) => {
    const r = [...document.querySelectorAll('table.app-table tbody tr')];
    return r.length === 1 && !!r[0].textContent?.includes(msg);
  }, MSG.badCredentials);
  await page.reload();
  expect(pathOf(page)).toBe('/audit?method=user.auth&outcome=error');
  expect(await page.getByLabel('Method contains').inputValue()).toBe('user.auth');
  await page.waitForFunction(() => document.querySelectorAll('table.app-table tbody tr').length === 1);
  expect(await rows.first().locator('.badge').textContent()).toBe('error');
}, T);

test('menu by role: an item shows iff its screen exists and the role allows it; a weak role gets 403', async () => {
  const admin = await open();
  await loginAs(admin, t.url, ADMIN.login, ADMIN.password);
  await screenshot(admin, 'home-desktop');
  await admin.getByRole('heading', { name: 'Welcome, Administrator' }).waitFor();
  const adminMenu = await sidebarPaths(admin);
  expect(adminMenu).toEqual(expect.arrayContaining(['/users', '/audit']));

  // Which MENU screens exist in this build: visit each (client-side) and look for the 404 page.
  const exists = new Map<string, boolean>();
  for (const g of MENU)
    for (const i of g.items) {
      await spaGo(admin, i.path);
      // The router rendered this path (the page, its loading state or the 404).
      await admin.locator(`main.app-body[data-path="${i.path}"] > *`).first().waitFor({ state: 'attached' });
      exists.set(i.path, (await admin.locator('.app-not-found').count()) === 0);
    }
  expect(exists.get('/users')).toBe(true);
  expect(exists.get('/audit')).toBe(true);
  const need = (path: string) => {
    for (const g of MENU) for (const i of g.items) if (i.path === path) return i.role ?? g.role ?? Infinity;
    return Infinity;
  };
  const expected = (role: number) => [...exists].filter(([p, e]) => e && roleAllows(role, need(p))).map(([p]) => p).sort();
  expect([...adminMenu].sort()).toEqual(expected(1));
  // The Cluster group: exactly its existing screens, for the admin.
  const cluster = MENU.find((g) => g.label === 'Cluster')!.items.map((i) => i.path);
  expect(adminMenu.filter((p) => cluster.includes(p)).sort()).toEqual(cluster.filter((p) => exists.get(p)).sort());
  const clusterLabel = admin.locator('aside.app-sidebar .app-menu-group-label', { hasText: 'Cluster' });
  expect(await clusterLabel.count()).toBe(cluster.some((p) => exists.get(p)) ? 1 : 0);

  const s = await t.session(100, 'viewer');
  void s;
  const user = await open();
  await loginAs(user, t.url, 'viewer', 'viewer-password-1');
  const userMenu = await sidebarPaths(user);
  expect(userMenu.sort()).toEqual(expected(100));
  expect(userMenu).not.toContain('/users');
  expect(userMenu).not.toContain('/audit');
  expect(await user.locator('aside.app-sidebar .app-menu-group-label', { hasText: 'Admin' }).count()).toBe(0);
  expect(await user.locator('aside.app-sidebar .app-menu-group-label', { hasText: 'Cluster' }).count()).toBe(0);
  expect(await storageItem(user, 'role')).toBe('100');

  // A role-100 user opening an admin screen gets a clear 403, not the page.
  await user.goto(t.url + '/users');
  await user.locator('.app-forbidden').waitFor();
  await expect(user.locator('.app-forbidden h1').textContent()).resolves.toBe('403');
  await expect(user.locator('.app-forbidden').textContent()).resolves.toContain(MSG.forbidden);
  expect(await user.locator('table.app-table').count()).toBe(0);
  await screenshot(user, 'forbidden-desktop');
}, T);

test('unknown route: 404 and Page not found (logged out, it asks to sign in first)', async () => {
  const page = await open();
  await page.goto(t.url + '/no/such/page?x=1');
  await page.waitForURL((u) => u.pathname === '/auth');
  await loginAs(page, t.url, ADMIN.login, ADMIN.password);
  expect(pathOf(page)).toBe('/no/such/page?x=1');
  await expect(page.locator('.app-not-found h1').textContent()).resolves.toBe('404');
  await expect(page.locator('.app-not-found p').textContent()).resolves.toBe('Page not found');
  expect(await page.title()).toContain('Page not found');
  await screenshot(page, 'not-found-desktop');
}, T);

test('notifications: at most 5 stacked, each save reported, the newest on screen', async () => {
  const target = await t.session(100, 'stacker');
  const page = await open();
  await loginAs(page, t.url, ADMIN.login, ADMIN.password);
  await page.goto(t.url + '/users');
  const sw = page.getByLabel('Active stacker');
  await sw.waitFor();
  expect(await sw.isChecked()).toBe(true);
  const started = Date.now();
  let maxSeen = 0;
  for (let i = 0; i < 7; i++) {
    const before = await sw.isChecked();
    await sw.click();
    // Wait until the save came back (the switch is enabled again and shows the new state).
    await page.waitForFunction(
      ([id, want]) => {
        const e = document.getElementById(id) as HTMLInputElement | null;
        return !!e && !e.disabled && e.checked === want;
      },
      [`active-${target.uid}`, !before] as const,
    );
    maxSeen = Math.max(maxSeen, await page.locator('.app-notify').count());
  }
  const elapsed = Date.now() - started;
  const toasts = page.locator('.app-notify');
  expect(maxSeen).toBeLessThanOrEqual(5);
  expect(await toasts.count()).toBeLessThanOrEqual(5);
  // Each is shown at least 3 s: when the 7 saves took less than that, exactly 5 are on screen.
  if (elapsed < 2500) expect(await toasts.count()).toBe(5);
  await expect(toasts.last().textContent()).resolves.toBe(MSG.saveOk);
  expect(await toasts.first().boundingBox()).toMatchObject({ x: expect.any(Number) });
  const box = (await toasts.first().boundingBox())!;
  expect(box.x + box.width).toBeGreaterThan(1280 - 40); // top right
  expect(box.y).toBeLessThan(120);
  await screenshot(page, 'notifications-desktop');
  // Seven toggles from active: the server now has it inactive.
  const list = await t.rpc<{ list: Array<{ uid: number; active: number }> }>((await t.session(1)).hash, 'user.getList', { page: 1, limit: 50 });
  expect(list.env.status === 'ok' && list.env.result.list.find((u) => u.uid === target.uid)?.active).toBe(0);
  // They hide by themselves (3 s minimum for short texts).
  await page.waitForFunction(() => document.querySelectorAll('.app-notify').length === 0, undefined, { timeout: 15_000 });
}, T);

test('register, then an admin activates, sets the role and resets the password on /users', async () => {
  const page = await open();
  await page.goto(t.url + '/register');
  const form = page.getByRole('form', { name: 'Register' });
  // Client-side validation with the server's schema: a short password is refused under its field.
  await form.getByLabel('Login').fill('newbie');
  await form.getByLabel('Name').fill('New Bie');
  await form.getByLabel('Password').fill('short');
  await form.getByRole('button', { name: 'Register' }).click();
  await expect(form.locator('.invalid-feedback').first().textContent()).resolves.toMatch(/at least 8/);
  await form.getByLabel('Password').fill('newbie-password-1');
  await form.getByRole('button', { name: 'Register' }).click();
  await expect(page.getByTestId('register-done').textContent()).resolves.toBe(MSG.registered);

  // Not active yet: the sign-in answers as for a wrong password (the register page said the account waits for an admin).
  await page.goto(t.url + '/auth');
  await page.getByLabel('Login').fill('newbie');
  await page.getByLabel('Password').fill('newbie-password-1');
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByTestId('auth-error').textContent()).resolves.toBe(MSG.badCredentials);

  const admin = await open();
  await loginAs(admin, t.url, ADMIN.login, ADMIN.password);
  await admin.goto(t.url + '/users');
  const row = admin.locator('tr', { has: admin.getByText('newbie', { exact: true }) });
  await row.waitFor();
  await admin.getByLabel('Active newbie').click();
  await admin.locator('.app-notify', { hasText: MSG.saveOk }).first().waitFor();
  await admin.getByLabel('Role of newbie').selectOption('10');
  await admin.waitForFunction(() => document.querySelectorAll('.app-notify').length >= 2);
  // Rename and reset the password through the dialogs.
  await row.getByRole('button', { name: 'Rename' }).click();
  const dialog = admin.getByRole('dialog');
  await dialog.getByLabel('Name').fill('Renamed Bie');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await row.getByText('Renamed Bie').waitFor();
  await row.getByRole('button', { name: 'Password' }).click();
  await dialog.getByLabel('New password').fill('second-password-2');
  await dialog.getByLabel('Repeat password').fill('second-password-x');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.locator('.invalid-feedback').textContent()).resolves.toBe('Passwords differ');
  await dialog.getByLabel('Repeat password').fill('second-password-2');
  await screenshot(admin, 'users-dialog-desktop');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await screenshot(admin, 'users-desktop');

  const users = await t.rpc<{ list: Array<{ login: string; active: number; role: number; name: string }> }>((await t.session(1)).hash, 'user.getList', { page: 1, limit: 50 });
  expect(users.env.status === 'ok' && users.env.result.list.find((u) => u.login === 'newbie')).toMatchObject({ active: 1, role: 10, name: 'Renamed Bie' });

  await page.getByLabel('Password').fill('second-password-2');
  await page.getByRole('button', { name: 'Next' }).click();
  await page.waitForURL((u) => u.pathname === '/');
  await page.getByRole('heading', { name: 'Welcome, Renamed Bie' }).waitFor();
  expect(await storageItem(page, 'role')).toBe('10');
}, T);

test('realtime: the socket connects with the session (indicator live); logout ends the session everywhere', async () => {
  const page = await open();
  const hash = await loginAs(page, t.url, ADMIN.login, ADMIN.password);
  await page.locator('.app-live[data-status="connected"]').waitFor();
  expect((await t.rpc(hash, 'user.me')).status).toBe(200);

  await page.getByRole('link', { name: 'Logout' }).click();
  await page.waitForURL((u) => u.pathname === '/auth');
  for (const k of ['hash', 'atime', 'uid', 'name', 'role']) expect(await storageItem(page, k)).toBeNull();
  expect(await page.locator('aside.app-sidebar').count()).toBe(0);
  // The server forgot the session: the old hash is refused.
  expect((await t.rpc(hash, 'user.me')).status).toBe(401);
  await page.goto(t.url + '/');
  await page.waitForURL((u) => u.pathname === '/auth');

  // A session gone without a push to the socket (its row deleted behind the server's back; a logout
  // elsewhere sends the page to /auth at once, test/browser/session-live.e2e.ts): the next call
  // answers 401, the app clears it and asks to sign in, keeping the entry point.
  const again = await loginAs(page, t.url, ADMIN.login, ADMIN.password);
  await page.goto(t.url + '/users?p_=1');
  await page.locator('table.app-table tbody tr').first().waitFor();
  // The socket (loaded on first use) is up and has sent what a page sends on connect: a message of it
  // after the delete would end the session over the socket instead (that path: session-live.e2e.ts).
  await page.locator('.app-live[data-status="connected"]').waitFor();
  await t.app.get(DataSource).getRepository(SessionEntity).delete({ token_digest: sha256(again) });
  await page.getByRole('button', { name: 'Refresh' }).click();
  await page.waitForURL((u) => u.pathname === '/auth');
  expect(await storageItem(page, 'hash')).toBeNull();
  expect(await storageItem(page, 'inpoint')).toBe('/users?p_=1');
}, T);

test('mobile (390 px): no left menu, the top menu is a drawer; modal is 95% wide', async () => {
  const page = await open(MOBILE);
  await page.goto(t.url + '/auth');
  await screenshot(page, 'auth-mobile');
  await loginAs(page, t.url, ADMIN.login, ADMIN.password);
  expect(await page.locator('aside.app-sidebar').count()).toBe(0);
  expect(await page.locator('.app-topmenu').count()).toBe(0);
  await page.getByRole('heading', { name: 'Welcome, Administrator' }).waitFor();
  const noOverflow = () => page.evaluate(() => document.documentElement.scrollWidth);
  expect(await noOverflow()).toBeLessThanOrEqual(MOBILE.width);
  await screenshot(page, 'home-mobile');
  await page.getByRole('button', { name: 'Open menu' }).click();
  const drawer = page.locator('.offcanvas.show');
  await drawer.waitFor();
  await screenshot(page, 'drawer-mobile');
  await drawer.getByRole('link', { name: 'Users' }).click();
  await page.waitForURL((u) => u.pathname === '/users');
  await page.locator('.offcanvas').waitFor({ state: 'detached' });
  await page.locator('table.app-table tbody tr').first().waitFor();
  expect(await noOverflow()).toBeLessThanOrEqual(MOBILE.width);
  await screenshot(page, 'users-mobile');
  await page.getByRole('button', { name: 'Rename' }).first().click();
  const dlg = page.locator('.modal-dialog');
  await dlg.waitFor();
  const box = (await dlg.boundingBox())!;
  expect(box.width / MOBILE.width).toBeGreaterThan(0.9);
  expect(box.width / MOBILE.width).toBeLessThanOrEqual(0.96);
  await screenshot(page, 'dialog-mobile');
}, T);

test('kit: confirm dialog labels (Delete, Cencel, Yes, or a custom list) and modal sizes', async () => {
  const page = await open();
  await loginAs(page, t.url, ADMIN.login, ADMIN.password);
  await page.goto(t.url + '/kit');
  const last = page.getByTestId('kit-last');
  await last.waitFor();
  const dialog = page.getByRole('dialog');

  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(dialog.locator('.modal-footer button').allTextContents()).resolves.toEqual(['Cencel', 'Yes']);
  await dialog.getByRole('button', { name: 'Cencel' }).click();
  await dialog.waitFor({ state: 'detached' });
  expect(await last.textContent()).toBe('none');
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await dialog.getByRole('button', { name: 'Yes' }).click();
  await dialog.waitFor({ state: 'detached' });
  expect(await last.textContent()).toBe('confirmed');

  await page.getByRole('button', { name: 'Deploy', exact: true }).click();
  await expect(dialog.locator('.modal-footer button').allTextContents()).resolves.toEqual(['Test', 'Deploy']);
  await dialog.getByRole('button', { name: 'Test' }).click();
  await dialog.waitFor({ state: 'detached' });
  expect(await last.textContent()).toBe('test');

  // Normal: 70% of 1280 is 896, capped at 800 px. Full: 95%.
  await page.getByRole('button', { name: 'Normal modal' }).click();
  const normal = (await page.locator('.modal-dialog').boundingBox())!;
  expect(Math.round(normal.width)).toBe(800);
  await screenshot(page, 'modal-normal-desktop');
  await dialog.locator('.modal-footer').getByRole('button', { name: 'Close' }).click();
  await dialog.waitFor({ state: 'detached' });
  await page.getByRole('button', { name: 'Full modal' }).click();
  const full = (await page.locator('.modal-dialog').boundingBox())!;
  expect(full.width / 1280).toBeGreaterThan(0.93);
  expect(full.width / 1280).toBeLessThanOrEqual(0.951);
}, T);

test('a network failure says that the console cannot be reached (request aborted, server stopped), never "Failed to fetch"', async () => {
  const page = await open();
  await loginAs(page, t.url, ADMIN.login, ADMIN.password);
  await page.goto(t.url + '/users');
  await page.locator('table.app-table tbody tr').first().waitFor();

  // Every call to /api fails in the network (what a dropped connection looks like to fetch).
  await page.route('**/api', (r) => r.abort());
  await page.getByRole('button', { name: 'Rename' }).first().click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Name').fill('Unreachable Admin');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await page.locator('.app-notify', { hasText: MSG.unreachable }).first().waitFor();
  expect(await page.locator('.app-notify', { hasText: 'Failed to fetch' }).count()).toBe(0);
  await dialog.getByLabel('Name').waitFor(); // the dialog stays, with what was typed
  page.once('dialog', (d) => void d.accept()); // closing it with the unsaved name asks first (useUnsavedPrompt)
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  // A list that cannot load says the same in its alert.
  await page.getByRole('button', { name: 'Refresh' }).click();
  await page.locator('.alert-danger', { hasText: MSG.unreachable }).waitFor();
  await page.unroute('**/api');
  await page.getByRole('button', { name: 'Retry' }).click();
  await page.locator('.alert-danger').waitFor({ state: 'detached' });

  // The server itself stopped: the same message.
  const t2 = await startApp({ CRON_ENABLED: '0' });
  let running = true;
  const stopped = await newPage(browser, { collectErrors: false }); // the socket's failed reconnects are logged, as they should be
  try {
    await loginAs(stopped, t2.url, ADMIN.login, ADMIN.password);
    await stopped.goto(t2.url + '/audit');
    await stopped.locator('table.app-table tbody tr').first().waitFor();
    await t2.close();
    running = false;
    await stopped.getByRole('button', { name: 'Refresh' }).click();
    await stopped.locator('.alert-danger', { hasText: MSG.unreachable }).waitFor();
  } finally {
    await stopped.context().close();
    if (running) await t2.close();
  }
}, T);
