/**
 * Search-node admin in a real Chromium against the real app and a real Sphinx (issue 20, docs/search-nodes.md):
 * an admin adds a search host and a source through the forms, rebuilds the search config (confirm,
 * then the Search server's answer); the first Rotate (searchd not running yet: a fresh node's searchd
 * cannot start before an index is built) shows that in the row; with searchd started on that config,
 * Rotate in the sources list: the button shows loading until the answer comes (held in the network until the
 * spinner was seen), then the row shows the documents and the size in kb; a source with broken SQL
 * shows its error as an alert in its row. A viewer (role 100) reads the lists without the admin's buttons.
 */
/// <reference lib="dom" />
import type { Browser, Page, Route } from 'playwright-core';
import { startApp, ADMIN, type TestApp } from '../helpers/app.js';
import { expectNoPageErrors, launchBrowser, screenshot, signedInPage } from '../helpers/browser.js';
import { docsDatabase, sphinxql, startSearchNode, type DocsDatabase, type Searchd, type SearchNode } from '../helpers/sphinx.js';

const T = 120_000;
const ROWS = 40;
const VIEWER = { login: 'user100', password: 'user100-password-1' };
let t: TestApp;
let node: SearchNode;
let db: DocsDatabase;
let searchd: Searchd | null = null;
let browser: Browser;
let admin: string;
let conf: string;
const pages: Page[] = [];

beforeAll(async () => {
  [node, db] = await Promise.all([startSearchNode(), docsDatabase(ROWS)]);
  t = await startApp({ CRON_ENABLED: '0' });
  admin = (await t.session(1)).hash;
  await t.session(100);
  conf = `${node.dir}/sphinx.conf`;
  await t.ok(admin, 'srv.save_server', { name: 'search-1', type: 3, status: 1, ip: '127.0.0.1', sshport: node.sshd.port, sshlogin: node.sshd.user, sshpass: node.sshd.password });
  await t.ok(admin, 'cfg.insertConfigsBatch', [
    { type: 'sphinx_conf_path', value: conf },
    { type: 'sphinx_data_dir', value: `${node.dir}/data` },
    { type: 'sphinx_port', value: String(node.port) },
    { type: 'sphinxql_port', value: String(node.sphinxqlPort) },
  ]);
  browser = await launchBrowser();
}, T);
afterAll(async () => {
  await browser?.close();
  await searchd?.stop();
  await t?.close();
  await node?.stop();
  await db?.drop();
}, T);
afterEach(() => expectNoPageErrors(pages));

/** The sources table's row of a source, by its name. */
const row = (page: Page, name: string) => page.locator('[data-testid="sources"] tr[data-source]', { has: page.getByRole('cell', { name, exact: true }) });

test('add a host and a source in the forms, rebuild the config, Rotate: loading, then the docs and the size in the row', async () => {
  const page = await signedInPage(browser, pages, t.url, '/search', ADMIN);
  await page.getByRole('link', { name: 'Add host' }).click();
  await page.waitForURL((u) => u.pathname === '/search/add_host');
  await page.locator('input[name="name"]').fill('Network');
  await page.locator('input[name="connect.0.name"]').fill('main');
  await page.locator('input[name="connect.0.query"]').fill('mysql://u:p@127.0.0.1');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Connect query must name a database: mysql://user:password@host:port/db').waitFor();
  await page.locator('input[name="connect.0.query"]').fill(db.url);
  await page.getByRole('button', { name: 'Save' }).click();
  await page.waitForURL((u) => u.pathname === '/search');
  await page.getByText('Insert ok!').first().waitFor();
  const hostRow = page.locator('[data-testid="search-hosts"] tr[data-host]');
  await hostRow.getByText('1 connection', { exact: true }).waitFor();
  expect(await hostRow.locator('td').nth(1).innerText()).toBe('Network');

  // Edit shows the password masked; saved back as is, it is kept (the rotation below logs in with it)
  await hostRow.getByRole('link', { name: 'Edit' }).click();
  await page.waitForURL((u) => /^\/search\/edit_host\/\d+$/.test(u.pathname));
  const query = page.locator('input[name="connect.0.query"]');
  await query.waitFor();
  expect(await query.inputValue()).toBe(`mysql://${db.user}:***@127.0.0.1:3306/${db.db}`);
  await page.getByText('The stored password is kept while *** stays in its place').waitFor();
  await page.locator('input[name="name"]').fill('Network DB');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.waitForURL((u) => u.pathname === '/search');
  await hostRow.getByText('Network DB').waitFor();

  await page.goto(`${t.url}/search/sources`);
  await page.getByRole('link', { name: 'Add source' }).click();
  await page.waitForURL((u) => u.pathname === '/search/add_source');
  await page.locator('input[name="source"]').fill('docs_src');
  await page.locator('input[name="index"]').fill('docs idx');
  await page.locator('select[name="connect"]').selectOption({ label: `Network DB / main (mysql://${db.user}:***@127.0.0.1:3306/${db.db})` });
  await page.locator('textarea[name="query"]').fill('SELECT id, title, body, cat_id\n  FROM docs -- every document');
  await page.locator('input[name="attribute"]').fill('cat_id');
  expect(await page.locator('input[name="ttl_min"]').inputValue()).toBe('120');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Index must be a Sphinx name: a letter or _, then letters, digits or _ (at most 64)').waitFor();
  await page.locator('input[name="index"]').fill('docs_idx');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.waitForURL((u) => u.pathname === '/search/sources');
  await row(page, 'docs_src').getByText('never rotated').waitFor();

  // Rebuild the search config: asked first, then each Search server's answer
  await page.getByRole('button', { name: 'Rebuild search config' }).click();
  const ask = page.getByRole('dialog');
  await ask.getByText('Rebuild the search config (sphinx.conf) on every Search server?').waitFor();
  await ask.getByRole('button', { name: 'Yes' }).click();
  const result = page.getByTestId('sphinx-conf-result');
  await result.waitFor();
  expect(await result.locator('tbody tr').innerText()).toMatch(/^search-1\s+ok\s*Written .*sphinx\.conf \(\d+ bytes, checked by indextool\)$/);
  await page.locator('.modal-footer').getByRole('button', { name: 'Close' }).click();
  await result.waitFor({ state: 'detached' });

  // A fresh node: searchd cannot start before an index is built ("no valid indexes to serve"). The first
  // Rotate builds it and says in the row that searchd is down.
  const r = row(page, 'docs_src');
  await r.getByTestId('rotate').click();
  const down = page.locator(`tr[data-source-error] [data-testid="source-error"]`);
  await down.waitFor();
  expect(await down.innerText()).toBe('search-1: searchd is not running: the index was built but not rotated (searchd loads it when it starts)');
  expect(await r.getByTestId('working-docs').innerText()).toBe(String(ROWS));

  searchd = await node.startSearchd(conf);

  // Rotate: the request is held until the button's loading state was seen
  let release!: () => void;
  const held = new Promise<void>((r) => { release = r; });
  await page.route('**/api', async (route: Route) => {
    if ((route.request().postData() ?? '').includes('source.rotate')) await held;
    await route.continue();
  });
  await r.getByTestId('rotate').click();
  await r.getByTestId('rotate').getByText('Rotating…').waitFor();
  expect(await r.getByTestId('rotate').isDisabled()).toBe(true);
  release();
  await r.getByTestId('rotate').getByText('Rotate', { exact: true }).waitFor();
  await page.unroute('**/api');
  expect(await r.getByTestId('working-docs').innerText()).toBe(String(ROWS));
  expect(await r.getByTestId('working-size').innerText()).toMatch(/^\d+(\.\d)? kb$/);
  expect(await r.getByTestId('working-time').innerText()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d – (\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d$/);
  await page.getByText(`docs_src: ${ROWS} docs`).first().waitFor();
  expect(await page.locator('[data-testid="source-error"]').count()).toBe(0);
  // searchd serves what the rotation built
  expect((await sphinxql(node.sphinxqlPort, "SELECT id FROM docs_idx WHERE MATCH('rare')")).length).toBe(ROWS / 10);
  // the same after a reload (stored, not only in the page)
  await page.reload();
  expect(await row(page, 'docs_src').getByTestId('working-docs').innerText()).toBe(String(ROWS));
  await screenshot(page, 'search-sources');
}, T);

test('a source with broken SQL: Rotate shows its error as an alert in its row', async () => {
  const host = (await t.ok<Array<{ Id: number }>>(admin, 'hosts.get'))[0].Id;
  await t.ok(admin, 'source.insert', { source: 'broken_src', connect: `${host}-main`, query: 'SELECT id, title, cat_id FROM missing_table', attribute: 'cat_id', index: 'broken_idx' });
  await t.ok(admin, 'sphinx_control.createSphinxConf', {});
  const page = await signedInPage(browser, pages, t.url, '/search/sources', ADMIN);
  const r = row(page, 'broken_src');
  await r.getByTestId('rotate').click();
  const alert = page.locator('tr[data-source-error] [data-testid="source-error"]');
  await alert.waitFor();
  expect(await alert.innerText()).toMatch(/^search-1: index 'broken_idx': sql_query: Table '.*missing_table' doesn't exist/);
  expect(await r.getByTestId('working-docs').innerText()).toBe('0');
  // the good source's row is untouched and has no alert
  expect(await row(page, 'docs_src').getByTestId('working-docs').innerText()).toBe(String(ROWS));
  expect(await page.locator('tr[data-source-error]').count()).toBe(1);
  await screenshot(page, 'search-sources-error');
  await page.close();
}, T);

test('a viewer reads the hosts and sources (with live figures), without Edit, Rotate or the rebuild', async () => {
  const page = await signedInPage(browser, pages, t.url, '/search', VIEWER);
  await page.locator('[data-testid="search-hosts"]').getByText('Network DB').waitFor();
  expect(await page.getByRole('link', { name: 'Edit' }).count()).toBe(0);
  expect(await page.getByRole('button', { name: 'Rebuild search config' }).count()).toBe(0);
  await page.getByRole('link', { name: 'Sources' }).click();
  await page.waitForURL((u) => u.pathname === '/search/sources');
  await row(page, 'docs_src').getByTestId('working-docs').getByText(String(ROWS)).waitFor();
  expect(await page.getByTestId('rotate').count()).toBe(0);
  expect(await page.getByRole('link', { name: 'docs_src' }).count()).toBe(0);
  expect(await page.locator('[data-testid="source-error"]').count()).toBe(1);
  await page.getByRole('button', { name: 'Live figures' }).click();
  await row(page, 'docs_src').getByText(`search-1: ${ROWS} docs`).waitFor();
  await page.goto(`${t.url}/search/add_source`);
  await page.getByText(/403|Forbidden|not allowed/i).first().waitFor();
  await page.close();
}, T);
