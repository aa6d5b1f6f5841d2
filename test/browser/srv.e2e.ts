/**
 * Servers and cluster screens in a real browser (Debian's Chromium via playwright-core) against the real
 * app (startApp serves dist/ui: run `npm run build:ui` first): the map groups a seeded set of servers
 * (FREE included), status survives a reload, the balancer feeds the upstream preview, edit with
 * validation, create, clone, delete; SSL banner from real TLS servers; cluster config rows; a role-100
 * user can neither open the pages nor call the methods.
 */
/// <reference lib="dom" />
import { createServer as createTcpServer, type Socket } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { SSL_REASON_TEXT } from '../../src/contracts/srv.js';
import { MSG } from '../../src/contracts/messages.js';
import { startApp, ADMIN, type TestApp } from '../helpers/app.js';
import { expectNoPageErrors, launchBrowser, loginAs, newPage, openSignedIn, screenshot } from '../helpers/browser.js';
import { startTlsServer, type TlsPeer } from '../helpers/tls.js';

const T = 60_000;

let t: TestApp;
let browser: Browser;
let admin: string;
let tls3: TlsPeer;
let tls30: TlsPeer;
const pages: Page[] = [];
const ids: Record<string, number> = {};

const ok = <T = any>(method: string, args?: unknown) => t.ok<T>(admin, method, args);

async function adminPage(path: string): Promise<Page> {
  const page = await openSignedIn(browser, t.url, path, ADMIN.login, ADMIN.password);
  pages.push(page);
  return page;
}

const rowNames = (page: Page, group: string, type: number) =>
  page.locator(`[data-group="${group}"] [data-type="${type}"] tr[data-server]`).evaluateAll((els) => els.map((e) => e.getAttribute('data-server')));
const toast = (page: Page, text: string) => page.locator('.app-notify', { hasText: text }).first().waitFor();

beforeAll(async () => {
  [tls3, tls30] = await Promise.all([startTlsServer({ days: 3 }), startTlsServer({ days: 30 })]);
  t = await startApp({ CRON_ENABLED: '0' });
  browser = await launchBrowser();
  admin = (await t.session(1)).hash;
  const seed: Array<[string, Record<string, unknown>]> = [
    ['DC-2', { type: 0, ip: '192.0.2.2' }],
    ['DC-1', { type: 0, ip: '192.0.2.1' }],
  ];
  for (const [name, f] of seed) ids[name] = (await ok('srv.save_server', { name, ...f })).Id;
  const children: Array<[string, Record<string, unknown>]> = [
    ['web-2', { type: 8, cod: ids['DC-1'], ip_local: '10.0.0.2', sshpass: 'seed-secret-pass' }],
    ['web-1', { type: 8, cod: ids['DC-1'], ip_local: '10.0.0.1', sshport: 22 }],
    ['proxy-1', { type: 1, cod: ids['DC-1'], ip_local: '10.0.0.9' }],
    ['db-1', { type: 6, cod: ids['DC-2'], ip_local: '10.0.1.1' }],
    ['orphan-node', { type: 9, cod: 987654 }],
    ['loose-cache', { type: 10, cod: 0 }],
  ];
  for (const [name, f] of children) ids[name] = (await ok('srv.save_server', { name, ...f })).Id;
}, T);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await tls3?.stop();
  await tls30?.stop();
});

// No uncaught exception or console error in any page of the test.
afterEach(() => expectNoPageErrors(pages));

test('the map groups servers by parent then type, unknown parents under FREE (last)', async () => {
  const page = await adminPage('/srv/srv_map');
  await page.locator('[data-group="FREE"]').waitFor();
  const groups = await page.locator('.app-srv-group').evaluateAll((els) => els.map((e) => e.getAttribute('data-group')));
  expect(groups).toEqual(['DC-1', 'DC-2', 'FREE']);
  expect(await page.locator('[data-group="DC-1"] [data-type]').evaluateAll((els) => els.map((e) => e.getAttribute('data-type')))).toEqual(['1', '8']);
  expect(await rowNames(page, 'DC-1', 8)).toEqual(['web-1', 'web-2']);
  expect(await rowNames(page, 'DC-1', 1)).toEqual(['proxy-1']);
  expect(await rowNames(page, 'DC-2', 6)).toEqual(['db-1']);
  expect(await rowNames(page, 'FREE', 9)).toEqual(['orphan-node']);
  expect(await rowNames(page, 'FREE', 10)).toEqual(['loose-cache']);
  // Each row: name, on/off switch, local ip, ssh port; balancer only on web, firewall log only on proxy.
  const web1 = page.locator('tr[data-server="web-1"]');
  expect(await web1.locator('td').nth(2).textContent()).toBe('10.0.0.1');
  expect(await web1.locator('td').nth(3).textContent()).toBe('22');
  expect(await page.getByRole('switch', { name: 'Balancer web-1' }).count()).toBe(1);
  expect(await page.getByRole('switch', { name: 'Firewall log web-1' }).count()).toBe(0);
  expect(await page.getByRole('switch', { name: 'Firewall log proxy-1' }).count()).toBe(1);
  expect(await page.getByRole('button', { name: 'Terminal web-1' }).isDisabled()).toBe(false); // opens /srv/terminal?ids= (test/browser/terminal.e2e.ts)
  // Secrets never reach the page.
  expect(await page.content()).not.toContain('seed-secret-pass');
  await screenshot(page, 'srv-map');
}, T);

test('toggling status saves {Id, status} and survives a reload; the balancer feeds the upstream preview', async () => {
  const page = await adminPage('/srv/srv_map');
  const sw = page.getByRole('switch', { name: 'Status web-2' });
  expect(await sw.isChecked()).toBe(true);
  await sw.click();
  await toast(page, MSG.saveServerOk);
  await page.reload();
  await page.getByRole('switch', { name: 'Status web-2' }).waitFor();
  expect(await page.getByRole('switch', { name: 'Status web-2' }).isChecked()).toBe(false);
  expect((await ok('srv.get', { Id: ids['web-2'] })).status).toBe(0);

  expect(await page.locator('.app-srv-upstream').textContent()).toContain('No web server has the balancer on.');
  await page.getByRole('switch', { name: 'Balancer web-2' }).click();
  await page.locator('.app-srv-upstream-text', { hasText: 'server 10.0.0.2:443 max_fails=10 fail_timeout=120s weight=5 down; # web-2' }).waitFor();
  expect(await page.locator('.app-srv-upstream-text').textContent()).toContain('upstream web_80 {');
  await page.getByRole('switch', { name: 'Firewall log proxy-1' }).click();
  await page.waitForFunction(() => document.querySelectorAll('.app-notify').length >= 2);
  expect((await ok('srv.get', { Id: ids['proxy-1'] })).read_nginx_log_firewall).toBe(1);
}, T);

test('edit: validation messages, then save; the password is write-only', async () => {
  const page = await adminPage('/srv/srv_map');
  await page.getByRole('button', { name: 'Edit web-2' }).click();
  const form = page.getByRole('form', { name: 'Server' });
  await form.waitFor();
  await form.getByTestId('sshpass-set').waitFor();
  expect(await form.getByLabel('SSH password').inputValue()).toBe('');
  await form.getByLabel('Local IP').fill('10.0.0.300');
  await form.getByLabel('SSH port').fill('70000');
  await form.getByLabel('Name').fill('');
  await page.getByRole('button', { name: 'Save' }).click();
  await form.locator('.invalid-feedback', { hasText: 'Local IP must be an IPv4 or IPv6 address' }).waitFor();
  await form.locator('.invalid-feedback', { hasText: 'SSH port is at most 65535' }).waitFor();
  await form.locator('.invalid-feedback', { hasText: 'Name is required' }).waitFor();
  await form.getByLabel('Name').fill('web-2b');
  await form.getByLabel('Local IP').fill('10.0.0.22');
  await form.getByLabel('SSH port').fill('2202');
  await page.getByRole('button', { name: 'Save' }).click();
  await toast(page, MSG.saveServerOk);
  await page.locator('tr[data-server="web-2b"]').waitFor();
  const s = await ok('srv.get', { Id: ids['web-2'] });
  expect(s).toMatchObject({ name: 'web-2b', ip_local: '10.0.0.22', sshport: 2202, cod: ids['DC-1'], has_sshpass: true });
  // A name taken by another server: the server's 409 shows under the field.
  await page.getByRole('button', { name: 'Edit web-2b' }).click();
  await form.getByLabel('Name').fill('WEB-1');
  await page.getByRole('button', { name: 'Save' }).click();
  await form.locator('.invalid-feedback', { hasText: "A server named 'WEB-1' already exists" }).waitFor();
}, T);

test('create under a parent, clone with a new name, delete with the confirm dialog', async () => {
  const page = await adminPage('/srv/srv_map');
  await page.getByRole('button', { name: 'Add server under DC-2' }).click();
  const form = page.getByRole('form', { name: 'Server' });
  await form.getByLabel('Name').fill('db-2');
  await form.getByLabel('Type').selectOption('6');
  expect(await form.getByLabel('Parent').inputValue()).toBe(String(ids['DC-2']));
  await form.getByLabel('Local IP').fill('10.0.1.2');
  await page.getByRole('button', { name: 'Save' }).click();
  await toast(page, MSG.saveServerOk);
  await page.waitForFunction(() => document.querySelectorAll('[data-group="DC-2"] [data-type="6"] tr[data-server]').length === 2);
  expect(await rowNames(page, 'DC-2', 6)).toEqual(['db-1', 'db-2']);

  await page.getByRole('button', { name: 'Clone web-1' }).click();
  await page.getByRole('button', { name: 'Clone', exact: true }).click();
  await page.locator('[data-group="DC-1"] tr[data-server="web-1-clone"]').waitFor();
  const clone = (await ok('srv.getList')).find((s: any) => s.name === 'web-1-clone');
  expect(clone).toMatchObject({ type: 8, cod: ids['DC-1'], ip_local: '10.0.0.1', sshport: 22 });

  await page.getByRole('button', { name: 'Delete web-1-clone' }).click();
  await page.getByRole('button', { name: 'Yes' }).click();
  await toast(page, MSG.deleteOk);
  await page.locator('tr[data-server="web-1-clone"]').waitFor({ state: 'detached' });
  expect((await ok('srv.getList')).some((s: any) => s.name === 'web-1-clone')).toBe(false);
  const audit = await ok('audit.getList', { method: 'srv.remove_server_by_id' });
  expect(audit.list[0]).toMatchObject({ outcome: 'ok', login: 'admin' });
}, T);

test('detail dialog shows the fields and the SSH test reason', async () => {
  const page = await adminPage('/srv/srv_map');
  await page.getByRole('button', { name: 'Details loose-cache' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByText('10 · MemCache').waitFor();
  await dialog.getByRole('button', { name: 'Test SSH' }).click();
  await dialog.getByTestId('ssh-test-result').getByText('No IP address is set for this server').waitFor();
}, T);

test('SSL check: the banner lists a 3-day certificate and not a 30-day one', async () => {
  const page = await adminPage('/srv/ssl_check');
  for (const peer of [tls3, tls30]) {
    await page.getByLabel('Host', { exact: true }).fill(`localhost:${peer.port}`);
    await page.getByRole('button', { name: 'Add' }).click();
    await page.locator(`tr[data-host="localhost:${peer.port}"] [data-testid="day_last"]`, { hasText: /^\d+$/ }).waitFor();
  }
  const banner = page.locator('.app-ssl-alert');
  await banner.waitFor();
  expect(await banner.textContent()).toContain(`localhost:${tls3.port}`);
  expect(await banner.textContent()).not.toContain(`localhost:${tls30.port}`);
  expect(Number(await page.locator(`tr[data-host="localhost:${tls30.port}"] [data-testid="day_last"]`).textContent())).toBeGreaterThanOrEqual(29);
  // Not check takes it out of the alert.
  await page.getByRole('switch', { name: `Not check localhost:${tls3.port}` }).click();
  await banner.waitFor({ state: 'detached' });
  await page.reload();
  await page.locator(`tr[data-host="localhost:${tls3.port}"]`).waitFor();
  expect(await page.locator('.app-ssl-alert').count()).toBe(0);
  await page.getByLabel('Host', { exact: true }).fill('not a host');
  await page.getByRole('button', { name: 'Add' }).click();
  await page.getByText('Host must be a host name or address').waitFor();
  await screenshot(page, 'srv-ssl');
}, T);

test('SSL check: a failure reads as a sentence, the raw OpenSSL text behind a details toggle (issue 18)', async () => {
  // A port that answers plain HTTP, as a site whose HTTPS was pointed at port 80.
  const open = new Set<Socket>();
  const plain = createTcpServer((c) => { open.add(c); c.on('error', () => undefined); c.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n'); });
  await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
  const host = `127.0.0.1:${(plain.address() as { port: number }).port}`;
  try {
    for (const width of [1280, 390]) {
      const page = await adminPage('/srv/ssl_check');
      if (width !== 1280) await page.setViewportSize({ width, height: 844 });
      if (width === 1280) {
        await page.getByLabel('Host', { exact: true }).fill(host);
        await page.getByRole('button', { name: 'Add' }).click();
      }
      const row = page.locator(`tr[data-host="${host}"]`);
      const failed = row.getByTestId('ssl-error');
      await failed.getByText(SSL_REASON_TEXT.wrong_version, { exact: false }).waitFor();
      expect(await failed.getAttribute('data-reason')).toBe('wrong_version');
      expect(await failed.textContent()).not.toMatch(/SSL routines/);
      const raw = row.getByTestId('ssl-raw');
      expect(await raw.locator('code').isVisible()).toBe(false);
      await raw.locator('summary').click();
      await raw.locator('code', { hasText: 'wrong version number' }).waitFor();
      await screenshot(page, `srv-ssl-reason-${width}`);
    }
  } finally {
    for (const c of open) c.destroy();
    await new Promise((r) => plain.close(r));
  }
}, T);

test("cluster configs: new rows insert, edited rows update, deleted rows are hidden and removed on Save", async () => {
  const seeded = await ok('cfg.insertConfigsBatch', [{ type: 'firewall_used_ip_drop', value: '1' }, { type: 'domain', value: 'old.example' }]);
  const [fw, dom] = seeded.list;
  const page = await adminPage('/srv/configs_global');
  await page.locator(`tr[data-row="${fw.Id}"]`).waitFor();
  // 'Deploy configs' (test/browser/logs.e2e.ts) waits while edits are unsaved.
  expect(await page.getByRole('button', { name: 'Deploy configs' }).isDisabled()).toBe(false);
  await page.getByLabel(`value ${fw.Id}`).fill('0');
  expect(await page.getByRole('button', { name: 'Deploy configs' }).isDisabled()).toBe(true);
  await page.getByRole('button', { name: `Delete row ${dom.Id}` }).click();
  await page.locator(`tr[data-row="${dom.Id}"]`).waitFor({ state: 'detached' });
  await page.getByRole('button', { name: 'Add row' }).click();
  await page.locator('tr[data-row="new"] input').fill('domain');
  await page.locator('tr[data-row="new"] textarea').fill('new.example');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await toast(page, MSG.insertOk);
  await toast(page, MSG.updateOk);
  await toast(page, MSG.deleteOk);
  expect(await ok('cfg.getConfigs')).toEqual([
    { Id: expect.any(Number), type: 'domain', value: 'new.example' },
    { ...fw, value: '0' },
  ]);
  expect(await ok('cfg.getDomains')).toEqual([{ domain: 'new.example' }]);
  await page.reload();
  expect(await page.getByLabel(`value ${fw.Id}`).inputValue()).toBe('0');
}, T);

test('a role-100 user can neither open the pages nor call the methods', async () => {
  const user = await t.session(100);
  const page = await newPage(browser);
  pages.push(page);
  await loginAs(page, t.url, 'user100', 'user100-password-1');
  for (const path of ['/srv/srv_map', '/srv/ssl_check', '/srv/configs_global']) {
    await page.goto(t.url + path);
    await page.locator('.app-forbidden').waitFor();
    expect(await page.locator('.app-srv-group, .app-ssl-table, .app-cfg-table').count()).toBe(0);
  }
  const menu = await page.locator('a[href^="/srv/"]').count();
  expect(menu).toBe(0);
  for (const m of ['srv.servers_map', 'srv.save_server', 'srv.getSslHosts', 'cfg.getConfigs']) {
    const r = await t.rpc<any>(user.hash, m, { Id: ids['web-1'], status: 0 });
    expect([m, r.status]).toEqual([m, 403]);
  }
  expect((await ok('srv.get', { Id: ids['web-1'] })).status).toBe(1);
}, T);
