/**
 * The firewall screens (issue 8 "Screens", 000 §2 "Firewall and traffic", §4, §5, §8) in a real browser
 * (Debian's Chromium) against the real app (run `npm run build:ui` first). Access-log lines are parsed
 * by the real parser and stored through the real store (AccessLogStore.commit), as the worker does:
 * - the traffic screen filters by domain and code (an empty domain does nothing), keeps the filter in
 *   the URL through a reload, opens an address's log rows, filters them by tag, shows the whois
 *   (loopback whois servers: IANA refers to a regional registry; a failed lookup a day later shows the
 *   last answer marked stale), and bans the address;
 * - the ban is on /firewall/iptables_rules; bulk removal by selection and by status asks first and says
 *   how many rows went;
 * - a block rule with a bad line is refused naming the line, saved sorted once fixed, and an
 *   allowlisted address in it is reported;
 * - the firewall toggle of a proxy on the server map answers Run / STOP, then the sync's OK / ERROR
 *   (a dead proxy named); the proxy's nginx_log is edited in the server dialog;
 * - at 390 px the open address has the bottom bar (Ok, Ne, Bad: training marks; Blok, Back);
 * - IP statistics filter by domain, minimum count and unique books, in the URL;
 * - the worker bar: switch, Run now with each proxy's result, Sync now's dry-run preview, then Apply.
 */
/// <reference lib="dom" />
import type { Browser, Dialog, Page } from 'playwright-core';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { BlockRuleView, IpRuleView } from '../../src/contracts/firewall-rules.js';
import { startApp, ADMIN, type TestApp } from '../helpers/app.js';
import { MOBILE, expectNoPageErrors, launchBrowser, pathOf, screenshot, signedInPage } from '../helpers/browser.js';
import { seedLines as seedLinesAs } from '../helpers/access-log-seed.js';
import { startDeadHost, type DeadHost } from '../helpers/proxy-host.js';
import { ianaAnswer, ripeAnswer, startWhoisServer, type WhoisServer } from '../helpers/fakes/whois.js';

const T = 120_000;
/** UNSAVED_MESSAGE of src/ui/kit/useUnsavedPrompt.ts (a UI module: not imported into Node). */
const UNSAVED_MESSAGE = 'You have unsaved changes. Leave without saving?';
const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';

let t: TestApp;
let browser: Browser;
let admin: string;
let iana: WhoisServer;
/** IANA answers nothing (a failed lookup: the viewer shows the last answer, stale). */
let whoisDown = false;
let rir: WhoisServer;
let dead: DeadHost;
const pages: Page[] = [];

const ok = <T = any>(method: string, args?: unknown) => t.ok<T>(admin, method, args);
const q = async <T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> =>
  (await t.app.get<DataSource>(getDataSourceToken()).query(sql, params)) as T[];

const signedIn = (path: string, size?: { width: number; height: number }): Promise<Page> => signedInPage(browser, pages, t.url, path, ADMIN, size);

const toast = (page: Page, text: string | RegExp) => page.locator('.app-notify', { hasText: text }).first().waitFor();
const ipList = (page: Page) => page.locator('[data-testid="ip-list"] tr[data-ip]').evaluateAll((els) => els.map((e) => e.getAttribute('data-ip')));

/** The next browser dialog (confirm) of the page, answered with accept or dismiss. */
function nextDialog(page: Page, answer: 'accept' | 'dismiss'): Promise<{ type: string; message: string }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the page asked nothing (no confirm dialog within 15 s)')), 15_000);
    page.once('dialog', (d: Dialog) => {
      clearTimeout(timer);
      const seen = { type: d.type(), message: d.message() };
      void (answer === 'accept' ? d.accept() : d.dismiss()).then(() => resolve(seen));
    });
  });
}

/** An nginx line in the extended `console` format (it carries $host). */
function consoleLine(ip: string, url: string, code: number, host: string, at: Date, agent = BROWSER_UA) {
  const mon = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][at.getUTCMonth()];
  const p2 = (n: number) => String(n).padStart(2, '0');
  const time = `${p2(at.getUTCDate())}/${mon}/${at.getUTCFullYear()}:${p2(at.getUTCHours())}:${p2(at.getUTCMinutes())}:${p2(at.getUTCSeconds())} +0000`;
  return `${ip} - - [${time}] "GET ${url} HTTP/1.1" ${code} 512 "https://ref.example/" "${agent}" "-" "${host}" 0.010 0.012`;
}

const seedLines = (lines: string[], proxyId = 900_001, proxyAddr = '10.99.0.1') => seedLinesAs(t.app, lines, proxyId, proxyAddr);

beforeAll(async () => {
  rir = await startWhoisServer(() => ripeAnswer({ range: '203.0.113.0 - 203.0.113.255', netname: 'DOC-NET-3', country: 'DE', org: 'Example Crawlers GmbH', abuse: 'abuse@crawlers.example' }));
  iana = await startWhoisServer(() => (whoisDown ? 'close' : ianaAnswer('203.0.0.0 - 203.255.255.255', rir.address)));
  dead = await startDeadHost({ mode: 'refuse' });
  t = await startApp({ CRON_ENABLED: '0', WHOIS_SERVER: iana.address });
  browser = await launchBrowser();
  admin = (await t.session(1)).hash;

  const now = Date.now();
  const at = (secAgo: number) => new Date(now - secAgo * 1000);
  const lines: string[] = [];
  // shop.example: 203.0.113.7 twelve requests (8 pages / static, 4 404s), 203.0.113.8 two, 198.51.100.20 five, 192.0.2.50 three 404s
  for (let i = 0; i < 5; i++) lines.push(consoleLine('203.0.113.7', `/book/${i}`, 200, 'shop.example', at(300 - i)));
  for (let i = 0; i < 3; i++) lines.push(consoleLine('203.0.113.7', `/style${i}.css`, 200, 'shop.example', at(280 - i)));
  for (let i = 0; i < 4; i++) lines.push(consoleLine('203.0.113.7', `/missing/${i}`, 404, 'shop.example', at(260 - i)));
  for (let i = 0; i < 2; i++) lines.push(consoleLine('203.0.113.8', `/book/${i}`, 200, 'shop.example', at(250 - i)));
  for (let i = 0; i < 5; i++) lines.push(consoleLine('198.51.100.20', `/page/${i}`, 200, 'shop.example', at(240 - i)));
  for (let i = 0; i < 3; i++) lines.push(consoleLine('192.0.2.50', `/wp-login.php?x=${i}`, 404, 'shop.example', at(230 - i), 'python-requests/2.31'));
  // another domain: not on shop.example's report
  for (let i = 0; i < 6; i++) lines.push(consoleLine('203.0.113.99', `/feed`, 200, 'blog.example', at(220 - i)));
  await seedLines(lines);
}, T);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await iana?.close();
  await rir?.close();
  await dead?.stop();
}, 60_000);

afterEach(() => expectNoPageErrors(pages));

test('traffic: an empty domain does nothing; domain and code filter the top list; the filter survives a reload; tags, whois and Blok', async () => {
  const page = await signedIn('/firewall');
  const form = page.getByRole('form', { name: 'Traffic filter' });
  await form.getByRole('button', { name: 'Show' }).click();
  // 000 §5: nothing happens while the domain is empty
  expect(pathOf(page)).toBe('/firewall');
  expect(await page.locator('[data-testid="ip-list"]').count()).toBe(0);

  await form.getByLabel('Domain').fill('shop.example');
  await form.getByLabel('Code').selectOption('404');
  await form.getByRole('button', { name: 'Show' }).click();
  await page.waitForURL((u) => u.search.includes('host=shop.example') && u.search.includes('code=404'));
  await page.locator('[data-testid="ip-list"] tr[data-ip]').first().waitFor();
  expect(await ipList(page)).toEqual(['203.0.113.7', '192.0.2.50']);
  await page.getByTestId('traffic-summary').getByText('7 requests from 2 addresses', { exact: false }).waitFor();

  await form.getByLabel('Code').selectOption('all');
  await form.getByRole('button', { name: 'Show' }).click();
  await page.waitForURL((u) => !u.search.includes('code='));
  await page.locator('[data-testid="ip-list"] tr[data-ip="203.0.113.8"]').waitFor();
  expect(await ipList(page)).toEqual(['203.0.113.7', '198.51.100.20', '192.0.2.50', '203.0.113.8']);
  expect(await page.locator('tr[data-ip="203.0.113.7"] td[data-label="Count"]').innerText()).toBe('12');

  // Grouping by the first 3 octets: 203.0.113.* first (14 requests)
  await page.getByRole('group', { name: 'Grouping' }).getByRole('button', { name: '3 octets' }).click();
  await page.locator('tr[data-group="203.0.113.*"]').waitFor();
  expect(await page.locator('[data-testid="ip-list"] tr').evaluateAll((els) => els.map((e) => e.getAttribute('data-group') ?? e.getAttribute('data-ip')).filter(Boolean)))
    .toEqual(['203.0.113.*', '203.0.113.7', '203.0.113.8', '198.51.100.*', '198.51.100.20', '192.0.2.*', '192.0.2.50']);

  // Open an address: its log rows; tag buttons filter them (and go into the URL)
  await page.getByRole('button', { name: 'Open 203.0.113.7' }).click();
  const detail = page.getByTestId('ip-detail');
  await detail.locator('[data-testid="log-rows"] tbody tr[data-tag]').first().waitFor();
  expect(await detail.locator('[data-testid="log-rows"] tbody tr[data-tag]').count()).toBe(12);
  expect(await detail.locator('[data-testid="log-rows"] thead th').allInnerTexts()).toEqual(['time', 'proxy_addr', 'url', 'ref', 'code']);
  await detail.getByRole('button', { name: /^static/ }).click();
  await page.waitForURL((u) => u.search.includes('tag=static'));
  await page.waitForFunction(() => {
    const rows = [...document.querySelectorAll('[data-testid="log-rows"] tbody tr[data-tag]')];
    return rows.length === 3 && rows.every((r) => r.getAttribute('data-tag') === 'static');
  });
  expect(await detail.locator('tbody tr[data-tag] td:nth-child(2)').first().innerText()).toBe('10.99.0.1');

  // Deep link: a reload keeps the filter, the grouping, the open address and the tag
  const before = pathOf(page);
  await page.reload();
  expect(pathOf(page)).toBe(before);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="log-rows"] tbody tr[data-tag="static"]').length === 3);
  expect(await form.getByLabel('Domain').inputValue()).toBe('shop.example');
  expect(await page.locator('tr[data-group="203.0.113.*"]').count()).toBe(1);

  // Whois viewer: the regional registry's answer, reached through IANA's referral
  await detail.getByRole('button', { name: 'Whois' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByTestId('whois').waitFor();
  expect(await dialog.locator('[data-whois="Net name"]').innerText()).toBe('DOC-NET-3');
  expect(await dialog.getByText(`${iana.address} → ${rir.address}`, { exact: false }).count()).toBe(1);
  expect(await dialog.getByTestId('whois-stale').count()).toBe(0);
  await dialog.locator('.modal-footer').getByRole('button', { name: 'Close' }).click();
  await dialog.waitFor({ state: 'detached' });
  // a day later the lookup fails: the viewer shows the last answer, saying it is stale and why
  await t.app.get<DataSource>(getDataSourceToken()).query("UPDATE outside_cache SET expires_at = 1 WHERE service = 'whois'");
  whoisDown = true;
  await detail.getByRole('button', { name: 'Whois' }).click();
  await dialog.getByTestId('whois-stale').waitFor();
  expect(await dialog.getByTestId('whois-stale').innerText()).toContain(`Whois server ${iana.address} answered nothing`);
  expect(await dialog.locator('[data-whois="Net name"]').innerText()).toBe('DOC-NET-3');
  whoisDown = false;
  await dialog.locator('.modal-footer').getByRole('button', { name: 'Close' }).click();
  await dialog.waitFor({ state: 'detached' });

  // Blok asks first; Cencel bans nothing, Yes bans (000 §8 'Set ban ok!' with the row count)
  await detail.getByRole('button', { name: 'Blok' }).click();
  await dialog.getByRole('button', { name: 'Cencel' }).click();
  await dialog.waitFor({ state: 'detached' });
  expect((await ok<{ list: IpRuleView[] }>('firewall.getIpRules', { like: '203.0.113.7' })).list).toEqual([]);
  await detail.getByRole('button', { name: 'Blok' }).click();
  await dialog.getByRole('button', { name: 'Yes' }).click();
  await toast(page, 'Set ban ok! · 1 row');
  await detail.locator('[data-rule="1"]', { hasText: 'Denied' }).waitFor();
  await page.locator('tr[data-ip="203.0.113.7"] [data-rule="1"]').waitFor();
  await screenshot(page, 'fw-traffic');

  // ... and the rule is on /firewall/iptables_rules
  await page.getByRole('link', { name: 'IP rules' }).click();
  await page.waitForURL((u) => u.pathname === '/firewall/iptables_rules');
  const row = page.locator('.app-fw-rules tbody tr', { hasText: '203.0.113.7' });
  await row.waitFor();
  expect(await row.locator('[data-rule]').innerText()).toBe('Denied');
}, T);

test('IP rules: status filter in the URL; removal by selection and by status asks first and says how many rows went', async () => {
  for (let i = 1; i <= 5; i++) await ok('firewall.setIpBan', { ip: `192.0.2.${100 + i}`, status: 2 });
  for (let i = 1; i <= 3; i++) await ok('firewall.setIpBan', { ip: `198.51.100.${100 + i}`, status: 1 });
  const page = await signedIn('/firewall/iptables_rules');
  await page.getByLabel('Status', { exact: true }).selectOption('2');
  await page.waitForURL((u) => u.search.includes('status=2'));
  const rows = page.locator('.app-fw-rules tbody tr');
  await page.waitForFunction(() => document.querySelectorAll('.app-fw-rules tbody tr').length === 5);
  await page.reload();
  await page.waitForFunction(() => document.querySelectorAll('.app-fw-rules tbody tr').length === 5);
  expect(await page.getByLabel('Status', { exact: true }).inputValue()).toBe('2');
  expect(await rows.locator('[data-rule]').allInnerTexts()).toEqual(new Array(5).fill('Denied auth logs'));

  await page.getByLabel('Select 192.0.2.101').check();
  await page.getByLabel('Select 192.0.2.102').check();
  const dialog = page.getByRole('dialog');
  await page.getByRole('button', { name: 'Delete selected (2)' }).click();
  await dialog.getByText('192.0.2.101', { exact: false }).waitFor();
  await dialog.getByRole('button', { name: 'Cencel' }).click();
  await dialog.waitFor({ state: 'detached' });
  expect((await ok<{ count: number }>('firewall.getIpRules', { status: 2 })).count).toBe(5);
  await page.getByRole('button', { name: 'Delete selected (2)' }).click();
  await dialog.getByRole('button', { name: 'Yes' }).click();
  await toast(page, 'Delete rule ok! · 2 rows');
  await page.waitForFunction(() => document.querySelectorAll('.app-fw-rules tbody tr').length === 3);
  expect((await ok<{ list: IpRuleView[] }>('firewall.getIpRules', { status: 2 })).list.map((r) => r.ip).sort()).toEqual(['192.0.2.103', '192.0.2.104', '192.0.2.105']);

  expect(await page.getByLabel('Status to remove').inputValue()).toBe('2');
  await page.getByRole('button', { name: 'Delete by status' }).click();
  await dialog.getByText('Denied auth logs', { exact: false }).waitFor();
  await dialog.getByRole('button', { name: 'Yes' }).click();
  await toast(page, 'Delete rule ok! · 3 rows');
  expect((await ok<{ count: number }>('firewall.getIpRules', { status: 2 })).count).toBe(0);
  expect((await ok<{ count: number }>('firewall.getIpRules', { status: 1, like: '198.51.100.10' })).count).toBe(3);
}, T);

test('block list: a bad line is refused naming it; saved sorted once fixed; an allowlisted address is reported; unsaved edits ask; the switch saves', async () => {
  const page = await signedIn('/firewall/iptables_block_list');
  await page.getByRole('button', { name: 'Add' }).click();
  const form = page.getByRole('form', { name: 'Block rule' });
  const dialog = page.getByRole('dialog');
  await form.getByLabel(/^Addresses/).fill('10.0.0.10\n\n10.0.0.9\nnot-an-ip\n10.0.0.0/8\n');
  await form.getByLabel('Comment').fill('scanners');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await page.getByTestId('line-errors').getByText('Line 4: "not-an-ip" is not an IP address or CIDR range').waitFor();
  expect(await ok<BlockRuleView[]>('firewall.getIptableBlockRules')).toEqual([]);

  await form.getByLabel(/^Addresses/).fill('10.0.0.10\n\n10.0.0.9\n10.0.0.0/8\n');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await toast(page, 'Save ok!');
  await dialog.waitFor({ state: 'detached' });
  const saved = await ok<BlockRuleView[]>('firewall.getIptableBlockRules');
  expect(saved).toMatchObject([{ value: '10.0.0.0/8\n10.0.0.9\n10.0.0.10', comment: 'scanners', status: 1 }]);
  expect(await page.locator(`tr[data-rule="${saved[0].Id}"] [data-testid="preview"]`).innerText()).toBe('10.0.0.0/8, 10.0.0.9, 10.0.0.10');

  // Edit: the editor holds the sorted lines; unsaved edits ask before the dialog closes
  await page.getByRole('button', { name: `Edit ${saved[0].Id}` }).click();
  expect(await form.getByLabel(/^Addresses/).inputValue()).toBe('10.0.0.0/8\n10.0.0.9\n10.0.0.10');
  await form.getByLabel(/^Addresses/).fill('10.0.0.0/8\n127.0.0.1\n10.0.0.9\n');
  const asked = nextDialog(page, 'dismiss');
  await dialog.getByRole('button', { name: 'Cencel' }).click();
  expect((await asked).message).toBe(UNSAVED_MESSAGE);
  expect(await form.getByLabel(/^Addresses/).inputValue()).toBe('10.0.0.0/8\n127.0.0.1\n10.0.0.9\n');
  // 'Clean and sort' sorts in the editor
  await dialog.getByRole('button', { name: 'Clean and sort' }).click();
  expect(await form.getByLabel(/^Addresses/).inputValue()).toBe('10.0.0.0/8\n10.0.0.9\n127.0.0.1');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await toast(page, 'Save ok!');
  // loopback is allowlisted: saved, left out of the sync, and said so
  await page.locator('.alert-warning', { hasText: 'allowlisted and left out of the sync: 127.0.0.0/8 (loopback)' }).waitFor();
  expect((await ok<BlockRuleView[]>('firewall.getIptableBlockRules'))[0].value).toBe('10.0.0.0/8\n10.0.0.9\n127.0.0.1');

  // the switch turns the rule off (000 §4 block rule switch)
  await page.getByLabel(`On ${saved[0].Id}`).click(); // a server-backed switch: its state follows the answer
  await toast(page, 'Save ok! · 1 row');
  expect((await ok<BlockRuleView[]>('firewall.getIptableBlockRules'))[0].status).toBe(0);
}, T);

test('server map: the firewall toggle answers Run / STOP, then the sync OK / ERROR naming the dead proxy; nginx_log in the server dialog', async () => {
  const Id = (await ok<{ Id: number }>('srv.save_server', {
    name: 'proxy-dead', type: 1, status: 1, ip: dead.ip, sshlogin: 'root', sshport: dead.sshPort, private_key: dead.privateKey,
  })).Id;
  const page = await signedIn('/srv/srv_map');
  const toggle = page.getByRole('switch', { name: 'Firewall log proxy-dead' });
  await toggle.click(); // server-backed: checked once the save answers
  await toast(page, 'Firewall is Run!!!');
  await toast(page, /^Iptables sync ERROR!!! proxy-dead: /);
  expect((await ok<{ read_nginx_log_firewall: number }>('srv.get', { Id })).read_nginx_log_firewall).toBe(1);

  // without a live proxy the sync has nothing to fail on
  await ok('srv.save_server', { Id, status: 0 });
  await page.reload();
  await page.getByRole('switch', { name: 'Firewall log proxy-dead' }).click();
  await toast(page, 'Firewall is STOP!!!');
  await toast(page, 'Iptables sync OK!!!');
  expect((await ok<{ read_nginx_log_firewall: number }>('srv.get', { Id })).read_nginx_log_firewall).toBe(0);

  // the proxy's access log path, edited in the server dialog
  await page.getByRole('button', { name: 'Edit proxy-dead' }).click();
  const form = page.getByRole('form', { name: 'Server' });
  expect(await form.getByLabel('Nginx log').inputValue()).toBe('/var/log/nginx/access.log');
  await form.getByLabel('Nginx log').fill('relative/path.log');
  await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
  await form.getByText('Nginx log must be an absolute path', { exact: false }).waitFor();
  await form.getByLabel('Nginx log').fill('/var/log/nginx/shop.access.log');
  await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
  await toast(page, 'Save server ok!');
  expect((await ok<{ nginx_log: string }>('srv.get', { Id })).nginx_log).toBe('/var/log/nginx/shop.access.log');
}, T);

test('390 px: an open address has the bottom bar Ok, Ne, Bad, Blok, Back on screen; Ok marks 0 and goes on, Bad asks then marks 1 (and bans), Back returns to the list', async () => {
  const page = await signedIn('/firewall?host=shop.example&ip=198.51.100.20', MOBILE);
  const bar = page.getByTestId('fw-bottom-bar');
  await bar.waitFor();
  expect(await bar.getByRole('button').allInnerTexts()).toEqual(['Ok', 'Ne', 'Bad', 'Blok', 'Back']);
  const box = (await bar.boundingBox())!;
  expect([box.x, box.y + box.height <= MOBILE.height, box.width]).toEqual([0, true, MOBILE.width]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
  // the open address's rows, not the list, on a phone
  await page.getByTestId('ip-detail').waitFor();
  expect(await page.locator('[data-testid="ip-list"]').count()).toBe(0);
  await screenshot(page, 'fw-traffic-390');

  // Ok, Ne, Bad are the training marks of 000 §4 (0, 0.5, 1; Firewall II)
  await bar.getByRole('button', { name: 'Ok', exact: true }).click();
  await toast(page, 'Set train: 0');
  // on to the next address of the list (by count: 198.51.100.20 is followed by 192.0.2.50)
  await page.waitForURL((u) => u.searchParams.get('ip') === '192.0.2.50');
  const marks = async () => (await ok<Array<{ ip: string; bal: number }>>('firewall.getTrainDataLog', { host: 'shop.example' })).map((m) => [m.ip, m.bal]).sort();
  expect(await marks()).toEqual([['198.51.100.20', 0]]);

  // Bad asks, then marks 1, which bans too
  await bar.getByRole('button', { name: 'Bad', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Yes' }).click();
  await toast(page, 'Set train: 1 · Set ban ok!');
  expect(await marks()).toEqual([['192.0.2.50', 1], ['198.51.100.20', 0]]);
  expect((await ok<{ list: IpRuleView[] }>('firewall.getIpRules', { like: '192.0.2.50' })).list).toMatchObject([{ ip: '192.0.2.50', status: 1 }]);

  await bar.getByRole('button', { name: 'Back' }).click();
  await page.locator('[data-testid="ip-list"]').waitFor();
  expect(await bar.count()).toBe(0);
  expect(new URL(page.url()).searchParams.get('ip')).toBeNull();
}, T);

test('IP statistics: domain and minimum count filter, unique books keep the readers of 5 books; the filter survives a reload', async () => {
  const page = await signedIn('/firewall/processing_logs');
  const form = page.getByRole('form', { name: 'IP statistics filter' });
  const ips = () => page.locator('.app-ptable tbody tr td:first-child').allInnerTexts();
  await form.getByLabel('Domain').fill('shop.example');
  await form.getByLabel('Min count').fill('5');
  await form.getByRole('button', { name: 'Apply' }).click();
  await page.waitForURL((u) => u.searchParams.get('host') === 'shop.example' && u.searchParams.get('min') === '5');
  await page.waitForFunction(() => document.querySelectorAll('.app-ptable tbody tr').length === 2);
  expect(await ips()).toEqual(['203.0.113.7', '198.51.100.20']);

  await form.getByLabel(/^Unique books/).check();
  await form.getByRole('button', { name: 'Apply' }).click();
  await page.waitForURL((u) => u.searchParams.get('books') === '1');
  await page.waitForFunction(() => document.querySelectorAll('.app-ptable tbody tr').length === 1);
  expect(await page.locator('.app-ptable tbody tr').first().locator('td').allInnerTexts()).toEqual(['203.0.113.7', '12', '5', expect.any(String)]);
  await page.reload();
  await page.waitForFunction(() => document.querySelectorAll('.app-ptable tbody tr').length === 1);
  expect(await form.getByLabel(/^Unique books/).isChecked()).toBe(true);
  expect(await form.getByLabel('Min count').inputValue()).toBe('5');
}, T);

test('worker bar: the switch persists, Run now shows each proxy, Sync now previews (dry run) then applies and names the failing proxy', async () => {
  const [dead1] = (await ok<Array<{ Id: number; name: string }>>('srv.getList', { type: 1 })).filter((s) => s.name === 'proxy-dead');
  await ok('srv.save_server', { Id: dead1.Id, status: 1, read_nginx_log_firewall: 1 });
  const page = await signedIn('/firewall/iptables_rules');
  const bar = page.getByTestId('fw-controls');
  await bar.getByText('Last run: never').waitFor();
  await bar.getByLabel(/^Firewall worker/).click(); // server-backed: checked once the save answers
  await toast(page, 'Firewall worker is on');
  expect((await ok<{ status: number }>('firewall.getWorkerStatus')).status).toBe(1);
  await ok('firewall.setWorkerStatus', { status: 0 }); // no scheduled runs meanwhile (CRON_ENABLED=0 anyway)
  await page.reload();
  expect(await bar.getByLabel(/^Firewall worker/).isChecked()).toBe(false);

  await bar.getByRole('button', { name: 'Run now' }).click();
  const dialog = page.getByRole('dialog');
  const results = dialog.getByTestId('worker-results');
  await results.waitFor();
  expect(await results.locator('tbody tr', { hasText: 'proxy-dead' }).getAttribute('class')).toContain('table-danger');
  await dialog.locator('.modal-footer').getByRole('button', { name: 'Close' }).click();
  await dialog.waitFor({ state: 'detached' });
  await page.waitForFunction(() => !document.querySelector('[data-testid="fw-last-run"]')?.textContent?.includes('never'));

  const before = (await ok<{ list: IpRuleView[] }>('firewall.getIpRules', { limit: 500 })).list;
  await bar.getByRole('button', { name: 'Sync now' }).click();
  await dialog.getByText('Dry run: what each proxy would get. Nothing has changed yet.').waitFor();
  const node = dialog.locator('[data-testid="sync-nodes"] tr[data-node="proxy-dead"]');
  await node.waitFor();
  expect(await node.getAttribute('class')).toContain('table-danger');
  expect((await ok<{ list: IpRuleView[] }>('firewall.getIpRules', { limit: 500 })).list).toEqual(before);
  await dialog.getByRole('button', { name: 'Apply' }).click();
  await toast(page, /^Iptables sync ERROR!!! proxy-dead: /);
  await dialog.getByText('Iptables sync', { exact: true }).waitFor();
}, T);
