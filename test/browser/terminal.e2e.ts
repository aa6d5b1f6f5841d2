/**
 * Terminals in a real browser (Debian's Chromium) against the real app and two real OpenSSH servers on
 * loopback: the server map's Terminal button opens the grid on that node, `echo hello` typed into
 * xterm.js shows hello, the Rows and Cols options stay in the URL; the mass terminal writes one line to
 * two nodes (one audit row per host); the recording replays what was typed. Needs `npm run build:ui`.
 */
/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { ADMIN, startApp, type TestApp } from '../helpers/app.js';
import { expectNoPageErrors, launchBrowser, MOBILE, pathOf, screenshot, signedInPage } from '../helpers/browser.js';
import { startSshd, type Sshd } from '../helpers/sshd.js';

const T = 60_000;

let t: TestApp;
let browser: Browser;
let admin: string;
let a: Sshd;
let b: Sshd;
const pages: Page[] = [];
const ids = { n1: 0, n2: 0 };

/** The visible text of a pane's xterm rows (the DOM renderer), one string per row. */
const rowsOf = (page: Page, pane: string) =>
  page.locator(`[data-terminal="${pane}"] .xterm-rows > div`).evaluateAll((els) => els.map((e) => (e.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd()));

async function waitRow(page: Page, pane: string, test: (row: string) => boolean, what: string) {
  // xterm.js renders only while the terminal is in the viewport.
  await page.locator(`[data-terminal="${pane}"]`).scrollIntoViewIfNeeded();
  for (let i = 0; i < 100; i++) {
    if ((await rowsOf(page, pane)).some(test)) return;
    await page.waitForTimeout(100);
  }
  throw new Error(`${what} never showed in ${pane}: ${JSON.stringify(await rowsOf(page, pane))}`);
}

beforeAll(async () => {
  [a, b] = await Promise.all([startSshd(), startSshd()]);
  t = await startApp({ CRON_ENABLED: '0' });
  browser = await launchBrowser();
  admin = (await t.session(1)).hash;
  const save = async (name: string, d: Sshd) =>
    (await t.ok<{ Id: number }>(admin, 'srv.save_server', { name, type: 9, ip: '127.0.0.1', sshport: d.port, sshlogin: d.user, sshpass: d.password })).Id;
  ids.n1 = await save('tb-n1', a);
  ids.n2 = await save('tb-n2', b);
}, T);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await Promise.all([a?.stop(), b?.stop()]);
});

afterEach(() => expectNoPageErrors(pages));

test('the map\'s Terminal button opens the grid; echo hello shows hello; Rows and Cols stay in the URL', async () => {
  const page = await signedInPage(browser, pages, t.url, '/srv/srv_map', ADMIN);
  await page.getByRole('button', { name: 'Terminal tb-n1' }).click();
  await page.waitForURL((u) => u.pathname === '/srv/terminal' && u.searchParams.get('ids') === String(ids.n1));
  const pane = page.locator('[data-terminal="tb-n1"]');
  await page.locator('[data-terminal="tb-n1"][data-status="open"]').waitFor({ timeout: 20_000 });
  expect(await pane.locator('.app-term-status').textContent()).toBe('connected');
  // 48 rows, font 13 (000 §2).
  expect(await pane.locator('.xterm-rows > div').count()).toBe(48);
  // typed before the shell's first prompt, the output would share a row with that prompt
  await waitRow(page, 'tb-n1', (r) => /[$#]$/.test(r), 'the first prompt');
  await pane.locator('.xterm').click();
  await page.keyboard.type('echo hello');
  await page.keyboard.press('Enter');
  await waitRow(page, 'tb-n1', (r) => r === 'hello', 'the line hello');
  expect((await rowsOf(page, 'tb-n1')).some((r) => r.endsWith('echo hello'))).toBe(true);
  await screenshot(page, 'terminal-grid');

  await page.getByLabel('Rows').selectOption('0.5');
  await page.waitForURL((u) => u.searchParams.get('rows') === '0.5');
  await page.waitForFunction(() => document.querySelectorAll('[data-terminal="tb-n1"] .xterm-rows > div').length === 24);
  await page.getByLabel('Cols').selectOption('2');
  await page.waitForURL((u) => u.searchParams.get('cols') === '2');
  // A reload keeps the grid: the same node, the same options (a new shell).
  await page.reload();
  expect(pathOf(page)).toBe(`/srv/terminal?ids=${ids.n1}&rows=0.5&cols=2`);
  await page.locator('[data-terminal="tb-n1"][data-status="open"]').waitFor({ timeout: 20_000 });
  expect(await page.locator('[data-terminal="tb-n1"] .xterm-rows > div').count()).toBe(24);
}, T);

test('mass terminal: one line to two nodes, each pane shows its node\'s answer; one audit row per host', async () => {
  const page = await signedInPage(browser, pages, t.url, '/srv/MassTerminal', ADMIN);
  await page.getByText('No server type chosen').waitFor();
  await page.getByLabel('Server type').selectOption({ label: 'Node' });
  await page.waitForURL((u) => u.searchParams.get('type') === '9');
  // (the boxes follow the URL: a click shows once the navigation is applied)
  for (const n of ['tb-n1', 'tb-n2']) {
    await page.getByLabel(n).click();
    await page.getByLabel(n).and(page.locator(':checked')).waitFor();
  }
  for (const n of ['tb-n1', 'tb-n2']) await page.locator(`[data-terminal="${n}"][data-status="open"]`).waitFor({ timeout: 20_000 });
  await page.getByText('2/2 open').waitFor();
  // Run once (the deploy area's panel) works on the same chosen nodes, below the input line.
  await page.getByText('on 2 nodes').waitFor();
  for (const n of ['tb-n1', 'tb-n2']) await waitRow(page, n, (r) => /[$#]$/.test(r), `${n}'s first prompt`);
  const line = page.getByLabel('Command line for all selected nodes');
  await line.fill('echo mass-$((6*7)) $(whoami)');
  await line.press('Enter');
  await waitRow(page, 'tb-n1', (r) => r === `mass-42 ${a.user}`, 'n1 answer');
  await waitRow(page, 'tb-n2', (r) => r === `mass-42 ${b.user}`, 'n2 answer');
  expect(await line.inputValue()).toBe('');
  await screenshot(page, 'mass-terminal');
  const audit = await t.ok<{ list: Array<{ target: string; args: string }> }>(admin, 'audit.getList', { method: 'node_control.mass_write', limit: 10 });
  expect(audit.list.map((r) => r.target).sort()).toEqual([`server tb-n1 (#${ids.n1})`, `server tb-n2 (#${ids.n2})`]);
  expect(audit.list.every((r) => JSON.parse(r.args).line === 'echo mass-$((6*7)) $(whoami)')).toBe(true);
}, T);

test('recordings: listed per server, and the replay shows what was typed and echoed', async () => {
  const page = await signedInPage(browser, pages, t.url, `/srv/terminal/recordings?server_id=${ids.n1}`, ADMIN);
  const rows = page.locator('table tbody tr');
  await rows.first().waitFor();
  // The grid's two sessions and the mass terminal's one on tb-n1; none of tb-n2.
  expect(await rows.count()).toBe(3);
  expect(await page.locator('table tbody', { hasText: 'tb-n2' }).count()).toBe(0);
  await rows.last().click(); // the oldest: the grid session where `echo hello` was typed
  await page.waitForURL((u) => /^\/srv\/terminal\/recordings\/\d+$/.test(u.pathname));
  await page.getByLabel('Speed').selectOption('8');
  await page.getByText('End of recording').waitFor({ timeout: 30_000 });
  const replay = await page.locator('[data-testid="replay-terminal"] .xterm-rows > div').evaluateAll((els) => els.map((e) => (e.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd()));
  expect(replay.some((r) => r.endsWith('echo hello'))).toBe(true);
  expect(replay).toContain('hello');
  await screenshot(page, 'terminal-replay');

  // The audit row of the session links to its recording.
  const opened = await t.ok<{ list: Array<{ Id: number; args: string }> }>(admin, 'audit.getList', { method: 'node_control.connect', limit: 50 });
  const row = opened.list.at(-1)!; // the first shell: the grid's on tb-n1
  const recording = JSON.parse(row.args).recording as number;
  await page.goto(`${t.url}/audit?id=${row.Id}`);
  await page.getByRole('link', { name: `Replay the terminal session #${recording}` }).click();
  await page.waitForURL((u) => u.pathname === `/srv/terminal/recordings/${recording}`);
  await page.getByText('End of recording').waitFor({ timeout: 30_000 });
}, T);

test('mobile: one tab per node, font 12', async () => {
  const page = await signedInPage(browser, pages, t.url, `/srv/terminal?ids=${ids.n1},${ids.n2}`, ADMIN, MOBILE);
  await page.getByRole('tab', { name: 'tb-n2' }).waitFor();
  expect(await page.locator('[data-terminal="tb-n1"]').isVisible()).toBe(true);
  expect(await page.locator('[data-terminal="tb-n2"]').isVisible()).toBe(false);
  await page.getByRole('tab', { name: 'tb-n2' }).click();
  await page.locator('[data-terminal="tb-n2"][data-status="open"]').waitFor({ timeout: 20_000 });
  expect(await page.locator('[data-terminal="tb-n2"]').isVisible()).toBe(true);
  expect(await page.locator('[data-terminal="tb-n2"] .xterm-rows').evaluate((e) => getComputedStyle(e).fontSize)).toBe('12px');
}, T);
