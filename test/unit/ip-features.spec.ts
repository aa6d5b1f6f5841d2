/**
 * Features of an address (src/modules/firewall/ip-features.ts): each feature on hand-made rows, every
 * value in 0..1, the window, the order of toInput / fromInput, the LIKE prefilter of the book pattern,
 * and the SQL path (loadFeatures on an in-memory SQLite database with the fw_access_log columns) equal
 * to the in-memory path (featuresOf) on generated traffic parsed by the real parser.
 */
import Database from 'better-sqlite3';
import { FEATURE_NAMES, type FeatureVector } from '../../src/contracts/firewall-train.js';
import { featuresOf, fromInput, loadFeatures, requiredLiteral, toInput, type FeatureOptions, type FeatureRow, type Query } from '../../src/modules/firewall/ip-features.js';
import { finishChunk, parseChunk } from '../../src/modules/firewall/log-parser.js';
import { generateTraffic, TRAFFIC_BOOK_PATTERN } from '../helpers/traffic-gen.js';

const NOW = Date.UTC(2026, 4, 12, 12, 0, 0) / 1000; // noon UTC
const BOOK = /^\/book\/(\d+)/;
const OPTS = { bookPattern: BOOK, now: NOW };
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0';

/** A row of a person's page view, `dt` seconds before NOW; `over` changes fields. */
const row = (dt: number, over: Partial<FeatureRow> = {}): FeatureRow => ({
  stime: NOW - dt, method: 'GET', url: '/a', code: 200, ref: 'https://x.test/', agent: BROWSER, request_time: 0.1, tag: 'page', ...over,
});
const f = (rows: FeatureRow[], opts: FeatureOptions = OPTS) => featuresOf(rows, opts);
const inRange = (v: FeatureVector) => FEATURE_NAMES.every((k) => Number.isFinite(v[k]) && v[k] >= 0 && v[k] <= 1);

describe('featuresOf: each feature', () => {
  it('no rows (or none in the window): every feature 0', () => {
    expect(toInput(f([]))).toEqual(FEATURE_NAMES.map(() => 0));
    expect(toInput(f([row(4000), row(-10)]))).toEqual(FEATURE_NAMES.map(() => 0));
  });

  it('rate: log scale of requests per minute over the active span, capped at 1', () => {
    const slow = f([row(600), row(300), row(0)]); // 3 in 10 minutes: 0.3/min
    expect(slow.rate).toBeCloseTo(Math.log1p(0.3) / Math.log1p(600), 12);
    const fast = f(Array.from({ length: 600 }, (_, i) => row(Math.floor(i / 10), { url: `/p${i}` }))); // 600 in ~1 minute
    expect(fast.rate).toBeCloseTo(1, 1);
    const one = f([row(0)]); // one request: one minute
    expect(one.rate).toBeCloseTo(Math.log1p(1) / Math.log1p(600), 12);
    expect(f(Array.from({ length: 5000 }, () => row(0))).rate).toBe(1);
  });

  it('burst: share of non-static requests in a second that already had one (assets do not count)', () => {
    expect(f([row(100), row(50), row(0)]).burst).toBe(0);
    expect(f([row(0), row(0), row(0), row(0)]).burst).toBe(0.75);
    // a page and its three assets in the same second: no burst
    expect(f([row(0), row(0, { tag: 'static', url: '/s.css' }), row(0, { tag: 'static', url: '/s.js' }), row(0, { tag: 'static', url: '/i.png' })]).burst).toBe(0);
  });

  it('distinct_urls: distinct URLs / requests', () => {
    expect(f([row(3, { url: '/a' }), row(2, { url: '/a' }), row(1, { url: '/b' }), row(0, { url: '/a' })]).distinct_urls).toBe(0.5);
    expect(f([row(1, { url: '/a' }), row(0, { url: '/b' })]).distinct_urls).toBe(1);
  });

  it('share_4xx and share_5xx', () => {
    const v = f([row(4, { code: 404 }), row(3, { code: 403 }), row(2, { code: 503 }), row(1, { code: 301 }), row(0, { code: 200 })]);
    expect(v.share_4xx).toBeCloseTo(0.4, 12);
    expect(v.share_5xx).toBeCloseTo(0.2, 12);
  });

  it("share_static: share of tag 'static'", () => {
    expect(f([row(1), row(0, { tag: 'static' }), row(0, { tag: 'static' }), row(0, { tag: 'api' })]).share_static).toBe(0.5);
    expect(f([row(1, { tag: 'bot' }), row(0, { tag: 'feed' })]).share_static).toBe(0);
  });

  it("empty_ref: empty or '-' referrers", () => {
    expect(f([row(3, { ref: '' }), row(2, { ref: '-' }), row(1, { ref: null }), row(0)]).empty_ref).toBe(0.75);
  });

  it('ua_missing, ua_library, ua_bot: shares of rows by agent class', () => {
    const v = f([
      row(5, { agent: '' }),
      row(4, { agent: 'curl/8.5.0' }),
      row(3, { agent: 'python-requests/2.31.0' }),
      row(2, { agent: 'Mozilla/5.0 (compatible; ExampleBot/2.1; +http://example.com/bot.html)' }),
      row(1, { agent: 'Go-http-client/1.1' }),
      row(0),
    ]);
    expect(v.ua_missing).toBeCloseTo(1 / 6, 12);
    expect(v.ua_library).toBeCloseTo(3 / 6, 12);
    expect(v.ua_bot).toBeCloseTo(1 / 6, 12);
    const people = f([row(1), row(0, { agent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1' })]);
    expect([people.ua_missing, people.ua_library, people.ua_bot]).toEqual([0, 0, 0]);
    expect(f([row(0, { agent: 'Wget/1.21.4' }), row(0, { agent: 'okhttp/4.12.0' }), row(0, { agent: 'Scrapy/2.11 (+https://scrapy.org)' })]).ua_library).toBe(1);
    expect(f([row(0, { agent: 'Mozilla/5.0 (compatible; SomeCrawler/1.0)' }), row(0, { agent: 'DataSpider/3.0' })]).ua_bot).toBe(1);
  });

  it('agents_per_ip: (distinct agents - 1) / 9, capped', () => {
    expect(f([row(1), row(0)]).agents_per_ip).toBe(0);
    expect(f([row(2, { agent: 'A' }), row(1, { agent: 'B' }), row(0, { agent: 'C' })]).agents_per_ip).toBeCloseTo(2 / 9, 12);
    expect(f(Array.from({ length: 30 }, (_, i) => row(i, { agent: `Agent ${i}` }))).agents_per_ip).toBe(1);
  });

  it('head_post: share of HEAD or POST', () => {
    expect(f([row(3, { method: 'HEAD' }), row(2, { method: 'POST' }), row(1, { method: 'PUT' }), row(0)]).head_post).toBe(0.5);
  });

  it('request_time: log scale of the mean in ms (rows without a time left out; none: 0)', () => {
    expect(f([row(1, { request_time: 0.1 }), row(0, { request_time: 0.3 }), row(0, { request_time: null })]).request_time).toBeCloseTo(Math.log1p(200) / Math.log1p(10_000), 12);
    expect(f([row(0, { request_time: null })]).request_time).toBe(0);
    expect(f([row(0, { request_time: 60 })]).request_time).toBe(1);
  });

  it('night: share of requests 00:00-05:59 UTC', () => {
    const midnight = Date.UTC(2026, 4, 12, 0, 0, 0) / 1000;
    const v = f([row(0), { ...row(0), stime: midnight + 5 * 3600 + 3599 }, { ...row(0), stime: midnight + 6 * 3600 }, { ...row(0), stime: midnight }], { ...OPTS, windowS: 86_400 });
    expect(v.night).toBe(0.5);
  });

  it("url_depth: mean '/' in the path (query left out) / 10", () => {
    expect(f([row(1, { url: '/a/b/c' }), row(0, { url: '/?x=/y/z/w' })]).url_depth).toBeCloseTo(2 / 10, 12);
    expect(f([row(0, { url: '/a/b/c/d/e/f/g/h/i/j/k/l' })]).url_depth).toBe(1);
  });

  it('books_per_min: log scale of distinct books (group 1 of bookPattern) per minute', () => {
    const v = f([row(600, { url: '/book/1/page/1' }), row(300, { url: '/book/1/page/2' }), row(200, { url: '/book/2' }), row(0, { url: '/author/1' })]);
    expect(v.books_per_min).toBeCloseTo(Math.log1p(2 / 10) / Math.log1p(60), 12);
    const wide = f(Array.from({ length: 200 }, (_, i) => row(Math.floor(i / 4), { url: `/book/${i}/page/1` })));
    expect(wide.books_per_min).toBe(1);
    expect(f([row(0, { url: '/books/1' })]).books_per_min).toBe(0);
  });

  it('the window: [now - windowS, now]', () => {
    const rows = [row(100, { code: 404 }), row(10), row(0)];
    expect(f(rows, { ...OPTS, windowS: 50 }).share_4xx).toBe(0);
    expect(f(rows, { ...OPTS, windowS: 100 }).share_4xx).toBeCloseTo(1 / 3, 12);
  });

  it('toInput follows FEATURE_NAMES; fromInput is its inverse', () => {
    const v = f([row(5, { agent: 'curl/8' }), row(0, { code: 404, method: 'HEAD' })]);
    const x = toInput(v);
    expect(x).toHaveLength(FEATURE_NAMES.length);
    FEATURE_NAMES.forEach((k, i) => expect(x[i]).toBe(v[k]));
    expect(fromInput(x)).toEqual(v);
  });
});

describe('requiredLiteral (the LIKE prefilter of the book pattern)', () => {
  it('finds a literal every match contains, or none', () => {
    expect(requiredLiteral(/^\/book\/(\d+)/)).toBe('/book/');
    expect(requiredLiteral(/\/books?\/(\d+)/)).toBe('/book');
    expect(requiredLiteral(/[?&]id=(\d+)/)).toBe('id=');
    expect(requiredLiteral(/\/(book|novel)\/(\d+)/)).toBeNull();
    expect(requiredLiteral(/\/book\/(\d+)/i)).toBeNull();
    expect(requiredLiteral(/(\d+)\.fb2/)).toBe('.fb2');
    expect(requiredLiteral(/\/b\x41\/(\d+)/)).toBe('/b');
  });
});

// ---------------------------------------------------------------------------------------------
// SQL path = in-memory path

const COLUMNS = ['proxy_host', 'ip', 'stime', 'method', 'url', 'code', 'ref', 'agent', 'request_time', 'tag'] as const;

function memoryDb() {
  const db = new Database(':memory:');
  db.exec(
    'CREATE TABLE fw_access_log (Id INTEGER PRIMARY KEY, proxy_host varchar(190) NOT NULL, ip varchar(64) NOT NULL, stime integer NOT NULL, method varchar(16) NOT NULL DEFAULT \'\', ' +
      "url text NOT NULL, code integer NOT NULL, ref text, agent text, request_time float, tag varchar(16) NOT NULL DEFAULT '')",
  );
  db.exec('CREATE INDEX i1 ON fw_access_log (proxy_host, stime); CREATE INDEX i2 ON fw_access_log (ip, stime)');
  const ins = db.prepare(`INSERT INTO fw_access_log (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`);
  const add = db.transaction((rows: Array<FeatureRow & { ip: string; proxy_host: string }>) => {
    for (const r of rows) ins.run(...COLUMNS.map((c) => r[c]));
  });
  const q: Query = async <R,>(sql: string, params: unknown[] = []) => db.prepare(sql).all(...params) as R[];
  return { db, add, q };
}

describe('loadFeatures (SQL on SQLite) equals featuresOf', () => {
  const start = Date.UTC(2026, 4, 12, 4, 30, 0) / 1000; // crosses 06:00 UTC: night takes both values
  const { lines, labels } = generateTraffic({ seed: 5, people: 80, bots: 50, host: 'books.test', start, minutes: 120 });
  const data = Buffer.from(lines.join('\n') + '\n', 'latin1');
  const first = parseChunk(data);
  const entries = [...first.batch.toEntries({ proxy_addr: '10.0.0.1' }), ...finishChunk(first.state).batch.toEntries({ proxy_addr: '10.0.0.1' })];
  const now = start + 120 * 60;
  const opts = { bookPattern: TRAFFIC_BOOK_PATTERN, now, windowS: 3600 };
  const { db, add, q } = memoryDb();
  add(entries.map((e) => ({ ...e, proxy_host: e.proxy_host.toLowerCase() })));
  // another host's rows with the same addresses must not count
  add(entries.slice(0, 500).map((e) => ({ ...e, proxy_host: 'other.test', code: 500 })));
  afterAll(() => db.close());

  const byIp = new Map<string, FeatureRow[]>();
  for (const e of entries) {
    let l = byIp.get(e.ip);
    if (!l) byIp.set(e.ip, (l = []));
    l.push(e);
  }
  const expectSame = (a: FeatureVector, b: FeatureVector) => FEATURE_NAMES.forEach((k) => expect([k, a[k]]).toEqual([k, expect.closeTo(b[k], 9)]));

  it('every address with rows in the window, each feature equal (to 1e-9) and in 0..1', async () => {
    const got = await loadFeatures(q, 'sqlite', 'Books.Test', opts);
    const expected = [...byIp].filter(([, rows]) => rows.some((r) => r.stime >= now - 3600 && r.stime <= now));
    expect(got.size).toBe(expected.length);
    expect(got.size).toBeGreaterThan(50);
    expect(got.size).toBeLessThan(labels.size); // some visited only in the first hour
    for (const [ip, rows] of expected) {
      const v = got.get(ip)!;
      expect(v).toBeDefined();
      expect(inRange(v)).toBe(true);
      expectSame(v, featuresOf(rows, opts));
    }
    // the features vary: none is constant over the addresses (night: start crosses 06:00)
    const all = [...got.values()];
    for (const k of FEATURE_NAMES) if (k !== 'share_5xx') expect([k, new Set(all.map((v) => v[k])).size > 1]).toEqual([k, true]);
  });

  it('only `ips` (IN lists of 500; unknown addresses left out), and a pattern without a literal', async () => {
    const ips = [...byIp.keys()];
    const many = [...ips, ...Array.from({ length: 1200 }, (_, i) => `192.0.2.${i % 250}-${i}`)];
    const got = await loadFeatures(q, 'sqlite', 'books.test', { ...opts, windowS: 7200, ips: many });
    expect(got.size).toBe(ips.length);
    for (const ip of ips.slice(0, 40)) expectSame(got.get(ip)!, featuresOf(byIp.get(ip)!, { ...opts, windowS: 7200 }));
    const alt = { ...opts, bookPattern: /^\/(?:book|novel)\/(\d+)/ };
    const some = ips.slice(0, 30);
    const got2 = await loadFeatures(q, 'sqlite', 'books.test', { ...alt, ips: some });
    for (const ip of some) if (got2.has(ip)) expectSame(got2.get(ip)!, featuresOf(byIp.get(ip)!, alt));
    expect((await loadFeatures(q, 'sqlite', 'books.test', { ...opts, ips: [] })).size).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------
// The same on MariaDB, when TEST_DATABASE_URL names one (mysql://root@127.0.0.1:3306/test)

const MARIA = process.env.TEST_DATABASE_URL?.startsWith('mysql') ? process.env.TEST_DATABASE_URL : '';
(MARIA ? describe : describe.skip)('loadFeatures (SQL on MariaDB) equals featuresOf', () => {
  const start = Date.UTC(2026, 4, 12, 4, 30, 0) / 1000;
  const { lines } = generateTraffic({ seed: 6, people: 40, bots: 30, host: 'books.test', start, minutes: 90 });
  const data = Buffer.from(lines.join('\n') + '\n', 'latin1');
  const first = parseChunk(data);
  const entries = [...first.batch.toEntries({ proxy_addr: '10.0.0.1' }), ...finishChunk(first.state).batch.toEntries({ proxy_addr: '10.0.0.1' })];
  const now = start + 90 * 60;
  const opts = { bookPattern: TRAFFIC_BOOK_PATTERN, now, windowS: 3600 };
  const name = `unit_feat_${process.pid}`;
  let conn: import('mysql2/promise').Connection;

  beforeAll(async () => {
    const { createConnection } = await import('mysql2/promise');
    const u = new URL(MARIA);
    conn = await createConnection({ host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username) || 'root', password: decodeURIComponent(u.password), timezone: 'Z' });
    await conn.query(`CREATE DATABASE IF NOT EXISTS \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await conn.query(`USE \`${name}\``);
    await conn.query(
      'CREATE TABLE fw_access_log (Id int AUTO_INCREMENT PRIMARY KEY, proxy_host varchar(190) NOT NULL, ip varchar(64) NOT NULL, stime int NOT NULL, method varchar(16) NOT NULL DEFAULT \'\', ' +
        "url text NOT NULL, code int NOT NULL, ref text NULL, agent text NULL, request_time float NULL, tag varchar(16) NOT NULL DEFAULT '', KEY i1 (proxy_host, stime), KEY i2 (ip, stime))",
    );
    for (let i = 0; i < entries.length; i += 500) {
      const part = entries.slice(i, i + 500);
      await conn.query(`INSERT INTO fw_access_log (${COLUMNS.join(', ')}) VALUES ?`, [part.map((e) => COLUMNS.map((c) => (c === 'proxy_host' ? e.proxy_host.toLowerCase() : e[c])))]);
    }
  });
  afterAll(async () => {
    await conn?.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await conn?.end();
  });

  it('every address with rows in the window, each feature equal (to 1e-6: request_time is a 4-byte float there)', async () => {
    const q: Query = async <R,>(sql: string, params: unknown[] = []) => (await conn.query(sql, params))[0] as R[];
    const got = await loadFeatures(q, 'mariadb', 'books.test', opts);
    const byIp = new Map<string, FeatureRow[]>();
    for (const e of entries) {
      let l = byIp.get(e.ip);
      if (!l) byIp.set(e.ip, (l = []));
      l.push(e);
    }
    const expected = [...byIp].filter(([, rows]) => rows.some((r) => r.stime >= now - 3600 && r.stime <= now));
    expect(got.size).toBe(expected.length);
    expect(got.size).toBeGreaterThan(20);
    for (const [ip, rows] of expected) {
      const a = got.get(ip)!;
      const b = featuresOf(rows, opts);
      FEATURE_NAMES.forEach((k) => expect([k, a[k]]).toEqual([k, expect.closeTo(b[k], 6)]));
    }
    const some = expected.slice(0, 10).map(([ip]) => ip);
    expect([...(await loadFeatures(q, 'mariadb', 'books.test', { ...opts, ips: some })).keys()].sort()).toEqual([...some].sort());
  });
});
