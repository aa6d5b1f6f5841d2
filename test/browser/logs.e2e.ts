/**
 * Node logs and 'Deploy configs' in a real browser against the real app and two real node agents on
 * loopback (run `npm run build` first): /logs shows a panel per node, open a node's log, follow it
 * while lines are appended, filter, remove it (confirm); 'Deploy configs' on /srv/configs_global runs
 * the test pass on two nodes (one fails its test), then Deploy.
 */
/// <reference lib="dom" />
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startApp, ADMIN, type TestApp } from '../helpers/app.js';
import { startTestAgent, type TestAgent } from '../helpers/agents.js';
import { startHeldAgent } from '../helpers/fakes/agent.js';
import { expectNoPageErrors, launchBrowser, MOBILE, openSignedIn, signedInPage } from '../helpers/browser.js';
import { waitFor } from '../helpers/wait.js';

const T = 90_000;
const KEY = 'browser-cluster-key-0123456789';

let t: TestApp;
let browser: Browser;
let a: TestAgent;
let b: TestAgent;
const pages: Page[] = [];
let admin = '';

beforeAll(async () => {
  a = await startTestAgent({ hostname: 'web-a', key: KEY });
  b = await startTestAgent({ hostname: 'web-b', key: KEY, configDir: false }); // fails its deploy test
  t = await startApp({ CRON_ENABLED: '0' });
  admin = (await t.session(1)).hash;
  await t.ok(admin, 'srv.save_server', { name: 'main-cluster', type: 2, cluster_key: KEY });
  await t.ok(admin, 'srv.save_server', { name: 'web-a', type: 8, agent_url: a.url });
  await t.ok(admin, 'srv.save_server', { name: 'web-b', type: 9, agent_url: b.url });
  browser = await launchBrowser();
}, T);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await Promise.all([a?.close(), b?.close()]);
});
afterEach(() => expectNoPageErrors(pages));

async function adminPage(path: string): Promise<Page> {
  const page = await openSignedIn(browser, t.url, path, ADMIN.login, ADMIN.password);
  pages.push(page);
  return page;
}

test('open a node log, follow it while lines are appended, filter, remove it', async () => {
  const file = join(a.logs, 'app.log');
  writeFileSync(file, Array.from({ length: 300 }, (_, i) => `old line ${i}`).join('\n') + '\n');
  writeFileSync(join(b.logs, 'other.log'), 'x'.repeat(3 * 1024 * 1024));
  const page = await adminPage('/logs');
  const pa = page.getByTestId('log-panel-web-a');
  const pb = page.getByTestId('log-panel-web-b');
  await pa.getByRole('link', { name: 'app.log' }).waitFor();
  await pb.getByText('3.0 MB').waitFor(); // 000 §9: MB above 1024 kb
  await pa.getByText('3.7 kb').waitFor();

  await pa.getByRole('link', { name: 'app.log' }).click();
  await page.waitForURL((u) => u.pathname === '/logs/open' && u.searchParams.get('name') === 'app.log' && u.searchParams.get('node') === 'web-a');
  const lines = page.getByTestId('log-lines');
  await lines.getByText('old line 299').waitFor();
  expect(await lines.textContent()).not.toContain('old line 99\n'); // 200 lines (000 §9)
  expect((await lines.textContent())!.split('\n')).toHaveLength(200);

  // The output/error switch (000 §3 Ant-log options), kept in the URL: app.log has no error counterpart.
  await page.getByRole('button', { name: 'error', exact: true }).click();
  await page.waitForURL((u) => u.searchParams.get('type') === 'error');
  await page.getByText('File not found').waitFor();
  await page.getByRole('button', { name: 'output', exact: true }).click();
  await page.waitForURL((u) => !u.searchParams.has('type'));
  await lines.getByText('old line 299').waitFor();

  await page.getByLabel('Follow').check();
  await page.getByTestId('follow-live').waitFor();
  appendFileSync(file, 'fresh line one\nfresh line two\n');
  await lines.getByText('fresh line two').waitFor();
  appendFileSync(file, 'fresh line three\n');
  await lines.getByText('fresh line three').waitFor();

  await page.getByLabel('Filter lines').fill('fresh');
  await waitFor('filtered', async () => (await lines.textContent()) === 'fresh line one\nfresh line two\nfresh line three');
  expect(new URL(page.url()).searchParams.get('q')).toBe('fresh');

  await page.getByRole('button', { name: 'Remove' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Yes' }).click();
  await page.waitForURL((u) => u.pathname === '/logs');
  await waitFor('file deleted on the node', () => !existsSync(file));
  await pa.getByText('Empty').waitFor();

  // Back on the removed file's link: 'File not found' (000 §8).
  await page.goto(`${t.url}/logs/open?name=app.log&node=web-a`);
  await page.getByText('File not found').waitFor();

  // A pm2 pair: the deep link with type=error shows {app}-error.log; the switch goes back to output.
  writeFileSync(join(a.logs, 'site-out.log'), 'GET / 200\n');
  writeFileSync(join(a.logs, 'site-error.log'), 'Error: db down\n');
  await page.goto(`${t.url}/logs/open?name=site-out.log&node=web-a&type=error`);
  await page.getByTestId('log-lines').getByText('Error: db down').waitFor();
  await page.getByRole('button', { name: 'output', exact: true }).click();
  await page.getByTestId('log-lines').getByText('GET / 200').waitFor();
}, T);

test("'Deploy configs' to two nodes, one failing its test: each answer shown as it arrives, then Deploy", async () => {
  await t.ok(admin, 'cfg.insertConfigsBatch', [{ type: 'cluster_host', value: 'https://front.example|main' }]);
  // A third node holds its test answer until released: the others' rows fill while it still shows '--'.
  const slow = await startHeldAgent('web-slow', { file: '/etc/c.json', changed: false, added: [], removed: [] });
  const slowId = (await t.ok<{ Id: number }>(admin, 'srv.save_server', { name: 'web-slow', type: 9, agent_url: slow.url })).Id;
  try {
    const page = await adminPage('/srv/configs_global');
    await page.getByRole('button', { name: 'Deploy configs' }).click();
    const dialog = page.getByRole('dialog');
    const rowA = dialog.getByTestId('deploy-node-web-a');
    const rowB = dialog.getByTestId('deploy-node-web-b');
    const rowSlow = dialog.getByTestId('deploy-node-web-slow');
    await rowA.getByText('1 added, 0 removed').waitFor();
    await rowA.getByText('ok', { exact: true }).waitFor();
    await rowB.getByText(/web-b: Directory .* does not exist/).waitFor();
    // Per node: two answered, the held one still '--', the bar counts nodes.
    expect(await rowSlow.locator('td').nth(1).textContent()).toBe('--');
    await dialog.getByTestId('deploy-progress').getByText('2 / 3').waitFor();
    slow.release();
    await rowSlow.getByText('no change').waitFor();
    await dialog.getByText('Test pass done: 2 of 3 node(s) ok. Deploy writes the configs on every node and reloads.').waitFor();
  } finally {
    slow.release();
    await t.ok(admin, 'srv.remove_server_by_id', { Id: slowId });
    await slow.close();
  }
  const page = pages.at(-1)!;
  const dialog = page.getByRole('dialog');
  const rowA = dialog.getByTestId('deploy-node-web-a');
  await dialog.getByRole('button', { name: 'Test again' }).click();
  await dialog.getByText('Test pass done: 1 of 2 node(s) ok. Deploy writes the configs on every node and reloads.').waitFor();
  expect(existsSync(a.configFile)).toBe(false); // the test pass writes nothing
  await dialog.getByRole('button', { name: 'Deploy', exact: true }).click();
  await rowA.getByText('written').waitFor();
  await dialog.getByText('Deployed: 1 of 2 node(s) ok.').waitFor();
  expect(JSON.parse(readFileSync(a.configFile, 'utf8'))).toEqual([{ type: 'cluster_host', value: 'https://front.example|main' }]);
}, T);

test("host switcher (buttons; a dropdown on mobile) filters the files; 'Clear all nodes' asks, then empties every node", async () => {
  await t.ok(admin, 'cfg.insertConfigsBatch', [{ type: 'domain', value: 'site-one.example' }, { type: 'domain', value: 'site-two.example' }]);
  writeFileSync(join(a.logs, 'site-one.example.log'), 'one\n');
  writeFileSync(join(b.logs, 'site-two.example.log'), 'two\n');
  const page = await signedInPage(browser, pages, t.url, '/logs?cluster=main-cluster', ADMIN);
  const pa = page.getByTestId('log-panel-web-a');
  const pb = page.getByTestId('log-panel-web-b');
  await pa.getByRole('link', { name: 'site-one.example.log' }).waitFor();
  await page.getByRole('group', { name: 'Hosts' }).getByRole('button', { name: 'site-two.example' }).click();
  await page.waitForURL((u) => u.searchParams.get('host') === 'site-two.example' && u.searchParams.get('cluster') === 'main-cluster');
  await pb.getByRole('link', { name: 'site-two.example.log' }).waitFor();
  await pa.getByText('Empty').waitFor(); // web-a has no file of that host

  const phone = await signedInPage(browser, pages, t.url, '/logs?host=site-one.example', ADMIN, MOBILE);
  const select = phone.getByLabel('Host', { exact: true });
  expect(await select.inputValue()).toBe('site-one.example');
  await select.selectOption('site-two.example');
  await phone.waitForURL((u) => u.searchParams.get('host') === 'site-two.example');

  await page.getByRole('button', { name: 'Clear all nodes' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Cencel' }).click();
  expect(existsSync(join(b.logs, 'site-two.example.log'))).toBe(true);
  await page.getByRole('button', { name: 'Clear all nodes' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Yes' }).click();
  await waitFor('files deleted on both nodes', () => !existsSync(join(a.logs, 'site-one.example.log')) && !existsSync(join(b.logs, 'site-two.example.log')));
  await pb.getByText('Empty').waitFor();
}, T);
