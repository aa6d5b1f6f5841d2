/**
 * Cron screens in a real browser (Debian's Chromium via playwright-core) against the real app
 * (startApp serves dist/ui: run `npm run build:ui` first): create a task through the shared add/edit
 * screen (validation shown per field), see its card turn green while it runs, on a second operator's
 * screen too, and back when it ends; history with the output tail; kill; pause/resume; the service
 * switch; edit; delete. A role-100 user gets the 403 page.
 */
/// <reference lib="dom" />
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Locator, Page } from 'playwright-core';
import { CRON_LABELS, type CronAction } from '../../src/contracts/cron.js';
import { UNSAVED_MESSAGE } from '../../src/ui/kit/useUnsavedPrompt.js';
import { waitFor } from '../helpers/wait.js';
import { startApp, ADMIN, type TestApp } from '../helpers/app.js';
import { expectNoPageErrors, launchBrowser, loginAs, newPage, openSignedIn, screenshot } from '../helpers/browser.js';

const T = 90_000;

let t: TestApp;
let browser: Browser;
const pages: Page[] = [];
const hanging = new Set<ServerResponse>();
let peerUrl = '';
const peer = createServer((req, res) => {
  const u = new URL(req.url ?? '/', 'http://x');
  if (u.pathname === '/slow') setTimeout(() => res.end('slow done'), Number(u.searchParams.get('ms') ?? 2500));
  else if (u.pathname === '/never') hanging.add(res);
  else res.end('ok');
});

async function adminPage(path: string): Promise<Page> {
  const page = await openSignedIn(browser, t.url, path, ADMIN.login, ADMIN.password);
  pages.push(page);
  return page;
}
const toast = (page: Page, text: string) => page.locator('.app-notify', { hasText: text }).first().waitFor();
const card = (page: Page, name: string): Locator => page.locator(`.app-cron-card[data-name="${name}"]`);
const bg = (l: Locator) => l.evaluate((el) => getComputedStyle(el).backgroundColor);

beforeAll(async () => {
  await new Promise<void>((r) => peer.listen(0, '127.0.0.1', r));
  peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
  t = await startApp();
  browser = await launchBrowser();
}, T);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  for (const r of hanging) r.destroy();
  peer.closeAllConnections();
  await new Promise((r) => peer.close(r));
});

// No uncaught exception or console error in any page of the test.
afterEach(() => expectNoPageErrors(pages));

test('create a task, see it turn green while it runs (for every operator), history, kill, pause, edit, delete', async () => {
  const page = await adminPage('/cfg/app_cron');
  await page.getByText('No cron tasks yet.').waitFor();

  // Add: the shared screen, with the spec's defaults; validation per field.
  await page.getByRole('link', { name: CRON_LABELS.addNew }).click();
  await page.waitForURL((u) => u.pathname === '/cfg/app_cron/add');
  const form = page.getByRole('form', { name: 'Cron task' });
  expect(await form.getByLabel('second').inputValue()).toBe('0');
  for (const f of ['minute', 'hour', 'day', 'month', 'week']) expect(await form.getByLabel(f).inputValue()).toBe('*');
  await form.getByRole('button', { name: 'Save' }).click();
  await form.getByText(CRON_LABELS.nameRequired).waitFor();
  await form.getByText(CRON_LABELS.cmdRequired).waitFor();
  await form.getByLabel('Name').fill('Slow hook');
  await form.getByLabel('second').fill('75');
  await form.getByText("second '75' is not valid", { exact: false }).waitFor();
  await form.getByLabel('Command').fill(`curl=${peerUrl}/slow|arg=ms=2500`);
  await form.getByTestId('cmd-preview').getByText(`GET ${peerUrl}/slow?ms=2500`).waitFor();
  await form.getByRole('button', { name: 'Save' }).click();
  await form.getByText("second '75' is not valid", { exact: false }).waitFor();
  await form.getByLabel('second').fill('0');
  await form.getByTestId('next-runs').waitFor();
  await screenshot(page, 'cron-add');
  // An unknown action is refused by the server, shown under the command.
  await form.getByLabel('Command').fill('path=srv/action|method=noSuchThing');
  await form.getByRole('button', { name: 'Save' }).click();
  await form.getByText("cmd: unknown action 'srv/action.noSuchThing'", { exact: false }).first().waitFor();
  await form.getByLabel('Command').fill(`curl=${peerUrl}/slow|arg=ms=2500`);
  await form.getByLabel('Paused (suspended)').check();
  await form.getByRole('button', { name: 'Save' }).click();
  await toast(page, CRON_LABELS.saveOk);
  await page.waitForURL((u) => u.pathname === '/cfg/app_cron');
  const c = card(page, 'Slow hook');
  await c.waitFor();
  expect(await c.getByTestId('schedule').textContent()).toBe('0 * * * * *');
  expect(await c.getByTestId('cmd').textContent()).toBe(`curl=${peerUrl}/slow|arg=ms=2500`);
  expect(await c.getByText('Paused', { exact: true }).count()).toBe(1);
  const idle = await bg(c);

  // A second operator watches the same list.
  const other = await adminPage('/cfg/app_cron');
  const c2 = card(other, 'Slow hook');
  await c2.waitFor();

  // Run now: green while it runs, on both screens; back when it ends, with the outcome.
  await c.getByRole('button', { name: 'Run now' }).click();
  await page.locator('.app-cron-card[data-name="Slow hook"][data-running="1"]').waitFor({ timeout: 5_000 });
  await other.locator('.app-cron-card[data-name="Slow hook"][data-running="1"]').waitFor({ timeout: 5_000 });
  const green = await bg(c);
  expect(green).not.toBe(idle);
  expect(green).toBe(await bg(c2));
  expect(green).toMatch(/^rgb\(2\d\d, 2\d\d, 2\d\d\)$/); // a light tint ...
  const [r, g, b] = green.match(/\d+/g)!.map(Number);
  expect(g).toBeGreaterThan(r); // ... of green
  expect(g).toBeGreaterThan(b);
  await screenshot(page, 'cron-running');
  expect(await c.getByRole('button', { name: 'Kill' }).isEnabled()).toBe(true);
  await page.locator('.app-cron-card[data-name="Slow hook"][data-running="0"]').waitFor({ timeout: 10_000 });
  await other.locator('.app-cron-card[data-name="Slow hook"][data-running="0"]').waitFor({ timeout: 10_000 });
  expect(await bg(c)).toBe(idle);
  await c.locator('[data-status="ok"]').waitFor();
  await c.getByTestId('last').getByText('HTTP 200 OK').waitFor();
  expect(await c.getByRole('button', { name: 'Kill' }).isDisabled()).toBe(true);

  // History with the output tail.
  await c.getByRole('button', { name: 'History' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.locator('tr[data-status="ok"]').first().waitFor();
  await dialog.getByRole('button', { name: 'Output' }).first().click();
  expect(await dialog.getByTestId('run-output').first().textContent()).toBe('slow done');
  await screenshot(page, 'cron-history');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });

  // Edit (the name opens the shared screen): a request that never answers; then run and kill it.
  await c.getByRole('link', { name: 'Edit Slow hook' }).click();
  await page.waitForURL((u) => /^\/cfg\/app_cron\/edit\/\d+$/.test(u.pathname));
  const edit = page.getByRole('form', { name: 'Cron task' });
  expect(await edit.getByLabel('Name').inputValue()).toBe('Slow hook');
  await edit.getByLabel('Name').fill('Hanging hook');
  await edit.getByLabel('Command').fill(`curl=${peerUrl}/never`);
  await edit.getByRole('button', { name: 'Save' }).click();
  await toast(page, CRON_LABELS.saveOk);
  await page.waitForURL((u) => u.pathname === '/cfg/app_cron');
  const h = card(page, 'Hanging hook');
  await h.waitFor();
  expect(await card(page, 'Slow hook').count()).toBe(0);
  await card(other, 'Hanging hook').waitFor(); // the other screen re-read the list after the change
  await h.getByRole('button', { name: 'Run now' }).click();
  await page.locator('.app-cron-card[data-name="Hanging hook"][data-running="1"]').waitFor({ timeout: 5_000 });
  await h.getByRole('button', { name: 'Kill' }).click();
  await toast(page, 'Hanging hook: Killed');
  await page.locator('.app-cron-card[data-name="Hanging hook"][data-running="0"]').waitFor({ timeout: 5_000 });
  await h.locator('[data-status="killed"]').waitFor();
  await screenshot(page, 'cron-killed');

  // Pause / resume.
  await h.getByRole('button', { name: 'Resume' }).click();
  await toast(page, CRON_LABELS.saveOk);
  await h.getByRole('button', { name: 'Pause' }).waitFor();
  expect(await h.getByTestId('next').textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:00$/);
  await h.getByRole('button', { name: 'Pause' }).click();
  await h.getByRole('button', { name: 'Resume' }).waitFor();

  // The service switch, seen by the other operator too.
  await page.getByLabel('Cron service on').click();
  await page.getByLabel('Cron service off').waitFor();
  await other.getByLabel('Cron service off').waitFor();
  await other.getByText('The cron service is off', { exact: false }).waitFor();
  await page.getByLabel('Cron service off').click();
  await page.getByLabel('Cron service on').waitFor();

  // Delete from the edit screen: back to the list, the card is gone.
  await h.getByRole('link', { name: 'Edit Hanging hook' }).click();
  await page.waitForURL((u) => u.pathname.startsWith('/cfg/app_cron/edit/'));
  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('button', { name: 'Yes' }).click();
  await toast(page, CRON_LABELS.deleteOk);
  await page.waitForURL((u) => u.pathname === '/cfg/app_cron');
  await page.getByText('No cron tasks yet.').waitFor();
  await other.getByText('No cron tasks yet.').waitFor();
}, T);

test('a role-100 user gets the 403 page and no cron menu item', async () => {
  await t.session(100);
  const page = await newPage(browser);
  pages.push(page);
  await loginAs(page, t.url, 'user100', 'user100-password-1');
  for (const path of ['/cfg/app_cron', '/cfg/app_cron/add', '/cfg/app_cron/edit/1']) {
    await page.goto(t.url + path);
    await page.locator('.app-forbidden').waitFor();
    expect(await page.locator('.app-cron-card, form[aria-label="Cron task"]').count()).toBe(0);
  }
  expect(await page.locator('a[href="/cfg/app_cron"]').count()).toBe(0);
}, T);

test('the form suggests only the actions that exist (from the registry); a suggested action saves and runs', async () => {
  const actions = await t.ok<CronAction[]>((await t.session(1)).hash, 'cron.getActions');
  const page = await adminPage('/cfg/app_cron/add');
  const form = page.getByRole('form', { name: 'Cron task' });
  const select = form.getByTestId('cron-action-select');
  await select.locator('option[value="srv.sslCheckAll"]').waitFor({ state: 'attached' });
  const offered = (await select.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))).filter(Boolean);
  expect([...offered].sort()).toEqual(actions.map((a) => a.name).sort());
  // The example in the command field names an action that exists and saves as it is (the one it
  // showed before named a method that did not exist).
  const example = actions.find((a) => a.args.length === 0)!;
  const placeholder = (await form.getByLabel('Command').getAttribute('placeholder')) ?? '';
  expect(placeholder.startsWith(`${example.cmd} `)).toBe(true);

  // Issue 18: cat.update was offered as if it ran bare and every run failed. Now the picker names what
  // it needs, the example never names it, the form says so as typed, and the server refuses the save.
  expect(await select.locator('option[value="cat.update"]').textContent()).toBe('cat.update (needs cat_title)');
  expect(placeholder).not.toContain('method=update');
  await form.getByLabel('Name').fill('Bare category update');
  await form.getByLabel('Command').fill('path=cat|method=update');
  await form.getByTestId('cron-action-needs').getByText('does not run without arguments: it needs cat_title', { exact: false }).waitFor();
  await form.getByRole('button', { name: 'Save' }).click();
  await form.getByText("arguments of 'cat.update': cat_title: cat_title is required", { exact: false }).first().waitFor();
  await screenshot(page, 'cron-action-needs');
  await select.selectOption('cat.update');
  expect(await form.getByLabel('Command').inputValue()).toBe('path=cat|method=update|arg=cat_title=');
  expect(await form.getByTestId('cron-action-needs').count()).toBe(0);
  await form.getByLabel('Name').fill('');

  // A cmd naming no action of the console is flagged as typed; picking one fills the command.
  await form.getByLabel('Command').fill('path=srv/action|method=noSuchThing');
  await form.getByTestId('cron-action-unknown').getByText('srv/action.noSuchThing').waitFor();
  await select.selectOption('srv.remove_server_by_id');
  expect(await form.getByLabel('Command').inputValue()).toBe('path=srv|method=remove_server_by_id|arg=Id=');
  await select.selectOption('srv.sslCheckAll');
  expect(await form.getByLabel('Command').inputValue()).toBe('path=srv|method=sslCheckAll');
  expect(await form.getByTestId('cron-action-unknown').count()).toBe(0);
  await form.getByTestId('cmd-preview').getByText('srv.sslCheckAll').waitFor();
  await form.getByTestId('cron-action-summary').waitFor();

  await form.getByLabel('Name').fill('SSL sweep');
  await form.getByLabel('Paused (suspended)').check();
  await form.getByRole('button', { name: 'Save' }).click();
  await toast(page, CRON_LABELS.saveOk);
  await page.waitForURL((u) => u.pathname === '/cfg/app_cron');
  const c = card(page, 'SSL sweep');
  expect(await c.getByTestId('cmd').textContent()).toBe('path=srv|method=sslCheckAll');
  await c.getByRole('button', { name: 'Run now' }).click();
  await c.locator('[data-status="ok"]').waitFor();

  // Editing it shows the action picked.
  await c.getByRole('link', { name: 'Edit SSL sweep' }).click();
  await page.waitForURL((u) => u.pathname.startsWith('/cfg/app_cron/edit/'));
  await page.getByRole('form', { name: 'Cron task' }).getByTestId('cron-action-select').locator('option[value="srv.sslCheckAll"]').waitFor({ state: 'attached' });
  expect(await page.getByTestId('cron-action-select').inputValue()).toBe('srv.sslCheckAll');
  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('button', { name: 'Yes' }).click();
  await toast(page, CRON_LABELS.deleteOk);
  await page.waitForURL((u) => u.pathname === '/cfg/app_cron');
}, T);

test('the cron form asks before unsaved edits are lost (links, back, closing the tab), not when nothing changed or after a save', async () => {
  const page = await adminPage('/cfg/app_cron');
  const asked: string[] = [];
  let answer = false;
  page.on('dialog', (d) => {
    asked.push(`${d.type()}: ${d.message()}`);
    void (answer ? d.accept() : d.dismiss());
  });
  const form = page.getByRole('form', { name: 'Cron task' });
  const toAdd = async () => {
    await page.getByRole('link', { name: CRON_LABELS.addNew }).click();
    await page.waitForURL((u) => u.pathname === '/cfg/app_cron/add');
    await form.getByLabel('Name').waitFor();
  };

  // Nothing typed: leaving asks nothing.
  await toAdd();
  await page.getByRole('link', { name: 'Back' }).click();
  await page.waitForURL((u) => u.pathname === '/cfg/app_cron');
  expect(asked).toEqual([]);

  // Typed: Back asks; Cancel keeps the page and the edits; so does the browser's back button.
  await toAdd();
  await form.getByLabel('Name').fill('Draft task');
  await page.getByRole('link', { name: 'Back' }).click();
  await waitFor('the question', () => asked.length === 1);
  expect(asked).toEqual([`confirm: ${UNSAVED_MESSAGE}`]);
  expect(new URL(page.url()).pathname).toBe('/cfg/app_cron/add');
  expect(await form.getByLabel('Name').inputValue()).toBe('Draft task');
  await page.goBack();
  await waitFor('the second question', () => asked.length === 2);
  await page.waitForURL((u) => u.pathname === '/cfg/app_cron/add'); // the router puts the URL back
  expect(await form.getByLabel('Name').inputValue()).toBe('Draft task');
  // Closing the tab asks the browser's own question.
  await page.close({ runBeforeUnload: true });
  await waitFor('the close question', () => asked.length === 3);
  expect(asked[2]).toMatch(/^beforeunload: /);
  expect(page.isClosed()).toBe(false);
  // OK leaves, and nothing was saved.
  answer = true;
  await page.locator('aside.app-sidebar').getByRole('link', { name: 'Cron' }).click();
  await page.waitForURL((u) => u.pathname === '/cfg/app_cron');
  expect(asked).toHaveLength(4);
  expect(await card(page, 'Draft task').count()).toBe(0);

  // A save leaves without asking; an edit screen untouched leaves without asking, changed it asks.
  answer = false;
  await toAdd();
  await form.getByLabel('Name').fill('Saved task');
  await form.getByLabel('Command').fill('path=srv|method=sslCheckAll');
  await form.getByLabel('Paused (suspended)').check();
  await form.getByRole('button', { name: 'Save' }).click();
  await page.waitForURL((u) => u.pathname === '/cfg/app_cron');
  await card(page, 'Saved task').getByRole('link', { name: 'Edit Saved task' }).click();
  await page.waitForURL((u) => u.pathname.startsWith('/cfg/app_cron/edit/'));
  expect(await form.getByLabel('Name').inputValue()).toBe('Saved task');
  await page.getByRole('link', { name: 'Back' }).click();
  await page.waitForURL((u) => u.pathname === '/cfg/app_cron');
  expect(asked).toHaveLength(4);
  await card(page, 'Saved task').getByRole('link', { name: 'Edit Saved task' }).click();
  await form.getByLabel('hour').fill('3');
  await page.getByRole('link', { name: 'Back' }).click();
  await waitFor('the edit question', () => asked.length === 5);
  expect(new URL(page.url()).pathname).toMatch(/^\/cfg\/app_cron\/edit\/\d+$/);
  // Putting the value back makes the form clean again.
  await form.getByLabel('hour').fill('*');
  await page.getByRole('link', { name: 'Back' }).click();
  await page.waitForURL((u) => u.pathname === '/cfg/app_cron');
  expect(asked).toHaveLength(5);
}, T);
