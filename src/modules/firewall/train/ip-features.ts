/**
 * Features of a visitor address for the neural score (issue 9 "Features", 000 §9): one fixed vector per
 * address and host, computed from the address's stored rows of `fw_access_log` in the window, every value
 * normalised to 0..1 by the fixed transform below. Pure library: no Nest.
 *
 * Per-minute counters. Every feature is a function of counters per (host, minute, address) that add up
 * over minutes (`MinuteCounters`; a "distinct" column counts distinct values within its minute), so the
 * database keeps them (`fw_ip_feature_minutes`, rolled up from fw_access_log by feature-rollup.service.ts)
 * and scoring reads a few small rows per address instead of every raw row. Two ways to the same numbers:
 *   - loadFeatures: the rolled-up minutes (rows with Id <= the rollup's watermark) + the raw tail (Id >
 *     watermark) grouped per minute in SQL the same way as the rollup (`minuteGroupSteps`), merged in JS;
 *   - featuresOf: the same per-minute counters built in memory from rows (tests, and whatever already
 *     holds the rows).
 * Both sum minutes per address (`addMinute`; loadCounters packs the sums into one Float64Array, 20
 * counters an address: CounterTable) and the vector comes from the sums by `writeInput`
 * (feature-vector.ts), the same code on the main thread and in the scoring thread.
 *
 * The window: whole minutes. A row counts when its minute floor(stime / 60) lies in
 * [floor((now - window) / 60), floor(now / 60)] (so up to 59 s more than `window` at the start, and the
 * rest of the current minute). Sums are over those minutes: n = the address's rows; minutes = max(1,
 * (newest stime - oldest stime) / 60); "share" = rows with the property / n. Log scales are
 * log(1 + x) / log(1 + cap), capped at 1.
 *
 * | feature        | transform (from summed per-minute counters)                          | why it tells people from bots |
 * |----------------|----------------------------------------------------------------------|-------------------------------|
 * | rate           | log scale of n / minutes, cap 600/min                                | people read; scripts fetch as fast as the site answers (log: rates span 0.1 to 1000/min) |
 * | burst          | (non-static − Σ busy seconds) / non-static (a second lies in one minute: exact) | a person opens one document at a time (its assets aside); a crawler fires several per second |
 * | distinct_urls  | Σ distinct URLs per minute / n                                       | people reload and revisit shared assets within a minute; crawlers fetch every URL once |
 * | share_4xx      | Σ codes 400-499 / n                                                  | scanners and crawlers probe paths that do not exist or are forbidden |
 * | share_5xx      | Σ codes 500-599 / n                                                  | floods and expensive probes make the server fail |
 * | share_static   | Σ tag 'static' / n (log-parser rules, ACCESS_LOG_TAG_RULES)          | browsers fetch CSS, scripts and images with each page; scripts skip them |
 * | empty_ref      | Σ empty (or '-') referrers / n                                       | browsers send the page a link was on; scripts send none |
 * | ua_missing     | Σ empty (or '-') user agents / n                                     | every browser sends one |
 * | ua_library     | Σ HTTP-library / automation agents (LIBRARY_AGENT_TOKENS) / n        | curl, python-requests, Go-http-client... are scripts, not readers |
 * | ua_bot         | Σ declared crawler agents (DECLARED_BOT_TOKENS) / n                  | bot, crawl, spider... say it themselves |
 * | agents_per_ip  | (max over minutes of distinct agents − 1) / 9, cap 1                 | one person is one browser at a time; several agents in the same minute are a scraper rotating them (or a big NAT) |
 * | head_post      | Σ HEAD or POST / n                                                   | readers GET; HEAD probes and POST floods (logins, forms, xmlrpc) are scripted |
 * | request_time   | log scale of Σ request_time / Σ rows with one, in ms, cap 10,000 ms (0: none) | scrapers hit uncached, expensive pages (search, archives, deep pages) |
 * | night          | Σ requests 00:00-05:59 UTC / n                                       | people of the site's audience sleep (UTC is the stored time; a fixed, documented approximation) |
 * | url_depth      | Σ '/' in the path (before '?') / n / 10, cap 1                       | crawlers walk deep paths and generated links; readers stay on shallow pages |
 * | books_per_min  | log scale of Σ distinct books per minute / minutes, cap 60/min       | a reader stays on one book for minutes; a scraper takes many books a minute (book = group 1 of bookPattern) |
 *
 * Stored counters are exact but for one approximation: a minute whose rows were rolled up in two steps
 * (two chunks, or a rollup that ran during the minute, or a row that arrived late) has its distinct
 * columns (busy_s, urls, agents, books) added, so a value seen in both parts counts twice (docs/firewall.md
 * "Feature counters"); the same holds for a minute split between the stored part and the raw tail.
 */
import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { LIKE_CONTAINS, likeEscape } from '../../../core/database/like.js';
import { FEATURE_NAMES, FEATURE_WINDOW_S, type FeatureName, type FeatureVector } from '../../../contracts/firewall-train.js';
import { COUNTER_COLUMNS, COUNTERS, INPUT_SIZE, writeInput } from './feature-vector.js';

export { COUNTER_COLUMNS, COUNTERS } from './feature-vector.js';

/** A query on the app's database: `?` placeholders, answers the rows (TypeORM `DataSource.query` fits). */
export type Query = <R = Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<R[]>;
/**
 * The same, answering each row as the array of its selected columns in order: for the queries of many
 * rows (a whole host's addresses), where making an object per row is most of the cost.
 */
export type RawQuery = (sql: string, params?: unknown[]) => Promise<unknown[][]>;

/** A RawQuery over a Query (an object's values are in the order of its columns). */
export const rawOf = (q: Query): RawQuery => async (sql, params) => (await q(sql, params)).map((r) => Object.values(r as object));

/** A RawQuery on the driver under TypeORM: better-sqlite3's `raw()` statements, mysql2's `rowsAsArray`. */
export function driverRawQuery(ds: DataSource): RawQuery {
  if (ds.options.type === 'better-sqlite3') {
    const db = (ds.driver as unknown as { databaseConnection: { prepare(sql: string): { raw(on: boolean): { all(...p: unknown[]): unknown[][] } } } }).databaseConnection;
    return async (sql, params = []) => db.prepare(sql).raw(true).all(...params);
  }
  const driver = ds.driver as unknown as { pool?: RawPool };
  return (sql, params = []) => new Promise((resolve, reject) => {
    if (!driver.pool) return reject(new Error('The database is not connected'));
    driver.pool.query({ sql, values: params, rowsAsArray: true }, (err, rows) => (err ? reject(err) : resolve(rows as unknown[][])));
  });
}
interface RawPool {
  query(opts: { sql: string; values: unknown[]; rowsAsArray: boolean }, cb: (err: Error | null, rows: unknown) => void): void;
}

export interface FeatureOptions {
  /** Book pages: the first group of this pattern on the URL is the book (e.g. /\/book\/(\d+)/). */
  bookPattern: RegExp;
  /** Window (s) before `now`; default FEATURE_WINDOW_S. */
  windowS?: number;
  /** Epoch seconds; default the current time. */
  now?: number;
}

/** The columns of fw_access_log the features read. */
export interface FeatureRow {
  ip?: string;
  stime: number;
  method: string;
  url: string;
  code: number;
  ref: string | null;
  agent: string | null;
  request_time: number | null;
  tag: string;
}

/** HTTP libraries, command-line clients, headless browsers and scanners (matched case-insensitively). */
export const LIBRARY_AGENT_TOKENS = [
  'curl', 'wget', 'python', 'aiohttp', 'httpx', 'go-http-client', 'okhttp', 'java/', 'apache-httpclient', 'libwww', 'lwp-',
  'perl', 'ruby', 'php/', 'guzzle', 'axios', 'node-fetch', 'undici', 'got (', 'scrapy', 'httpie', 'libfetch', 'http_request',
  'headlesschrome', 'phantomjs', 'selenium', 'puppeteer', 'playwright', 'zgrab', 'masscan', 'nmap', 'nikto', 'sqlmap', 'nuclei',
] as const;
/** Crawlers that say what they are. */
export const DECLARED_BOT_TOKENS = [
  'bot', 'crawl', 'spider', 'slurp', 'archiver', 'scraper', 'fetcher', 'facebookexternalhit', 'ia_archiver', 'yandex', 'baidu',
  'sogou', 'bingpreview', 'nutch', 'heritrix', 'preview', 'monitor', 'checker', 'validator',
] as const;

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const LIBRARY_RE = new RegExp(LIBRARY_AGENT_TOKENS.map(escapeRe).join('|'), 'i');
const BOT_RE = new RegExp(DECLARED_BOT_TOKENS.map(escapeRe).join('|'), 'i');

/** Night ends at 06:00 UTC (the caps of the other transforms: feature-vector.ts). */
const NIGHT_END_S = 6 * 3600;

/** Agent classes: 0 missing, bit 1 library, bit 2 declared bot. */
const agentCache = new Map<string, number>();
function agentClass(agent: string | null): number {
  if (!agent || agent === '-') return 0;
  let c = agentCache.get(agent);
  if (c === undefined) {
    c = 8 | (LIBRARY_RE.test(agent) ? 1 : 0) | (BOT_RE.test(agent) ? 2 : 0);
    if (agentCache.size > 100_000) agentCache.clear();
    agentCache.set(agent, c);
  }
  return c;
}

/** The summable counters of one address in one minute (the columns of fw_ip_feature_minutes). */
export interface MinuteCounters {
  n: number;
  nonstatic: number;
  /** Distinct seconds with a non-static request. */
  busy_s: number;
  /** Distinct URLs. */
  urls: number;
  c4xx: number;
  c5xx: number;
  static: number;
  empty_ref: number;
  ua_missing: number;
  ua_library: number;
  ua_bot: number;
  /** Distinct agents (a missing agent is the agent ''). */
  agents: number;
  head_post: number;
  rt_sum: number;
  rt_n: number;
  night: number;
  depth_sum: number;
  /** Distinct books (group 1 of the book pattern). */
  books: number;
  first_stime: number;
  last_stime: number;
}

// COUNTER_COLUMNS (feature-vector.ts) lists these counters in table order (vectorOf's a[k] checks the names)

const emptyCounters = (): MinuteCounters => ({
  n: 0, nonstatic: 0, busy_s: 0, urls: 0, c4xx: 0, c5xx: 0, static: 0, empty_ref: 0, ua_missing: 0, ua_library: 0, ua_bot: 0, agents: 0,
  head_post: 0, rt_sum: 0, rt_n: 0, night: 0, depth_sum: 0, books: 0, first_stime: Infinity, last_stime: -Infinity,
});

/**
 * The counts behind one address's vector: the sums of its minutes' counters, except `agents`
 * (the largest of one minute) and first/last (the oldest and newest second).
 */
type Agg = MinuteCounters;

/** Adds one minute's counters to an address's sums. */
function addMinute(a: Agg, c: MinuteCounters) {
  // the summed columns, spelled out (a keyed loop over their names is several times slower on a whole host)
  a.n += c.n;
  a.nonstatic += c.nonstatic;
  a.busy_s += c.busy_s;
  a.urls += c.urls;
  a.c4xx += c.c4xx;
  a.c5xx += c.c5xx;
  a.static += c.static;
  a.empty_ref += c.empty_ref;
  a.ua_missing += c.ua_missing;
  a.ua_library += c.ua_library;
  a.ua_bot += c.ua_bot;
  a.head_post += c.head_post;
  a.rt_sum += c.rt_sum;
  a.rt_n += c.rt_n;
  a.night += c.night;
  a.depth_sum += c.depth_sum;
  a.books += c.books;
  if (c.agents > a.agents) a.agents = c.agents;
  if (c.first_stime < a.first_stime) a.first_stime = c.first_stime;
  if (c.last_stime > a.last_stime) a.last_stime = c.last_stime;
}

/** An Agg's vector (the transforms: writeInput, feature-vector.ts, the one place for them). */
function vectorOf(a: Agg): FeatureVector {
  const c = new Float64Array(COUNTERS);
  COUNTER_COLUMNS.forEach((k, i) => (c[i] = a[k]));
  return vectorAt(c, 0);
}

/** The vector of the packed counters at c[p .. p + COUNTERS). */
function vectorAt(c: Float64Array, p: number): FeatureVector {
  const v = new Float64Array(INPUT_SIZE);
  writeInput(c, p, v, 0);
  const f = {} as FeatureVector;
  for (let k = 0; k < INPUT_SIZE; k++) f[FEATURE_NAMES[k]] = v[k];
  return f;
}

/** '/' in the path part of a URL (before '?'). */
function depthOf(url: string): number {
  const q = url.indexOf('?');
  const end = q < 0 ? url.length : q;
  let d = 0;
  for (let i = 0; i < end; i++) if (url.charCodeAt(i) === 47) d++;
  return d;
}

const nowS = () => Math.floor(Date.now() / 1000);

/** The window's minutes (see the header): [first, last], both inclusive. */
export function windowMinutes(opts: { windowS?: number; now?: number }): { first: number; last: number } {
  const now = opts.now ?? nowS();
  return { first: Math.floor((now - (opts.windowS ?? FEATURE_WINDOW_S)) / 60), last: Math.floor(now / 60) };
}

/** The book of a URL: group 1 of the pattern (null: not a book page). */
function bookOf(re: RegExp, url: string): string | null {
  re.lastIndex = 0;
  const m = re.exec(url);
  return m && m[1] != null ? m[1] : null;
}

/** One address's minute being counted in memory: the counters and the distinct values behind them. */
interface MinuteTally {
  c: MinuteCounters & { ip: string; minute: number };
  urls: Distinct;
  agents: Distinct;
  books: Distinct;
  /** Non-static seconds of the minute as bits (second 0-29 in `secLo`, 30-59 in `secHi`); any other value in `secOther`. */
  secLo: number;
  secHi: number;
  secOther: Set<number> | null;
}

/** Distinct strings, a Set made only at the second distinct value (most minutes of an address have one agent, a few URLs). */
class Distinct {
  private first: string | null = null;
  private more: Set<string> | null = null;

  add(v: string) {
    if (this.more) this.more.add(v);
    else if (this.first === null) this.first = v;
    else if (v !== this.first) this.more = new Set([this.first, v]);
  }

  get size(): number {
    return this.more ? this.more.size : this.first === null ? 0 : 1;
  }
}

/** Bits set in a 32-bit integer. */
function bitCount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * Rows in memory counted per (address, minute) in [first, last] as the rollup counts them in SQL
 * (minuteGroupSteps): keyed `ip\nminute` (ip '' for rows without one); rows outside are ignored. Rows
 * may come in several calls of `add` (the raw tail is read in pages): the counts are those of all the
 * rows in the order they came.
 */
class MinuteTallies {
  private readonly minutes = new Map<string, MinuteTally>();

  constructor(private readonly bookPattern: RegExp, private readonly first: number, private readonly last: number) {}

  add(r: FeatureRow): void {
    this.addRow(r.ip, r.stime, r.method, r.url, r.code, r.ref, r.agent, r.request_time, r.tag);
  }

  /** A row as the tail's SELECT answers it: (ip, stime, method, url, code, ref, agent, request_time, tag). */
  addRaw(r: unknown[]): void {
    this.addRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8]);
  }

  private addRow(ipv: unknown, stimev: unknown, method: unknown, urlv: unknown, codev: unknown, ref: unknown, agentv: unknown, rt: unknown, tag: unknown): void {
    const stime = Number(stimev);
    const m = Math.floor(stime / 60);
    if (m < this.first || m > this.last) return;
    const ip = ipv == null ? '' : String(ipv);
    const key = `${ip}\n${m}`;
    let x = this.minutes.get(key);
    if (!x) this.minutes.set(key, (x = { c: { ...emptyCounters(), ip, minute: m }, urls: new Distinct(), agents: new Distinct(), books: new Distinct(), secLo: 0, secHi: 0, secOther: null }));
    const c = x.c;
    const url = String(urlv);
    const code = Number(codev);
    c.n++;
    if (stime < c.first_stime) c.first_stime = stime;
    if (stime > c.last_stime) c.last_stime = stime;
    if (tag === 'static') c.static++;
    else {
      c.nonstatic++;
      const sec = stime - m * 60;
      if (sec >= 0 && sec < 30 && Number.isInteger(sec)) x.secLo |= 1 << sec;
      else if (sec >= 30 && sec < 60 && Number.isInteger(sec)) x.secHi |= 1 << (sec - 30);
      else (x.secOther ??= new Set()).add(stime);
    }
    x.urls.add(url);
    if (code >= 400 && code <= 499) c.c4xx++;
    else if (code >= 500 && code <= 599) c.c5xx++;
    if (!ref || ref === '-') c.empty_ref++;
    if (method === 'HEAD' || method === 'POST') c.head_post++;
    if (rt != null) {
      c.rt_sum += Number(rt);
      c.rt_n++;
    }
    if (((stime % 86400) + 86400) % 86400 < NIGHT_END_S) c.night++;
    c.depth_sum += depthOf(url);
    const agent = agentv == null ? '' : String(agentv);
    x.agents.add(agent);
    const k = agentClass(agent);
    if (k === 0) c.ua_missing++;
    if (k & 1) c.ua_library++;
    if (k & 2) c.ua_bot++;
    const b = bookOf(this.bookPattern, url);
    if (b !== null) x.books.add(b);
  }

  /** The counters of every (address, minute), in the order of their first row. */
  groups(): Array<MinuteCounters & { ip: string; minute: number }> {
    const out: Array<MinuteCounters & { ip: string; minute: number }> = [];
    for (const x of this.minutes.values()) {
      x.c.busy_s = bitCount(x.secLo) + bitCount(x.secHi) + (x.secOther ? x.secOther.size : 0);
      x.c.urls = x.urls.size;
      x.c.agents = x.agents.size;
      x.c.books = x.books.size;
      out.push(x.c);
    }
    return out;
  }
}

/** MinuteTallies of rows all at hand. */
function countMinutes(rows: Iterable<FeatureRow>, bookPattern: RegExp, first: number, last: number): Array<MinuteCounters & { ip: string; minute: number }> {
  const t = new MinuteTallies(bookPattern, first, last);
  for (const r of rows) t.add(r);
  return t.groups();
}

/** Feature vector of one address from its rows in memory (any order); rows outside the window are ignored. */
export function featuresOf(rows: FeatureRow[], opts: FeatureOptions): FeatureVector {
  const { first, last } = windowMinutes(opts);
  const a = emptyCounters();
  for (const c of countMinutes(rows.map((r) => ({ ...r, ip: '' })), opts.bookPattern, first, last)) addMinute(a, c);
  return vectorOf(a);
}

/** The vector as the network's input, in FEATURE_NAMES order. */
export function toInput(f: FeatureVector): number[] {
  return FEATURE_NAMES.map((k) => f[k] ?? 0);
}

export function fromInput(v: number[]): FeatureVector {
  const f = {} as FeatureVector;
  FEATURE_NAMES.forEach((k: FeatureName, i) => (f[k] = v[i] ?? 0));
  return f;
}

/**
 * A literal that every URL matching `re` contains (for a LIKE prefilter), or null when none can be
 * proven: runs of plain characters outside groups and classes, a character made optional by `?`, `*`
 * or `{` dropped; any `|` or a case-insensitive pattern gives null.
 */
export function requiredLiteral(re: RegExp): string | null {
  if (re.flags.includes('i')) return null;
  const s = re.source;
  if (s.includes('|')) return null;
  let best = '';
  let run = '';
  let depth = 0;
  const end = () => {
    if (run.length > best.length) best = run;
    run = '';
  };
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    let literal: string | null = null;
    if (ch === '\\') {
      const nx = s[++i] ?? '';
      if (/[^A-Za-z0-9]/.test(nx)) literal = nx;
      else if (nx === 'x') i += 2;
      else if (nx === 'c') i += 1;
      else if (nx === 'u') i = s[i + 1] === '{' ? s.indexOf('}', i) : i + 4;
      else if (nx === 'p' || nx === 'P') i = s.indexOf('}', i);
      else if (nx === 'k') i = s.indexOf('>', i);
      if (i < 0) return null;
      // \d, \w, \b, \1, ... are not literals
    } else if (ch === '[') {
      // a class: skip to its end
      for (i++; i < s.length && s[i] !== ']'; i++) if (s[i] === '\\') i++;
    } else if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (!'^$.*+?{}|'.includes(ch)) literal = ch;
    const q = s[i + 1];
    const optional = q === '?' || q === '*' || q === '{';
    if (literal !== null && depth === 0 && !optional) {
      run += literal;
      if (q === '+') end();
    } else end();
  }
  end();
  return best.length >= 2 ? best : null;
}

/** IN lists of at most this many addresses. */
export const IP_CHUNK = 500;
/**
 * Sums rows per statement when loadCounters reads a whole host (also the most addresses of a page of
 * readCounterPages), by dialect: better-sqlite3 runs each statement on the event loop, so its pages are
 * smaller; mysql2 parses rows as they arrive and a page costs a round trip.
 */
const SUMS_PAGE = { sqlite: 500, mariadb: 1000 } as const;

const num = (v: unknown) => (v == null ? 0 : Number(v));

// ---------------------------------------------------------------------------------------------
// Per-minute counters in SQL: one code for the rollup (feature-rollup.service.ts) and the raw tail of
// loadFeatures. Written as step functions (generators yielding statements) so that SQLite can run them
// synchronously inside one transaction and MariaDB (or a plain query function) asynchronously.

/** fw_settings row: the highest fw_access_log Id rolled up into fw_ip_feature_minutes. */
export const FEATURE_ROLLUP_SETTING = 'feature_rollup_id';
/** fw_settings row: the key (patternKey) of the book pattern the stored `books` were counted with. */
export const FEATURE_BOOKS_SETTING = 'feature_rollup_books';
/** fw_settings row: the sums' cut minute (fw_ip_feature_sums, see "Sums" below; 0: no sums yet). */
export const FEATURE_SUMS_SETTING = 'feature_sums_from';
/** The rollup keeps the sums' cut this many minutes before the window's first minute (a caller's clock a little behind still finds them). */
export const SUMS_LAG_MINUTES = 3;
/** A cut moving by more minutes than this makes the sums anew in one statement instead of per address. */
const SUMS_REBUILD_MINUTES = 90;
/** loadFeatures counts a raw tail of at most this many Ids in JS (one plain SELECT), a longer one in SQL (minuteGroupSteps). */
export const TAIL_IN_JS_MAX = 100_000;
/** Counter rows per INSERT statement of the rollup. */
const UPSERT_ROWS = 500;
/** loadFeatures reads the raw tail by Id range when it has at most this many Ids, else by (host, time). */
const TAIL_BY_ID_MAX = 200_000;
/** Ids per statement when the raw tail is read by Id range and counted in JS (by dialect, as SUMS_PAGE). */
const TAIL_PAGE_IDS = { sqlite: 500, mariadb: 1000 } as const;

/** The identity of a book pattern (its source and flags), short enough for fw_settings. */
export const patternKey = (re: RegExp) => createHash('sha1').update(`${re.source}\n${re.flags}`).digest('hex');

/** One statement: a read answers its rows, a write (`write: true`) the number of rows it changed. */
export interface Step {
  sql: string;
  params: unknown[];
  write?: boolean;
}
export type Steps<T> = Generator<Step, T, unknown>;

/** Runs step functions with a synchronous executor (better-sqlite3 inside `transaction()`). */
export function runSync<T>(g: Steps<T>, exec: (s: Step) => unknown): T {
  let r = g.next();
  while (!r.done) r = g.next(exec(r.value));
  return r.value;
}

/** Runs step functions with an asynchronous executor. */
export async function runAsync<T>(g: Steps<T>, exec: (s: Step) => Promise<unknown>): Promise<T> {
  let r = g.next();
  while (!r.done) r = g.next(await exec(r.value));
  return r.value;
}

/** One (host, minute, address) and its counters. */
export interface MinuteGroup {
  host: string;
  minute: number;
  ip: string;
  c: MinuteCounters;
}
const groupKey = (host: string, minute: number, ip: string) => `${host}\n${minute}\n${ip}`;

/** Distinct books per (host, minute, address) of the rows matching `where` (the LIKE prefilter in SQL, the pattern in JS). */
export function* bookSteps(dialect: 'sqlite' | 'mariadb', table: string, where: string, params: unknown[], bookPattern: RegExp): Steps<Map<string, Set<string>>> {
  const minute = dialect === 'sqlite' ? 'stime / 60' : 'stime DIV 60';
  const lit = requiredLiteral(bookPattern);
  const rows = (yield {
    sql: `SELECT proxy_host AS h, ${minute} AS m, ip, url FROM ${table} WHERE ${where}${lit ? ` AND url ${LIKE_CONTAINS}` : ''}`,
    params: lit ? [...params, `%${likeEscape(lit)}%`] : params,
  }) as Array<{ h: string; m: unknown; ip: string; url: string }>;
  const books = new Map<string, Set<string>>();
  for (const r of rows) {
    const b = bookOf(bookPattern, String(r.url));
    if (b === null) continue;
    const k = groupKey(String(r.h), num(r.m), String(r.ip));
    let set = books.get(k);
    if (!set) books.set(k, (set = new Set()));
    set.add(b);
  }
  return books;
}

/**
 * Raw rows of fw_access_log matching `where` as counters per (host, minute, address): one GROUP BY for
 * the counts, one per agent (the agent classes are decided in JS, by the same agentClass as featuresOf),
 * and the book rows (bookSteps). Comparisons of URLs and agents are binary on MariaDB (its collation
 * would take '/A' and '/a' for one URL).
 */
export function* minuteGroupSteps(dialect: 'sqlite' | 'mariadb', table: string, where: string, params: unknown[], bookPattern: RegExp): Steps<Map<string, MinuteGroup>> {
  const sqlite = dialect === 'sqlite';
  const minute = sqlite ? 'stime / 60' : 'stime DIV 60';
  const bin = (x: string) => (sqlite ? x : `CAST(${x} AS BINARY)`);
  const path = sqlite ? "(CASE WHEN instr(url, '?') > 0 THEN substr(url, 1, instr(url, '?') - 1) ELSE url END)" : "SUBSTRING_INDEX(url, '?', 1)";
  const len = sqlite ? 'length' : 'CHAR_LENGTH';
  const one = (cond: string) => `SUM(CASE WHEN ${cond} THEN 1 ELSE 0 END)`;
  const main = (yield {
    sql:
      `SELECT proxy_host AS h, ${minute} AS m, ip, COUNT(*) AS n, ${one("tag <> 'static'")} AS nonstatic, ` +
      `COUNT(DISTINCT CASE WHEN tag <> 'static' THEN stime END) AS busy_s, COUNT(DISTINCT ${bin('url')}) AS urls, ` +
      `${one('code >= 400 AND code <= 499')} AS c4xx, ${one('code >= 500 AND code <= 599')} AS c5xx, ${one("tag = 'static'")} AS static, ` +
      `${one("ref IS NULL OR ref = '' OR ref = '-'")} AS empty_ref, ${one("method = 'HEAD' OR method = 'POST'")} AS head_post, ` +
      `SUM(request_time) AS rt_sum, COUNT(request_time) AS rt_n, ${one(`stime % 86400 < ${NIGHT_END_S}`)} AS night, ` +
      `SUM(${len}(${path}) - ${len}(REPLACE(${path}, '/', ''))) AS depth_sum, MIN(stime) AS first_stime, MAX(stime) AS last_stime ` +
      `FROM ${table} WHERE ${where} GROUP BY proxy_host, ${minute}, ip`,
    params,
  }) as Array<Record<string, unknown>>;
  const groups = new Map<string, MinuteGroup>();
  for (const r of main) {
    const c = emptyCounters();
    for (const k of COUNTER_COLUMNS) c[k] = num(r[k]);
    c.agents = 0;
    c.ua_missing = c.ua_library = c.ua_bot = 0;
    c.books = 0;
    const g: MinuteGroup = { host: String(r.h), minute: num(r.m), ip: String(r.ip), c };
    groups.set(groupKey(g.host, g.minute, g.ip), g);
  }
  // MIN(agent): one value of a binary group (a NULL and '' are one agent, '' in featuresOf: merged here)
  const agents = (yield {
    sql: `SELECT proxy_host AS h, ${minute} AS m, ip, MIN(agent) AS agent, COUNT(*) AS n FROM ${table} WHERE ${where} GROUP BY proxy_host, ${minute}, ip, ${bin('agent')}`,
    params,
  }) as Array<{ h: string; m: unknown; ip: string; agent: string | null; n: unknown }>;
  const seen = new Map<string, Set<string>>();
  for (const r of agents) {
    const k = groupKey(String(r.h), num(r.m), String(r.ip));
    const g = groups.get(k);
    if (!g) continue;
    const agent = r.agent == null ? '' : String(r.agent);
    let set = seen.get(k);
    if (!set) seen.set(k, (set = new Set()));
    set.add(agent);
    const n = num(r.n);
    const cls = agentClass(agent);
    if (cls === 0) g.c.ua_missing += n;
    if (cls & 1) g.c.ua_library += n;
    if (cls & 2) g.c.ua_bot += n;
  }
  for (const [k, set] of seen) groups.get(k)!.c.agents = set.size;
  const books = yield* bookSteps(dialect, table, where, params, bookPattern);
  for (const [k, set] of books) {
    const g = groups.get(k);
    if (g) g.c.books = set.size;
  }
  return groups;
}

/** The rollup's fw_settings rows, made if missing (watermark 0, no book pattern yet). */
export function* ensureSettingSteps(dialect: 'sqlite' | 'mariadb'): Steps<void> {
  yield {
    sql: `INSERT ${dialect === 'sqlite' ? 'OR IGNORE' : 'IGNORE'} INTO fw_settings (name, value) VALUES (?, ?), (?, ?), (?, ?)`,
    params: [FEATURE_ROLLUP_SETTING, '0', FEATURE_BOOKS_SETTING, '', FEATURE_SUMS_SETTING, '0'],
    write: true,
  };
}

/**
 * When the book pattern is not the one the stored books were counted with: every counter row is dropped
 * and the watermark set back to 0, so that the rollup counts the stored rows again with the new pattern
 * (compare-and-set on the pattern's row: one instance does it). Answers whether it reset.
 */
export function* resetOnPatternSteps(bookPattern: RegExp): Steps<boolean> {
  const key = patternKey(bookPattern);
  const [row] = (yield { sql: 'SELECT value FROM fw_settings WHERE name = ?', params: [FEATURE_BOOKS_SETTING] }) as Array<{ value: string }>;
  if (!row || row.value === key) return false;
  const changed = yield { sql: 'UPDATE fw_settings SET value = ? WHERE name = ? AND value = ?', params: [key, FEATURE_BOOKS_SETTING, row.value], write: true };
  if (changed !== 1) return false;
  yield { sql: 'DELETE FROM fw_ip_feature_minutes', params: [], write: true };
  yield { sql: 'DELETE FROM fw_ip_feature_sums', params: [], write: true };
  yield { sql: 'UPDATE fw_settings SET value = ? WHERE name IN (?, ?)', params: ['0', FEATURE_ROLLUP_SETTING, FEATURE_SUMS_SETTING], write: true };
  return true;
}

/**
 * One chunk of the rollup: fw_access_log rows with from < Id <= to added to fw_ip_feature_minutes. The
 * watermark first moves by compare-and-set (false: another instance took the chunk). A minute already
 * stored gets the chunk's counts added (its distinct columns then overcount values seen in both: see the
 * header); first/last take the oldest and newest second.
 */
export function* rollupChunkSteps(dialect: 'sqlite' | 'mariadb', from: number, to: number, bookPattern: RegExp): Steps<boolean> {
  const changed = yield { sql: 'UPDATE fw_settings SET value = ? WHERE name = ? AND value = ?', params: [String(to), FEATURE_ROLLUP_SETTING, String(from)], write: true };
  if (changed !== 1) return false;
  const groups = [...(yield* minuteGroupSteps(dialect, 'fw_access_log', 'Id > ? AND Id <= ?', [from, to], bookPattern)).values()];
  const cols = ['proxy_host', 'minute', 'ip', ...COUNTER_COLUMNS];
  const sqlite = dialect === 'sqlite';
  const update = COUNTER_COLUMNS.map((c) => {
    const ex = sqlite ? `excluded.${c}` : `VALUES(${c})`;
    if (c === 'first_stime') return `${c} = ${sqlite ? 'MIN' : 'LEAST'}(${c}, ${ex})`;
    if (c === 'last_stime') return `${c} = ${sqlite ? 'MAX' : 'GREATEST'}(${c}, ${ex})`;
    return `${c} = ${c} + ${ex}`;
  }).join(', ');
  // the sums' cut, and the stored agents of the chunk's minutes from the cut on (read before the counts are added: a
  // minute's new agents is its stored one + the chunk's, and the sums keep the most of one minute)
  const cut = yield* sumsCutStep();
  const kept = cut > 0 ? groups.filter((g) => g.minute >= cut) : [];
  const storedAgents = yield* storedAgentsSteps(kept);
  const row = `(${cols.map(() => '?').join(', ')})`;
  for (let i = 0; i < groups.length; i += UPSERT_ROWS) {
    const part = groups.slice(i, i + UPSERT_ROWS);
    yield {
      sql:
        `INSERT INTO fw_ip_feature_minutes (${cols.join(', ')}) VALUES ${part.map(() => row).join(', ')} ` +
        (sqlite ? `ON CONFLICT (proxy_host, minute, ip) DO UPDATE SET ${update}` : `ON DUPLICATE KEY UPDATE ${update}`),
      params: part.flatMap((g) => [g.host, g.minute, g.ip, ...COUNTER_COLUMNS.map((c) => g.c[c])]),
      write: true,
    };
  }
  // the sums of the addresses with minutes from the cut on: the chunk's counts added (sumsAddSteps)
  yield* sumsAddSteps(dialect, kept, storedAgents);
  return true;
}

// ---------------------------------------------------------------------------------------------
// Sums: fw_ip_feature_sums holds, per (host, address), its counter minutes of fw_ip_feature_minutes from
// the cut minute on (fw_settings FEATURE_SUMS_SETTING) added up as loadFeatures adds them (addMinute:
// sums; agents the most of one minute; first/last the oldest and newest second), with the oldest and
// newest minute added (lo, hi); every address with a minute from the cut on has its row. The rollup
// keeps them so in the same transaction as the minutes (rollupChunkSteps), incrementally: each chunk's
// counts are added to the rows (sumsAddSteps, an UPSERT), never made anew from all minutes. It moves the
// cut to SUMS_LAG_MINUTES before the window's first minute every run (advanceSumsSteps): rows with no
// minute from the new cut on are dropped, only those with minutes on both sides are made anew. An address whose lo and
// hi lie in a window is then one row; the others (minutes before the window's start, or a window ending
// before hi) are summed from their minutes.

/** The sums' cut minute (0: none). */
function* sumsCutStep(): Steps<number> {
  const [row] = (yield { sql: 'SELECT value FROM fw_settings WHERE name = ?', params: [FEATURE_SUMS_SETTING] }) as Array<{ value: string }>;
  return row ? Number(row.value) || 0 : 0;
}

/** The select list that adds counter minutes up (addMinute in SQL). */
const SUM_SELECT = COUNTER_COLUMNS.map((c) => (c === 'agents' || c === 'last_stime' ? `MAX(${c}) AS ${c}` : c === 'first_stime' ? `MIN(${c}) AS ${c}` : `SUM(${c}) AS ${c}`)).join(', ');
const SUMS_INSERT = `INSERT INTO fw_ip_feature_sums (proxy_host, ip, lo, hi, ${COUNTER_COLUMNS.join(', ')}) SELECT proxy_host, ip, MIN(minute), MAX(minute), ${SUM_SELECT} FROM fw_ip_feature_minutes`;

/** The sums of these addresses of a host made anew from their minutes from `cut` on. */
function* sumsOfSteps(host: string, ips: string[], cut: number): Steps<void> {
  for (let i = 0; i < ips.length; i += IP_CHUNK) {
    const part = ips.slice(i, i + IP_CHUNK);
    const list = part.map(() => '?').join(', ');
    yield { sql: `DELETE FROM fw_ip_feature_sums WHERE proxy_host = ? AND ip IN (${list})`, params: [host, ...part], write: true };
    yield { sql: `${SUMS_INSERT} WHERE proxy_host = ? AND ip IN (${list}) AND minute >= ? GROUP BY proxy_host, ip`, params: [host, ...part, cut], write: true };
  }
}

/** The stored `agents` of the minutes of these groups (key groupKey; a minute not stored yet: absent). */
function* storedAgentsSteps(groups: MinuteGroup[]): Steps<Map<string, number>> {
  const out = new Map<string, number>();
  if (!groups.length) return out;
  let lo = Infinity;
  let hi = -Infinity;
  for (const g of groups) {
    if (g.minute < lo) lo = g.minute;
    if (g.minute > hi) hi = g.minute;
  }
  // the chunk's minute range: mostly new minutes, so only the rows of the minute the last chunk ended in
  const rows = (yield { sql: 'SELECT proxy_host AS h, minute AS m, ip, agents FROM fw_ip_feature_minutes WHERE minute >= ? AND minute <= ?', params: [lo, hi] }) as Array<{ h: string; m: unknown; ip: string; agents: unknown }>;
  for (const r of rows) out.set(groupKey(String(r.h), num(r.m), String(r.ip)), num(r.agents));
  return out;
}

/**
 * Adds a chunk's minute groups (minutes from the cut on) to the sums (UPSERT): the summed columns added,
 * agents the most of one minute (a minute's stored agents + the chunk's: distinct counts of a split minute
 * add up, as in fw_ip_feature_minutes), first/last and lo/hi the oldest and newest. Equal to the sums made
 * anew from the minutes (SUMS_INSERT), row by row.
 */
function* sumsAddSteps(dialect: 'sqlite' | 'mariadb', groups: MinuteGroup[], storedAgents: Map<string, number>): Steps<void> {
  if (!groups.length) return;
  const byIp = new Map<string, { host: string; ip: string; lo: number; hi: number; a: Agg }>();
  for (const g of groups) {
    const k = `${g.host}\n${g.ip}`;
    let s = byIp.get(k);
    if (!s) byIp.set(k, (s = { host: g.host, ip: g.ip, lo: g.minute, hi: g.minute, a: emptyCounters() }));
    const c = g.c;
    const agents = (storedAgents.get(groupKey(g.host, g.minute, g.ip)) ?? 0) + c.agents;
    addMinute(s.a, agents === c.agents ? c : { ...c, agents });
    if (g.minute < s.lo) s.lo = g.minute;
    if (g.minute > s.hi) s.hi = g.minute;
  }
  const sqlite = dialect === 'sqlite';
  const least = sqlite ? 'MIN' : 'LEAST';
  const greatest = sqlite ? 'MAX' : 'GREATEST';
  const ex = (c: string) => (sqlite ? `excluded.${c}` : `VALUES(${c})`);
  const update = ['lo', 'hi', ...COUNTER_COLUMNS].map((c) => {
    if (c === 'lo' || c === 'first_stime') return `${c} = ${least}(${c}, ${ex(c)})`;
    if (c === 'hi' || c === 'last_stime' || c === 'agents') return `${c} = ${greatest}(${c}, ${ex(c)})`;
    return `${c} = ${c} + ${ex(c)}`;
  }).join(', ');
  const cols = ['proxy_host', 'ip', 'lo', 'hi', ...COUNTER_COLUMNS];
  const row = `(${cols.map(() => '?').join(', ')})`;
  const all = [...byIp.values()];
  for (let i = 0; i < all.length; i += UPSERT_ROWS) {
    const part = all.slice(i, i + UPSERT_ROWS);
    yield {
      sql:
        `INSERT INTO fw_ip_feature_sums (${cols.join(', ')}) VALUES ${part.map(() => row).join(', ')} ` +
        (sqlite ? `ON CONFLICT (proxy_host, ip) DO UPDATE SET ${update}` : `ON DUPLICATE KEY UPDATE ${update}`),
      params: part.flatMap((s) => [s.host, s.ip, s.lo, s.hi, ...COUNTER_COLUMNS.map((c) => s.a[c])]),
      write: true,
    };
  }
}

/**
 * Moves the sums' cut forward to `cut` (never back): the addresses with minutes between the old cut and
 * the new one get their sums made anew from the new cut on; a first cut, or one far behind, makes every
 * sum anew (unless `onlyIfSet`). Compare-and-set on the setting (false: already there, not set with
 * `onlyIfSet`, or another instance moved it).
 */
export function* advanceSumsSteps(cut: number, opts: { onlyIfSet?: boolean } = {}): Steps<boolean> {
  const old = yield* sumsCutStep();
  if (old > 0 ? cut <= old : opts.onlyIfSet) return false;
  const changed = yield { sql: 'UPDATE fw_settings SET value = ? WHERE name = ? AND value = ?', params: [String(cut), FEATURE_SUMS_SETTING, String(old)], write: true };
  if (changed !== 1) return false;
  if (old <= 0 || cut - old > SUMS_REBUILD_MINUTES) {
    yield { sql: 'DELETE FROM fw_ip_feature_sums', params: [], write: true };
    yield { sql: `${SUMS_INSERT} WHERE minute >= ? GROUP BY proxy_host, ip`, params: [cut], write: true };
    return true;
  }
  // addresses with no minute from the new cut on: dropped; those with minutes on both sides: made anew from the cut on
  yield { sql: 'DELETE FROM fw_ip_feature_sums WHERE hi < ?', params: [cut], write: true };
  const rows = (yield { sql: 'SELECT proxy_host AS h, ip FROM fw_ip_feature_sums WHERE lo < ?', params: [cut] }) as Array<{ h: string; ip: string }>;
  const byHost = new Map<string, string[]>();
  for (const r of rows) {
    const h = String(r.h);
    let l = byHost.get(h);
    if (!l) byHost.set(h, (l = []));
    l.push(String(r.ip));
  }
  for (const [host, ips] of byHost) yield* sumsOfSteps(host, ips, cut);
  return true;
}

// ---------------------------------------------------------------------------------------------
// loadFeatures

/**
 * Feature vectors of a host's addresses from stored rows of fw_access_log (columns: Id, ip, stime,
 * method, url, code, ref, agent, request_time, tag, proxy_host) as counted in fw_ip_feature_minutes:
 * every address with rows in the window's minutes, or only `ips` (addresses without rows are left out).
 * Equal to featuresOf on the same rows (see the header for the one approximation of split minutes).
 */
export async function loadFeatures(q: Query, dialect: 'sqlite' | 'mariadb', host: string, opts: LoadOptions): Promise<Map<string, FeatureVector>> {
  return vectorsOf(await loadCounters(q, dialect, host, opts));
}

/** The feature vectors of packed counters, by address (loadFeatures of counters read elsewhere: CounterReader). */
export function vectorsOf(t: CounterTable): Map<string, FeatureVector> {
  const out = new Map<string, FeatureVector>();
  t.ips.forEach((ip, i) => out.set(ip, vectorAt(t.counters, i * COUNTERS)));
  return out;
}

/** `pageSize`: addresses a page and tail Ids a statement (default by dialect: SUMS_PAGE, TAIL_PAGE_IDS; tests set a small one to read many pages). */
export type LoadOptions = FeatureOptions & { ips?: string[]; tailInJsMax?: number; raw?: RawQuery; pageSize?: number };

/**
 * A host's addresses and their summed counters, packed: `counters` holds COUNTERS numbers an address
 * (COUNTER_COLUMNS order; agents the most of one minute, first/last the oldest and newest second), the
 * address `ips[i]` at i * COUNTERS. What the scoring thread turns into inputs (inputsOfCounters): one
 * transferable buffer instead of an object per address.
 */
export interface CounterTable {
  ips: string[];
  counters: Float64Array;
}

/**
 * The counters behind loadFeatures's vectors (the same addresses, packed: CounterTable): the pages of
 * readCounterPages put together.
 */
export async function loadCounters(q: Query, dialect: 'sqlite' | 'mariadb', host: string, opts: LoadOptions): Promise<CounterTable> {
  const c = pageCollector();
  await readCounterPages(q, dialect, host, opts, c.sink);
  return c.table();
}

/** A sink for readCounterPages that keeps the pages of the latest attempt, and the table they make together (loadCounters's). */
export function pageCollector(): { sink: CounterPageSink; table: () => CounterTable } {
  let pages: CounterTable[] = [];
  let current = 0;
  return {
    sink: (t, attempt) => {
      if (attempt !== current) {
        pages = [];
        current = attempt;
      }
      pages.push(t);
    },
    table: () => joinPages(pages),
  };
}

/** Pages of counters as one table. */
function joinPages(pages: CounterTable[]): CounterTable {
  if (pages.length === 1) return pages[0];
  const counters = new Float64Array(pages.reduce((n, t) => n + t.counters.length, 0));
  let at = 0;
  for (const t of pages) {
    counters.set(t.counters, at);
    at += t.counters.length;
  }
  return { ips: pages.flatMap((t) => t.ips), counters };
}

/** Receives the pages of readCounterPages: `attempt` grows when the read starts again (the pages of earlier attempts are void). */
export type CounterPageSink = (page: CounterTable, attempt: number) => void;

/**
 * loadCounters page by page, each page handed on as soon as it is complete (its own buffer, at most
 * SUMS_PAGE addresses), so that a caller works on it while the next is read (scoreHost: each page to the
 * scoring thread). The whole host: the raw tail and (a changed book pattern) the books first, then a page
 * per page of sums rows, per IP_CHUNK addresses whose minutes are summed, and the addresses only in the
 * tail; by list: a page per IP_CHUNK addresses. Together the pages hold loadCounters's addresses in its
 * order. A whole-host read that a rollup overtook (its state changed meanwhile) is made again and its
 * pages come again with `attempt` one more: the caller drops those of earlier attempts (by list, a chunk
 * is handed on once its own read held).
 */
export async function readCounterPages(q: Query, dialect: 'sqlite' | 'mariadb', host: string, opts: LoadOptions, onPage: CounterPageSink): Promise<void> {
  const x = { tailInJsMax: opts.tailInJsMax ?? TAIL_IN_JS_MAX, raw: opts.raw ?? rawOf(q), pageSize: opts.pageSize };
  const win = windowMinutes(opts);
  const h = host.toLowerCase();
  if (!opts.ips) return readPages(q, dialect, h, win, opts.bookPattern, null, x, onPage);
  const ips = [...new Set(opts.ips)];
  for (let i = 0; i < ips.length; i += IP_CHUNK) {
    let chunk: CounterTable[] = [];
    let current = 0;
    await readPages(q, dialect, h, win, opts.bookPattern, ips.slice(i, i + IP_CHUNK), x, (t, attempt) => {
      if (attempt !== current) {
        chunk = [];
        current = attempt;
      }
      chunk.push(t);
    });
    if (chunk.length) onPage(joinPages(chunk), 0);
  }
}

/** A minute of the raw tail of an address. */
type TailGroup = MinuteCounters & { ip: string; minute: number };

const AGENTS = COUNTER_COLUMNS.indexOf('agents');
const BOOKS = COUNTER_COLUMNS.indexOf('books');
const FIRST = COUNTER_COLUMNS.indexOf('first_stime');
const LAST = COUNTER_COLUMNS.indexOf('last_stime');

/** Adds one minute's counters to the packed counters at c[p ..] (addMinute on a packed row, COUNTER_COLUMNS order; spelled out: a keyed loop is several times slower). */
function addPacked(c: Float64Array, p: number, m: MinuteCounters) {
  c[p] += m.n;
  c[p + 1] += m.nonstatic;
  c[p + 2] += m.busy_s;
  c[p + 3] += m.urls;
  c[p + 4] += m.c4xx;
  c[p + 5] += m.c5xx;
  c[p + 6] += m.static;
  c[p + 7] += m.empty_ref;
  c[p + 8] += m.ua_missing;
  c[p + 9] += m.ua_library;
  c[p + 10] += m.ua_bot;
  if (m.agents > c[p + AGENTS]) c[p + AGENTS] = m.agents;
  c[p + 12] += m.head_post;
  c[p + 13] += m.rt_sum;
  c[p + 14] += m.rt_n;
  c[p + 15] += m.night;
  c[p + 16] += m.depth_sum;
  c[p + 17] += m.books;
  if (m.first_stime < c[p + FIRST]) c[p + FIRST] = m.first_stime;
  if (m.last_stime > c[p + LAST]) c[p + LAST] = m.last_stime;
}
// addPacked's positions are COUNTER_COLUMNS's order written out: a reordered list must fail at once, not add columns into each other
const PACKED_ORDER = ['n', 'nonstatic', 'busy_s', 'urls', 'c4xx', 'c5xx', 'static', 'empty_ref', 'ua_missing', 'ua_library', 'ua_bot', 'agents', 'head_post', 'rt_sum', 'rt_n', 'night', 'depth_sum', 'books', 'first_stime', 'last_stime'];
if (PACKED_ORDER.join() !== COUNTER_COLUMNS.join()) throw new Error('addPacked does not follow COUNTER_COLUMNS');

/**
 * Pages of packed counters as they are made: an address's stored counters, then its raw tail's minutes
 * added in the tail's order, then the books counted apart (a changed pattern) in place of the stored ones;
 * `flush` hands the page on.
 */
class PageWriter {
  private ips: string[] = [];
  private c: Float64Array;

  /** `tail`: an address's tail minutes, in the order of its first (the addresses in the order of their first minute; taken out as used). */
  constructor(
    private readonly size: number, private readonly tail: Map<string, TailGroup[]>, private readonly books: Map<string, number> | null, private readonly emit: (t: CounterTable) => void,
  ) {
    this.c = new Float64Array(COUNTERS * size);
  }

  get full() {
    return this.ips.length >= this.size;
  }

  /** An address's stored counters from a raw row's columns `from` .. from + COUNTERS - 1 (COUNTER_COLUMNS order). */
  stored(ip: string, r: unknown[], from: number) {
    const p = this.next(ip);
    const c = this.c;
    for (let k = 0; k < COUNTERS; k++) c[p + k] = num(r[from + k]);
    this.finish(ip, p);
  }

  /** The addresses of the tail without stored counters (in the order of their first minute), then the last page. */
  tailOnly() {
    for (const ip of [...this.tail.keys()]) {
      const p = this.next(ip);
      this.c.fill(0, p, p + COUNTERS);
      this.c[p + FIRST] = Infinity;
      this.c[p + LAST] = -Infinity;
      this.finish(ip, p);
      if (this.full) this.flush();
    }
    this.flush();
  }

  flush() {
    if (!this.ips.length) return;
    const n = this.ips.length * COUNTERS;
    this.emit({ ips: this.ips, counters: n === this.c.length ? this.c : this.c.slice(0, n) });
    this.ips = [];
    this.c = new Float64Array(COUNTERS * this.size);
  }

  private next(ip: string): number {
    const p = this.ips.length * COUNTERS;
    if (p + COUNTERS > this.c.length) {
      const c = new Float64Array(this.c.length * 2);
      c.set(this.c);
      this.c = c;
    }
    this.ips.push(ip);
    return p;
  }

  private finish(ip: string, p: number) {
    const groups = this.tail.get(ip);
    if (groups) {
      this.tail.delete(ip);
      for (const g of groups) addPacked(this.c, p, g);
    }
    if (this.books) this.c[p + BOOKS] = this.books.get(ip) ?? 0;
  }
}

interface RollupState {
  w: number;
  books: string;
  sums: number;
  maxId: number;
}

async function rollupState(q: Query): Promise<RollupState> {
  const rows = await q<{ name: string; value: string }>('SELECT name, value FROM fw_settings WHERE name IN (?, ?, ?)', [FEATURE_ROLLUP_SETTING, FEATURE_BOOKS_SETTING, FEATURE_SUMS_SETTING]);
  const [m] = await q<{ m: unknown }>('SELECT MAX(Id) AS m FROM fw_access_log');
  const get = (n: string) => rows.find((r) => r.name === n)?.value;
  return { w: Number(get(FEATURE_ROLLUP_SETTING) ?? 0) || 0, books: get(FEATURE_BOOKS_SETTING) ?? '', sums: Number(get(FEATURE_SUMS_SETTING) ?? 0) || 0, maxId: num(m?.m) };
}

/** Lets the event loop run between pages (better-sqlite3 answers at once, so an await alone would not). */
const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

/** What bounds a read: the host, the window, the addresses (null: all), the rollup state. */
interface ReadScope {
  q: Query;
  raw: RawQuery;
  dialect: 'sqlite' | 'mariadb';
  host: string;
  win: { first: number; last: number };
  bookPattern: RegExp;
  inList: string;
  ipParams: string[];
  st: RollupState;
  /** Tail Ids a statement. */
  tailPage: number;
}

/**
 * The raw tail (rows with Id > watermark in the window's seconds) counted per minute, by address: at
 * most `tailInJsMax` Ids read as plain rows and counted in JS (MinuteTallies, as featuresOf), by Id in
 * pages of TAIL_PAGE_IDS (the last one open, as one statement would be), else grouped in SQL
 * (minuteGroupSteps). A minute also stored: its agents = stored + tail (as the rollup would add them),
 * looked up for the tail's minutes.
 */
async function tailByIp(s: ReadScope, tailInJsMax: number): Promise<Map<string, TailGroup[]>> {
  const { st, win, host, dialect } = s;
  const byId = st.maxId - st.w <= TAIL_BY_ID_MAX;
  // by Id: the primary key (SQLite: the rowid, which NOT INDEXED still uses); else the (host, stime) index
  const table = byId ? (dialect === 'sqlite' ? 'fw_access_log NOT INDEXED' : 'fw_access_log FORCE INDEX (PRIMARY)') : 'fw_access_log';
  const where = `proxy_host = ? AND Id > ? AND stime >= ? AND stime < ?${s.inList}`;
  const params = (from: number) => [host, from, win.first * 60, (win.last + 1) * 60, ...s.ipParams];
  let tail: TailGroup[];
  if (st.maxId - st.w <= tailInJsMax) {
    const select = `SELECT ip, stime, method, url, code, ref, agent, request_time, tag FROM ${table} WHERE ${where}`;
    const tallies = new MinuteTallies(s.bookPattern, win.first, win.last);
    // pages of Ids in Id order (the order one statement along the primary key reads them), each counted before
    // the next is read: no statement or count holds the event loop long; one statement off the primary key
    const step = byId ? s.tailPage : Infinity;
    for (let from = st.w; ; from += step) {
      const last = from + step >= st.maxId;
      for (const r of await s.raw(last ? select : `${select} AND Id <= ?`, last ? params(from) : [...params(from), from + step])) tallies.addRaw(r);
      if (last) break;
      await breathe();
    }
    tail = tallies.groups();
  } else {
    tail = [...(await runAsync(minuteGroupSteps(dialect, table, where, params(st.w), s.bookPattern), (x) => s.q(x.sql, x.params))).values()].map((g) => ({ ...g.c, ip: g.ip, minute: g.minute }));
  }
  const out = new Map<string, TailGroup[]>();
  if (!tail.length) return out;
  const stored = new Map<string, number>();
  if (st.w > 0) {
    const minutes = [...new Set(tail.map((g) => g.minute))];
    const rows = await s.q<{ ip: string; minute: unknown; agents: unknown }>(
      `SELECT ip, minute, agents FROM fw_ip_feature_minutes WHERE proxy_host = ? AND minute IN (${minutes.map(() => '?').join(', ')})${s.inList}`,
      [host, ...minutes, ...s.ipParams],
    );
    for (const r of rows) stored.set(`${r.ip}\n${num(r.minute)}`, num(r.agents));
  }
  for (const g of tail) {
    g.agents += stored.get(`${g.ip}\n${g.minute}`) ?? 0;
    const list = out.get(g.ip);
    if (list) list.push(g);
    else out.set(g.ip, [g]);
  }
  return out;
}

/** Distinct books per address counted from the raw rows of the window (the stored ones were counted with another pattern). */
async function booksByIp(s: ReadScope): Promise<Map<string, number>> {
  const { win } = s;
  const books = await runAsync(
    bookSteps(s.dialect, 'fw_access_log', `proxy_host = ? AND stime >= ? AND stime < ?${s.inList}`, [s.host, win.first * 60, (win.last + 1) * 60, ...s.ipParams], s.bookPattern),
    (x) => s.q(x.sql, x.params),
  );
  const out = new Map<string, number>();
  for (const [k, set] of books) {
    const ip = k.slice(k.lastIndexOf('\n') + 1);
    out.set(ip, (out.get(ip) ?? 0) + set.size);
  }
  return out;
}

/**
 * Sums of one host's addresses, in pages: S = the rolled-up counters of the window's minutes (rows with
 * Id <= watermark) + T = raw rows with Id > watermark in the window's seconds, counted per minute and
 * added minute by minute (tailByIp, read first so that each page of S is complete when read). S: when
 * the sums' cut lies at or before the window's first minute, an address's sums row where its lo and hi
 * lie in the window, else its minutes summed (see "Sums"); otherwise every minute row of the window
 * summed per address. Stored books counted with another pattern: books from the raw rows instead. The
 * rollup state is read again at the end: a rollup that moved it meanwhile (S and T overlapping) means a
 * retry, its pages with `attempt` one more.
 */
async function readPages(
  q: Query, dialect: 'sqlite' | 'mariadb', host: string, win: { first: number; last: number }, bookPattern: RegExp, ips: string[] | null,
  { tailInJsMax, raw, pageSize: size }: { tailInJsMax: number; raw: RawQuery; pageSize?: number }, onPage: CounterPageSink,
): Promise<void> {
  if (ips && !ips.length) return;
  const inList = ips ? ` AND ip IN (${ips.map(() => '?').join(', ')})` : '';
  const ipParams = ips ?? [];
  for (let attempt = 0; ; attempt++) {
    const st = await rollupState(q);
    const s: ReadScope = { q, raw, dialect, host, win, bookPattern, inList, ipParams, st, tailPage: size ?? TAIL_PAGE_IDS[dialect] };
    const tail = st.maxId > st.w ? await tailByIp(s, tailInJsMax) : new Map<string, TailGroup[]>();
    const books = st.w > 0 && st.books !== patternKey(bookPattern) ? await booksByIp(s) : null;
    const pageSize = size ?? SUMS_PAGE[dialect];
    const pages = new PageWriter(pageSize, tail, books, (t) => onPage(t, attempt));
    if (st.w > 0 && st.sums > 0 && st.sums <= win.first) {
      const select = `SELECT ip, lo, hi, ${COUNTER_COLUMNS.join(', ')} FROM fw_ip_feature_sums WHERE proxy_host = ? AND hi >= ?`;
      const partial: string[] = [];
      const take = (rows: unknown[][]) => {
        for (const r of rows) {
          if (num(r[1]) >= win.first && num(r[2]) <= win.last) pages.stored(String(r[0]), r, 3);
          else partial.push(String(r[0]));
        }
        pages.flush();
      };
      if (ips) take(await raw(select + inList, [host, win.first, ...ipParams]));
      else {
        // the whole host in pages along the primary key (proxy_host, ip): each a short statement (SQLite runs
        // on the event loop), the state check at the end covers them all
        for (let after = ''; ;) {
          const rows = await raw(`${select} AND ip > ? ORDER BY ip LIMIT ${pageSize}`, [host, win.first, after]);
          take(rows);
          if (rows.length < pageSize) break;
          after = String(rows[rows.length - 1][0]);
          await breathe();
        }
      }
      const chunk = Math.min(IP_CHUNK, pageSize);
      for (let i = 0; i < partial.length; i += chunk) {
        const part = partial.slice(i, i + chunk);
        const sums = await raw(
          `SELECT ip, ${SUM_SELECT} FROM fw_ip_feature_minutes WHERE proxy_host = ? AND ip IN (${part.map(() => '?').join(', ')}) AND minute >= ? AND minute <= ? GROUP BY ip`,
          [host, ...part, win.first, win.last],
        );
        for (const r of sums) pages.stored(String(r[0]), r, 1);
        pages.flush();
      }
    } else if (st.w > 0) {
      const rows = await raw(`SELECT ip, ${SUM_SELECT} FROM fw_ip_feature_minutes WHERE proxy_host = ? AND minute >= ? AND minute <= ?${inList} GROUP BY ip`, [host, win.first, win.last, ...ipParams]);
      for (const r of rows) {
        pages.stored(String(r[0]), r, 1);
        if (pages.full) pages.flush();
      }
      pages.flush();
    }
    pages.tailOnly();
    if (attempt >= 4) return;
    const again = await rollupState(q);
    if (again.w === st.w && again.sums === st.sums) return;
  }
}
