/**
 * Features of an address (src/modules/firewall/train/ip-features.ts): each feature on hand-made rows (the
 * per-minute definitions), every value in 0..1, the window of whole minutes, the order of toInput /
 * fromInput, the LIKE prefilter of the book pattern, and the SQL path (loadFeatures: rolled-up per-minute
 * counters of fw_ip_feature_minutes + the raw tail) equal to the in-memory path (featuresOf) on generated
 * traffic parsed by the real parser: before any rollup, after one, half rolled at a minute's edge, and
 * (distinct columns overcounted, the rest exact) with minutes split over chunks. On an in-memory SQLite
 * database, and on MariaDB when TEST_DATABASE_URL names one.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { FEATURE_NAMES, type FeatureVector } from '../../src/contracts/firewall-train.js';
import {
  advanceSumsSteps, COUNTERS as PACKED, ensureSettingSteps, FEATURE_ROLLUP_SETTING, FEATURE_SUMS_SETTING, featuresOf, fromInput, loadCounters, loadFeatures, readCounterPages, requiredLiteral, resetOnPatternSteps, rollupChunkSteps, runAsync, toInput,
  type CounterTable,
  type FeatureOptions, type FeatureRow, type Query, type RawQuery, type Step,
} from '../../src/modules/firewall/train/ip-features.js';
import { inputsOfCounters } from '../../src/modules/firewall/train/feature-vector.js';
import { CounterReader, CounterReaderError, sharedSqliteFile } from '../../src/modules/firewall/train/counter-reader.thread.js';
import { finishChunk, parseChunk } from '../../src/modules/firewall/worker/log-parser.js';
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
    expect(toInput(f([row(3661), row(-60)]))).toEqual(FEATURE_NAMES.map(() => 0));
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

  it('distinct_urls: distinct URLs within each minute, summed, / requests', () => {
    // NOW is a minute's start: row(0) is in the current minute, row(1)..row(60) in the one before
    expect(f([row(3, { url: '/a' }), row(2, { url: '/a' }), row(1, { url: '/b' }), row(0, { url: '/a' })]).distinct_urls).toBe(0.75);
    expect(f([row(4, { url: '/a' }), row(3, { url: '/a' }), row(2, { url: '/b' }), row(1, { url: '/a' })]).distinct_urls).toBe(0.5);
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

  it('agents_per_ip: (the most distinct agents of one minute - 1) / 9, capped', () => {
    expect(f([row(1), row(0)]).agents_per_ip).toBe(0);
    expect(f([row(3, { agent: 'A' }), row(2, { agent: 'B' }), row(1, { agent: 'C' })]).agents_per_ip).toBeCloseTo(2 / 9, 12);
    // A and B in one minute, C in the next: 2 at most
    expect(f([row(2, { agent: 'A' }), row(1, { agent: 'B' }), row(0, { agent: 'C' })]).agents_per_ip).toBeCloseTo(1 / 9, 12);
    // a missing agent is the agent '' (null and '' are one)
    expect(f([row(2, { agent: null }), row(1, { agent: '' })]).agents_per_ip).toBe(0);
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

  it('books_per_min: log scale of distinct books (group 1 of bookPattern) within each minute, summed, per minute of the span', () => {
    // book 1 in two minutes counts in each
    const v = f([row(600, { url: '/book/1/page/1' }), row(300, { url: '/book/1/page/2' }), row(200, { url: '/book/2' }), row(0, { url: '/author/1' })]);
    expect(v.books_per_min).toBeCloseTo(Math.log1p(3 / 10) / Math.log1p(60), 12);
    const one = f([row(30, { url: '/book/1/page/1' }), row(20, { url: '/book/1/page/2' }), row(10, { url: '/book/2' })]);
    expect(one.books_per_min).toBeCloseTo(Math.log1p(2) / Math.log1p(60), 12);
    const wide = f(Array.from({ length: 200 }, (_, i) => row(Math.floor(i / 4), { url: `/book/${i}/page/1` })));
    expect(wide.books_per_min).toBe(1);
    expect(f([row(0, { url: '/books/1' })]).books_per_min).toBe(0);
  });

  it('the window: whole minutes from the minute of now - windowS to the minute of now', () => {
    const rows = [row(100, { code: 404 }), row(10), row(0)];
    expect(f(rows, { ...OPTS, windowS: 50 }).share_4xx).toBe(0);
    expect(f(rows, { ...OPTS, windowS: 100 }).share_4xx).toBeCloseTo(1 / 3, 12);
    // now - 61 s lies in the minute that starts 120 s before NOW: the row 100 s before counts
    expect(f(rows, { ...OPTS, windowS: 61 }).share_4xx).toBeCloseTo(1 / 3, 12);
    // the rest of the current minute counts, the next one does not
    expect(f([row(-59, { code: 404 }), row(-60, { code: 404 }), row(0)]).share_4xx).toBe(0.5);
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
// SQL path (rolled-up counters + raw tail) = in-memory path, on SQLite and on MariaDB

const COLUMNS = ['proxy_host', 'ip', 'stime', 'method', 'url', 'code', 'ref', 'agent', 'request_time', 'tag'] as const;
type Entry = FeatureRow & { ip: string; proxy_host: string };
const COUNTERS = ['n', 'nonstatic', 'busy_s', 'urls', 'c4xx', 'c5xx', 'static', 'empty_ref', 'ua_missing', 'ua_library', 'ua_bot', 'agents', 'head_post'];
/** The migrations' tables (1760000000000-firewall.ts, 1775000000000-firewall-features.ts, 1776000000000-firewall-feature-sums.ts) for a plain connection. */
const counterColumns =
  COUNTERS.map((c) => `${c} integer NOT NULL DEFAULT 0, `).join('') +
  'rt_sum double NOT NULL DEFAULT 0, rt_n integer NOT NULL DEFAULT 0, night integer NOT NULL DEFAULT 0, depth_sum integer NOT NULL DEFAULT 0, books integer NOT NULL DEFAULT 0, ' +
  'first_stime integer NOT NULL, last_stime integer NOT NULL, ';
const counterTables = (sqlite: boolean) => [
  `CREATE TABLE fw_ip_feature_minutes (proxy_host varchar(190) NOT NULL, minute integer NOT NULL, ip varchar(64) NOT NULL, ${counterColumns}PRIMARY KEY (proxy_host, minute, ip))${sqlite ? ' WITHOUT ROWID' : ''}`,
  'CREATE INDEX IDX_fw_ip_feature_minutes_host_ip ON fw_ip_feature_minutes (proxy_host, ip, minute)',
  `CREATE TABLE fw_ip_feature_sums (proxy_host varchar(190) NOT NULL, ip varchar(64) NOT NULL, lo integer NOT NULL, hi integer NOT NULL, ${counterColumns}PRIMARY KEY (proxy_host, ip))${sqlite ? ' WITHOUT ROWID' : ''}`,
];

interface TestDb {
  dialect: 'sqlite' | 'mariadb';
  q: Query;
  /** The driver's array rows (as driverRawQuery gives them in the app). */
  raw: RawQuery;
  exec: (s: Step) => Promise<unknown>;
  add(rows: Entry[]): Promise<void>;
  close(): Promise<void>;
}

async function sqliteDb(file = ':memory:'): Promise<TestDb & { handle: Database.Database }> {
  const db = new Database(file);
  db.exec(
    'CREATE TABLE fw_access_log (Id INTEGER PRIMARY KEY, proxy_host varchar(190) NOT NULL, ip varchar(64) NOT NULL, stime integer NOT NULL, method varchar(16) NOT NULL DEFAULT \'\', ' +
      "url text NOT NULL, code integer NOT NULL, ref text, agent text, request_time float, tag varchar(16) NOT NULL DEFAULT '')",
  );
  db.exec('CREATE INDEX i1 ON fw_access_log (proxy_host, stime); CREATE INDEX i2 ON fw_access_log (ip, stime); CREATE TABLE fw_settings (name varchar(64) PRIMARY KEY, value varchar(190) NOT NULL)');
  for (const sql of counterTables(true)) db.exec(sql);
  const ins = db.prepare(`INSERT INTO fw_access_log (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`);
  const add = db.transaction((rows: Entry[]) => {
    for (const r of rows) ins.run(...COLUMNS.map((c) => r[c]));
  });
  return {
    dialect: 'sqlite',
    handle: db,
    q: async <R,>(sql: string, params: unknown[] = []) => {
      const st = db.prepare(sql);
      return (st.reader ? st.all(...params) : (st.run(...params), [])) as R[];
    },
    raw: async (sql, params = []) => db.prepare(sql).raw(true).all(...params) as unknown[][],
    exec: async (s) => (s.write ? db.prepare(s.sql).run(...s.params).changes : db.prepare(s.sql).all(...s.params)),
    add: async (rows) => add(rows),
    close: async () => { db.close(); },
  };
}

const MARIA = process.env.TEST_DATABASE_URL?.startsWith('mysql') ? process.env.TEST_DATABASE_URL : '';

async function mariaDb(): Promise<TestDb> {
  const { createConnection } = await import('mysql2/promise');
  const u = new URL(MARIA);
  const name = `unit_feat_${process.pid}`;
  const conn = await createConnection({ host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username) || 'root', password: decodeURIComponent(u.password), timezone: 'Z' });
  await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
  await conn.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await conn.query(`USE \`${name}\``);
  await conn.query(
    'CREATE TABLE fw_access_log (Id int AUTO_INCREMENT PRIMARY KEY, proxy_host varchar(190) NOT NULL, ip varchar(64) NOT NULL, stime int NOT NULL, method varchar(16) NOT NULL DEFAULT \'\', ' +
      "url text NOT NULL, code int NOT NULL, ref text NULL, agent text NULL, request_time float NULL, tag varchar(16) NOT NULL DEFAULT '', KEY i1 (proxy_host, stime), KEY i2 (ip, stime))",
  );
  await conn.query('CREATE TABLE fw_settings (name varchar(64) PRIMARY KEY, value varchar(190) NOT NULL)');
  for (const sql of counterTables(false)) await conn.query(sql);
  return {
    dialect: 'mariadb',
    q: async <R,>(sql: string, params: unknown[] = []) => (await conn.query(sql, params))[0] as R[],
    raw: async (sql, params = []) => (await conn.query({ sql, values: params, rowsAsArray: true }))[0] as unknown[][],
    exec: async (s) => {
      const [r] = await conn.query(s.sql, s.params);
      return s.write ? (r as { affectedRows: number }).affectedRows : r;
    },
    add: async (rows) => {
      for (let i = 0; i < rows.length; i += 500) await conn.query(`INSERT INTO fw_access_log (${COLUMNS.join(', ')}) VALUES ?`, [rows.slice(i, i + 500).map((e) => COLUMNS.map((c) => e[c]))]);
    },
    close: async () => {
      await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await conn.end();
    },
  };
}

/**
 * The rollup's steps (as feature-rollup.service.ts runs them) up to Id `upTo`, `chunk` Ids at a time;
 * then the sums' cut moved to `sumsCut` when given.
 */
async function rollTo(db: TestDb, pattern: RegExp, upTo: number, chunk = Infinity, sumsCut?: number) {
  await runAsync(ensureSettingSteps(db.dialect), db.exec);
  await runAsync(resetOnPatternSteps(pattern), db.exec);
  const [w] = await db.q<{ value: string }>('SELECT value FROM fw_settings WHERE name = ?', [FEATURE_ROLLUP_SETTING]);
  for (let from = Number(w.value); from < upTo; ) {
    const to = Math.min(upTo, from + chunk);
    expect(await runAsync(rollupChunkSteps(db.dialect, from, to, pattern), db.exec)).toBe(true);
    from = to;
  }
  if (sumsCut !== undefined) await runAsync(advanceSumsSteps(sumsCut), db.exec);
}
async function unroll(db: TestDb) {
  await db.q('DELETE FROM fw_ip_feature_minutes');
  await db.q('DELETE FROM fw_ip_feature_sums');
  await db.q("UPDATE fw_settings SET value = '0' WHERE name IN (?, ?)", [FEATURE_ROLLUP_SETTING, FEATURE_SUMS_SETTING]);
}
const count = async (db: TestDb, table: string) => Number((await db.q<{ c: unknown }>(`SELECT COUNT(*) AS c FROM ${table}`))[0].c);

function sqlSuite(label: string, open: () => Promise<TestDb>, digits: number) {
  describe(`loadFeatures (${label}) equals featuresOf`, () => {
    const start = Date.UTC(2026, 4, 12, 4, 30, 0) / 1000; // crosses 06:00 UTC: night takes both values
    const { lines, labels } = generateTraffic({ seed: 5, people: 80, bots: 50, host: 'books.test', start, minutes: 120 });
    const data = Buffer.from(lines.join('\n') + '\n', 'latin1');
    const first = parseChunk(data);
    const entries: Entry[] = [...first.batch.toEntries({ proxy_addr: '10.0.0.1' }), ...finishChunk(first.state).batch.toEntries({ proxy_addr: '10.0.0.1' })].map((e) => ({
      ...e, proxy_host: e.proxy_host.toLowerCase(),
    }));
    const now = start + 120 * 60 + 17; // mid-minute: the current minute's rest and the first minute's start count
    const opts = { bookPattern: TRAFFIC_BOOK_PATTERN, now, windowS: 3600 };
    const firstMinute = Math.floor((now - 3600) / 60);
    const inWindow = (r: FeatureRow) => Math.floor(r.stime / 60) >= firstMinute && Math.floor(r.stime / 60) <= Math.floor(now / 60);
    let db: TestDb;
    beforeAll(async () => {
      db = await open();
      await db.add(entries); // Ids 1..entries.length, in time order
      // another host's rows with the same addresses must not count
      await db.add(entries.slice(0, 500).map((e) => ({ ...e, proxy_host: 'other.test', code: 500 })));
    });
    afterAll(async () => { await db?.close(); });

    const byIp = new Map<string, FeatureRow[]>();
    for (const e of entries) {
      let l = byIp.get(e.ip);
      if (!l) byIp.set(e.ip, (l = []));
      l.push(e);
    }
    const expected = [...byIp].filter(([, rows]) => rows.some(inWindow));
    const expectSame = (a: FeatureVector, b: FeatureVector) => FEATURE_NAMES.forEach((k) => expect([k, a[k]]).toEqual([k, expect.closeTo(b[k], digits)]));
    const expectAll = async (more: { tailInJsMax?: number; raw?: RawQuery } = {}) => {
      const got = await loadFeatures(db.q, db.dialect, 'Books.Test', { ...opts, ...more });
      expect(got.size).toBe(expected.length);
      for (const [ip, rows] of expected) {
        const v = got.get(ip)!;
        expect(v).toBeDefined();
        expect(inRange(v)).toBe(true);
        expectSame(v, featuresOf(rows, opts));
      }
      return got;
    };
    /** Rolls up to the Id of `entries[i]`. */
    const idOf = (i: number) => i + 1;

    /** Index of the first entry of a minute at or after `entries[i]`. */
    const minuteEdge = (i: number) => {
      while (Math.floor(entries[i].stime / 60) === Math.floor(entries[i - 1].stime / 60)) i++;
      return i;
    };

    it('before any rollup (everything is the raw tail, counted in JS and in SQL): every address, each feature equal', async () => {
      await unroll(db);
      await expectAll({ tailInJsMax: 0 });
      const got = await expectAll();
      expect(got.size).toBeGreaterThan(50);
      expect(got.size).toBeLessThan(labels.size); // some visited only in the first hour
      // the features vary: none is constant over the addresses (night: start crosses 06:00)
      const all = [...got.values()];
      for (const k of FEATURE_NAMES) if (k !== 'share_5xx') expect([k, new Set(all.map((v) => v[k])).size > 1]).toEqual([k, true]);
    });

    it('after a rollup of every row (in one chunk): the counters alone, each feature equal', async () => {
      await unroll(db);
      await rollTo(db, TRAFFIC_BOOK_PATTERN, entries.length + 500);
      const [{ c }] = await db.q<{ c: unknown }>('SELECT COUNT(*) AS c FROM fw_ip_feature_minutes');
      expect(Number(c)).toBeGreaterThan(100);
      await expectAll();
      await expectAll({ raw: db.raw });
    });

    it('half rolled up, at the edge of a minute: counters + raw tail (in JS and in SQL), each feature equal', async () => {
      await unroll(db);
      const i = minuteEdge(Math.floor(entries.length * 0.6));
      await rollTo(db, TRAFFIC_BOOK_PATTERN, idOf(i - 1));
      await expectAll();
      await expectAll({ tailInJsMax: 0 });
    });

    it('per-address sums (cut before the window): one row an address inside the window, minutes for the others; each feature equal', async () => {
      await unroll(db);
      await rollTo(db, TRAFFIC_BOOK_PATTERN, entries.length + 500, Infinity, firstMinute - 3);
      await expectAll({ raw: db.raw });
      const sums = await db.q<{ ip: string; lo: unknown; hi: unknown }>('SELECT ip, lo, hi FROM fw_ip_feature_sums WHERE proxy_host = ?', ['books.test']);
      // every address with a minute from the cut on has its row; some lie inside the window, some start before it
      const fromCut = [...byIp].filter(([, rows]) => rows.some((r) => Math.floor(r.stime / 60) >= firstMinute - 3));
      expect(sums.length).toBe(fromCut.length);
      expect(sums.some((r) => Number(r.lo) >= firstMinute)).toBe(true);
      expect(sums.some((r) => Number(r.lo) < firstMinute)).toBe(true);
      await expectAll();
      // counted again on the window's edge: every row the sums' own
      await runAsync(advanceSumsSteps(firstMinute), db.exec);
      expect(await count(db, "fw_ip_feature_sums WHERE proxy_host = 'books.test'")).toBe(expected.length);
      await expectAll();
      // a cut after the window's start: the minutes are summed as before
      await runAsync(advanceSumsSteps(firstMinute + 5), db.exec);
      await expectAll();
    });

    it('per-address sums kept by the rollup: new chunks, the cut moved minute by minute, and the raw tail on top; each feature equal', async () => {
      await unroll(db);
      await rollTo(db, TRAFFIC_BOOK_PATTERN, idOf(minuteEdge(Math.floor(entries.length * 0.5)) - 1), Infinity, firstMinute - 40);
      await expectAll();
      await rollTo(db, TRAFFIC_BOOK_PATTERN, idOf(minuteEdge(Math.floor(entries.length * 0.8)) - 1));
      for (let cut = firstMinute - 40; cut <= firstMinute; cut += 8) await runAsync(advanceSumsSteps(cut), db.exec);
      const [w] = await db.q<{ value: string }>('SELECT value FROM fw_settings WHERE name = ?', [FEATURE_SUMS_SETTING]);
      expect(Number(w.value)).toBe(firstMinute);
      await expectAll();
      await expectAll({ raw: db.raw });
      await expectAll({ tailInJsMax: 0, raw: db.raw });
      // a cut never moves back
      expect(await runAsync(advanceSumsSteps(firstMinute - 10), db.exec)).toBe(false);
    });

    it('loadCounters packed for the scoring thread: the inputs it builds there (inputsOfCounters) equal toInput of loadFeatures, and featuresOf; whole host (sums in pages) and by list; readCounterPages gives the same in pages', async () => {
      await unroll(db);
      // sums (cut before the window), the minutes of addresses reaching before it, and a raw tail
      await rollTo(db, TRAFFIC_BOOK_PATTERN, idOf(minuteEdge(Math.floor(entries.length * 0.7)) - 1), Infinity, firstMinute - 3);
      for (const more of [{}, { ips: [...byIp.keys()].slice(0, 700) }, { tailInJsMax: 0 }]) {
        const t = await loadCounters(db.q, db.dialect, 'Books.Test', { ...opts, raw: db.raw, ...more });
        const feats = await loadFeatures(db.q, db.dialect, 'Books.Test', { ...opts, raw: db.raw, ...more });
        expect(t.counters.length).toBe(t.ips.length * PACKED);
        expect([...t.ips].sort()).toEqual([...feats.keys()].sort());
        expect(t.ips.length).toBeGreaterThan(50);
        // the pages as scoreNow takes them (each sent on as read): together the same addresses in the same order, the same numbers
        const pages: CounterTable[] = [];
        await readCounterPages(db.q, db.dialect, 'Books.Test', { ...opts, raw: db.raw, ...more }, (p, attempt) => {
          expect(attempt).toBe(0);
          expect(p.counters.length).toBe(p.ips.length * PACKED);
          pages.push(p);
        });
        expect(pages.flatMap((p) => p.ips)).toEqual(t.ips);
        expect(pages.flatMap((p) => Array.from(p.counters))).toEqual(Array.from(t.counters));
        // small pages (7 addresses a page, 7 tail Ids a statement): many pages, the same counters
        const small: CounterTable[] = [];
        await readCounterPages(db.q, db.dialect, 'Books.Test', { ...opts, raw: db.raw, ...more, pageSize: 7 }, (p) => small.push(p));
        // whole host: pages of at most 7 addresses; by list: a page per IP_CHUNK addresses
        if (!('ips' in more)) {
          expect(small.length).toBeGreaterThan(t.ips.length / 7 - 1);
          expect(small.map((p) => p.ips.length).filter((n) => n > 7)).toEqual([]);
        }
        const at = new Map(t.ips.map((ip, i) => [ip, i]));
        expect(small.flatMap((p) => p.ips).sort()).toEqual([...t.ips].sort());
        for (const p of small) p.ips.forEach((ip, i) => expect(Array.from(p.counters.subarray(i * PACKED, (i + 1) * PACKED))).toEqual(Array.from(t.counters.subarray(at.get(ip)! * PACKED, (at.get(ip)! + 1) * PACKED))));
        const inputs = inputsOfCounters(t.counters);
        expect(inputs.length).toBe(t.ips.length * FEATURE_NAMES.length);
        t.ips.forEach((ip, i) => {
          const got = Array.from(inputs.subarray(i * FEATURE_NAMES.length, (i + 1) * FEATURE_NAMES.length));
          expect([ip, got]).toEqual([ip, toInput(feats.get(ip)!)]);
          expectSame(fromInput(got), featuresOf(byIp.get(ip)!, opts));
        });
      }
    });

    it('per-address sums kept incrementally: chunks splitting minutes, several rollups, the cut moving between them; the sums equal sums made anew, each feature equal', async () => {
      await unroll(db);
      /** The sums table, and the sums made anew from the minutes from the cut on (as a first cut makes them; rt_sum, a double, to 12 digits: added in another order). */
      const cols = `proxy_host, ip, lo, hi, n, nonstatic, busy_s, urls, c4xx, c5xx, static, empty_ref, ua_missing, ua_library, ua_bot, agents, head_post, rt_sum, rt_n, night, depth_sum, books, first_stime, last_stime`;
      const norm = (rows: Array<Record<string, unknown>>) => rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, k === 'proxy_host' || k === 'ip' ? String(v) : k === 'rt_sum' ? Number(Number(v).toPrecision(12)) : Number(v)])));
      const expectSumsAnew = async () => {
        const [{ value }] = await db.q<{ value: string }>('SELECT value FROM fw_settings WHERE name = ?', [FEATURE_SUMS_SETTING]);
        const cut = Number(value);
        const kept = await db.q<Record<string, unknown>>(`SELECT ${cols} FROM fw_ip_feature_sums ORDER BY proxy_host, ip`);
        const anew = await db.q<Record<string, unknown>>(
          `SELECT proxy_host, ip, MIN(minute) AS lo, MAX(minute) AS hi, SUM(n) AS n, SUM(nonstatic) AS nonstatic, SUM(busy_s) AS busy_s, SUM(urls) AS urls, SUM(c4xx) AS c4xx, ` +
            `SUM(c5xx) AS c5xx, SUM(static) AS static, SUM(empty_ref) AS empty_ref, SUM(ua_missing) AS ua_missing, SUM(ua_library) AS ua_library, SUM(ua_bot) AS ua_bot, MAX(agents) AS agents, ` +
            `SUM(head_post) AS head_post, SUM(rt_sum) AS rt_sum, SUM(rt_n) AS rt_n, SUM(night) AS night, SUM(depth_sum) AS depth_sum, SUM(books) AS books, MIN(first_stime) AS first_stime, ` +
            `MAX(last_stime) AS last_stime FROM fw_ip_feature_minutes WHERE minute >= ? GROUP BY proxy_host, ip ORDER BY proxy_host, ip`,
          [cut],
        );
        expect(anew.length).toBeGreaterThan(20);
        expect(norm(kept)).toEqual(norm(anew));
      };
      // the first rollup sets the cut 50 minutes before the window; then rollups of 997 Ids (split minutes, agents added
      // up in a minute), the cut moving by a few minutes after each (addresses dropped, straddling ones made anew)
      const steps = [0.3, 0.45, 0.6, 0.75, 0.9].map((f) => idOf(Math.floor(entries.length * f)));
      await rollTo(db, TRAFFIC_BOOK_PATTERN, steps[0], 997, firstMinute - 50);
      await expectSumsAnew();
      let cut = firstMinute - 50;
      for (const upTo of steps.slice(1)) {
        await rollTo(db, TRAFFIC_BOOK_PATTERN, upTo, 997);
        await expectSumsAnew();
        cut += 12;
        await runAsync(advanceSumsSteps(cut), db.exec);
        await expectSumsAnew();
      }
      // the rest in one more rollup, the cut on the window's edge: every feature as the minutes alone give it
      await rollTo(db, TRAFFIC_BOOK_PATTERN, entries.length + 500, 997, firstMinute);
      await expectSumsAnew();
      const fromSums = await loadFeatures(db.q, db.dialect, 'books.test', opts);
      await runAsync(advanceSumsSteps(firstMinute + 200), db.exec); // a cut after the window: no sums row used
      const fromMinutes = await loadFeatures(db.q, db.dialect, 'books.test', opts);
      expect(fromSums.size).toBe(expected.length);
      for (const [ip, v] of fromMinutes) expectSame(fromSums.get(ip)!, v);
    });

    it('rolled up in small chunks, and half rolled inside minutes: counts exact, distinct columns overcount only (documented)', async () => {
      await unroll(db);
      await rollTo(db, TRAFFIC_BOOK_PATTERN, idOf(Math.floor(entries.length * 0.7)), 997);
      const got = await loadFeatures(db.q, db.dialect, 'books.test', opts);
      expect(got.size).toBe(expected.length);
      let differ = 0;
      for (const [ip, rows] of expected) {
        const a = got.get(ip)!;
        const b = featuresOf(rows, opts);
        for (const k of FEATURE_NAMES) {
          if (k === 'distinct_urls' || k === 'agents_per_ip' || k === 'books_per_min') expect([k, a[k] >= b[k] - 1e-6]).toEqual([k, true]);
          else if (k === 'burst') expect([k, a[k] <= b[k] + 1e-6]).toEqual([k, true]);
          else expect([k, a[k]]).toEqual([k, expect.closeTo(b[k], digits)]);
        }
        if (FEATURE_NAMES.some((k) => Math.abs(a[k] - b[k]) > 1e-6)) differ++;
      }
      expect(differ).toBeLessThan(expected.length / 2);
      // the rest rolled up: still the same bounds (the split minutes stay split)
      await rollTo(db, TRAFFIC_BOOK_PATTERN, entries.length + 500, 997);
      const all = await loadFeatures(db.q, db.dialect, 'books.test', opts);
      for (const [ip, rows] of expected) expect(all.get(ip)!.share_4xx).toBeCloseTo(featuresOf(rows, opts).share_4xx, digits);
    });

    it('only `ips` (IN lists of 500; unknown addresses left out), a wider window, and another book pattern than the counters were made with', async () => {
      await unroll(db);
      let i = Math.floor(entries.length * 0.5);
      while (Math.floor(entries[i].stime / 60) === Math.floor(entries[i - 1].stime / 60)) i++;
      await rollTo(db, TRAFFIC_BOOK_PATTERN, idOf(i - 1));
      const ips = [...byIp.keys()];
      const many = [...ips, ...Array.from({ length: 1200 }, (_, k) => `192.0.2.${k % 250}-${k}`)];
      const wide = { ...opts, windowS: 7200 };
      const got = await loadFeatures(db.q, db.dialect, 'books.test', { ...wide, ips: many });
      expect(got.size).toBe(ips.length);
      for (const ip of ips) expectSame(got.get(ip)!, featuresOf(byIp.get(ip)!, wide));
      // the counters' books were counted with TRAFFIC_BOOK_PATTERN: another pattern's books come from the raw rows
      const alt = { ...opts, bookPattern: /^\/(?:book|novel)\/(\d+)/ };
      const some = ips.slice(0, 30);
      const got2 = await loadFeatures(db.q, db.dialect, 'books.test', { ...alt, ips: some });
      for (const ip of some) if (got2.has(ip)) expectSame(got2.get(ip)!, featuresOf(byIp.get(ip)!, alt));
      const odd = { ...opts, bookPattern: /^\/(b)ook\// }; // every book is 'b': at most 1 a minute
      const got3 = await loadFeatures(db.q, db.dialect, 'books.test', { ...odd, ips });
      const got4 = await loadFeatures(db.q, db.dialect, 'books.test', { ...opts, ips });
      expect(ips.some((ip) => got3.has(ip) && got3.get(ip)!.books_per_min < got4.get(ip)!.books_per_min - 0.01)).toBe(true);
      for (const ip of ips) if (got3.has(ip)) expectSame(got3.get(ip)!, featuresOf(byIp.get(ip)!, odd));
      expect((await loadFeatures(db.q, db.dialect, 'books.test', { ...opts, ips: [] })).size).toBe(0);
    });

    it('a rollup with another book pattern counts everything again (the watermark back to 0)', async () => {
      const odd = /^\/(b)ook\//;
      await rollTo(db, TRAFFIC_BOOK_PATTERN, entries.length + 500, Infinity, firstMinute);
      expect(await count(db, 'fw_ip_feature_sums')).toBeGreaterThan(0);
      await rollTo(db, odd, entries.length + 500);
      expect(await count(db, 'fw_ip_feature_sums')).toBe(0); // the sums went with the counters (and come back with the next cut)
      const ips = [...byIp.keys()].slice(0, 40);
      const got = await loadFeatures(db.q, db.dialect, 'books.test', { ...opts, bookPattern: odd, ips });
      for (const ip of ips) if (got.has(ip)) expectSame(got.get(ip)!, featuresOf(byIp.get(ip)!, { ...opts, bookPattern: odd }));
      await rollTo(db, TRAFFIC_BOOK_PATTERN, idOf(100));
      const [w] = await db.q<{ value: string }>('SELECT value FROM fw_settings WHERE name = ?', [FEATURE_ROLLUP_SETTING]);
      expect(Number(w.value)).toBe(idOf(100));
      await expectAll();
    });
  });
}

sqlSuite('SQLite', sqliteDb, 9);
// request_time is a 4-byte float on MariaDB: 1e-6. test/run-all.sh runs this file a second time with
// TEST_DATABASE_URL set (its "unit-mariadb" pass), so the MariaDB suite always runs in `npm test`.
if (MARIA) sqlSuite('MariaDB', mariaDb, 6);

// ---------------------------------------------------------------------------------------------
// The counters read in the reader thread (counter-reader.thread.ts: SQLite, a connection of its own)

describe('CounterReader (SQLite file in WAL mode): readCounterPages in a thread on a read-only connection of its own', () => {
  const start = Date.UTC(2026, 4, 12, 10, 0, 0) / 1000;
  const { lines } = generateTraffic({ seed: 7, people: 60, bots: 40, host: 'books.test', start, minutes: 90 });
  const first = parseChunk(Buffer.from(lines.join('\n') + '\n', 'latin1'));
  const entries: Entry[] = [...first.batch.toEntries({ proxy_addr: '10.0.0.1' }), ...finishChunk(first.state).batch.toEntries({ proxy_addr: '10.0.0.1' })].map((e) => ({
    ...e, proxy_host: e.proxy_host.toLowerCase(),
  }));
  const now = start + 90 * 60 + 17;
  const opts = { bookPattern: TRAFFIC_BOOK_PATTERN, now, windowS: 3600 };
  const firstMinute = Math.floor((now - 3600) / 60);
  let dir: string;
  let db: TestDb & { handle: Database.Database };
  let reader: CounterReader;
  /** A DataSource as sharedSqliteFile sees it. */
  const dsOf = (handle: Database.Database, type = 'better-sqlite3') => ({ options: { type }, isInitialized: true, driver: { databaseConnection: handle } }) as unknown as DataSource;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'counter-reader-'));
    db = await sqliteDb(join(dir, 'console.sqlite'));
    db.handle.pragma('journal_mode = WAL');
    await db.add(entries);
    // sums (cut before the window), the minutes of addresses reaching before it, and a raw tail
    const edge = Math.floor(entries.length * 0.7);
    await rollTo(db, TRAFFIC_BOOK_PATTERN, edge, Infinity, firstMinute - 3);
    reader = new CounterReader(sharedSqliteFile(dsOf(db.handle))!);
  });
  afterAll(async () => {
    await reader?.close();
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const pagesOf = async (read: (sink: (t: CounterTable, attempt: number) => void) => Promise<void>) => {
    const out: Array<{ attempt: number; ips: string[]; counters: number[] }> = [];
    await read((t, attempt) => out.push({ attempt, ips: t.ips, counters: Array.from(t.counters) }));
    return out;
  };

  it('the same pages (addresses, order, numbers, attempts) as on the connection: whole host, by list, the tail counted in SQL, small pages', async () => {
    const all = await loadCounters(db.q, db.dialect, 'books.test', { ...opts, raw: db.raw });
    expect(all.ips.length).toBeGreaterThan(50);
    // the last: another book pattern than the counters were made with (books counted from the raw rows; the pattern crosses as source and flags)
    for (const more of [{}, { ips: [...all.ips].reverse().slice(0, 70) }, { tailInJsMax: 0 }, { pageSize: 7 }, { bookPattern: /^\/(b)OOK\//i }]) {
      const here = await pagesOf((sink) => readCounterPages(db.q, db.dialect, 'books.test', { ...opts, raw: db.raw, ...more }, sink));
      const there = await pagesOf((sink) => reader.pages('books.test', { ...opts, raw: db.raw, ...more }, sink));
      expect(there.length).toBeGreaterThan(0);
      expect(there).toEqual(here);
    }
  });

  it('reads what the connection committed since; plain rows; a failed read is a CounterReaderError, a sink that throws fails the call with its own error', async () => {
    const before = (await reader.rows<{ n: number }>('SELECT COUNT(*) AS n FROM fw_access_log WHERE proxy_host = ?', ['books.test']))[0].n;
    const last = entries[entries.length - 1];
    await db.add([{ ...last, ip: '198.51.100.77' }]);
    expect((await reader.rows<{ n: number }>('SELECT COUNT(*) AS n FROM fw_access_log WHERE proxy_host = ?', ['books.test']))[0].n).toBe(before + 1);
    const got = await pagesOf((sink) => reader.pages('books.test', { ...opts, ips: ['198.51.100.77'] }, sink));
    expect(got.map((p) => p.ips)).toEqual([['198.51.100.77']]);
    expect(got[0].counters[0]).toBe(1); // n: its one row
    await expect(reader.rows('SELECT nothing FROM no_such_table')).rejects.toBeInstanceOf(CounterReaderError);
    // read-only: a write fails there
    await expect(reader.rows('DELETE FROM fw_access_log')).rejects.toBeInstanceOf(CounterReaderError);
    expect(await count(db, 'fw_access_log')).toBe(entries.length + 1);
    const mine = new Error('sink failed');
    await expect(reader.pages('books.test', opts, () => { throw mine; })).rejects.toBe(mine);
    // the thread goes on serving
    expect(await pagesOf((sink) => reader.pages('books.test', { ...opts, ips: ['198.51.100.77'] }, sink))).toEqual(got);
  });

  it('sharedSqliteFile: only a database file in WAL mode (not in-memory, not another journal mode, not MariaDB)', () => {
    expect(sharedSqliteFile(dsOf(db.handle))).toBe(join(dir, 'console.sqlite'));
    const mem = new Database(':memory:');
    const plain = new Database(join(dir, 'plain.sqlite'));
    try {
      expect(sharedSqliteFile(dsOf(mem))).toBeNull();
      expect(sharedSqliteFile(dsOf(plain))).toBeNull(); // journal mode DELETE: a reader's lock would make writes wait
      expect(sharedSqliteFile(dsOf(db.handle, 'mariadb'))).toBeNull();
    } finally {
      mem.close();
      plain.close();
    }
  });
});
