/**
 * /ant ('Ant v2') and /proxy/add in a real Chromium against the real app (issue 24; docs/ant.md), with
 * three real reference ants connected to the app's hub: a queued task live in the task list and stats,
 * AI accounts (preload list, password never shown), the worker switch, the proxy-usage select followed on
 * a second operator's page, connections listed live, per-ant stop/start,
 * smooth start over the three stopped ants (the button shows '(Running...)', a second run cancelled),
 * Restart all behind its confirm, the log modal (not loaded, loaded, Output/Error, Lines number),
 * only-step (entries not above 0 dropped, live on a second operator's page), a disconnected ant listed
 * apart; /proxy/add: lines of the wrong part count dropped and listed, 'Wait insert N row', then the
 * answer; the stored proxies in the /ant proxy list with their passwords masked.
 */
/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { ANT_PAGE_TITLE, proxyWaitMessage } from '../../src/contracts/ant.js';
import { ADMIN, startApp, type TestApp } from '../helpers/app.js';
import { startAnt, type TestAnt } from '../helpers/ant.js';
import { expectNoPageErrors, launchBrowser, screenshot, signedInPage } from '../helpers/browser.js';
import { waitFor } from '../helpers/wait.js';

const T = 120_000;
let t: TestApp;
let browser: Browser;
let admin: string;
const pages: Page[] = [];
const ants: TestAnt[] = [];

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  admin = (await t.session(1)).hash;
  browser = await launchBrowser();
}, T);
afterAll(async () => {
  for (const a of ants) await a.stop().catch(() => undefined);
  await browser?.close();
  await t?.close();
});
afterEach(() => expectNoPageErrors(pages));

const open = (path: string) => signedInPage(browser, pages, t.url, path, ADMIN);
const toast = (page: Page, text: string | RegExp) => page.locator('.app-notify', { hasText: text }).first().waitFor();
const row = (page: Page, name: string) => page.getByTestId('ant-connections').locator(`.app-ant-connections tr[data-ant="${name}"]`);

test('/proxy/add: wrong lines dropped and listed, Wait insert N row, the answer; duplicates update; passwords masked on /ant', async () => {
  const page = await open('/proxy/add');
  await page.getByRole('heading', { name: 'Proxy add' }).waitFor();
  const batch = page.locator('textarea[name="batch"]');
  await batch.fill(['10.0.0.1:3128:alice:s3cret-one', '10.0.0.2:3129:bob:s3cret-two', '10.0.0.3:3128:carol', '', 'junk line'].join('\n'));
  await page.getByTestId('proxy-valid-count').getByText('2 rows to insert').waitFor();
  const dropped = page.getByTestId('proxy-dropped');
  await dropped.getByText('2 lines dropped', { exact: false }).waitFor();
  await dropped.getByText('line 3: 10.0.0.3:3128:carol', { exact: false }).waitFor();
  await dropped.getByText('line 5: junk line', { exact: false }).waitFor();

  // Another pattern re-reads the same text: login:pass:ip:port takes none of these lines as they are.
  await page.getByLabel('Pattern').selectOption('login:pass:ip:port');
  await page.getByTestId('proxy-valid-count').getByText('0 rows to insert').waitFor();
  await page.getByLabel('Pattern').selectOption('ip:port:login:pass');

  // Hold the POST until the waiting text has been seen (the insert itself is the server's).
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await page.route('**/api/proxy/add', async (route) => {
    await held;
    await route.continue();
  });
  await page.getByRole('button', { name: 'Add' }).click();
  await page.getByTestId('proxy-outcome').getByText(proxyWaitMessage(2)).waitFor();
  await screenshot(page, 'proxy-add-wait');
  release();
  await page.getByTestId('proxy-outcome').getByText('inserted 2', { exact: false }).waitFor();
  await page.unroute('**/api/proxy/add');

  // The same address again updates (no second row).
  await batch.fill('10.0.0.1:3128:alice:s3cret-new');
  await page.getByRole('button', { name: 'Add' }).click();
  await page.getByTestId('proxy-outcome').getByText('updated 1', { exact: false }).waitFor();

  // /ant lists them: count, ip, login, the password masked (never in clear on the page).
  await page.goto(t.url + '/ant');
  const list = page.getByTestId('ant-proxy-list');
  await list.getByText('10.0.0.2:3129').waitFor();
  expect(await list.locator('.card-header .badge').innerText()).toBe('2');
  await list.getByText('alice').waitFor();
  const html = await page.content();
  expect(html).not.toContain('s3cret');
  expect(await list.getByText('***').count()).toBe(2);
  await page.close();
}, T);

test('/ant: three ants live, stop/start, smooth start (and its cancel), Restart all, the log modal, only-step, a disconnected ant apart', async () => {
  const { token } = await t.ok<{ token: string }>(admin, 'ant.createToken', { name: 'ui-test' });
  for (const name of ['ant-a', 'ant-b', 'ant-c']) ants.push(await startAnt({ hubUrl: t.url, token, name }));

  const page = await open('/ant');
  await page.getByRole('heading', { name: ANT_PAGE_TITLE }).waitFor();
  expect(await page.title()).toContain(ANT_PAGE_TITLE);
  for (const n of ['ant-a', 'ant-b', 'ant-c']) await row(page, n).waitFor();
  await screenshot(page, 'ant-page');
  // Ants connect stopped: each row offers Start, none Stop.
  for (const n of ['ant-a', 'ant-b', 'ant-c']) {
    await row(page, n).getByRole('button', { name: `Start ${n}` }).waitFor();
    expect(await row(page, n).getByRole('button', { name: `Stop ${n}` }).count()).toBe(0);
  }

  // A queued task (step 23: no reference ant works it, so it stays queued) appears live in the task list and the stats.
  await t.ok(admin, 'ant.addTask', { step: 23, item: 'https://books.example/queue-me' });
  await page.getByTestId('ant-task-list').getByText('https://books.example/queue-me').waitFor();
  await page.getByTestId('ant-task-stats').locator('tr[data-step="23"]').getByText('queue book scan tasks').waitFor();
  await waitFor('step 23 counted', async () => (await page.getByTestId('ant-task-stats').locator('tr[data-step="23"] td').last().innerText()) === '1');

  // AI accounts: the preload list read again on demand; the password never shown.
  await t.ok(admin, 'ant.addAiAccount', { login: 'ai-user', pass: 'ai-secret-pass-1' });
  await page.getByTestId('ant-ai-accounts').getByRole('button', { name: 'Preload list' }).click();
  await page.getByTestId('ant-ai-accounts').getByText('ai-user').waitFor();
  expect(await page.content()).not.toContain('ai-secret-pass-1');

  // Worker switch: Start -> status ok, Stop shown.
  const worker = page.getByTestId('ant-worker');
  await worker.getByRole('button', { name: 'Start' }).click();
  await worker.getByTestId('ant-worker-status').getByText('ok').waitFor();
  await worker.getByRole('button', { name: 'Stop' }).waitFor();
  await toast(page, 'Worker start: status ok');

  // Only-step: entries not above 0 (and non-numbers) dropped; a second operator's page follows live.
  const other = await open('/ant');
  await other.getByTestId('ant-only-step-current').getByText('now: every step').waitFor();
  await page.locator('#ant-only-step').fill(' 8, 0, -3, x, 1 ,8');
  await page.getByRole('form', { name: 'Only step' }).getByRole('button', { name: 'Set' }).click();
  await page.getByTestId('ant-only-step-current').getByText('now: 8,1').waitFor();
  expect(await page.locator('#ant-only-step').inputValue()).toBe('8,1');
  await other.getByTestId('ant-only-step-current').getByText('now: 8,1').waitFor();
  expect(await other.locator('#ant-only-step').inputValue()).toBe('8,1');
  // The proxy-usage select: set here, followed on the other page (server.change).
  await page.getByLabel('Proxy usage').selectOption({ label: 'Used unique' });
  await toast(page, 'Proxy usage: Used unique');
  await waitFor('usage on the other page', async () => (await other.getByLabel('Proxy usage').inputValue()) === '2');
  await page.getByLabel('Proxy usage').selectOption({ label: 'Not used' });
  await waitFor('usage back', async () => (await other.getByLabel('Proxy usage').inputValue()) === '0');
  // Empty is allowed: every step again.
  await page.locator('#ant-only-step').fill('');
  await page.getByRole('form', { name: 'Only step' }).getByRole('button', { name: 'Set' }).click();
  await other.getByTestId('ant-only-step-current').getByText('now: every step').waitFor();
  await other.close();

  // Smooth start over the three stopped ants: '(Running...)' while it runs, then every ant started.
  const smooth = page.getByTestId('ant-smooth-start');
  await smooth.click();
  await smooth.getByText('Smooth start (Running...)').waitFor();
  await toast(page, 'Smooth start: 3 ants started');
  await smooth.getByText('Smooth start', { exact: true }).waitFor();
  for (const n of ['ant-a', 'ant-b', 'ant-c']) await row(page, n).getByRole('button', { name: `Stop ${n}` }).waitFor();

  // Per-ant stop shows the ant's answer and the row turns stopped.
  await row(page, 'ant-b').getByRole('button', { name: 'Stop ant-b' }).click();
  await toast(page, /Stop ant-b: Stopped/);
  await row(page, 'ant-b').getByRole('button', { name: 'Start ant-b' }).waitFor();

  // Stop all, then a smooth start cancelled at once: exactly the first ant is started.
  await page.getByRole('button', { name: 'Stop all' }).click();
  await toast(page, /Stop all: \d+ of \d+ ok/);
  for (const n of ['ant-a', 'ant-b', 'ant-c']) await row(page, n).getByRole('button', { name: `Start ${n}` }).waitFor();
  await smooth.click();
  await smooth.getByText('Smooth start (Running...)').waitFor();
  // From the keyboard: a pointer click would wait for the notifications stacked over the card's header to go.
  await smooth.press('Enter');
  await toast(page, 'Smooth start: cancelled after 1 ant started');
  await waitFor('one ant started', async () => (await page.locator('.app-ant-connections tr[data-ant^="ant-"][data-stopped="0"]').count()) === 1);
  expect(await page.locator('.app-ant-connections tr[data-ant^="ant-"][data-stopped="1"]').count()).toBe(2);

  // Restart all asks first (Cencel keeps everything), then answers per ant.
  await page.getByRole('button', { name: 'Restart all' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByText('Restart all ants?').waitFor();
  await dialog.getByRole('button', { name: 'Yes' }).click();
  await toast(page, /Restart all: \d+ of \d+ ok/);

  // The log modal: not loaded (Start), loaded (the ant's own lines), Error stream, Lines number.
  await row(page, 'ant-a').getByRole('button', { name: 'Log ant-a' }).click();
  const modal = page.getByRole('dialog');
  const log = modal.getByTestId('ant-log');
  expect(await log.getAttribute('data-state')).toBe('idle');
  await modal.getByRole('button', { name: 'Start' }).click();
  await waitFor('log loaded', async () => (await log.getAttribute('data-state')) === 'loaded');
  await screenshot(page, 'ant-log');
  const outText = await log.innerText();
  expect(outText.length).toBeGreaterThan(0);
  await modal.getByRole('button', { name: 'Error' }).click();
  await waitFor('error log loaded', async () => (await log.getAttribute('data-state')) === 'loaded' && (await modal.getByRole('button', { name: 'Error' }).getAttribute('aria-pressed')) === 'true');
  await modal.getByRole('button', { name: 'Output' }).click();
  await modal.getByLabel('Lines number').fill('1');
  await modal.getByRole('button', { name: 'set' }).click();
  await waitFor('one line', async () => (await log.getAttribute('data-state')) === 'loaded' && (await log.locator('pre').innerText()).split('\n').length === 1);
  await page.keyboard.press('Escape');
  await modal.waitFor({ state: 'hidden' });

  // An ant that goes away is listed apart, under Disconnect.
  await ants.find((a) => a.name === 'ant-c')!.stop();
  await row(page, 'ant-c').waitFor({ state: 'detached' });
  await page.getByRole('button', { name: /^Disconnect \(\d+\)/ }).click();
  await page.getByTestId('ant-disconnected').locator('tr[data-ant="ant-c"]').waitFor();
  await page.close();
}, T);
