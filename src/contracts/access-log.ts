/**
 * Access logs of the firewall (000 §2 "Firewall and traffic", §3 Access log entry, §9): the access log
 * entry, the nginx log formats the parser reads, the request tags and their rules, and the traffic
 * constants. Imported by the parser and its worker threads, so it stays free of zod and of Node
 * imports (the UI bundles it too); src/contracts/firewall.ts re-exports everything here.
 */

// ---------------------------------------------------------------------------------------------
// Access log entry (000 §3)

/**
 * One parsed nginx access-log line. Values the log writes as `-` are '' (strings) or null (numbers).
 * `date`/`time` are UTC (from `stime`), so that lines of proxies in other time zones line up.
 */
export interface AccessLogEntry {
  /** Client address (`$remote_addr`), IPv4 dotted or IPv6 as logged. */
  ip: string;
  /** `$http_x_forwarded_for` as logged (may list several addresses); '' in the combined format. */
  forward: string;
  /** YYYY-MM-DD, UTC. */
  date: string;
  /** HH:MM:SS, UTC. */
  time: string;
  /** Epoch seconds of `$time_local` (its offset applied). */
  stime: number;
  /**
   * `$upstream_response_time` as logged: one value per upstream tried, e.g. '0.001, 0.002' or
   * '0.010 : 0.004' (internal redirect); '' when nginx wrote `-` or the format has none.
   */
  upstream_response_time: string;
  /** `$request_time` in seconds; null in the combined format. */
  request_time: number | null;
  /** Request method ('' when the request line is not `METHOD URL [PROTOCOL]`, e.g. a TLS probe). */
  method: string;
  /** Request target; the whole request line when it is not `METHOD URL [PROTOCOL]`. */
  url: string;
  /** `$status`. */
  code: number;
  /** `$http_referer`. */
  ref: string;
  /** `$http_user_agent`. */
  agent: string;
  /** `$host`; the proxy's address when the line carries none (combined format). */
  proxy_host: string;
  /** The proxy the line came from. */
  proxy_addr: string;
  tag: AccessLogTag;
}

// ---------------------------------------------------------------------------------------------
// nginx log formats

/** Name of the extended format in nginx (`log_format console ...`; `access_log ... console;`). */
export const NGINX_LOG_FORMAT_NAME = 'console';

/**
 * The extended format: combined, then forwarded-for, host, upstream response time and request time.
 * Paste into the `http {}` block of nginx and name it on the `access_log` line (docs/firewall.md).
 */
export const NGINX_LOG_FORMAT_LINE =
  `log_format ${NGINX_LOG_FORMAT_NAME} '$remote_addr - $remote_user [$time_local] "$request" ` +
  `$status $body_bytes_sent "$http_referer" "$http_user_agent" ` +
  `"$http_x_forwarded_for" "$host" $upstream_response_time $request_time';`;

/** The formats recognised, per line: what follows the combined part tells them apart. */
export const LOG_FORMATS = {
  combined: "nginx's predefined `combined` (no forwarded-for, host or times)",
  main: 'combined + "$http_x_forwarded_for" (the `main` format of the nginx example config)',
  console: `combined + "$http_x_forwarded_for" "$host" $upstream_response_time $request_time (\`${NGINX_LOG_FORMAT_NAME}\`)`,
} as const;
export type LogFormat = keyof typeof LOG_FORMATS;

/** Why a line was refused (shown with the sampled bad lines). */
export const LOG_BAD_REASONS = {
  address: 'client address is not an IPv4 or IPv6 address',
  time: 'no [dd/Mon/yyyy:HH:MM:SS +zzzz] time',
  request: 'no quoted request',
  status: 'no status and bytes sent',
  quote: 'a quoted field is not closed',
  tail: 'unknown fields after the user agent',
  long: 'line longer than the limit',
} as const;
export type LogBadReason = keyof typeof LOG_BAD_REASONS;

/** A line that did not parse: where it starts in the file and its first characters. */
export interface LogBadLine {
  offset: number;
  reason: LogBadReason;
  text: string;
}

/** Bad lines kept per parsed batch for display (the rest are only counted). */
export const LOG_BAD_SAMPLE_MAX = 10;
/** Characters kept of a sampled bad line. */
export const LOG_BAD_SAMPLE_CHARS = 300;
/** A longer line is counted bad and skipped without being held in memory. */
export const LOG_MAX_LINE_BYTES = 256 * 1024;

// ---------------------------------------------------------------------------------------------
// Tags (000 §2 tag buttons): what a request was, the first rule that matches wins

export const ACCESS_LOG_TAGS = ['page', 'static', 'api', 'feed', 'bot'] as const;
export type AccessLogTag = (typeof ACCESS_LOG_TAGS)[number];

/**
 * User-agent tokens of crawlers, scripts and scanners, matched case-insensitively anywhere in the
 * agent. An empty agent (or `-`) is a bot too: browsers always send one.
 */
export const BOT_AGENT_TOKENS = [
  'bot', 'crawl', 'spider', 'slurp', 'archiver', 'scraper', 'fetcher', 'checker', 'monitor', 'preview',
  'facebookexternalhit', 'yandex', 'baidu', 'sogou', 'bingpreview', 'ia_archiver', 'nutch', 'heritrix',
  'curl/', 'wget', 'httpie', 'python', 'aiohttp', 'go-http-client', 'java/', 'okhttp', 'apache-httpclient',
  'libwww', 'lwp-', 'perl', 'ruby', 'php/', 'guzzle', 'axios', 'node-fetch', 'undici', 'scrapy', 'httpx',
  'headlesschrome', 'phantomjs', 'selenium', 'puppeteer', 'playwright',
  'validator', 'sleuth', 'libfetch', 'http_request', 'embedly', 'portscout',
  'zgrab', 'masscan', 'nmap', 'nikto', 'sqlmap', 'nuclei', 'censys', 'shodan', 'expanse',
] as const;

/** Path extensions of static files (the part after the last dot of the last path segment). */
export const STATIC_EXTENSIONS = [
  'css', 'js', 'mjs', 'map', 'png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'svg', 'ico', 'bmp', 'tif', 'tiff',
  'woff', 'woff2', 'ttf', 'otf', 'eot', 'mp3', 'mp4', 'm4a', 'ogg', 'oga', 'wav', 'flac', 'webm', 'avi', 'mov',
  'mkv', 'pdf', 'txt', 'csv', 'zip', 'gz', 'tgz', 'bz2', 'xz', '7z', 'rar', 'epub', 'fb2', 'mobi', 'djvu',
  'doc', 'docx', 'xls', 'xlsx', 'ppt', 'pptx', 'apk', 'exe', 'dmg', 'iso', 'deb', 'rpm', 'jar', 'tar', 'log', 'swf',
] as const;

/** Feed paths: a segment `rss`, `feed`, `feeds`, `atom` or `rdf` (also `rss.xml`, `/feed/`), or these extensions. */
export const FEED_SEGMENTS = ['rss', 'feed', 'feeds', 'atom', 'rdf'] as const;
export const FEED_EXTENSIONS = ['rss', 'atom', 'rdf', 'xml'] as const;
/** Path prefixes of API endpoints; also any path ending in `.json`. */
export const API_PREFIXES = ['/api/', '/graphql', '/wp-json/', '/xmlrpc.php', '/v1/', '/v2/', '/v3/'] as const;

/** The rules in the order they are tried (the UI shows them beside the tag buttons). */
export const ACCESS_LOG_TAG_RULES: readonly { tag: AccessLogTag; rule: string }[] = [
  {
    tag: 'feed',
    rule: `a feed, whoever asks: a path segment ${FEED_SEGMENTS.join(', ')} (e.g. /feed, /rss.xml, /blog/atom/), ` +
      `a path ending in .${FEED_EXTENSIONS.join(', .')}, or a query value starting with rss or atom (?flav=rss20, ?format=atom)`,
  },
  { tag: 'bot', rule: `any other request whose user agent is empty or contains one of: ${BOT_AGENT_TOKENS.join(', ')}` },
  { tag: 'static', rule: `a path ending in .${STATIC_EXTENSIONS.join(', .')}` },
  { tag: 'api', rule: `a path starting with ${API_PREFIXES.join(', ')} or ending in .json` },
  { tag: 'page', rule: 'everything else (documents a person reads)' },
];

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const BOT_RE = new RegExp(BOT_AGENT_TOKENS.map(escapeRe).join('|'), 'i');
const FEED_SEGMENT_RE = new RegExp(`/(?:${FEED_SEGMENTS.join('|')})(?:[./]|$)`);
const FEED_QUERY_RE = /[?&][^=&#]*=(?:rss|atom)/i;
const STATIC_EXT = new Set<string>(STATIC_EXTENSIONS);
const API_EXACT = new Set<string>(API_PREFIXES.map((p) => p.replace(/\/$/, '')));
const FEED_EXT = new Set<string>(FEED_EXTENSIONS);

/** True when the user agent is a crawler's, a script's or empty (rule `bot`). */
export const isBotAgent = (agent: string): boolean => agent === '' || agent === '-' || BOT_RE.test(agent);

/** The tag of a request (rules of ACCESS_LOG_TAG_RULES, first match wins). `botAgent` may be precomputed. */
export function classifyRequest(url: string, agent: string, botAgent = isBotAgent(agent)): AccessLogTag {
  let end = url.length;
  const q = url.indexOf('?');
  if (q >= 0) end = q;
  const h = url.indexOf('#');
  if (h >= 0 && h < end) end = h;
  const path = (end === url.length ? url : url.slice(0, end)).toLowerCase();
  const slash = path.lastIndexOf('/');
  const dot = path.lastIndexOf('.');
  const ext = dot > slash ? path.slice(dot + 1) : '';
  if (FEED_EXT.has(ext) || FEED_SEGMENT_RE.test(path) || (q >= 0 && FEED_QUERY_RE.test(url.slice(q)))) return 'feed';
  if (botAgent) return 'bot';
  if (STATIC_EXT.has(ext)) return 'static';
  if (ext === 'json' || API_EXACT.has(path)) return 'api';
  for (const p of API_PREFIXES) if (path.startsWith(p)) return 'api';
  return 'page';
}

// ---------------------------------------------------------------------------------------------
// Traffic constants (000 §9)

/** The top IP list shows this many addresses. */
export const TOP_IP_HEAD = 200;
/** Top buckets on the traffic report. */
export const TOP_BUCKETS = [5, 10, 50, 100] as const;
/** Blocked IP rules are looked back this far (s). */
export const BLOCKED_RULE_LOOKBACK_S = 86_400;
/** The 'friz' gap (s). */
export const FRIZ_GAP_S = 300;
