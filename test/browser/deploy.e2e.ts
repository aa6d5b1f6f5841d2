/**
 * Deploy, run once and the server console in a real browser (Debian's Chromium) against the real app
 * and two real OpenSSH servers on loopback as the web servers of one host (run `npm run build:ui`
 * first): a test pass turns the card of the node that passes green with 'Test deploy: OK!' and the one
 * that fails red; a deploy asks first, clears the logs of the test pass and streams its lines; the
 * history lists both; run once shows identical outputs as one group; the console tails each node.
 */
/// <reference lib="dom" />
import { mkdtempSync, chmodSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startApp, ADMIN, type TestApp } from '../helpers/app.js';
import { expectNoPageErrors, launchBrowser, pathOf, screenshot, signedInPage } from '../helpers/browser.js';
import { startSshd, type Sshd } from '../helpers/sshd.js';

const T = 90_000;

let t: TestApp;
let browser: Browser;
let admin: string;
let a: Sshd;
let b: Sshd;
let dir: string;
const pages: Page[] = [];

beforeAll(async () => {
  [a, b] = await Promise.all([startSshd(), startSshd()]);
  t = await startApp({ CRON_ENABLED: '0' });
  browser = await launchBrowser();
  admin = (await t.session(1)).hash;
  const host = (await t.ok<{ Id: number }>(admin, 'srv.save_server', { name: 'bw-host', type: 0 })).Id;
  for (const [name, s] of [['bw-web1', a], ['bw-web2', b], ['bw-dev', a]] as const) {
    await t.ok(admin, 'srv.save_server', { name, type: 8, cod: host, ip: '127.0.0.1', sshport: s.port, sshlogin: s.user, sshpass: s.password });
  }
  dir = mkdtempSync(join(tmpdir(), 'bw-log-'));
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, 'app.log'), Array.from({ length: 160 }, (_, i) => `log line ${i + 1}`).join('\n') + '\n', { mode: 0o644 });
  await t.ok(admin, 'cfg.insertConfigsBatch', [
    { type: 'deploy_web_test', value: `[ "$(whoami)" != "${b.user}" ] || { echo "tests failed"; exit 1; }` },
    { type: 'deploy_web', value: 'echo fetching; echo built-ok' },
    { type: 'console_app', value: `shop|${join(dir, 'app.log')}` },
  ]);
}, T);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await Promise.all([a?.stop(), b?.stop()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

afterEach(() => expectNoPageErrors(pages));

const card = (page: Page, node: string) => page.locator(`[data-testid="deploy-card"][data-node="${node}"]`);

describe('deploy in the browser', () => {
  test('test pass: green with Test deploy: OK! where it passes, red where it fails; dev servers hidden', async () => {
    const page = await signedInPage(browser, pages, t.url, '/srv/deploy/web_test?host=bw-host', ADMIN);
    await card(page, 'bw-web1').waitFor();
    expect(await page.locator('[data-testid="deploy-card"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-node')))).toEqual(['bw-web1', 'bw-web2']);
    await expect(card(page, 'bw-web1').getByTestId('deploy-result').textContent()).resolves.toBe('--');
    await page.getByTestId('deploy-test').click();
    await card(page, 'bw-web1').and(page.locator('[data-status="ok"]')).waitFor({ timeout: 30_000 });
    await card(page, 'bw-web2').and(page.locator('[data-status="fail"]')).waitFor({ timeout: 30_000 });
    await expect(card(page, 'bw-web1').getByTestId('deploy-test-ok').textContent()).resolves.toBe('Test deploy: OK!');
    expect(await card(page, 'bw-web2').getByTestId('deploy-test-ok').count()).toBe(0);
    await expect(card(page, 'bw-web2').getByTestId('deploy-log').textContent()).resolves.toContain('tests failed');
    await card(page, 'bw-web2').getByTestId('deploy-result').filter({ hasText: 'exit code 1' }).waitFor();
    await page.getByTestId('deploy-history').locator('tbody tr').filter({ hasText: 'web_test' }).first().waitFor();
    await screenshot(page, 'deploy-test');
  }, T);

  test('deploy asks first, then the logs of the test pass clear and the lines stream; the history lists it', async () => {
    const page = await signedInPage(browser, pages, t.url, '/srv/deploy/web_test?host=bw-host', ADMIN);
    await page.getByTestId('deploy-test').click();
    await card(page, 'bw-web2').and(page.locator('[data-status="fail"]')).waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Deploy to every web server of this host?').waitFor();
    // Cencel (000 §2) leaves everything as it was.
    await dialog.getByRole('button', { name: 'Cencel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(pathOf(page)).toBe('/srv/deploy/web_test?host=bw-host');
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Deploy' }).click();
    await page.waitForURL((u) => u.pathname === '/srv/deploy/web');
    for (const n of ['bw-web1', 'bw-web2']) {
      await card(page, n).and(page.locator('[data-status="ok"]')).waitFor({ timeout: 30_000 });
      const log = await card(page, n).getByTestId('deploy-log').textContent();
      expect(log).toContain('built-ok');
      expect(log).not.toContain('tests failed');
      await expect(card(page, n).getByTestId('deploy-result').textContent()).resolves.toBe('ok');
    }
    await page.getByTestId('deploy-history').locator('tbody tr').filter({ hasText: 'web' }).filter({ hasText: 'ok' }).first().waitFor();
  }, T);

  test('run once on the host: identical outputs as one group, different ones apart, with exit codes', async () => {
    const page = await signedInPage(browser, pages, t.url, '/srv/deploy/web?host=bw-host', ADMIN);
    const panel = page.getByTestId('run-once-panel');
    await panel.getByTestId('run-once-cmd').fill('echo same-output');
    await panel.getByTestId('run-once-submit').click();
    const group = panel.getByTestId('run-once-group');
    await group.first().waitFor({ timeout: 30_000 });
    expect(await group.count()).toBe(1);
    await expect(group.getByTestId('run-once-output').textContent()).resolves.toBe('same-output');
    expect(await group.locator('[data-host]').evaluateAll((els) => els.map((e) => e.getAttribute('data-host')))).toEqual(['bw-web1', 'bw-web2']);

    await panel.getByTestId('run-once-cmd').fill(`whoami; [ "$(whoami)" = "${b.user}" ] && exit 5; true`);
    await panel.getByTestId('run-once-submit').click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="run-once-group"]').length === 2, undefined, { timeout: 30_000 });
    await expect(group.nth(0).getByTestId('run-once-output').textContent()).resolves.toBe(a.user);
    await expect(group.nth(1).getByTestId('run-once-code').textContent()).resolves.toBe('exit 5');
  }, T);

  test('server console: each node panel shows the last 150 lines of the log', async () => {
    const page = await signedInPage(browser, pages, t.url, '/srv/console', ADMIN);
    await page.getByTestId('console-app').selectOption('shop');
    await page.waitForURL((u) => u.search === '?app=shop');
    for (const n of ['bw-web1', 'bw-web2']) {
      const panel = page.locator(`[data-testid="console-panel"][data-node="${n}"]`);
      await panel.getByTestId('console-log').filter({ hasText: 'log line 160' }).waitFor({ timeout: 20_000 });
      const text = (await panel.getByTestId('console-log').textContent()) ?? '';
      expect(text).toContain('log line 11\n');
      expect(text).not.toContain('log line 10\n');
    }
    await page.getByTestId('console-close').click();
    await page.waitForURL((u) => u.search === '');
  }, T);
});
