/**
 * Features of a visitor address for the neural score (issue 9 "Features", 000 §9): one fixed vector per
 * address and host, computed from the address's stored rows of `fw_access_log` in the window
 * [now - window, now] (default FEATURE_WINDOW_S), every value normalised to 0..1 by the fixed transform
 * below. Pure library: no Nest. Two ways to the same numbers:
 *   - loadFeatures: SQL aggregation in the database (SQLite or MariaDB), three GROUP BY queries per host
 *     (per address; per address and agent; per address and book page), then the same JS arithmetic;
 *   - featuresOf: the same from rows in memory (tests, and whatever already holds the rows).
 * Both fill an `Agg` (counts) and turn it into the vector with `vectorOf`, so they cannot drift apart.
 *
 * n = the address's rows in the window; minutes = max(1, (newest stime - oldest stime) / 60);
 * "share" = rows with the property / n. Log scales are log(1 + x) / log(1 + cap), capped at 1.
 *
 * | feature        | transform                                                        | why it tells people from bots |
 * |----------------|------------------------------------------------------------------|-------------------------------|
 * | rate           | log scale of requests per minute, cap 600/min                    | people read; scripts fetch as fast as the site answers (log: rates span 0.1 to 1000/min) |
 * | burst          | share of non-static requests in a second that already had one    | a person opens one document at a time (its assets aside); a crawler fires several per second |
 * | distinct_urls  | distinct URLs / n                                                | people revisit and reload shared assets; crawlers fetch every URL once |
 * | share_4xx      | share of codes 400-499                                           | scanners and crawlers probe paths that do not exist or are forbidden |
 * | share_5xx      | share of codes 500-599                                           | floods and expensive probes make the server fail |
 * | share_static   | share of tag 'static' (log-parser rules, ACCESS_LOG_TAG_RULES)  | browsers fetch CSS, scripts and images with each page; scripts skip them |
 * | empty_ref      | share of empty (or '-') referrers                                | browsers send the page a link was on; scripts send none |
 * | ua_missing     | share of empty (or '-') user agents                              | every browser sends one |
 * | ua_library     | share of HTTP-library / automation agents (LIBRARY_AGENT_TOKENS) | curl, python-requests, Go-http-client... are scripts, not readers |
 * | ua_bot         | share of declared crawler agents (DECLARED_BOT_TOKENS)           | bot, crawl, spider... say it themselves |
 * | agents_per_ip  | (distinct agents - 1) / 9, cap 1                                 | one person is one browser; rotating agents are a scraper hiding (or a big NAT) |
 * | head_post      | share of HEAD or POST                                            | readers GET; HEAD probes and POST floods (logins, forms, xmlrpc) are scripted |
 * | request_time   | log scale of the mean request_time in ms, cap 10,000 ms (0: none)| scrapers hit uncached, expensive pages (search, archives, deep pages) |
 * | night          | share of requests 00:00-05:59 UTC                                | people of the site's audience sleep (UTC is the stored time; a fixed, documented approximation) |
 * | url_depth      | mean count of '/' in the path (before '?') / 10, cap 1           | crawlers walk deep paths and generated links; readers stay on shallow pages |
 * | books_per_min  | log scale of distinct books per minute, cap 60/min               | a reader stays on one book for minutes; a scraper takes many books a minute (book = group 1 of bookPattern) |
 */
import { FEATURE_NAMES, FEATURE_WINDOW_S, type FeatureName, type FeatureVector } from '../../contracts/firewall-train.js';

/** A query on the app's database: `?` placeholders, answers the rows (TypeORM `DataSource.query` fits). */
export type Query = <R = Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<R[]>;

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

/** Caps of the transforms (see the table above). */
const RATE_CAP = 600;
const BOOKS_CAP = 60;
const RT_CAP_MS = 10_000;
const DEPTH_CAP = 10;
const AGENTS_CAP = 10;
const NIGHT_END_S = 6 * 3600;

const logScale = (x: number, cap: number) => (x <= 0 ? 0 : Math.min(1, Math.log1p(x) / Math.log1p(cap)));
const clamp01 = (x: number) => (x > 0 ? (x < 1 ? x : 1) : 0);

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

/** The counts behind one address's vector. */
interface Agg {
  n: number;
  minT: number;
  maxT: number;
  nonStatic: number;
  nonStaticSeconds: number;
  distinctUrls: number;
  c4: number;
  c5: number;
  statics: number;
  emptyRef: number;
  headPost: number;
  rtSum: number;
  rtN: number;
  night: number;
  depthSum: number;
  uaMissing: number;
  uaLibrary: number;
  uaBot: number;
  agents: number;
  books: number;
}

const emptyAgg = (): Agg => ({
  n: 0, minT: 0, maxT: 0, nonStatic: 0, nonStaticSeconds: 0, distinctUrls: 0, c4: 0, c5: 0, statics: 0, emptyRef: 0, headPost: 0,
  rtSum: 0, rtN: 0, night: 0, depthSum: 0, uaMissing: 0, uaLibrary: 0, uaBot: 0, agents: 0, books: 0,
});

function vectorOf(a: Agg): FeatureVector {
  const v = {} as FeatureVector;
  for (const name of FEATURE_NAMES) v[name] = 0;
  const n = a.n;
  if (!n) return v;
  const minutes = Math.max(1, (a.maxT - a.minT) / 60);
  v.rate = logScale(n / minutes, RATE_CAP);
  v.burst = a.nonStatic ? clamp01((a.nonStatic - a.nonStaticSeconds) / a.nonStatic) : 0;
  v.distinct_urls = clamp01(a.distinctUrls / n);
  v.share_4xx = clamp01(a.c4 / n);
  v.share_5xx = clamp01(a.c5 / n);
  v.share_static = clamp01(a.statics / n);
  v.empty_ref = clamp01(a.emptyRef / n);
  v.ua_missing = clamp01(a.uaMissing / n);
  v.ua_library = clamp01(a.uaLibrary / n);
  v.ua_bot = clamp01(a.uaBot / n);
  v.agents_per_ip = clamp01((a.agents - 1) / (AGENTS_CAP - 1));
  v.head_post = clamp01(a.headPost / n);
  v.request_time = a.rtN ? logScale((a.rtSum / a.rtN) * 1000, RT_CAP_MS) : 0;
  v.night = clamp01(a.night / n);
  v.url_depth = clamp01(a.depthSum / n / DEPTH_CAP);
  v.books_per_min = logScale(a.books / minutes, BOOKS_CAP);
  return v;
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

/** The book of a URL: group 1 of the pattern (null: not a book page). */
function bookOf(re: RegExp, url: string): string | null {
  re.lastIndex = 0;
  const m = re.exec(url);
  return m && m[1] != null ? m[1] : null;
}

/** Feature vector of one address from its rows in memory (any order); rows outside the window are ignored. */
export function featuresOf(rows: FeatureRow[], opts: FeatureOptions): FeatureVector {
  const now = opts.now ?? nowS();
  const from = now - (opts.windowS ?? FEATURE_WINDOW_S);
  const a = emptyAgg();
  const urls = new Set<string>();
  const seconds = new Set<number>();
  const agents = new Set<string>();
  const books = new Set<string>();
  a.minT = Infinity;
  a.maxT = -Infinity;
  for (const r of rows) {
    if (r.stime < from || r.stime > now) continue;
    a.n++;
    if (r.stime < a.minT) a.minT = r.stime;
    if (r.stime > a.maxT) a.maxT = r.stime;
    if (r.tag === 'static') a.statics++;
    else {
      a.nonStatic++;
      seconds.add(r.stime);
    }
    urls.add(r.url);
    if (r.code >= 400 && r.code <= 499) a.c4++;
    else if (r.code >= 500 && r.code <= 599) a.c5++;
    if (!r.ref || r.ref === '-') a.emptyRef++;
    if (r.method === 'HEAD' || r.method === 'POST') a.headPost++;
    if (r.request_time != null) {
      a.rtSum += r.request_time;
      a.rtN++;
    }
    if (((r.stime % 86400) + 86400) % 86400 < NIGHT_END_S) a.night++;
    a.depthSum += depthOf(r.url);
    const agent = r.agent ?? '';
    agents.add(agent);
    const c = agentClass(agent);
    if (c === 0) a.uaMissing++;
    if (c & 1) a.uaLibrary++;
    if (c & 2) a.uaBot++;
    const b = bookOf(opts.bookPattern, r.url);
    if (b !== null) books.add(b);
  }
  if (!a.n) return vectorOf(emptyAgg());
  a.nonStaticSeconds = seconds.size;
  a.distinctUrls = urls.size;
  a.agents = agents.size;
  a.books = books.size;
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

const likeEscape = (s: string) => s.replace(/[!%_]/g, (c) => '!' + c);

/** IN lists of at most this many addresses. */
export const IP_CHUNK = 500;

const num = (v: unknown) => (v == null ? 0 : Number(v));

/**
 * Feature vectors of a host's addresses from stored rows of fw_access_log (columns: ip, stime, method,
 * url, code, ref, agent, request_time, tag, proxy_host): every address with rows in [now - window,
 * now], or only `ips` (addresses without rows are left out of the map).
 */
export async function loadFeatures(q: Query, dialect: 'sqlite' | 'mariadb', host: string, opts: FeatureOptions & { ips?: string[] }): Promise<Map<string, FeatureVector>> {
  const now = opts.now ?? nowS();
  const from = now - (opts.windowS ?? FEATURE_WINDOW_S);
  const aggs = new Map<string, Agg>();
  if (opts.ips) {
    const ips = [...new Set(opts.ips)];
    for (let i = 0; i < ips.length; i += IP_CHUNK) await loadInto(q, dialect, host, from, now, opts.bookPattern, ips.slice(i, i + IP_CHUNK), aggs);
  } else await loadInto(q, dialect, host, from, now, opts.bookPattern, null, aggs);
  const out = new Map<string, FeatureVector>();
  for (const [ip, a] of aggs) out.set(ip, vectorOf(a));
  return out;
}

async function loadInto(q: Query, dialect: 'sqlite' | 'mariadb', host: string, from: number, now: number, bookPattern: RegExp, ips: string[] | null, aggs: Map<string, Agg>) {
  if (ips && !ips.length) return;
  const where = `proxy_host = ? AND stime >= ? AND stime <= ?${ips ? ` AND ip IN (${ips.map(() => '?').join(', ')})` : ''}`;
  const params: unknown[] = [host.toLowerCase(), from, now, ...(ips ?? [])];
  const path = dialect === 'sqlite' ? "(CASE WHEN instr(url, '?') > 0 THEN substr(url, 1, instr(url, '?') - 1) ELSE url END)" : "SUBSTRING_INDEX(url, '?', 1)";
  const len = dialect === 'sqlite' ? 'length' : 'CHAR_LENGTH';
  const one = (cond: string) => `SUM(CASE WHEN ${cond} THEN 1 ELSE 0 END)`;
  const main = await q<Record<string, unknown>>(
    `SELECT ip, COUNT(*) AS n, MIN(stime) AS min_t, MAX(stime) AS max_t, ` +
      `${one("tag <> 'static'")} AS non_static, COUNT(DISTINCT CASE WHEN tag <> 'static' THEN stime END) AS ns_seconds, ` +
      `COUNT(DISTINCT url) AS urls, ${one('code >= 400 AND code <= 499')} AS c4, ${one('code >= 500 AND code <= 599')} AS c5, ` +
      `${one("tag = 'static'")} AS statics, ${one("ref IS NULL OR ref = '' OR ref = '-'")} AS empty_ref, ` +
      `${one("method = 'HEAD' OR method = 'POST'")} AS head_post, SUM(request_time) AS rt_sum, COUNT(request_time) AS rt_n, ` +
      `${one(`stime % 86400 < ${NIGHT_END_S}`)} AS night, SUM(${len}(${path}) - ${len}(REPLACE(${path}, '/', ''))) AS depth ` +
      `FROM fw_access_log WHERE ${where} GROUP BY ip`,
    params,
  );
  for (const r of main) {
    const a = emptyAgg();
    a.n = num(r.n);
    a.minT = num(r.min_t);
    a.maxT = num(r.max_t);
    a.nonStatic = num(r.non_static);
    a.nonStaticSeconds = num(r.ns_seconds);
    a.distinctUrls = num(r.urls);
    a.c4 = num(r.c4);
    a.c5 = num(r.c5);
    a.statics = num(r.statics);
    a.emptyRef = num(r.empty_ref);
    a.headPost = num(r.head_post);
    a.rtSum = num(r.rt_sum);
    a.rtN = num(r.rt_n);
    a.night = num(r.night);
    a.depthSum = num(r.depth);
    aggs.set(String(r.ip), a);
  }
  const agents = await q<{ ip: string; agent: string | null; n: unknown }>(`SELECT ip, agent, COUNT(*) AS n FROM fw_access_log WHERE ${where} GROUP BY ip, agent`, params);
  for (const r of agents) {
    const a = aggs.get(String(r.ip));
    if (!a) continue;
    const n = num(r.n);
    a.agents++;
    const c = agentClass(r.agent);
    if (c === 0) a.uaMissing += n;
    if (c & 1) a.uaLibrary += n;
    if (c & 2) a.uaBot += n;
  }
  const lit = requiredLiteral(bookPattern);
  const bookRows = await q<{ ip: string; url: string }>(
    `SELECT ip, url FROM fw_access_log WHERE ${where}${lit ? ` AND url LIKE ? ESCAPE '!'` : ''} GROUP BY ip, url`,
    lit ? [...params, `%${likeEscape(lit)}%`] : params,
  );
  const books = new Map<string, Set<string>>();
  for (const r of bookRows) {
    const b = bookOf(bookPattern, r.url);
    if (b === null) continue;
    const ip = String(r.ip);
    let set = books.get(ip);
    if (!set) books.set(ip, (set = new Set()));
    set.add(b);
  }
  for (const [ip, set] of books) {
    const a = aggs.get(ip);
    if (a) a.books += set.size;
  }
}
