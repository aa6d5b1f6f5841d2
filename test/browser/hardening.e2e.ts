/**
 * Issue 7 in a real browser (Chromium via playwright-core, the built UI from dist/ui: run
 * `npm run build:ui` first): the cron edit form shows a URL's credentials masked, saving the form
 * unchanged keeps them (the runner still authenticates), and "Remove credentials" clears them. The
 * page never holds the password. The UI's own writes pass the JSON-only, same-site checks.
 */
/// <reference lib="dom" />
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import type { CronRunView, CronTaskView } from '../../src/contracts/cron.js';
import { CRON_LABELS } from '../../src/contracts/cron.js';
import { ADMIN, startApp, type TestApp } from '../helpers/app.js';
import { expectNoPageErrors, launchBrowser, openSignedIn } from '../helpers/browser.js';
import { waitFor } from '../helpers/wait.js';

const T = 90_000;

let t: TestApp;
let browser: Browser;
let admin: string;
const pages: Page[] = [];
const seen: Array<string | undefined> = [];
const peer = createServer((req, res) => {
  seen.push(req.headers.authorization);
  const ok = req.headers.authorization === 'Basic ' + Buffer.from('user:s3cret').toString('base64');
  res.statusCode = ok ? 200 : 401;
  res.end(ok ? 'welcome' : 'no');
});
let port = 0;

beforeAll(async () => {
  await new Promise<void>((r) => peer.listen(0, '127.0.0.1', r));
  port = (peer.address() as AddressInfo).port;
  t = await startApp();
  admin = (await t.session(1)).hash;
  browser = await launchBrowser();
}, T);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  peer.closeAllConnections();
  await new Promise((r) => peer.close(r));
});

afterEach(() => expectNoPageErrors(pages));

async function runOnce(Id: number): Promise<CronRunView> {
  const before = (await t.ok<{ count: number }>(admin, 'cron.getRuns', { Id })).count;
  await t.ok(admin, 'cron.executeTask', { Id });
  return waitFor('the run', async () => {
    const r = await t.ok<{ count: number; list: CronRunView[] }>(admin, 'cron.getRuns', { Id });
    return r.count > before && r.list[0];
  });
}

test('the cron form keeps masked URL credentials on save and removes them on request', async () => {
  const { Id } = await t.ok<{ Id: number }>(admin, 'cfg.saveAppCron', { name: 'Hook with creds', cmd: `curl=http://user:s3cret@127.0.0.1:${port}/hook`, suspended: 1 });
  const page = await openSignedIn(browser, t.url, `/cfg/app_cron/edit/${Id}`, ADMIN.login, ADMIN.password);
  pages.push(page);
  const form = page.getByRole('form', { name: 'Cron task' });
  const cmd = form.getByLabel('Command');
  await form.getByTestId('url-credentials').waitFor();
  expect(await cmd.inputValue()).toBe(`curl=http://user:***@127.0.0.1:${port}/hook`);
  await form.getByTestId('url-credentials').getByText('leave *** to keep them', { exact: false }).waitFor();
  expect(await page.content()).not.toContain('s3cret');

  // Save with another name, the command untouched: the credentials are kept.
  await form.getByLabel('Name').fill('Hook renamed');
  await form.getByRole('button', { name: 'Save' }).click();
  await page.locator('.app-notify', { hasText: CRON_LABELS.saveOk }).first().waitFor();
  await page.waitForURL((u) => u.pathname === '/cfg/app_cron');
  expect(await runOnce(Id)).toMatchObject({ status: 'ok' });
  expect(seen.at(-1)).toBe('Basic ' + Buffer.from('user:s3cret').toString('base64'));

  // Remove them: the command loses its user part, the task runs without Authorization.
  await page.goto(`${t.url}/cfg/app_cron/edit/${Id}`);
  await form.getByTestId('url-credentials').getByRole('button', { name: 'Remove credentials' }).click();
  expect(await cmd.inputValue()).toBe(`curl=http://127.0.0.1:${port}/hook`);
  await form.getByRole('button', { name: 'Save' }).click();
  await page.waitForURL((u) => u.pathname === '/cfg/app_cron');
  const task = await t.ok<CronTaskView>(admin, 'cfg.getAppCron', { Id });
  expect(task.cmd).toBe(`curl=http://127.0.0.1:${port}/hook`);
  expect(await runOnce(Id)).toMatchObject({ status: 'error', message: 'HTTP 401 Unauthorized' });
  expect(seen.at(-1)).toBeUndefined();
}, T);
