/**
 * Unsaved edits (issue 18, "What a new user tripped over"): every edit screen asks before an edit is
 * lost. The list of screens comes from the route table (src/ui/app/routes.tsx): each route is either an
 * edit screen below (how to open it and which field to change) or named in NO_EDIT with the reason, so
 * a new route fails here until someone says which it is. For each edit screen, in a real Chromium
 * against the real app: change a field, click a left-menu item; the confirm box (UNSAVED_MESSAGE)
 * appears, Cancel keeps the page with the edit, OK leaves. Dialog screens also ask on Escape.
 */
/// <reference lib="dom" />
import { getDataSourceToken } from '@nestjs/typeorm';
import type { Browser, Locator, Page } from 'playwright-core';
import type { DataSource } from 'typeorm';
import { ADMIN, startApp, type TestApp } from '../helpers/app.js';
import { expectNoPageErrors, launchBrowser, newPage, pathOf, signedInState, type StorageState } from '../helpers/browser.js';
import { uiRoutes } from '../helpers/ui-routes.js';

const T = 120_000;
/** UNSAVED_MESSAGE of src/ui/kit/useUnsavedPrompt.ts (a DOM module: not importable here). */
const UNSAVED_MESSAGE = 'You have unsaved changes. Leave without saving?';
let t: TestApp;
let browser: Browser;
/** The admin signed in once through the form; each screen opens in a context of its own from it. */
let signedIn: StorageState;
const pages: Page[] = [];
const ids: Record<string, number> = {};

interface EditScreen {
  /** The URL opened (params filled). */
  url: string | (() => string);
  /** Opens the form when it is a dialog (the menu is then behind the backdrop: the click is dispatched to the link). */
  open?: (p: Page) => Promise<void>;
  /** The field changed. */
  field: (p: Page) => Locator;
  /** A text typed, or `check` for a checkbox / radio. */
  value: string | 'check';
}

/** Every edit screen of the route table, by route path. */
const EDIT: Record<string, EditScreen> = {
  '/users': {
    url: '/users',
    open: async (p) => { await p.getByRole('button', { name: 'Rename' }).first().click(); },
    field: (p) => p.getByRole('dialog').locator('input[name="name"]'),
    value: 'Renamed admin',
  },
  '/srv/srv_map': {
    url: '/srv/srv_map',
    open: async (p) => { await p.getByRole('button', { name: 'Add server', exact: true }).click(); },
    field: (p) => p.getByRole('dialog').locator('input[name="name"]'),
    value: 'web-new',
  },
  '/srv/srv_map/:Id': {
    url: () => `/srv/srv_map/${ids.server}`,
    open: async (p) => { await p.getByRole('dialog').getByRole('button', { name: 'Edit' }).click(); },
    field: (p) => p.getByRole('dialog').locator('input[name="name"]'),
    value: 'web1-renamed',
  },
  '/srv/configs_global': { url: '/srv/configs_global', field: (p) => p.getByLabel(`value ${ids.config}`), value: 'example.org' },
  '/cfg/app_cron/add': { url: '/cfg/app_cron/add', field: (p) => p.locator('input[name="name"]'), value: 'New job' },
  '/cfg/app_cron/edit/:Id': { url: () => `/cfg/app_cron/edit/${ids.cron}`, field: (p) => p.locator('input[name="name"]'), value: 'Nightly (edited)' },
  '/firewall/iptables_rules': { url: '/firewall/iptables_rules', field: (p) => p.locator('#rules-new'), value: '203.0.113.7' },
  '/firewall/iptables_block_list': {
    url: '/firewall/iptables_block_list',
    open: async (p) => { await p.getByRole('button', { name: 'Add', exact: true }).click(); },
    field: (p) => p.getByRole('dialog').locator('textarea[name="value"]'),
    value: '198.51.100.1',
  },
  '/book/edit/open/:Id_book': { url: '/book/edit/open/6001-1', field: (p) => p.locator('input[name="book_title"]'), value: 'Зелёный маяк (правка)' },
  '/book/block': { url: '/book/block', field: (p) => p.locator('textarea[name="mail_body"]'), value: 'https://books.example/read/6001' },
  '/book/block_git': { url: '/book/block_git', field: (p) => p.locator('textarea[name="mail_body"]'), value: 'https://books.example/book/6001' },
  '/book/categories/edit/:Id_edit': { url: '/book/categories/edit/1', field: (p) => p.locator('input[name="cat_title"]'), value: 'Фэнтези (правка)' },
  '/input_stream/sites': { url: '/input_stream/sites', field: (p) => p.getByLabel('Site name'), value: 'books.example' },
  '/author/marge': {
    url: '/author/marge',
    field: (p) => p.locator('.app-author-card[data-author="1"] .app-author-cand[data-cand="2"]').getByLabel('Yes'),
    value: 'check',
  },
  '/content/authors': { url: '/content/authors', field: (p) => p.getByLabel('a_fio 3'), value: 'Чехов Антон Павлович' },
  '/abs/add': { url: '/abs/add', field: (p) => p.locator('input[name="title"]'), value: 'New banner' },
  '/abs/edit/:Idb': { url: () => `/abs/edit/${ids.banner}`, field: (p) => p.locator('input[name="title"]'), value: 'Banner (edited)' },
  '/ask/add': { url: '/ask/add', field: (p) => p.locator('textarea[name="question"]'), value: 'Новый вопрос?' },
  '/ask/edit/:id': { url: () => `/ask/edit/${ids.ask}`, field: (p) => p.getByLabel('answer 1', { exact: true }), value: 'Другой ответ' },
  '/jokes/cat_edit/:id': { url: '/jokes/cat_edit/7', field: (p) => p.locator('input[name="meta_h1"]'), value: 'Коты (правка)' },
  '/sonnik/cat/edit/:Id_edit': { url: '/sonnik/cat/edit/1', field: (p) => p.locator('input[name="name"]'), value: 'Вода (правка)' },
  '/compilation/add': { url: '/compilation/add', field: (p) => p.locator('input[name="meta_title"]'), value: 'Новая подборка' },
  '/compilation/edit/:Id_compilation': { url: () => `/compilation/edit/${ids.compilation}`, field: (p) => p.locator('input[name="meta_h1"]'), value: 'H1 (правка)' },
  '/search/add_host': { url: '/search/add_host', field: (p) => p.locator('input[name="name"]'), value: 'New search host' },
  '/search/edit_host/:Id': { url: () => `/search/edit_host/${ids.searchHost}`, field: (p) => p.locator('input[name="connect.0.name"]'), value: 'replica' },
  '/search/add_source': { url: '/search/add_source', field: (p) => p.locator('input[name="source"]'), value: 'new_src' },
  '/search/edit_source/:Id': { url: () => `/search/edit_source/${ids.searchSource}`, field: (p) => p.locator('textarea[name="query"]'), value: 'SELECT id, cat_id FROM books WHERE id > 1' },
  '/network_info/hosts/create': { url: '/network_info/hosts/create', field: (p) => p.locator('input[name="name"]'), value: 'New host' },
  '/network_info/hosts/edit/:Id': { url: () => `/network_info/hosts/edit/${ids.netHost}`, field: (p) => p.locator('input[name="name"]'), value: 'Books (edited)' },
  '/network_info/pages/create': { url: () => `/network_info/pages/create?host=${ids.netHost}`, field: (p) => p.locator('input[name="title"]'), value: 'New page' },
  '/network_info/pages/edit/:Id': { url: () => `/network_info/pages/edit/${ids.netPage}`, field: (p) => p.locator('input[name="title"]'), value: 'Page (edited)' },
  '/network_info/cats/create': { url: '/network_info/cats/create', field: (p) => p.locator('input[name="title"]'), value: 'New category' },
  '/network_info/cats/edit/:Id': { url: () => `/network_info/cats/edit/${ids.netCat}`, field: (p) => p.locator('input[name="h1"]'), value: 'H1 (edited)' },
  '/money/add': { url: '/money/add', field: (p) => p.locator('input[name="title"]'), value: 'New box' },
  '/money/box/:bid': { url: () => `/money/box/${ids.moneyBox}`, field: (p) => p.locator('input[name="rules.0.contains"]'), value: 'taxi' },
  '/money/box/:bid/edit': { url: () => `/money/box/${ids.moneyBox}/edit`, field: (p) => p.locator('input[name="title"]'), value: 'Wallet (edited)' },
  '/money/box/:bid/add_transaction': { url: () => `/money/box/${ids.moneyBox}/add_transaction`, field: (p) => p.locator('input[name="val"]'), value: '12.50' },
  '/money/box/:bid/edit_transaction/:trid': { url: () => `/money/box/${ids.moneyBox}/edit_transaction/${ids.moneyTr}`, field: (p) => p.locator('input[name="val"]'), value: '13.00' },
  '/money/box/:bid/clone_transaction/:clonetrid': { url: () => `/money/box/${ids.moneyBox}/clone_transaction/${ids.moneyTr}`, field: (p) => p.locator('textarea[name="description"]'), value: 'Lunch again' },
  '/todo/create': { url: '/todo/create', field: (p) => p.locator('input[name="title"]'), value: 'New todo' },
  '/todo/edit/:Id': { url: () => `/todo/edit/${ids.todo}`, field: (p) => p.locator('input[name="title"]'), value: 'Todo (edited)' },
  '/invest': {
    url: '/invest',
    open: async (p) => { await p.getByRole('button', { name: 'New local account' }).click(); },
    field: (p) => p.getByRole('dialog').locator('input[name="name"]'),
    value: 'Bonds',
  },
  '/proxy/add': { url: '/proxy/add', field: (p) => p.locator('textarea[name="batch"]'), value: '127.0.0.1:3128:user:secret' },
  '/invest/account_local/:Id': {
    url: () => `/invest/account_local/${ids.investLocal}`,
    open: async (p) => { await p.getByRole('button', { name: 'Add position' }).click(); },
    field: (p) => p.getByRole('dialog').locator('input[name="quantity"]'),
    value: '10',
  },
};

/** Routes without an edit form, and why (filters, commands and live views keep nothing to lose). */
const NO_EDIT: Record<string, string> = {
  '/': 'home',
  '/auth': 'sign-in form (public)',
  '/register': 'sign-up form (public, no session)',
  '/logout': 'logout',
  '/kit': 'component demo',
  '/ant': 'live control: every button acts at once (only-step is one field sent by its Set button)',
  '/audit': 'filters in the URL',
  '/srv/ssl_check': 'a check list, each row saved on its own',
  '/cfg/app_cron': 'list (switches save at once)',
  '/firewall': 'filters in the URL',
  '/firewall/processing_logs': 'filters',
  '/firewall/train_data': 'marks save at once',
  '/monitor': 'charts', '/monitor/:cat': 'charts', '/monitor2': 'charts', '/monitor2/:cat': 'charts',
  '/srv/terminal': 'live terminals', '/srv/MassTerminal': 'live terminals (commands are sent, not saved)',
  '/srv/terminal/recordings': 'list', '/srv/terminal/recordings/:Id': 'replay',
  '/srv/deploy': 'commands (run once, deploy)', '/srv/deploy/:type': 'commands', '/srv/console': 'live console',
  '/logs': 'filters', '/logs/open': 'log view', '/logs/apps': 'filters',
  '/book/list': 'filters in the URL',
  '/book/edit': 'asks for a book id (no edit yet)',
  '/book/categories': 'filter',
  '/book_cat': 'filter', '/book_cat/:Id_cat': 'read-only',
  '/abs/list': 'list',
  '/input_stream': 'charts', '/input_stream/cat': 'filters', '/input_stream/items': 'filters', '/input_stream/cat/:id': 'charts',
  '/content/ask': 'list', '/content/cat_jokes': 'list', '/sonnik/index': 'letters overview', '/sonnik/cat': 'list (letter filter in the URL)',
  '/compilation': 'cards with a filter in the URL',
  '/network_info': 'three buttons', '/network_info/hosts': 'list', '/network_info/pages': 'list (host filter in the URL)',
  '/network_info/cats': 'list (host filter in the URL)',
  '/worker': 'list (Start/Stop act at once)', '/service/clear_empty_line': 'a tool: nothing is saved',
  '/content/cat_weight_sort': 'a drag order (its unsaved prompt is tested in content-tools.e2e.ts)',
  '/comments': 'moderation buttons act at once', '/privacy': 'static page (public)',
  '/search': 'list of search hosts', '/search/sources': 'list (Rotate and the config rebuild act at once)',
  '/money': 'list of boxes', '/money/report/:bid': 'a report (filters in the URL)',
  '/position/projects': 'list; the project dialog has a static backdrop: it closes only by Save or Cancel', '/position/project/:id': 'a query table (page and open query in the URL); the add-queries and project dialogs have a static backdrop',
  '/report/list': 'dashboard (filters in the URL); the edit dialog has a static backdrop: it closes only by Save or Cancel',
  '/todo': 'list (filters in the URL)', '/todo/show/:Id': 'a todo (Finish / Restore act at once)',
  '/invest/account/:id': 'a portfolio (read-only; prices follow live)', '/invest/account/:id/model': 'a forecast (the size is a filter in the URL)',
  '/invest/bounds_screener': 'filters in the URL', '/invest/bound_close': 'filters in the URL',
  '/wb': 'a report (range, columns, sort and the open card in the URL; the sync acts at once)',
};

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  const admin = (await t.session(1)).hash;
  const ds = t.app.get<DataSource>(getDataSourceToken());
  await ds.query("INSERT INTO authors (Id_author, a_fio) VALUES (1, 'Толстой Лев Николаевич'), (2, 'Л. Н. Толстой'), (3, 'Антон Чехов')");
  await ds.query("INSERT INTO books (Id_book, book_title, book_owner) VALUES (101, 'Война и мир', 1), (201, 'Анна Каренина', 2), (301, 'Вишнёвый сад', 3)");
  await ds.query("INSERT INTO book_cats (Id_cat, cat_title) VALUES (1, 'Фэнтези')");
  await t.ok(admin, 'content.import', { entity: 'books', rows: [{ Id_book: 6001, book_title: 'Зелёный маяк', book_pages: 2, book_owner: 3 }] });
  await t.ok(admin, 'content.import', { entity: 'pages', rows: [{ bid: 6001, num: 1, body: 'Первая страница' }, { bid: 6001, num: 2, body: 'Вторая страница' }] });
  ids.server = (await t.ok(admin, 'srv.save_server', { name: 'web1', type: 0, ip: '192.0.2.10' })).Id;
  ids.config = (await t.ok(admin, 'cfg.insertConfigsBatch', [{ type: 'domain', value: 'example.com' }])).list[0].Id;
  ids.cron = (await t.ok(admin, 'cfg.saveAppCron', { name: 'Nightly', cmd: 'path=cfg|method=getDomains', suspended: 1 })).Id;
  ids.ask = (await t.rest<any>(admin, 'POST', '/ask/set', { ask: { question: 'Вопрос?' }, answer: [{ answer: 'Ответ' }] })).body.result.Id;
  await t.ok(admin, 'content.import', { entity: 'joke_cats', rows: [{ cid: 7, title: 'Про котов', meta_title: 'Анекдоты про котов', meta_h1: 'Коты', cat_body: '<p>Кот</p>' }] });
  await t.ok(admin, 'content.import', { entity: 'sonnik_cats', rows: [{ Id: 1, letter: 'В', uri: 'voda', name: 'Вода', body: '<p>Вода</p>' }] });
  ids.compilation = (await t.rest<any>(admin, 'POST', '/compilation/save', { meta_title: 'Подборка', meta_description: 'Описание', meta_h1: 'H1', title_short: 'П', items: [101, 201] })).body.result.Id_compilation;
  ids.banner = (await t.rest<any>(admin, 'POST', '/abs/set_abs', { title: 'Banner', target: 'https://books.example/' })).body.result.Idb;
  ids.searchHost = (await t.ok(admin, 'hosts.insert', { name: 'Network', connect: [{ name: 'main', query: 'mysql://reader:pw@127.0.0.1:3306/network' }] })).Id;
  ids.searchSource = (await t.ok(admin, 'source.insert', { source: 'books', connect: `${ids.searchHost}-main`, query: 'SELECT id, cat_id FROM books', attribute: 'cat_id', index: 'books_idx' })).Id;
  ids.netHost = (await t.ok(admin, 'network_info.Host.insert', { name: 'Books', domain: 'books.example' })).insertId;
  ids.netCat = (await t.ok(admin, 'network_info.Cats.insert', { host: ids.netHost, title: 'Fantasy' })).insertId;
  ids.netPage = (await t.ok(admin, 'network_info.Page.insert', { host: ids.netHost, title: 'Page', body: '<p>Text</p>', categoriesRelay: [ids.netCat] })).insertId;
  ids.todo = (await t.ok(admin, 'todo.insert', { title: 'Todo', text: '<p>Text</p>', type: 1 })).Id;
  ids.moneyBox = (await t.ok(admin, 'money.boxUpdate', { title: 'Wallet', description: 'Cash' })).bid;
  ids.moneyTr = (await t.ok(admin, 'money.setTransaction', { bid: ids.moneyBox, type: 0, val: '10.00', time_set: '2026-01-01', description: 'Lunch' })).trid;
  await t.ok(admin, 'money.setRules', { bid: ids.moneyBox, rules: [{ contains: 'coffee', tags: 'cafe' }] });
  ids.investLocal = (await t.ok(admin, 'invest.User.saveLocalAccount', { name: 'Bonds' })).Id;
  browser = await launchBrowser();
  signedIn = await signedInState(browser, t.url, ADMIN);
}, T);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});
afterEach(() => expectNoPageErrors(pages));

test('every route of the route table is either an edit screen here or named as one without edits', () => {
  const paths = uiRoutes().map((r) => r.path);
  const unknown = paths.filter((p) => !(p in EDIT) && !(p in NO_EDIT));
  expect(unknown).toEqual([]);
  const stale = [...Object.keys(EDIT), ...Object.keys(NO_EDIT)].filter((p) => !paths.includes(p));
  expect(stale).toEqual([]);
});

/** The next browser dialog: its message, answered with OK (accept) or Cancel. */
function nextDialog(page: Page, accept: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no confirm box within 10 s')), 10_000);
    page.once('dialog', (d) => {
      clearTimeout(timer);
      const msg = d.message();
      void (accept ? d.accept() : d.dismiss()).then(() => resolve(msg));
    });
  });
}

async function changed(s: EditScreen, page: Page): Promise<boolean> {
  const f = s.field(page);
  return s.value === 'check' ? f.isChecked() : (await f.inputValue()) === s.value;
}

test.each(Object.keys(EDIT))('%s: a changed field asks before a menu click leaves it; Cancel keeps the edit, OK leaves', async (route) => {
  const s = EDIT[route];
  const url = typeof s.url === 'function' ? s.url() : s.url;
  const page = await newPage(browser, { storageState: signedIn });
  pages.push(page);
  await page.goto(t.url + url);
  await page.locator('.app-sidebar a[href="/audit"]').waitFor();
  if (s.open) await s.open(page);
  const f = s.field(page);
  await f.waitFor();
  if (s.value === 'check') await f.check();
  else await f.fill(s.value);
  const at = pathOf(page);

  // A menu click. Behind a dialog's backdrop the link cannot be clicked with the mouse: the click event
  // is dispatched to it (what the router sees is the same).
  const menu = page.locator('.app-sidebar a[href="/audit"]');
  let asked = nextDialog(page, false);
  if (s.open) await menu.dispatchEvent('click');
  else await menu.click();
  expect(await asked).toBe(UNSAVED_MESSAGE);
  // Cancel: still here, the edit kept.
  await page.waitForTimeout(100);
  expect(pathOf(page)).toBe(at);
  expect(await changed(s, page)).toBe(true);

  if (s.open) {
    // Closing the dialog with the edit asks too; Cancel keeps it open with the edit.
    asked = nextDialog(page, false);
    await page.keyboard.press('Escape');
    expect(await asked).toBe(UNSAVED_MESSAGE);
    await page.waitForTimeout(100);
    expect(await s.field(page).isVisible()).toBe(true);
    expect(await changed(s, page)).toBe(true);
  }

  // OK leaves.
  asked = nextDialog(page, true);
  if (s.open) await menu.dispatchEvent('click');
  else await menu.click();
  expect(await asked).toBe(UNSAVED_MESSAGE);
  await page.waitForURL((u) => u.pathname === '/audit');
  await page.close();
}, T);
