/**
 * The servers area as a new operator meets it (issue 7), in a real browser (Debian's Chromium) against
 * the real app (run `npm run build:ui` first):
 * - at phone width (390 x 844) every row action of the map is on screen and works;
 * - two operators (two browser contexts) see each other's changes on the map and the SSL list live;
 * - the map filter lives in the URL (survives a reload, can be shared); an empty result says so;
 * - a server's Info or Edit dialog opens from the URL, and closing it updates the URL;
 * - unsaved edits (cluster configs, the server dialog) ask before the page is left;
 * - 'Check now' and 'Check all now' on SSL answer with a notification.
 */
/// <reference lib="dom" />
import type { Browser, Dialog, Page } from 'playwright-core';
import { MSG } from '../../src/contracts/messages.js';
import { startApp, ADMIN, type TestApp } from '../helpers/app.js';
import { MOBILE, expectNoPageErrors, launchBrowser, pathOf, screenshot, signedInPage } from '../helpers/browser.js';
import { freePort } from '../helpers/sshd.js';
import { startTlsServer, type TlsPeer } from '../helpers/tls.js';
import { SSL_REASON_TEXT } from '../../src/contracts/srv.js';

const T = 90_000;

let t: TestApp;
let browser: Browser;
let admin: string;
let tls3: TlsPeer;
let tls30: TlsPeer;
const pages: Page[] = [];
const ids: Record<string, number> = {};
const ADMIN2 = { login: 'operator2', password: 'operator2-password-1' };
/** UNSAVED_MESSAGE of src/ui/kit/useUnsavedPrompt.ts (a UI module: not imported into Node). */
const UNSAVED_MESSAGE = 'You have unsaved changes. Leave without saving?';

const ok = <T = any>(method: string, args?: unknown) => t.ok<T>(admin, method, args);

/** A signed-in page (own context) at `path` (path and query), at desktop width unless told. */
const signedIn = (path: string, who = ADMIN, size?: { width: number; height: number }): Promise<Page> => signedInPage(browser, pages, t.url, path, who, size);

const toast = (page: Page, text: string | RegExp) => page.locator('.app-notify', { hasText: text }).first().waitFor();
const rowNames = (page: Page) => page.locator('tr[data-server]').evaluateAll((els) => els.map((e) => e.getAttribute('data-server')));

/** The next browser dialog (confirm, beforeunload) of the page, answered with accept or dismiss. */
function nextDialog(page: Page, answer: 'accept' | 'dismiss'): Promise<{ type: string; message: string }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the page asked nothing (no confirm or beforeunload dialog within 15 s)')), 15_000);
    page.once('dialog', (d: Dialog) => {
      clearTimeout(timer);
      const seen = { type: d.type(), message: d.message() };
      void (answer === 'accept' ? d.accept() : d.dismiss()).then(() => resolve(seen));
    });
  });
}

/** Fails the test when the page shows any browser dialog (a prompt where none is due). */
function noDialogs(page: Page): string[] {
  const seen: string[] = [];
  page.on('dialog', (d: Dialog) => {
    seen.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  return seen;
}

beforeAll(async () => {
  [tls3, tls30] = await Promise.all([startTlsServer({ days: 3 }), startTlsServer({ days: 30 })]);
  t = await startApp({ CRON_ENABLED: '0' });
  browser = await launchBrowser();
  admin = (await t.session(1)).hash;
  await t.session(1, ADMIN2.login);
  for (const [name, f] of [['DC-1', { type: 0, ip: '192.0.2.1' }], ['DC-2', { type: 0, ip: '192.0.2.2' }]] as const) {
    ids[name] = (await ok('srv.save_server', { name, ...f })).Id;
  }
  // Loopback addresses only: an SSH test click must never reach another host.
  const children: Array<[string, Record<string, unknown>]> = [
    ['web-1', { type: 8, cod: ids['DC-1'], ip_local: '127.0.0.11' }],
    ['web-2', { type: 8, cod: ids['DC-1'], ip_local: '127.0.0.12' }],
    ['proxy-1', { type: 1, cod: ids['DC-1'], ip_local: '127.0.0.19' }],
    ['db-1', { type: 6, cod: ids['DC-2'], ip_local: '127.0.0.21' }],
    ['cache-without-address', { type: 10, cod: ids['DC-2'] }],
    ['orphan-node', { type: 9, cod: 987654 }],
  ];
  for (const [name, f] of children) ids[name] = (await ok('srv.save_server', { name, ...f })).Id;
}, T);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await tls3?.stop();
  await tls30?.stop();
});

afterEach(() => expectNoPageErrors(pages));

test('at 390 px every row action of the map is on screen, can be hit and works', async () => {
  const page = await signedIn('/srv/srv_map', ADMIN, MOBILE);
  await page.locator('tr[data-server="orphan-node"]').waitFor();
  await screenshot(page, 'srv-map-390');
  // Nothing sticks out sideways: the page does not scroll horizontally.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);

  const rows = await rowNames(page);
  expect(rows.sort()).toEqual(['cache-without-address', 'db-1', 'orphan-node', 'proxy-1', 'web-1', 'web-2']);
  for (const name of rows as string[]) {
    const buttons = page.locator(`tr[data-server="${name}"] .app-srv-actions button`);
    const labels = await buttons.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    expect(labels).toEqual([`Details ${name}`, `Edit ${name}`, `Clone ${name}`, `Test SSH ${name}`, `Terminal ${name}`, `Delete ${name}`]);
    for (let i = 0; i < labels.length; i++) {
      const b = buttons.nth(i);
      await b.scrollIntoViewIfNeeded();
      const box = (await b.boundingBox())!;
      expect([labels[i], box.x >= 0, box.x + box.width <= MOBILE.width, box.y >= 0, box.y + box.height <= MOBILE.height]).toEqual([labels[i], true, true, true, true]);
      // Big enough to tap, and the button itself is what a tap at its centre hits (not cut off or covered).
      expect([labels[i], box.height >= 28]).toEqual([labels[i], true]);
      if (await b.isDisabled()) continue; // a disabled button takes no taps
      const hit = await b.evaluate((el) => {
        const r = el.getBoundingClientRect();
        const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return !!at && (at === el || el.contains(at));
      });
      expect([labels[i], hit]).toEqual([labels[i], true]);
    }
  }

  // Each action works from the phone: Info, Edit, Clone, SSH, Delete of a child row.
  const dialog = page.getByRole('dialog');
  await page.getByRole('button', { name: 'Details db-1' }).click();
  await dialog.getByText('6 · ', { exact: false }).first().waitFor();
  await dialog.locator('.modal-footer').getByRole('button', { name: 'Close' }).click();
  await dialog.waitFor({ state: 'detached' });

  await page.getByRole('button', { name: 'Edit db-1' }).click();
  expect(await page.getByRole('form', { name: 'Server' }).getByLabel('Name').inputValue()).toBe('db-1');
  await page.getByRole('button', { name: 'Cencel' }).click();
  await dialog.waitFor({ state: 'detached' });

  await page.getByRole('button', { name: 'Clone db-1' }).click();
  await page.getByLabel('New name').fill('db-1-phone');
  await page.getByRole('button', { name: 'Clone', exact: true }).click();
  await page.locator('tr[data-server="db-1-phone"]').waitFor();

  await page.getByRole('button', { name: 'Test SSH cache-without-address' }).click();
  await toast(page, 'No IP address is set for this server');

  await page.getByRole('button', { name: 'Delete db-1-phone' }).click();
  await page.getByRole('button', { name: 'Yes' }).click();
  await page.locator('tr[data-server="db-1-phone"]').waitFor({ state: 'detached' });
  expect((await ok('srv.getList')).some((s: any) => s.name === 'db-1-phone')).toBe(false);

  // The parent's header buttons too.
  for (const label of ['Add server under DC-1', 'Details DC-1', 'Edit DC-1', 'Delete DC-1']) {
    const b = page.getByRole('button', { name: label });
    await b.scrollIntoViewIfNeeded();
    const box = (await b.boundingBox())!;
    expect([label, box.x >= 0 && box.x + box.width <= MOBILE.width]).toEqual([label, true]);
  }
}, T);

test("two operators: a status switch, a new server and a new SSL host show in the other's page without a reload", async () => {
  const a = await signedIn('/srv/srv_map');
  const b = await signedIn('/srv/srv_map', ADMIN2);
  await a.locator('tr[data-server="web-2"]').waitFor();
  await b.locator('tr[data-server="web-2"]').waitFor();
  // A marker that a reload would wipe.
  await b.evaluate(() => { (window as unknown as { marker: number }).marker = 42; });
  await b.locator('.app-live[data-status="connected"]').waitFor();

  expect(await b.getByRole('switch', { name: 'Status web-2' }).isChecked()).toBe(true);
  await a.getByRole('switch', { name: 'Status web-2' }).click();
  await toast(a, MSG.saveServerOk);
  await b.waitForFunction(() => !(document.querySelector('tr[data-server="web-2"] input[role="switch"]') as HTMLInputElement).checked);

  await a.getByRole('button', { name: 'Add server under DC-2' }).click();
  const form = a.getByRole('form', { name: 'Server' });
  await form.getByLabel('Name').fill('live-new');
  await form.getByLabel('Type').selectOption('6');
  await a.getByRole('button', { name: 'Save' }).click();
  await toast(a, MSG.saveServerOk);
  await b.locator('[data-group="DC-2"] tr[data-server="live-new"]').waitFor();

  // B's open Info dialog follows A's changes too.
  await b.getByRole('button', { name: 'Details live-new' }).click();
  await b.getByRole('dialog').getByText('Status').waitFor();
  const liveNew = (await ok('srv.getList')).find((s: any) => s.name === 'live-new').Id;
  await a.getByRole('switch', { name: 'Status live-new' }).click();
  await b.getByRole('dialog').locator('tr', { hasText: 'Status' }).getByText('off').waitFor();
  await b.getByRole('dialog').locator('.modal-footer').getByRole('button', { name: 'Close' }).click();

  // Removed by A: gone from B.
  await a.getByRole('button', { name: 'Delete live-new' }).click();
  await a.getByRole('button', { name: 'Yes' }).click();
  await b.locator('tr[data-server="live-new"]').waitFor({ state: 'detached' });
  expect((await ok('srv.getList')).some((s: any) => s.Id === liveNew)).toBe(false);
  expect(await b.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);

  // SSL list: A adds a host (and it is checked); B sees the row and its days left.
  await a.goto(t.url + '/srv/ssl_check');
  await b.goto(t.url + '/srv/ssl_check');
  await b.locator('.app-live[data-status="connected"]').waitFor();
  await b.evaluate(() => { (window as unknown as { marker: number }).marker = 43; });
  await a.getByLabel('Host', { exact: true }).fill(`localhost:${tls30.port}`);
  await a.getByRole('button', { name: 'Add' }).click();
  await b.locator(`tr[data-host="localhost:${tls30.port}"] [data-testid="day_last"]`, { hasText: /^\d+$/ }).waitFor();
  // A removes it: gone from B.
  await a.locator(`tr[data-host="localhost:${tls30.port}"]`).getByRole('button', { name: 'Delete' }).click();
  await a.getByRole('button', { name: 'Yes' }).click();
  await b.locator(`tr[data-host="localhost:${tls30.port}"]`).waitFor({ state: 'detached' });
  expect(await b.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(43);
}, T);

test('the map filter is in the URL: it survives a reload, can be shared, and an empty result says nothing matches', async () => {
  const page = await signedIn('/srv/srv_map');
  await page.locator('tr[data-server="web-1"]').waitFor();
  await page.getByLabel('Filter servers').fill('web');
  await page.waitForURL((u) => u.searchParams.get('q') === 'web');
  await page.waitForFunction(() => document.querySelectorAll('tr[data-server]').length === 2);
  expect(await rowNames(page)).toEqual(['web-1', 'web-2']);
  await page.reload();
  await page.locator('tr[data-server="web-1"]').waitFor();
  expect(await page.getByLabel('Filter servers').inputValue()).toBe('web');
  expect(await rowNames(page)).toEqual(['web-1', 'web-2']);

  // By address, from a shared link in another operator's browser.
  const other = await signedIn('/srv/srv_map?q=127.0.0.19', ADMIN2);
  await other.locator('tr[data-server="proxy-1"]').waitFor();
  expect(await rowNames(other)).toEqual(['proxy-1']);
  expect(await other.getByLabel('Filter servers').inputValue()).toBe('127.0.0.19');

  await page.getByLabel('Filter servers').fill('no-such-server');
  const none = page.locator('.app-srv-nomatch');
  await none.waitFor();
  expect(await none.textContent()).toContain('No server matches no-such-server');
  expect(await page.locator('.app-srv-group').count()).toBe(0);
  await page.reload();
  await none.waitFor();
  await page.getByRole('button', { name: 'Clear the filter' }).click();
  await page.locator('tr[data-server="web-1"]').waitFor();
  expect(pathOf(page)).toBe('/srv/srv_map');
  expect(await page.getByLabel('Filter servers').inputValue()).toBe('');
}, T);

test("a server's dialog opens from the URL (?server=, /srv/srv_map/Id, ?edit=) and closing it updates the URL", async () => {
  const id = ids['web-1'];
  const page = await signedIn(`/srv/srv_map?server=${id}`);
  const dialog = page.getByRole('dialog');
  await dialog.getByText('web-1 · ').waitFor();
  await dialog.locator('.modal-footer').getByRole('button', { name: 'Close' }).click();
  await dialog.waitFor({ state: 'detached' });
  expect(pathOf(page)).toBe('/srv/srv_map');

  await page.goto(`${t.url}/srv/srv_map/${id}`);
  await dialog.getByText('web-1 · ').waitFor();
  expect(pathOf(page)).toBe(`/srv/srv_map?server=${id}`);
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  expect(pathOf(page)).toBe('/srv/srv_map');

  // Opening from the map puts it in the URL (a link to share); Back closes it; the filter stays.
  await page.goto(`${t.url}/srv/srv_map?q=web`);
  await page.getByRole('button', { name: 'Details web-2' }).click();
  await dialog.getByText('web-2 · ').waitFor();
  expect(pathOf(page)).toBe(`/srv/srv_map?q=web&server=${ids['web-2']}`);
  await page.goBack();
  await dialog.waitFor({ state: 'detached' });
  expect(pathOf(page)).toBe('/srv/srv_map?q=web');

  // Info -> Edit -> Cencel returns to the map.
  await page.getByRole('button', { name: 'Details web-2' }).click();
  await dialog.getByRole('button', { name: 'Edit' }).click();
  await page.waitForURL((u) => u.searchParams.get('edit') === String(ids['web-2']));
  expect(await page.getByRole('form', { name: 'Server' }).getByLabel('Name').inputValue()).toBe('web-2');
  await page.getByRole('button', { name: 'Cencel' }).click();
  await dialog.waitFor({ state: 'detached' });
  expect(pathOf(page)).toBe('/srv/srv_map?q=web');

  // The edit dialog by link.
  await page.goto(`${t.url}/srv/srv_map?edit=${ids['proxy-1']}`);
  expect(await page.getByRole('form', { name: 'Server' }).getByLabel('Name').inputValue()).toBe('proxy-1');
  await page.getByRole('button', { name: 'Cencel' }).click();
  await dialog.waitFor({ state: 'detached' });
  expect(pathOf(page)).toBe('/srv/srv_map');

  // A server that does not exist: said so, and the URL drops it.
  await page.goto(`${t.url}/srv/srv_map?server=999999`);
  await toast(page, 'Server 999999 not found');
  await page.waitForURL((u) => !u.searchParams.has('server'));
}, T);

test('unsaved edits on cluster configs ask before leaving: dismiss stays, accept leaves; the tab close asks too', async () => {
  const seeded = await ok('cfg.insertConfigsBatch', [{ type: 'firewall_used_ip_drop', value: '1' }]);
  const row = seeded.list[0];
  const page = await signedIn('/srv/configs_global');
  const field = page.getByLabel(`value ${row.Id}`);
  await field.waitFor();

  // Nothing edited: leaving does not ask.
  const none = noDialogs(page);
  await page.locator('a.app-menu-link[href="/srv/ssl_check"]').click();
  await page.waitForURL((u) => u.pathname === '/srv/ssl_check');
  await page.locator('a.app-menu-link[href="/srv/configs_global"]').click();
  await field.waitFor();
  expect(none).toEqual([]);
  page.removeAllListeners('dialog');

  await field.click();
  await field.fill('0');
  let asked = nextDialog(page, 'dismiss');
  await page.locator('a.app-menu-link[href="/srv/srv_map"]').click();
  expect(await asked).toEqual({ type: 'confirm', message: UNSAVED_MESSAGE });
  expect(pathOf(page)).toBe('/srv/configs_global');
  expect(await field.inputValue()).toBe('0');

  // Closing the tab asks (beforeunload); dismissing keeps the page and the edit.
  asked = nextDialog(page, 'dismiss');
  await page.close({ runBeforeUnload: true });
  expect((await asked).type).toBe('beforeunload');
  expect(page.isClosed()).toBe(false);
  expect(await field.inputValue()).toBe('0');

  asked = nextDialog(page, 'accept');
  await page.locator('a.app-menu-link[href="/srv/srv_map"]').click();
  expect((await asked).message).toBe(UNSAVED_MESSAGE);
  await page.waitForURL((u) => u.pathname === '/srv/srv_map');
  await page.locator('.app-srv-map').waitFor();
  expect((await ok('cfg.getConfigs')).find((r: any) => r.Id === row.Id).value).toBe('1');

  // After a save nothing is pending: leaving does not ask.
  await page.goBack();
  await field.waitFor();
  const none2 = noDialogs(page);
  await field.fill('5');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await toast(page, MSG.updateOk);
  await page.locator('a.app-menu-link[href="/srv/srv_map"]').click();
  await page.waitForURL((u) => u.pathname === '/srv/srv_map');
  expect(none2).toEqual([]);
}, T);

test("cluster configs follow another operator's saves live, and pending edits are kept", async () => {
  const page = await signedIn('/srv/configs_global');
  await page.locator('.app-cfg-table').waitFor();
  await page.locator('.app-live[data-status="connected"]').waitFor();
  // Nothing pending here: another operator's insert shows without a reload.
  const added = (await ok('cfg.insertConfigsBatch', [{ type: 'domain', value: 'live.example' }])).list[0];
  const value = page.getByLabel(`value ${added.Id}`);
  await value.waitFor();
  expect(await value.inputValue()).toBe('live.example');
  // With an edit pending, a save elsewhere does not wipe it: the page says so and offers a reload.
  await value.fill('mine.example');
  await ok('cfg.updateConfigsBatch', [{ ...added, value: 'theirs.example' }]);
  await page.getByTestId('cfg-stale').waitFor();
  expect(await value.inputValue()).toBe('mine.example');
  await page.getByRole('button', { name: 'Reload (drops your edits)' }).click();
  await page.waitForFunction((id) => (document.querySelector(`textarea[aria-label="value ${id}"]`) as HTMLTextAreaElement | null)?.value === 'theirs.example', added.Id);
  expect(await page.getByTestId('cfg-stale').count()).toBe(0);
  await ok('cfg.removeConfigs', [added.Id]);
  await value.waitFor({ state: 'detached' });
}, T);

test('unsaved edits in the server dialog ask before Back or Cencel: dismiss stays, accept leaves', async () => {
  const page = await signedIn('/srv/srv_map');
  const dialog = page.getByRole('dialog');
  const form = page.getByRole('form', { name: 'Server' });
  await page.getByRole('button', { name: 'Edit web-1' }).click();
  await form.getByLabel('Name').click();
  await form.getByLabel('Name').fill('web-1-renamed');

  let asked = nextDialog(page, 'dismiss');
  await page.evaluate(() => history.back());
  expect(await asked).toEqual({ type: 'confirm', message: UNSAVED_MESSAGE });
  await page.waitForURL((u) => u.searchParams.get('edit') === String(ids['web-1']));
  expect(await form.getByLabel('Name').inputValue()).toBe('web-1-renamed');

  asked = nextDialog(page, 'dismiss');
  await page.getByRole('button', { name: 'Cencel' }).click();
  expect((await asked).message).toBe(UNSAVED_MESSAGE);
  expect(await form.getByLabel('Name').inputValue()).toBe('web-1-renamed');

  asked = nextDialog(page, 'dismiss');
  await page.close({ runBeforeUnload: true });
  expect((await asked).type).toBe('beforeunload');
  expect(page.isClosed()).toBe(false);

  asked = nextDialog(page, 'accept');
  await page.evaluate(() => history.back());
  expect((await asked).message).toBe(UNSAVED_MESSAGE);
  await dialog.waitFor({ state: 'detached' });
  expect(pathOf(page)).toBe('/srv/srv_map');
  expect((await ok('srv.get', { Id: ids['web-1'] })).name).toBe('web-1');

  // Saved edits and untouched forms close without asking.
  const none = noDialogs(page);
  await page.getByRole('button', { name: 'Edit web-1' }).click();
  await page.getByRole('button', { name: 'Cencel' }).click();
  await dialog.waitFor({ state: 'detached' });
  await page.getByRole('button', { name: 'Edit web-1' }).click();
  await form.getByLabel('Local IP').fill('127.0.0.111');
  await page.getByRole('button', { name: 'Save' }).click();
  await toast(page, MSG.saveServerOk);
  await dialog.waitFor({ state: 'detached' });
  expect(pathOf(page)).toBe('/srv/srv_map');
  expect((await ok('srv.get', { Id: ids['web-1'] })).ip_local).toBe('127.0.0.111');
  expect(none).toEqual([]);
}, T);

test("SSL 'Check now' and 'Check all now' answer with a notification: days left, or the failure", async () => {
  const closedPort = await freePort();
  const short = (await ok('srv.sslUpdateHost', { host: `localhost:${tls3.port}` })).Id;
  const refused = (await ok('srv.sslUpdateHost', { host: `127.0.0.1:${closedPort}` })).Id;
  const page = await signedIn('/srv/ssl_check');
  await page.locator(`tr[data-host="127.0.0.1:${closedPort}"]`).waitFor();

  await page.getByRole('button', { name: `Check localhost:${tls3.port}` }).click();
  const days = (await ok('srv.getSslHosts')).find((r: any) => r.Id === short).day_last;
  expect(days).toBeGreaterThanOrEqual(2);
  await toast(page, `localhost:${tls3.port}: ${days} days left`);
  expect(await page.locator('.app-notify', { hasText: `localhost:${tls3.port}: ${days} days left` }).first().getAttribute('data-type')).toBe('success');

  await page.getByRole('button', { name: `Check 127.0.0.1:${closedPort}` }).click();
  // The failure is told as a sentence (SSL_REASON_TEXT), not the TLS stack's raw text.
  await toast(page, `127.0.0.1:${closedPort}: check failed: ${SSL_REASON_TEXT.refused}`);
  expect(await page.locator('.app-notify', { hasText: 'check failed' }).first().getAttribute('data-type')).toBe('error');
  expect((await ok('srv.getSslHosts')).find((r: any) => r.Id === refused).error).toBe('Connection refused');

  await page.getByRole('button', { name: 'Check all now' }).click();
  await toast(page, `Checked 2 hosts, 1 failed: 127.0.0.1:${closedPort} (${SSL_REASON_TEXT.refused}); soonest expiry: localhost:${tls3.port} (${days} days left)`);

  // Without the failing host: a success.
  await ok('srv.sslDeleteById', { Id: refused });
  await page.locator(`tr[data-host="127.0.0.1:${closedPort}"]`).waitFor({ state: 'detached' });
  await page.getByRole('button', { name: 'Check all now' }).click();
  await toast(page, `Checked 1 host; soonest expiry: localhost:${tls3.port} (${days} days left)`);
  await screenshot(page, 'srv-ssl-notify');
}, T);
