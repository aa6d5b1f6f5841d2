/**
 * Traffic queries of the firewall (issue 8; 000 §2 /firewall, /firewall/processing_logs; §3 IP stats,
 * Access log entry, Traffic log row; §5; §7; §9) on the real app and a real database: the traffic
 * report (top addresses, first/last seen, per-code and per-tag counts, current rule) checked against an
 * oracle computed from the stored entries, before and after the summary rollup and with rows arriving
 * after it; an address's rows; IP statistics from the per-minute counters and unique-book statistics; the
 * log query syntax; the filter options; the REST rows; role checks.
 *
 * Entries go the worker's way: written as nginx log lines (the extended `console` format), parsed by
 * the real parser and stored by the worker's store (src/modules/firewall/worker/access-log.store.ts: rows,
 * per-minute counters and the cursor in one transaction); retention by the store's removeBefore.
 */
import { jest } from '@jest/globals';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Envelope, ErrorEnvelope } from '../../src/contracts/envelope.js';
import {
  classifyRequest, codeMatches, type AccessLogEntry, type AccessLogTag, type IpStat, type TrafficCodeFilter, type TrafficFilter, type TrafficReport, type TrafficRow,
} from '../../src/contracts/firewall.js';
import { AccessLogStore } from '../../src/modules/firewall/worker/access-log.store.js';
import { LogCursorEntity } from '../../src/modules/firewall/firewall.entities.js';
import { FirewallTrafficService } from '../../src/modules/firewall/traffic/firewall-traffic.service.js';
import { initialParseState, parseChunk } from '../../src/modules/firewall/worker/log-parser.js';
import { startApp, type TestApp } from '../helpers/app.js';

jest.setTimeout(60_000);

const DB = process.env.TEST_DATABASE_URL ? 'mariadb' : 'sqlite';

let t: TestApp;
let admin: string;
let ds: DataSource;
let traffic: FirewallTrafficService;
let logStore: AccessLogStore;

beforeAll(async () => {
  t = await startApp({ CRON_ENABLED: '0' });
  admin = (await t.session(1)).hash;
  ds = t.app.get<DataSource>(getDataSourceToken());
  traffic = t.app.get(FirewallTrafficService);
  logStore = t.app.get(AccessLogStore);
}, 60_000);
afterAll(async () => { await t?.close(); }, 30_000);

const ok = <T = any>(method: string, args?: unknown) => t.ok<T>(admin, method, args);
async function refused(method: string, args: unknown): Promise<ErrorEnvelope> {
  const r = await t.rpc(admin, method, args);
  expect(r.status).toBeLessThan(500);
  expect(r.env.status).not.toBe('ok');
  return r.env as ErrorEnvelope;
}

// ---------------------------------------------------------------------------------------------
// Stored entries and an oracle over them

interface Stored { proxy_host: string; proxy_addr: string; ip: string; stime: number; method: string; url: string; code: number; ref: string; agent: string; tag: AccessLogTag }
const stored: Stored[] = [];
/** When the entries were stored (set in beforeAll: app start-up on MariaDB takes a while). */
let NOW = 0;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const timeLocal = (stime: number) => {
  const d = new Date(stime * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`;
};
/** One line of nginx's extended `console` format (docs/firewall.md). */
const logLine = (e: Stored) =>
  `${e.ip} - - [${timeLocal(e.stime)}] "${e.method} ${e.url} HTTP/1.1" ${e.code} 512 "${e.ref || '-'}" "${e.agent}" "-" "${e.proxy_host}" 0.001 0.002\n`;

/** Where each proxy's "log" stands: its cursor row and byte offset. */
const cursors = new Map<string, { id: number; pos: number }>();

/** Stores entries the worker's way: log lines of each proxy parsed and committed by the store. */
async function store(list: Stored[]) {
  const byProxy = new Map<string, Stored[]>();
  for (const e of list) byProxy.set(e.proxy_addr, [...(byProxy.get(e.proxy_addr) ?? []), e]);
  for (const [addr, entries] of byProxy) {
    let c = cursors.get(addr);
    if (!c) {
      c = { id: cursors.size + 1, pos: 0 };
      cursors.set(addr, c);
      await ds.getRepository(LogCursorEntity).insert({ proxy_id: c.id, path: '/var/log/nginx/access.log', inode: '42', pos: 0, lines: 0, bad_lines: 0 });
    }
    const chunk = Buffer.from(entries.map(logLine).join(''));
    const { batch, state } = parseChunk(chunk, initialParseState(c.pos));
    expect([batch.length, batch.bad, state.offset]).toEqual([entries.length, 0, c.pos + chunk.length]);
    await logStore.commit({ proxy_id: c.id, proxy_addr: addr }, batch, { inode: '42', pos: c.pos }, { inode: '42', pos: state.offset, path: '/var/log/nginx/access.log' }, 0, null);
    c.pos = state.offset;
  }
  stored.push(...list);
}

let seq = 0;
/** An entry; its tag is what the parser's rules give its url and agent (checked against the one named). */
const entry = (over: Partial<Stored> & { ip: string; stime: number }): Stored => {
  const e = { proxy_host: 'shop.test', proxy_addr: '10.9.0.1', method: 'GET', url: `/page/${seq++}`, code: 200, ref: '', agent: 'Mozilla/5.0', tag: 'page' as AccessLogTag, ...over };
  const tag = classifyRequest(e.url, e.agent);
  if (over.tag && over.tag !== tag) throw new Error(`${e.url} / ${e.agent} is tagged ${tag}, not ${over.tag}`);
  return { ...e, tag };
};
const times = (n: number, fn: (i: number) => Stored) => Array.from({ length: n }, (_, i) => fn(i));

const X = '203.0.113.10';
const Y = '203.0.113.20';
const Z = '198.51.100.5';
const W = '2001:db8::7';
const B1 = '192.0.2.31';
const B2 = '192.0.2.32';
const V = '192.0.2.99';

/** The report the stored entries call for (the oracle) at the time `now`, computed in JS. */
function expected(host: string, range: number, code: TrafficCodeFilter, top = 200, now = Math.floor(Date.now() / 1000)) {
  const since = range > 0 ? now - range * 60 : -Infinity;
  const rows = stored.filter((e) => e.proxy_host === host && e.stime >= since && codeMatches(code, e.code));
  const per = new Map<string, { count: number; first: number; last: number; codes: Record<string, number>; tags: Record<string, number> }>();
  for (const e of rows) {
    let p = per.get(e.ip);
    if (!p) per.set(e.ip, (p = { count: 0, first: Infinity, last: -Infinity, codes: {}, tags: {} }));
    p.count++;
    p.first = Math.min(p.first, e.stime);
    p.last = Math.max(p.last, e.stime);
    p.codes[e.code] = (p.codes[e.code] ?? 0) + 1;
    p.tags[e.tag] = (p.tags[e.tag] ?? 0) + 1;
  }
  const list = [...per].sort((a, b) => b[1].count - a[1].count || (a[0] < b[0] ? -1 : 1)).slice(0, top);
  return {
    total: rows.length,
    ips_total: per.size,
    list: list.map(([ip, p]) => ({ ip, count: p.count, first: new Date(p.first * 1000).toISOString(), last: new Date(p.last * 1000).toISOString(), codes: p.codes, tags: p.tags })),
  };
}
const report = (host: string, range_minutes: number, code: TrafficCodeFilter = 'all', top?: number) =>
  ok<TrafficReport>('firewall.getTraffic', { host, range_minutes, code, ...(top ? { top } : {}) });
const strip = (r: TrafficReport) => ({ total: r.total, ips_total: r.ips_total, list: r.list.map(({ rule: _rule, ...x }) => x) });
/**
 * The report equals the oracle at the time it was asked. The service reads the clock itself: the oracle
 * is computed for the second before and the second after the call; when a line crossed the window's
 * edge in between (they differ), the call is made again.
 */
async function checkReport(host: string, range: number, code: TrafficCodeFilter, top = 200) {
  for (let attempt = 0; ; attempt++) {
    const t0 = Math.floor(Date.now() / 1000);
    const got = strip(await report(host, range, code, top));
    const t1 = Math.floor(Date.now() / 1000);
    const e0 = expected(host, range, code, top, t0);
    if (attempt < 3 && JSON.stringify(e0) !== JSON.stringify(expected(host, range, code, top, t1))) continue;
    expect([host, range, code, top, got]).toEqual([host, range, code, top, e0]);
    return;
  }
}
const checkAll = async () => {
  for (const [host, range, code] of CASES) await checkReport(host, range, code);
  // a short head: addresses of raw rows outside the summary's head must still make it
  for (const [host, range, code] of CASES.slice(0, 12)) await checkReport(host, range, code, 5);
};

const CASES: Array<[string, number, TrafficCodeFilter]> = [
  ['shop.test', 60, 'all'], ['shop.test', 60, '404'], ['shop.test', 60, '400>'], ['shop.test', 60, '301/302'], ['shop.test', 60, '500>'],
  ['shop.test', 60, '200>'], ['shop.test', 3, 'all'], ['shop.test', 15, 'all'], ['shop.test', 180, 'all'], ['shop.test', 720, 'all'],
  ['shop.test', 0, 'all'], ['shop.test', 0, '200>'], ['news.test', 60, 'all'], ['news.test', 0, 'all'],
];

beforeAll(async () => {
  NOW = Math.floor(Date.now() / 1000);
  await store([
    // X: 20 pages, 5 not found, 5 static files over the last 10 minutes; 4 lines on news.test; 5 lines 30 hours ago
    ...times(20, (i) => entry({ ip: X, stime: NOW - 560 + i * 25 })),
    ...times(5, (i) => entry({ ip: X, stime: NOW - 300 + i, code: 404, url: `/missing/${i}` })),
    ...times(5, (i) => entry({ ip: X, stime: NOW - 200 + i, url: `/static/app${i}.css`, tag: 'static' })),
    ...times(4, (i) => entry({ ip: X, stime: NOW - 100 + i, proxy_host: 'news.test', proxy_addr: '10.9.0.2' })),
    ...times(5, (i) => entry({ ip: X, stime: NOW - 30 * 3600 + i * 60 })),
    // Y: a crawler, 10 pages and 2 redirects
    ...times(10, (i) => entry({ ip: Y, stime: NOW - 1200 + i * 30, agent: 'Mozilla/5.0 (compatible; Googlebot/2.1)', tag: 'bot' })),
    ...times(2, (i) => entry({ ip: Y, stime: NOW - 900 + i, code: i ? 302 : 301, agent: 'Googlebot', tag: 'bot', ref: 'http://ref.test/' })),
    // Z: 2 hours ago only; W: IPv6 with server errors
    ...times(8, (i) => entry({ ip: Z, stime: NOW - 7200 + i })),
    ...times(3, (i) => entry({ ip: W, stime: NOW - 240 + i, code: 500, method: 'POST', url: '/api/save', tag: 'api' })),
    // B1 reads 6 different books (one twice), B2 only 4
    ...[1, 2, 3, 4, 5, 6, 1].map((b, i) => entry({ ip: B1, stime: NOW - 1500 + i * 60, url: `/book/${b}?page=${i}` })),
    ...[7, 8, 9, 10].map((b, i) => entry({ ip: B2, stime: NOW - 1500 + i * 60, url: `/book/${b}` })),
  ]);
});

describe(`traffic report (${DB})`, () => {
  test('top addresses of a host with count, first/last seen, per-code and per-tag counts, in the range and code filter', async () => {
    const r = await report('shop.test', 60);
    expect(r).toMatchObject({ host: 'shop.test', range_minutes: 60, code: 'all', total: 30 + 12 + 3 + 7 + 4, ips_total: 5 });
    expect(r.list.map((x) => [x.ip, x.count])).toEqual([[X, 30], [Y, 12], [B1, 7], [B2, 4], [W, 3]]);
    expect(r.list[0]).toEqual({
      ip: X, count: 30, first: new Date((NOW - 560) * 1000).toISOString(), last: new Date((NOW - 85) * 1000).toISOString(),
      codes: { 200: 25, 404: 5 }, tags: { page: 25, static: 5 }, rule: null,
    });
    expect(r.list[1]).toMatchObject({ ip: Y, codes: { 200: 10, 301: 1, 302: 1 }, tags: { bot: 12 } });
    expect(r.list[4]).toMatchObject({ ip: W, codes: { 500: 3 }, tags: { api: 3 } });
    await checkAll();
  });

  test('the code filters of 000 §5: 404, 400> (400 and above), 301/302, 500>', async () => {
    expect((await report('shop.test', 60, '404')).list.map((x) => [x.ip, x.count])).toEqual([[X, 5]]);
    expect((await report('shop.test', 60, '400>')).list.map((x) => [x.ip, x.count])).toEqual([[X, 5], [W, 3]]);
    expect((await report('shop.test', 60, '301/302')).list.map((x) => [x.ip, x.count, x.codes])).toEqual([[Y, 2, { 301: 1, 302: 1 }]]);
    expect((await report('shop.test', 60, '500>')).list.map((x) => x.ip)).toEqual([W]);
    expect((await report('shop.test', 60, '201')).list).toEqual([]);
  });

  test('ranges: 3 minutes, 3 hours (Z 2 hours ago), all stored (X 30 hours ago); top buckets; the default range is 1 hour', async () => {
    expect((await report('shop.test', 3)).list.map((x) => x.ip)).toEqual([X]);
    expect((await report('shop.test', 180)).list.map((x) => x.ip)).toContain(Z);
    expect((await report('shop.test', 60)).list.map((x) => x.ip)).not.toContain(Z);
    expect((await report('shop.test', 0)).list[0]).toMatchObject({ ip: X, count: 35, first: new Date((NOW - 30 * 3600) * 1000).toISOString() });
    expect((await report('shop.test', 60, 'all', 5)).list).toHaveLength(5);
    const two = await report('shop.test', 0, 'all', 10);
    expect(two.list).toHaveLength(6);
    expect((await ok<TrafficReport>('firewall.getTraffic', { host: 'SHOP.test' })).range_minutes).toBe(60);
    expect((await ok<TrafficReport>('firewall.getTraffic', { host: 'shop.test' })).list.map((x) => x.ip)).toEqual([X, Y, B1, B2, W]);
    // another host and an unknown one
    expect((await report('news.test', 60)).list.map((x) => [x.ip, x.count])).toEqual([[X, 4]]);
    expect(await report('nobody.test', 60)).toEqual({ host: 'nobody.test', range_minutes: 60, code: 'all', total: 0, ips_total: 0, list: [] });
  });

  test('the current rule of each address', async () => {
    await ok('firewall.setIpBan', { ip: Y });
    await ok('firewall.setIpBan', { ip: W, status: 4 });
    await ok('firewall.allowIpRules', { ip: B1 });
    const rules = Object.fromEntries((await report('shop.test', 60)).list.map((x) => [x.ip, x.rule]));
    expect(rules).toEqual({ [X]: null, [Y]: 1, [B1]: 0, [B2]: null, [W]: 4 });
  });

  test('the summary: the same answers after the rollup, with rows arriving after it, and after retention removed old rows', async () => {
    await checkAll();
    const rolled = await traffic.rollup({ settleMs: 0 });
    expect(rolled.to).toBeGreaterThan(rolled.from);
    expect(await traffic.watermark()).toBe(rolled.to);
    const [{ n }] = await ds.query('SELECT COUNT(*) AS n FROM fw_traffic_hours');
    expect(Number(n)).toBeGreaterThan(0);
    await checkAll();
    // nothing new: a second rollup covers nothing
    expect(await traffic.rollup({ settleMs: 0 })).toEqual({ from: rolled.to, to: rolled.to });

    // new rows (not rolled up yet) count at once, also in hours the summary already holds, and late lines of old hours
    await store([
      ...times(40, (i) => entry({ ip: B2, stime: NOW - 500 + i, url: `/book/${20 + (i % 3)}` })),
      ...times(6, (i) => entry({ ip: Z, stime: NOW - 7200 + 30 + i, code: 404 })),
      entry({ ip: X, stime: NOW - 30 * 3600 + 1 }),
      // V is new (raw rows only); W had 3 lines in the summary, outside its top 5 of the whole range
      ...times(20, (i) => entry({ ip: V, stime: NOW - 400 + i })),
      ...times(15, (i) => entry({ ip: W, stime: NOW - 380 + i, code: 500, url: '/api/retry', tag: 'api' })),
    ]);
    const five = await report('shop.test', 0, 'all', 5);
    expect(five.list.map((x) => x.ip)).toEqual([B2, X, V, W, Z]);
    expect(five.ips_total).toBe(7);
    await checkAll();
    expect((await report('shop.test', 60)).list[0]).toMatchObject({ ip: B2, count: 44 });
    await traffic.rollup({ settleMs: 0 });
    await checkAll();

    // retention removes the rows of 30 hours ago: 'all' counts what is stored, the summary's hours before it go
    const cutoff = NOW - 20 * 3600;
    expect((await logStore.removeBefore(cutoff)).entries).toBe(stored.filter((e) => e.stime < cutoff).length);
    stored.splice(0, stored.length, ...stored.filter((e) => e.stime >= cutoff));
    expect((await report('shop.test', 0)).list.find((x) => x.ip === X)?.count).toBe(30);
    await checkAll();
    expect(await traffic.pruneSummary()).toBeGreaterThan(0);
    const [{ h }] = await ds.query('SELECT MIN(hour) AS h FROM fw_traffic_hours');
    expect(Number(h)).toBeGreaterThanOrEqual(Math.floor(cutoff / 3600));
    await checkAll();
  });

  test('a kept summary part brought forward after rollups: a full head (250 addresses), an address from outside it, a new one', async () => {
    const host = 'wide.test';
    const addr = (i: number) => `198.18.${i >> 8}.${i & 255}`;
    await store(Array.from({ length: 250 }, (_, i) => i).flatMap((i) => times(1 + (i % 3), (k) => entry({ proxy_host: host, ip: addr(i), stime: NOW - 3000 + i + k }))));
    await traffic.rollup({ settleMs: 0 });
    const cases: Array<[number, TrafficCodeFilter, number]> = [[0, 'all', 200], [60, 'all', 200], [60, 'all', 5], [0, '200>', 100]];
    for (const [range, code, top] of cases) await checkReport(host, range, code, top);
    // after the parts were kept: an address with 1 hit (outside the head of 200) gets 40, a new one 30, a head address 1 more
    await store([
      ...times(40, (k) => entry({ proxy_host: host, ip: addr(240), stime: NOW - 100 + k })),
      ...times(30, (k) => entry({ proxy_host: host, ip: '198.18.9.9', stime: NOW - 90 + k })),
      entry({ proxy_host: host, ip: addr(2), stime: NOW - 5 }),
    ]);
    await traffic.rollup({ settleMs: 0 });
    for (const [range, code, top] of cases) await checkReport(host, range, code, top);
    const r = await report(host, 0, 'all', 5);
    expect(r.list.slice(0, 2).map((x) => [x.ip, x.count])).toEqual([[addr(240), 41], ['198.18.9.9', 30]]);
    expect(r.ips_total).toBe(251);
    // the job brings them forward too, and a report after it still equals the oracle
    await store(times(5, (k) => entry({ proxy_host: host, ip: '198.18.9.10', stime: NOW - 50 + k })));
    await traffic.rollup({ settleMs: 0 });
    await traffic.refreshKept();
    for (const [range, code, top] of cases) await checkReport(host, range, code, top);
  });

  test('a watermark moved by another instance is not rolled twice (compare-and-set)', async () => {
    await store([entry({ ip: X, stime: NOW - 10 })]);
    const w = await traffic.watermark();
    const [{ m }] = await ds.query('SELECT MAX(Id) AS m FROM fw_access_log');
    // "another instance" moved it past the new row already (and rolled it up): this one must not add it again
    await ds.query('UPDATE fw_settings SET value = ? WHERE name = ?', [String(Number(m)), 'traffic_rollup_id']);
    const r = await traffic.rollup({ settleMs: 0 });
    expect(r).toEqual({ from: Number(m), to: Number(m) });
    expect(w).toBeLessThan(Number(m));
  });

  test('refusals: no domain, bad range, code, top; never a 5xx', async () => {
    expect((await refused('firewall.getTraffic', {})).message).toMatch(/Domain is required/);
    expect((await refused('firewall.getTraffic', { host: '  ' })).message).toMatch(/Domain is required/);
    expect((await refused('firewall.getTraffic', { host: 'a', range_minutes: 7 })).message).toMatch(/Range must be one of 0, 3, 5, 10, 15, 30, 60, 120, 180, 360, 720/);
    expect((await refused('firewall.getTraffic', { host: 'a', code: '418' })).message).toMatch(/Code must be one of all, 200>/);
    expect((await refused('firewall.getTraffic', { host: 'a', top: 7 })).message).toMatch(/Top must be one of 5, 10, 50, 100, 200/);
    expect((await refused('firewall.getTraffic', { host: 5 })).message).toMatch(/Domain must be text/);
  });
});

describe(`an address's rows (${DB})`, () => {
  test('newest first, with time, proxy_addr, url, ref, code, tag; tag, code and range filters; other hosts apart', async () => {
    const rows = await ok<TrafficRow[]>('firewall.getTrafficRows', { host: 'shop.test', ip: Y, range_minutes: 60 });
    expect(rows).toHaveLength(12);
    expect(rows[0]).toEqual({ time: new Date((NOW - 899) * 1000).toISOString(), proxy_addr: '10.9.0.1', url: expect.stringMatching(/^\/page\//), ref: 'http://ref.test/', code: 302, tag: 'bot', method: 'GET', agent: 'Googlebot' });
    expect(rows.map((r) => r.time)).toEqual([...rows.map((r) => r.time)].sort().reverse());
    expect(await ok<TrafficRow[]>('firewall.getTrafficRows', { host: 'shop.test', ip: X, range_minutes: 60, tag: 'static' })).toHaveLength(5);
    expect((await ok<TrafficRow[]>('firewall.getTrafficRows', { host: 'shop.test', ip: X, range_minutes: 60, code: '404' })).map((r) => r.code)).toEqual([404, 404, 404, 404, 404]);
    expect(await ok<TrafficRow[]>('firewall.getTrafficRows', { host: 'news.test', ip: X, range_minutes: 60 })).toHaveLength(4);
    expect(await ok<TrafficRow[]>('firewall.getTrafficRows', { host: 'shop.test', ip: X, range_minutes: 60, limit: 3 })).toHaveLength(3);
    // IPv6 in another spelling finds the stored address
    expect(await ok<TrafficRow[]>('firewall.getTrafficRows', { host: 'shop.test', ip: '2001:DB8:0::7', range_minutes: 60 })).toHaveLength(stored.filter((e) => e.ip === W).length);
    expect((await refused('firewall.getTrafficRows', { host: 'shop.test', ip: 'nope' })).message).toMatch(/IP must be an IPv4 or IPv6 address/);
    expect((await refused('firewall.getTrafficRows', { host: 'shop.test', ip: X, tag: 'robot' })).message).toMatch(/Tag must be one of page, static, api, feed, bot/);
  });
});

describe(`IP statistics (${DB})`, () => {
  const lines = (ip: string, host?: string, since = -Infinity) => stored.filter((e) => e.ip === ip && (!host || e.proxy_host === host) && e.stime >= since).length;

  test('counts every stored line per address (the per-minute counters), most first; host, range, min_count, like, limit', async () => {
    const all = await ok<IpStat[]>('firewall.getIpStats', {});
    const ips = [...new Set(stored.map((e) => e.ip))];
    expect(all).toHaveLength(ips.length);
    for (const s of all) expect(s.count).toBe(lines(s.ip));
    expect(all.reduce((n, s) => n + s.count, 0)).toBe(stored.length);
    expect(all.map((s) => s.count)).toEqual([...all.map((s) => s.count)].sort((a, b) => b - a));

    const news = await ok<IpStat[]>('firewall.getIpStats', { host: 'news.test' });
    expect(news).toEqual([{ ip: X, count: 4 }]);
    const recent = await ok<IpStat[]>('firewall.getIpStats', { host: 'shop.test', range_minutes: 60 });
    expect(recent.find((s) => s.ip === Z)).toBeUndefined();
    expect(recent.find((s) => s.ip === X)?.count).toBe(lines(X, 'shop.test', NOW - 3600));
    expect((await ok<IpStat[]>('firewall.getIpStats', { min_count: 12 })).every((s) => s.count >= 12)).toBe(true);
    expect((await ok<IpStat[]>('firewall.getIpStats', { like: '203.0.113.' })).map((s) => s.ip).sort()).toEqual([X, Y].sort());
    expect(await ok<IpStat[]>('firewall.getIpStats', { limit: 2 })).toHaveLength(2);
    expect((await refused('firewall.getIpStats', { range_minutes: 'x' })).message).toMatch(/Range must be a number/);
    expect((await refused('firewall.getIpStats', { unique_books: 'yes' })).message).toMatch(/unique_books must be 0 or 1/);
  });

  test('unique books: only addresses that read at least 5 different books (pattern from the cluster config firewall_book_url)', async () => {
    // B1 read books 1-6; B2 read 7-10 and 20-22 (the rows stored in the summary test): 7 books
    const books = await ok<IpStat[]>('firewall.getIpStats', { unique_books: 1 });
    expect(books.map((s) => [s.ip, s.books])).toEqual([[B2, 7], [B1, 6]]);
    expect(books.find((s) => s.ip === B1)?.count).toBe(lines(B1));
    expect(await ok<IpStat[]>('firewall.getIpStats', { unique_books: true, host: 'news.test' })).toEqual([]);
    expect((await ok<IpStat[]>('firewall.getIpStats', { unique_books: true, min_count: 10 })).map((s) => s.ip)).toEqual([B2]);

    // another book URL shape: /page/<n> counts each page as a book
    const [{ Id }] = (await ok<{ list: Array<{ Id: number }> }>('cfg.insertConfigsBatch', [{ type: 'firewall_book_url', value: '^/missing/(\\d+)' }])).list;
    expect((await ok<IpStat[]>('firewall.getIpStats', { unique_books: true })).map((s) => [s.ip, s.books])).toEqual([[X, 5]]);
    await ok('cfg.updateConfigsBatch', [{ Id, type: 'firewall_book_url', value: '^/book/(' }]);
    const bad = await refused('firewall.getIpStats', { unique_books: true });
    expect(bad).toMatchObject({ status: 'rules', code: 422 });
    expect(bad.message).toMatch(/The cluster config 'firewall_book_url' is not a valid regular expression/);
    await ok('cfg.removeConfigs', [{ Id }]);
    expect((await ok<IpStat[]>('firewall.getIpStats', { unique_books: true })).map((s) => s.ip)).toEqual([B2, B1]);
  });
});

describe(`log query (${DB})`, () => {
  const query = (cmd: string, limit?: number) => ok<AccessLogEntry[]>('firewall.getAccessLogsByStr', { cmd, ...(limit ? { limit } : {}) });
  const match = (fn: (e: Stored) => boolean) => stored.filter(fn).length;

  test('field terms: ip, url substring, code, host, tag, method, agent, ref, proxy, range; entries in the shape of 000 §3', async () => {
    const r = await query(`ip:${X} code:404`);
    expect(r).toHaveLength(5);
    expect(r[0]).toEqual({
      ip: X, forward: '', date: expect.stringMatching(/^\d{4}-\d\d-\d\d$/), time: expect.stringMatching(/^\d\d:\d\d:\d\d$/), stime: NOW - 296,
      upstream_response_time: '0.001', request_time: 0.002, method: 'GET', url: '/missing/4', code: 404, ref: '', agent: 'Mozilla/5.0',
      proxy_host: 'shop.test', proxy_addr: '10.9.0.1', tag: 'page',
    });
    expect(new Date(`${r[0].date}T${r[0].time}Z`).getTime() / 1000).toBe(NOW - 296);
    expect(await query('url:/book', 1000)).toHaveLength(match((e) => e.url.includes('/book')));
    expect(await query('url:/BOOK/1', 1000)).toHaveLength(match((e) => e.url.toLowerCase().includes('/book/1')));
    expect(await query('host:news.test')).toHaveLength(4);
    expect(await query('tag:bot')).toHaveLength(12);
    expect(await query('method:post')).toHaveLength(3);
    expect(await query('agent:googlebot')).toHaveLength(12);
    expect(await query('ref:ref.test')).toHaveLength(2);
    expect(await query('proxy:10.9.0.2')).toHaveLength(4);
    // the window's edge moves with the clock: between what it holds at the second before and the second after
    const t0 = Math.floor(Date.now() / 1000);
    const recent = await query(`ip:${X} range:4`, 1000);
    const t1 = Math.floor(Date.now() / 1000);
    expect(recent.length).toBeGreaterThanOrEqual(match((e) => e.ip === X && e.stime >= t1 - 240));
    expect(recent.length).toBeLessThanOrEqual(match((e) => e.ip === X && e.stime >= t0 - 240));
    expect(recent.length).toBeGreaterThan(0);
    expect(recent.every((e) => e.ip === X && e.stime >= t0 - 240)).toBe(true);
    expect(await query('code:3xx')).toHaveLength(2);
    expect(await query('code:400>', 1000)).toHaveLength(match((e) => e.code >= 400));
    expect(await query('ip:203.0.113.*', 1000)).toHaveLength(match((e) => e.ip.startsWith('203.0.113.')));
    expect(await query('ip:203.0.113.0/24', 1000)).toHaveLength(match((e) => e.ip.startsWith('203.0.113.')));
    expect(await query(`ip:${W.toUpperCase()}`, 100)).toHaveLength(match((e) => e.ip === W));
    expect(await query('url:"/static/app1.css"')).toHaveLength(1);
  });

  test('bare terms by shape, same-field alternatives, exclusion, newest first, limit', async () => {
    expect(await query(`${X} 404`)).toHaveLength(5);
    expect(await query('/missing/')).toHaveLength(5);
    expect(await query('news.test')).toHaveLength(4);
    expect(await query('bot 302')).toHaveLength(1);
    expect(await query('POST')).toHaveLength(3);
    expect(await query('2001:db8::7', 100)).toHaveLength(match((e) => e.ip === W));
    expect(await query(`ip:${Y} ip:${W}`, 100)).toHaveLength(match((e) => e.ip === Y || e.ip === W));
    expect(await query(`${X} -tag:page -host:news.test`)).toHaveLength(5);
    expect(await query(`${X} -code:200`, 100)).toHaveLength(match((e) => e.ip === X && e.code !== 200));
    const newest = await query('url:/', 3);
    expect(newest).toHaveLength(3);
    expect(newest[0].stime).toBe(Math.max(...stored.map((e) => e.stime)));
    expect(newest[0].stime).toBeGreaterThanOrEqual(newest[2].stime);
  });

  test('bad queries are named: unknown field, bad code, bad ip, bad tag, empty', async () => {
    expect((await refused('firewall.getAccessLogsByStr', { cmd: 'colour:red' })).message).toMatch(/"colour:red": unknown field 'colour'/);
    expect((await refused('firewall.getAccessLogsByStr', { cmd: 'code:4040' })).message).toMatch(/"code:4040": code must be a status code/);
    expect((await refused('firewall.getAccessLogsByStr', { cmd: 'ip:1.2.3' })).message).toMatch(/"ip:1\.2\.3": ip must be/);
    expect((await refused('firewall.getAccessLogsByStr', { cmd: 'tag:robot' })).message).toMatch(/tag must be one of page, static, api, feed, bot/);
    expect((await refused('firewall.getAccessLogsByStr', { cmd: 'range:0' })).message).toMatch(/range is a number of minutes/);
    expect((await refused('firewall.getAccessLogsByStr', { cmd: 'url:' })).message).toMatch(/a value is missing/);
    expect((await refused('firewall.getAccessLogsByStr', { cmd: '' })).message).toMatch(/Query is required/);
    expect((await refused('firewall.getAccessLogsByStr', {})).code).toBe(422);
    // LIKE wildcards are plain characters
    expect(await query('url:%')).toEqual([]);
    expect(await query('url:_')).toEqual([]);
  });
});

describe(`filter options, REST rows and roles (${DB})`, () => {
  test('firewall.getFilter: hosts with stored lines and their newest time; ranges, codes, top buckets, tags', async () => {
    const f = await ok<TrafficFilter>('firewall.getFilter');
    expect(f.hosts.filter((h) => h.host !== 'wide.test')).toEqual([
      { host: 'news.test', last: new Date((NOW - 97) * 1000).toISOString() },
      { host: 'shop.test', last: new Date(Math.max(...stored.filter((e) => e.proxy_host === 'shop.test').map((e) => e.stime)) * 1000).toISOString() },
    ]);
    expect(f.ranges[0]).toEqual({ value: 0, label: 'all' });
    expect(f.ranges.map((r) => r.label)).toEqual(['all', '3 min', '5 min', '10 min', '15 min', '30 min', '1 hour', '2 hours', '3 hours', '6 hours', '12 hours']);
    expect(f).toMatchObject({ default_range: 60, codes: ['all', '200>', '201', '300>', '301/302', '400', '400>', '404', '500>'], top: [5, 10, 50, 100], head: 200, tags: ['page', 'static', 'api', 'feed', 'bot'] });
  });

  test('GET /api/firewall/get_logs_by_str?cmd= and GET /api/firewall/processing/get_ip_stats', async () => {
    const logs = await t.rest<Envelope<AccessLogEntry[]>>(admin, 'GET', `/firewall/get_logs_by_str?cmd=${encodeURIComponent(`ip:${X} code:404`)}`);
    expect(logs.status).toBe(200);
    expect(logs.body.status === 'ok' && logs.body.result.map((e) => e.code)).toEqual([404, 404, 404, 404, 404]);
    const bad = await t.rest<ErrorEnvelope>(admin, 'GET', '/firewall/get_logs_by_str?cmd=colour:red');
    expect(bad.status).toBe(422);
    expect(bad.body.message).toMatch(/unknown field/);
    expect((await t.rest<ErrorEnvelope>(admin, 'GET', '/firewall/get_logs_by_str')).status).toBe(422);

    const stats = await t.rest<Envelope<IpStat[]>>(admin, 'GET', '/firewall/processing/get_ip_stats?host=news.test');
    expect(stats).toEqual({ status: 200, body: { status: 'ok', result: [{ ip: X, count: 4 }] } });
    const books = await t.rest<Envelope<IpStat[]>>(admin, 'GET', '/firewall/processing/get_ip_stats?unique_books=1&min_count=10&range_minutes=60');
    expect(books.body.status === 'ok' && books.body.result.map((s) => [s.ip, s.books])).toEqual([[B2, 7]]);
    const all = await t.rest<Envelope<IpStat[]>>(admin, 'GET', '/firewall/processing/get_ip_stats');
    expect(all.body.status === 'ok' && all.body.result.reduce((n, s) => n + s.count, 0)).toBe(stored.length);
    expect((await t.rest(admin, 'GET', '/firewall/processing/get_ip_stats?unique_books=maybe')).status).toBe(422);
    expect((await t.rest(admin, 'GET', '/firewall/processing/get_ip_stats?range_minutes=0x10')).status).toBe(422);
  });

  test('admin only: roles 10 and 100 are refused every traffic method and route; no session is 401', async () => {
    const methods: Array<[string, unknown]> = [
      ['firewall.getTraffic', { host: 'shop.test' }], ['firewall.getTrafficRows', { host: 'shop.test', ip: X }], ['firewall.getIpStats', {}],
      ['firewall.getAccessLogsByStr', { cmd: X }], ['firewall.getFilter', {}],
    ];
    for (const role of [10, 100]) {
      const { hash } = await t.session(role);
      for (const [m, args] of methods) {
        const r = await t.rpc(hash, m, args);
        expect([m, role, r.status, r.env.status]).toEqual([m, role, 403, 'error']);
      }
      for (const path of [`/firewall/get_logs_by_str?cmd=${X}`, '/firewall/processing/get_ip_stats']) expect([path, (await t.rest(hash, 'GET', path)).status]).toEqual([path, 403]);
    }
    expect((await t.rpc(null, 'firewall.getTraffic', { host: 'shop.test' })).status).toBe(401);
    expect((await t.rest(null, 'GET', '/firewall/processing/get_ip_stats')).status).toBe(401);
  });
});
