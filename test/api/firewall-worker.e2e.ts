/**
 * The firewall worker end to end (issue 8 "Reading the logs", "Storage"): real proxy hosts in network
 * namespaces (nginx + OpenSSH, test/helpers/proxy-host.ts), the real app reading their logs over SSH,
 * a real database (SQLite, or MariaDB with TEST_DATABASE_URL).
 *
 * - what each client address sent is what is stored and counted, exactly (entries and per-minute counters);
 * - the extended `console` format fills forward, host and the times;
 * - rotation (move + reopen, and copytruncate) in the middle of the reads loses no line and counts none
 *   twice, including a last line without its newline; a rotated file that is gone is reported;
 * - bad lines are counted per proxy and sampled; a dead proxy is recorded while the live one is read;
 * - a restart (a new app on the same database) resumes at the cursor; two instances reading at once
 *   store every line once;
 * - the on/off switch is persisted, the socket channel runs it and tells admins; the scheduled job reads
 *   only with the switch on and CRON_ENABLED; retention removes old entries and counters in batches.
 *
 * Needs root (network namespaces), as the test machines and CI run.
 */
import { jest } from '@jest/globals';
import { getDataSourceToken } from '@nestjs/typeorm';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { io, type Socket } from 'socket.io-client';
import type { DataSource } from 'typeorm';
import { loadConfig } from '../../config/config.js';
import { NGINX_LOG_FORMAT_LINE, type WorkerProxyResult, type WorkerProxyState, type WorkerStatusEvent } from '../../src/contracts/firewall.js';
import type { Envelope } from '../../src/contracts/envelope.js';
import { FirewallRetentionJob } from '../../src/jobs/firewall-retention.job.js';
import { FirewallWorkerJob } from '../../src/jobs/firewall-worker.job.js';
import { AccessLogStore, minuteOf, RETENTION_BATCH } from '../../src/modules/firewall/worker/access-log.store.js';
import { FirewallWorkerService } from '../../src/modules/firewall/worker/firewall-worker.service.js';
import { parseChunk } from '../../src/modules/firewall/worker/log-parser.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { startDeadHost, startProxyHost, type DeadHost, type ProxyHost } from '../helpers/proxy-host.js';
import { waitFor } from '../helpers/wait.js';

jest.setTimeout(90_000);

const DB = process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite';
const SECRET_KEY = 'fw-worker-test-secret-key-0123456789abcdef';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0';

let plain: ProxyHost; // nginx's combined format
let ext: ProxyHost; // the console format of docs/firewall.md
let dead: DeadHost;
let t: TestApp;
let first: TestApp | null = null;
let shared: Record<string, string>;
let sqliteDir: string | null = null;
let admin: string;
const ids = { plain: 0, ext: 0, dead: 0 };
/** What each client sent to `plain` (combined format: stored under the proxy's address as host). */
const sent = new Map<string, number>();

beforeAll(async () => {
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    throw new Error('test/api/firewall-worker.e2e.ts needs root (network namespaces): run the tests as root, as the test machines and CI do.');
  }
  const started = await Promise.allSettled([startProxyHost({ clients: 4 }), startProxyHost({ clients: 2, logFormat: NGINX_LOG_FORMAT_LINE }), startDeadHost()]);
  if (started[0].status === 'fulfilled') plain = started[0].value;
  if (started[1].status === 'fulfilled') ext = started[1].value;
  if (started[2].status === 'fulfilled') dead = started[2].value;
  for (const s of started) if (s.status === 'rejected') throw s.reason;
  // A database of its own that outlives the first app (the restart test starts a second one on it).
  if (!process.env.TEST_DATABASE_URL) sqliteDir = mkdtempSync(join(tmpdir(), 'fw-worker-'));
  const env = { CRON_ENABLED: '0', SECRET_KEY, ...(sqliteDir ? { DATABASE_URL: `sqlite:${join(sqliteDir, 'fw.sqlite')}` } : {}) };
  t = first = await startApp(env);
  const db = t.cfg.database;
  shared = { CRON_ENABLED: '0', SECRET_KEY, DATABASE_URL: db.type === 'mariadb' ? db.url : `sqlite:${db.database}` };
  admin = (await t.session(1)).hash;
}, 90_000);

afterAll(async () => {
  if (t && t !== first) await t.close().catch(() => undefined);
  await first?.close().catch(() => undefined);
  await Promise.allSettled([plain?.stop(), ext?.stop(), dead?.stop()]);
  if (sqliteDir) rmSync(sqliteDir, { recursive: true, force: true });
}, 60_000);

// ---------------------------------------------------------------------------------------------
// Helpers

const ds = () => t.app.get<DataSource>(getDataSourceToken());
const q = async <T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> => (await ds().query(sql, params)) as T[];

/** Hits per client address of one host from the counters alone (no checks: for polling). */
async function counterTotals(host: string): Promise<Record<string, number>> {
  const rows = await q<{ ip: string; n: number | string }>('SELECT ip, SUM(`count`) AS n FROM fw_ip_minutes WHERE proxy_host = ? GROUP BY ip', [host]);
  return Object.fromEntries(rows.map((r) => [r.ip, Number(r.n)]).sort());
}

/** Hits per client address of one host: the counters, checked against the stored entries and firewall.getIpStats. */
async function counts(host: string): Promise<Record<string, number>> {
  const fromCounters = await q<{ ip: string; n: number | string }>('SELECT ip, SUM(`count`) AS n FROM fw_ip_minutes WHERE proxy_host = ? GROUP BY ip', [host]);
  const fromRows = await q<{ ip: string; n: number | string }>('SELECT ip, COUNT(*) AS n FROM fw_access_log WHERE proxy_host = ? GROUP BY ip', [host]);
  const obj = (rows: { ip: string; n: number | string }[]) => Object.fromEntries(rows.map((r) => [r.ip, Number(r.n)]).sort());
  expect(obj(fromCounters)).toEqual(obj(fromRows));
  // firewall.getIpStats (the traffic service) answers the same, counting every parsed line of the stored window
  const stats = await t.ok<{ ip: string; count: number }[]>(admin, 'firewall.getIpStats', { host });
  expect(Object.fromEntries(stats.map((s) => [s.ip, s.count]).sort())).toEqual(obj(fromCounters));
  return obj(fromCounters);
}
const expected = () => Object.fromEntries([...sent.entries()].filter(([, n]) => n > 0).sort());

/** Requests from one client to `plain`, each must answer `status`; remembered in `sent`. */
async function send(h: ProxyHost, from: string, n: number, path = '/', opts: { status?: number; host?: string; headers?: Record<string, string> } = {}) {
  const before = h.logLines().length;
  for (let i = 0; i < n; i++) {
    const st = await h.request(from, path, { host: opts.host, headers: opts.headers });
    expect(st).toBe(opts.status ?? 200);
  }
  if (h === plain) sent.set(from, (sent.get(from) ?? 0) + n);
  // nginx logs after the response: wait until it has written them
  await waitFor(`${n} more lines in ${h.logPath}`, () => h.logLines().length >= before + n);
}

const runWorker = () => t.ok<WorkerProxyResult[]>(admin, 'firewall.runWorker', {});
const resultOf = (r: WorkerProxyResult[], Id: number) => {
  const x = r.find((p) => p.Id === Id);
  if (!x) throw new Error(`no result for proxy ${Id}: ${JSON.stringify(r)}`);
  return x;
};
const proxyState = async (Id: number) => (await t.ok<WorkerProxyState[]>(admin, 'firewall.getWorkerProxies')).find((p) => p.Id === Id)!;

/** A combined-format line as nginx writes it, at `at`. */
function combinedLine(ip: string, path: string, at = new Date(), status = 200) {
  const mon = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][at.getUTCMonth()];
  const p2 = (n: number) => String(n).padStart(2, '0');
  const time = `${p2(at.getUTCDate())}/${mon}/${at.getUTCFullYear()}:${p2(at.getUTCHours())}:${p2(at.getUTCMinutes())}:${p2(at.getUTCSeconds())} +0000`;
  return `${ip} - - [${time}] "GET ${path} HTTP/1.1" ${status} 12 "-" "${BROWSER}"`;
}
/** Appends raw text to a proxy's live log (as nginx would, but chosen by the test). */
const append = (h: ProxyHost, text: string) => h.exec(`printf '%s' '${text.replace(/'/g, `'\\''`)}' >> '${h.logPath}'`);

function connect(hash: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = io(t.url, { transports: ['websocket'], auth: { hash, status: 'moder' }, reconnection: false, timeout: 5000 });
    s.on('connect', () => resolve(s));
    s.on('connect_error', (e) => { s.close(); reject(e); });
  });
}

// ---------------------------------------------------------------------------------------------

describe(`firewall worker (${DB})`, () => {
  test('proxies are added with nginx_log; the worker is off until switched on; nothing read yet', async () => {
    const proxy = (name: string, h: { ip: string; sshPort: number; privateKey: string }, extra: Record<string, unknown> = {}) =>
      t.ok<{ Id: number }>(admin, 'srv.save_server', { name, type: 1, status: 1, ip: h.ip, sshport: h.sshPort, sshlogin: 'root', private_key: h.privateKey, read_nginx_log_firewall: 1, ...extra });
    ids.plain = (await proxy('fw-plain', plain, { nginx_log: plain.logPath })).Id;
    ids.ext = (await proxy('fw-ext', ext, { nginx_log: ext.logPath })).Id;
    expect(await t.ok(admin, 'firewall.getWorkerStatus')).toEqual({ status: 0, last_worker_time: null });
    const states = await t.ok<WorkerProxyState[]>(admin, 'firewall.getWorkerProxies');
    expect(states.map((s) => [s.name, s.read, s.nginx_log, s.pos, s.lines]).sort()).toEqual([
      ['fw-ext', true, ext.logPath, 0, 0],
      ['fw-plain', true, plain.logPath, 0, 0],
    ]);
  });

  test("reads nginx's real log over SSH: entries and per-IP counters are exactly what each client sent; a second run reads nothing", async () => {
    const [a, b, c] = plain.clients;
    await send(plain, a, 3, '/');
    await send(plain, b, 5, '/about.html', { headers: { 'user-agent': BROWSER, referer: 'http://ref.test/x' } });
    await send(plain, c, 1, '/no-such-page', { status: 404 });
    await send(plain, c, 1, '/static/app.css', { headers: { 'user-agent': BROWSER } });
    await send(plain, c, 1, '/feed.xml', { headers: { 'user-agent': BROWSER } });
    await send(plain, c, 1, '/api/items', { headers: { 'user-agent': BROWSER } });

    const before = Date.now();
    const r = await runWorker();
    expect(resultOf(r, ids.plain)).toEqual({ Id: ids.plain, name: 'fw-plain', lines: 12, bad_lines: 0 });
    expect(resultOf(r, ids.ext)).toEqual({ Id: ids.ext, name: 'fw-ext', lines: 0, bad_lines: 0 });
    expect(await counts(plain.ip)).toEqual(expected());

    // combined lines carry no host: stored under the proxy's ip; proxy_addr is the proxy
    const rows = await q<{ ip: string; url: string; code: number; ref: string; agent: string; tag: string; proxy_host: string; proxy_addr: string; forward: string; request_time: number | null }>(
      'SELECT ip, url, code, ref, agent, tag, proxy_host, proxy_addr, forward, request_time FROM fw_access_log WHERE proxy_id = ? ORDER BY Id', [ids.plain]);
    expect(rows).toHaveLength(12);
    for (const row of rows) expect(row).toMatchObject({ proxy_host: plain.ip, proxy_addr: plain.ip, forward: '', request_time: null });
    expect(rows.filter((x) => x.ip === b).map((x) => [x.url, Number(x.code), x.ref, x.agent, x.tag])).toEqual(new Array(5).fill(['/about.html', 200, 'http://ref.test/x', BROWSER, 'page']));
    expect(rows.filter((x) => x.ip === c).map((x) => [x.url, Number(x.code), x.tag])).toEqual([
      ['/no-such-page', 404, 'bot'], // no user agent: a robot
      ['/static/app.css', 200, 'static'],
      ['/feed.xml', 200, 'feed'],
      ['/api/items', 200, 'api'],
    ]);

    const status = await t.ok<{ status: number; last_worker_time: string }>(admin, 'firewall.getWorkerStatus');
    expect(status.status).toBe(0);
    expect(Date.parse(status.last_worker_time)).toBeGreaterThanOrEqual(before - 1000);
    const st = await proxyState(ids.plain);
    expect(st).toMatchObject({ lines: 12, bad_lines: 0, last_error: null, inode: expect.stringMatching(/^\d+$/) });
    expect(st.pos).toBe(Buffer.byteLength(plain.readLog()));

    const again = await runWorker();
    expect(resultOf(again, ids.plain)).toMatchObject({ lines: 0, bad_lines: 0 });
    expect(await counts(plain.ip)).toEqual(expected());
  });

  test('the extended console format fills forward, host and the times; counters are per host', async () => {
    const [a, b] = ext.clients;
    await send(ext, a, 2, '/about.html', { host: 'Shop.Test', headers: { 'x-forwarded-for': '203.0.113.7', 'user-agent': BROWSER } });
    await send(ext, b, 1, '/', { host: 'news.test' });
    expect(resultOf(await runWorker(), ids.ext)).toMatchObject({ lines: 3, bad_lines: 0 });
    const rows = await q<{ ip: string; proxy_host: string; proxy_addr: string; forward: string; request_time: number | null; upstream_response_time: string; url: string }>(
      'SELECT ip, proxy_host, proxy_addr, forward, request_time, upstream_response_time, url FROM fw_access_log WHERE proxy_id = ? ORDER BY Id', [ids.ext]);
    expect(rows.map((r) => [r.ip, r.proxy_host, r.proxy_addr, r.forward, r.upstream_response_time, r.url])).toEqual([
      [a, 'shop.test', ext.ip, '203.0.113.7', '', '/about.html'],
      [a, 'shop.test', ext.ip, '203.0.113.7', '', '/about.html'],
      [b, 'news.test', ext.ip, '', '', '/'],
    ]);
    for (const r of rows) expect(typeof r.request_time === 'number' && r.request_time >= 0).toBe(true); // $request_time is logged (0.000 for a static file)
    expect(await counts('shop.test')).toEqual({ [a]: 2 });
    expect(await counts('news.test')).toEqual({ [b]: 1 });
    expect(await counts(ext.ip)).toEqual({});
  });

  test('bad lines are counted per proxy and sampled with their reason, never fatal', async () => {
    await append(plain, 'this is not an access log line\n');
    await append(plain, '10.0.0.1 - - [no time] "GET / HTTP/1.1" 200 1 "-" "x"\n');
    const [a] = plain.clients;
    await send(plain, a, 2, '/book/11');
    const r = resultOf(await runWorker(), ids.plain);
    expect(r).toMatchObject({ lines: 2, bad_lines: 2 });
    const st = await proxyState(ids.plain);
    expect(st.bad_lines).toBe(2);
    expect(st.lines).toBe(14);
    expect(st.bad_sample.map((b) => [b.reason, b.text])).toEqual([
      ['address', 'this is not an access log line'],
      ['time', '10.0.0.1 - - [no time] "GET / HTTP/1.1" 200 1 "-" "x"'],
    ]);
    expect(st.bad_sample[0].at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await counts(plain.ip)).toEqual(expected());
  });

  test('rotation (move and reopen) in the middle of the reads: the rotated file is finished, then the new log read from 0; no line lost, none twice', async () => {
    const [a, b, c] = plain.clients;
    await send(plain, a, 2, '/book/1');
    expect(resultOf(await runWorker(), ids.plain)).toMatchObject({ lines: 2, bad_lines: 0 }); // the partial read
    await send(plain, b, 3, '/book/2'); // only in the rotated file
    const oldInode = (await proxyState(ids.plain)).inode;
    await plain.rotateLog();
    await send(plain, c, 4, '/book/3');
    const r = resultOf(await runWorker(), ids.plain);
    expect(r).toEqual({ Id: ids.plain, name: 'fw-plain', lines: 3 + 4, bad_lines: 0 });
    expect(await counts(plain.ip)).toEqual(expected());
    const st = await proxyState(ids.plain);
    expect(st.inode).not.toBe(oldInode);
    expect(st.pos).toBe(Buffer.byteLength(plain.readLog()));
    expect(resultOf(await runWorker(), ids.plain)).toMatchObject({ lines: 0 });
    expect(await counts(plain.ip)).toEqual(expected());
  });

  test("rotation right after a line nginx had not finished: the rotated file's last line (no newline) is taken once", async () => {
    const [a, , c, d] = plain.clients;
    await send(plain, a, 1, '/book/4');
    // a line still being written (no newline): a read leaves it for later
    await append(plain, combinedLine(d, '/last-line-no-newline'));
    expect(resultOf(await runWorker(), ids.plain)).toMatchObject({ lines: 1, bad_lines: 0 });
    const pos = (await proxyState(ids.plain)).pos;
    expect(pos).toBe(Buffer.byteLength(plain.readLog()) - Buffer.byteLength(combinedLine(d, '/last-line-no-newline')));
    await plain.rotateLog();
    await send(plain, c, 2, '/book/5');
    sent.set(d, (sent.get(d) ?? 0) + 1);
    expect(resultOf(await runWorker(), ids.plain)).toMatchObject({ lines: 1 + 2, bad_lines: 0 });
    expect(await counts(plain.ip)).toEqual(expected());
    const rows = await q<{ url: string }>('SELECT url FROM fw_access_log WHERE ip = ? AND proxy_id = ?', [d, ids.plain]);
    expect(rows.map((x) => x.url)).toEqual(['/last-line-no-newline']);
  });

  test('copytruncate (same inode, shorter file): the copy is finished from the cursor, then the log from 0', async () => {
    const [a, b] = plain.clients;
    await send(plain, b, 2, '/book/6');
    expect(resultOf(await runWorker(), ids.plain)).toMatchObject({ lines: 2 });
    await send(plain, a, 3, '/book/7');
    const inode = (await proxyState(ids.plain)).inode;
    await plain.rotateLog('copytruncate');
    await send(plain, b, 2, '/book/8');
    expect(resultOf(await runWorker(), ids.plain)).toMatchObject({ lines: 3 + 2, bad_lines: 0 });
    expect(await counts(plain.ip)).toEqual(expected());
    const st = await proxyState(ids.plain);
    expect(st.inode).toBe(inode);
    expect(st.pos).toBe(Buffer.byteLength(plain.readLog()));
  });

  test('a rotated file that is gone: the new log is read from 0 and the loss is reported (warning, last_error)', async () => {
    const [a, b] = plain.clients;
    await send(plain, a, 2, '/book/9');
    await plain.rotateLog();
    await plain.exec(`rm -f '${plain.rotatedLogPath}'`);
    sent.set(a, sent.get(a)! - 2); // never read: they were in the file removed
    await send(plain, b, 1, '/book/10');
    const r = resultOf(await runWorker(), ids.plain);
    expect(r).toMatchObject({ lines: 1, bad_lines: 0 });
    expect(r.error).toBeUndefined();
    expect(r.warning).toMatch(/rotated and .*\.1 is not the file read before .*lines after byte \d+ of it were not read/);
    expect((await proxyState(ids.plain)).last_error).toBe(r.warning);
    expect(await counts(plain.ip)).toEqual(expected());
    // the next good read clears it
    expect(resultOf(await runWorker(), ids.plain)).toEqual({ Id: ids.plain, name: 'fw-plain', lines: 0, bad_lines: 0 });
    expect((await proxyState(ids.plain)).last_error).toBeNull();
  });
});

describe(`firewall worker: a dead proxy, the switch, the socket channel, a restart (${DB})`, () => {
  test('a dead proxy is recorded with its error and skipped while the live one is read', async () => {
    ids.dead = (await t.ok<{ Id: number }>(admin, 'srv.save_server', {
      name: 'fw-dead', type: 1, status: 1, ip: dead.ip, sshport: dead.sshPort, sshlogin: 'root', private_key: dead.privateKey, read_nginx_log_firewall: 1,
    })).Id;
    const [a] = plain.clients;
    await send(plain, a, 2, '/book/12');
    const r = await runWorker();
    expect(resultOf(r, ids.plain)).toEqual({ Id: ids.plain, name: 'fw-plain', lines: 2, bad_lines: 0 });
    const d = resultOf(r, ids.dead);
    expect(d).toMatchObject({ lines: 0, bad_lines: 0, error: expect.stringMatching(/time|connect/i) });
    expect((await proxyState(ids.dead)).last_error).toBe(d.error);
    expect((await proxyState(ids.plain)).last_error).toBeNull();
    expect(await counts(plain.ip)).toEqual(expected());
    // switched off (status 0) or not read (flag 0), it is left alone
    await t.ok(admin, 'srv.save_server', { Id: ids.dead, read_nginx_log_firewall: 0 });
    const r2 = await runWorker();
    expect(r2.map((x) => x.Id).sort()).toEqual([ids.plain, ids.ext].sort());
    expect((await proxyState(ids.dead)).read).toBe(false);
  });

  test('the socket channel: admins set the switch, get the status and run the worker; firewall.worker tells every admin; weaker roles are refused', async () => {
    const s = await connect(admin);
    const other = await connect(admin);
    const weak = await connect((await t.session(10)).hash);
    try {
      const events: WorkerStatusEvent[] = [];
      other.on('firewall.worker', (e: WorkerStatusEvent) => events.push(e));
      const on = (await s.timeout(5000).emitWithAck('firewall.setWorkerStatus', { status: 1 })) as Envelope<{ status: number }>;
      expect(on).toMatchObject({ status: 'ok', result: { status: 1 } });
      await waitFor('the switch event', () => events.find((e) => e.status === 1 && !e.results));
      expect(await s.timeout(5000).emitWithAck('firewall.getWorkerStatus', {})).toMatchObject({ status: 'ok', result: { status: 1, last_worker_time: expect.any(String) } });
      const bad = (await s.timeout(5000).emitWithAck('firewall.setWorkerStatus', { status: 2 })) as Envelope;
      expect(bad.status).not.toBe('ok');
      expect(JSON.stringify(bad)).toContain('Status must be 0 or 1');

      const [, b] = plain.clients;
      await send(plain, b, 1, '/book/13');
      const ran = (await s.timeout(30_000).emitWithAck('firewall.runWorker', {})) as Envelope<WorkerProxyResult[]>;
      expect(ran.status).toBe('ok');
      if (ran.status === 'ok') expect(resultOf(ran.result, ids.plain)).toMatchObject({ lines: 1 });
      const end = await waitFor('the run event', () => events.find((e) => e.results && !e.running));
      expect(resultOf(end.results!, ids.plain)).toMatchObject({ lines: 1 });
      expect(events.some((e) => e.running)).toBe(true); // the run's start was told too
      const states = (await s.timeout(5000).emitWithAck('firewall.getWorkerProxies', {})) as Envelope<WorkerProxyState[]>;
      expect(states.status).toBe('ok');

      for (const m of ['firewall.getWorkerStatus', 'firewall.setWorkerStatus', 'firewall.runWorker', 'firewall.getWorkerProxies']) {
        const refused = new Promise<string>((resolve) => weak.once('exception', (e: { message: string }) => resolve(e.message)));
        weak.emit(m, { status: 0 });
        expect(await refused).toMatch(/Forbidden/);
      }
      expect(await t.ok(admin, 'firewall.getWorkerStatus')).toMatchObject({ status: 1 }); // unchanged by the refused call
    } finally {
      s.close();
      other.close();
      weak.close();
    }
  });

  test('the scheduled job reads only where CRON_ENABLED is on (not on this app), and retention too', async () => {
    expect((await t.ok(admin, 'firewall.getWorkerStatus')).status).toBe(1);
    const [c] = plain.clients;
    await send(plain, c, 1, '/book/14');
    expect(await t.app.get(FirewallWorkerJob).run()).toBeNull();
    expect(await t.app.get(FirewallRetentionJob).run()).toBeNull();
    expect(await counts(plain.ip)).not.toEqual(expected()); // still unread
  });

  test('a restart resumes at the persisted cursor: nothing re-read, the switch kept; the job then reads with the switch on and CRON_ENABLED', async () => {
    const before = await proxyState(ids.plain);
    await t.app.close(); // the first app stops (its database stays)
    t = await startApp({ ...shared, CRON_ENABLED: '1' });
    admin = (await t.session(1)).hash;
    expect(await t.ok(admin, 'firewall.getWorkerStatus')).toMatchObject({ status: 1 });
    expect((await proxyState(ids.plain)).inode).toBe(before.inode);

    // the line sent before the restart (left unread above) and one more, read by the job or the schedule
    const [a] = plain.clients;
    await send(plain, a, 1, '/book/15');
    const job = await t.app.get(FirewallWorkerJob).run();
    if (job) expect(resultOf(job, ids.plain)).toMatchObject({ lines: 2 });
    // (a scheduled tick of this app may have read them first: either way, once)
    await waitFor('the job read', async () => JSON.stringify(await counterTotals(plain.ip)) === JSON.stringify(expected()));
    expect(await counts(plain.ip)).toEqual(expected());
    expect((await proxyState(ids.plain)).lines).toBe(before.lines + 2);
    expect(resultOf(await runWorker(), ids.plain)).toMatchObject({ lines: 0 });
    // The scheduled read only reads: it audits nothing (issue 18); an admin's run audits its commands.
    const execs = await q<{ uid: unknown; n: unknown }>("SELECT uid, COUNT(*) AS n FROM audit_log WHERE method = 'ssh.exec' GROUP BY uid");
    expect(execs.filter((r) => r.uid === null)).toEqual([]);
    expect(execs.reduce((n, r) => n + Number(r.n), 0)).toBeGreaterThan(0);

    // switched off: the job reads nothing (a run by hand first waits for any scheduled run still going on)
    await t.ok(admin, 'firewall.setWorkerStatus', { status: 0 });
    expect(resultOf(await runWorker(), ids.plain)).toMatchObject({ lines: 0 });
    await send(plain, a, 1, '/book/16');
    expect(await t.app.get(FirewallWorkerJob).run()).toBeNull();
    expect(await counts(plain.ip)).not.toEqual(expected());
    expect(resultOf(await runWorker(), ids.plain)).toMatchObject({ lines: 1 });
    expect(await counts(plain.ip)).toEqual(expected());
  });

  test('two instances reading at once store every line once (the cursor moves by compare-and-set)', async () => {
    const second = await startApp(shared);
    try {
      const h2 = (await second.session(1)).hash;
      const [a, b, c, d] = plain.clients;
      for (let i = 0; i < 40; i++) await send(plain, [a, b, c, d][i % 4], 1, `/book/${100 + i}`);
      const [r1, r2] = await Promise.all([runWorker(), second.ok<WorkerProxyResult[]>(h2, 'firewall.runWorker', {})]);
      const x = resultOf(r1, ids.plain);
      const y = resultOf(r2, ids.plain);
      expect(x.lines + y.lines).toBe(40);
      for (const r of [x, y]) if (r.error) expect(r.error).toMatch(/read by another run at the same time/);
      expect(await counts(plain.ip)).toEqual(expected());
    } finally {
      await second.close();
    }
  });

  test('retention: entries and counters older than FIREWALL_LOG_RETENTION_HOURS are removed in batches, newer ones kept', async () => {
    const store = t.app.get(AccessLogStore);
    const old = new Date(Date.now() - (72 + 1) * 3600_000);
    const fresh = new Date(Date.now() - 71 * 3600_000);
    const n = RETENTION_BATCH * 2 + 17;
    const text = Array.from({ length: n }, (_, i) => combinedLine(`198.51.100.${i % 200}`, `/old/${i}`, new Date(old.getTime() - i * 1000))).join('\n') + '\n' +
      combinedLine('198.51.100.250', '/fresh', fresh) + '\n';
    const { batch } = parseChunk(Buffer.from(text));
    expect(batch.length).toBe(n + 1);
    const proxyId = 999_999;
    await q('INSERT INTO fw_log_cursors (proxy_id, path, inode, pos, `lines`, bad_lines) VALUES (?, ?, ?, ?, ?, ?)', [proxyId, '/x', '1', 0, 0, 0]);
    await store.commit({ proxy_id: proxyId, proxy_addr: 'retention.test' }, batch, { inode: '1', pos: 0 }, { inode: '1', pos: batch.endOffset, path: '/x' }, 0, null);
    const rows = async () => Number((await q<{ n: number }>('SELECT COUNT(*) AS n FROM fw_access_log WHERE proxy_host = ?', ['retention.test']))[0].n);
    const minutes = async () => Number((await q<{ n: number }>('SELECT COUNT(*) AS n FROM fw_ip_minutes WHERE proxy_host = ?', ['retention.test']))[0].n);
    expect(await rows()).toBe(n + 1);
    const oldMinutes = await minutes();
    expect(oldMinutes).toBeGreaterThan(1);

    const removed = await t.app.get(FirewallWorkerService).removeExpired();
    expect(removed.entries).toBeGreaterThanOrEqual(n); // (and any other entry that old)
    expect(await rows()).toBe(1);
    expect(await minutes()).toBe(1);
    const left = await q<{ minute: number }>('SELECT minute FROM fw_ip_minutes WHERE proxy_host = ?', ['retention.test']);
    expect(Number(left[0].minute)).toBe(minuteOf(Math.floor(fresh.getTime() / 1000)));
    // the worker's own entries are recent: kept
    expect(await counts(plain.ip)).toEqual(expected());
    // the job runs it on this app (CRON_ENABLED=1, the lease): nothing left to remove
    expect(await t.app.get(FirewallRetentionJob).run()).toEqual({ entries: 0, counters: 0 });
    expect(await rows()).toBe(1);
  });

  test('FIREWALL_LOG_RETENTION_HOURS: default 72, validated at start', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fw-cfg-'));
    try {
      expect(loadConfig({ DATA_DIR: dir }).firewallLogRetentionHours).toBe(72);
      expect(loadConfig({ DATA_DIR: dir, FIREWALL_LOG_RETENTION_HOURS: '12' }).firewallLogRetentionHours).toBe(12);
      for (const bad of ['0', 'abc', '1.5', '9000']) expect(() => loadConfig({ DATA_DIR: dir, FIREWALL_LOG_RETENTION_HOURS: bad })).toThrow(/FIREWALL_LOG_RETENTION_HOURS/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
