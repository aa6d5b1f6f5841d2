/**
 * The one typed configuration object. Read from the environment once, validated with zod,
 * and a bad value stops the start with a message naming the variable (fail fast).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve, join } from 'node:path';
import { z } from 'zod';
import { STORAGE_DEFAULT_MAX_MB } from '../src/contracts/storage.js';

const port = z.coerce.number().int().min(1).max(65535);

/** The T-Bank Invest API's REST base (EXTERNAL-APIS.md; sandbox: https://sandbox-invest-public-api.tbank.ru/rest). */
export const INVEST_DEFAULT_API_URL = 'https://invest-public-api.tbank.ru/rest';

const EnvSchema = z.object({
  PORT: port.default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('data'),
  DATABASE_URL: z
    .string()
    .refine((v) => /^(mysql|mariadb):\/\/[^/]+\/[^/?]+/.test(v) || /^sqlite:/.test(v), {
      message: 'must look like mysql://user[:password]@host[:port]/database or sqlite:path/to/file.sqlite',
    })
    .optional(),
  SECRET_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must start with redis:// or rediss://').optional(),
  ADMIN_LOGIN: z.string().min(1).max(64).optional(),
  ADMIN_PASSWORD: z.string().min(8, 'must be at least 8 characters').optional(),
  SESSION_TTL_HOURS: z.coerce.number().positive().default(168),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUST_PROXY: z.enum(['0', '1', 'true', 'false']).default('0'),
  BODY_LIMIT: z.string().regex(/^\d+(kb|mb)$/i, 'must look like 1mb or 512kb').default('1mb'),
  CRON_ENABLED: z.enum(['0', '1', 'true', 'false']).default('1'),
  AUDIT_RETENTION_DAYS: z.coerce.number().int('must be a whole number of days (0: forever)').min(0, 'must be at least 0').max(36500, 'must be at most 36500').default(365),
  FIREWALL_LOG_RETENTION_HOURS: z.coerce.number().int('must be a whole number of hours').min(1, 'must be at least 1').max(8760, 'must be at most 8760 (a year)').default(72),
  WHOIS_SERVER: z
    .string()
    .refine((v) => parseHostPort(v) !== null, { message: 'must look like host, host:port or [ipv6]:port (port 1-65535)' })
    .default('whois.iana.org:43'),
  WHOIS_TIMEOUT_MS: z.coerce.number().int('must be a whole number of milliseconds').min(100, 'must be at least 100').max(120_000, 'must be at most 120000').default(10_000),
  AI_REPORT_URL: z.preprocess(
    (v) => (v === '' ? undefined : v), // empty: unset
    z.string().regex(/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/, 'must be an http:// or https:// base URL without query').transform((v) => v.replace(/\/+$/, '')).optional(),
  ),
  AI_REPORT_TIMEOUT_MS: z.coerce.number().int('must be a whole number of milliseconds').min(100, 'must be at least 100').max(120_000, 'must be at most 120000').default(10_000),
  INVEST_API_URL: z.preprocess(
    (v) => (v === '' ? undefined : v), // empty: the default
    z.string().regex(/^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/, 'must be an http:// or https:// base URL without credentials or query').transform((v) => v.replace(/\/+$/, '')).default(INVEST_DEFAULT_API_URL),
  ),
  INVEST_TOKEN: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim() || undefined : v), // empty: not configured
    z.string().max(4096, 'is too long').regex(/^[\x21-\x7e]+$/, 'must be one line of printable characters without spaces').optional(),
  ),
  INVEST_TIMEOUT_MS: z.coerce.number().int('must be a whole number of milliseconds').min(100, 'must be at least 100').max(120_000, 'must be at most 120000').default(15_000),
  // Search positions (docs/position.md): Yandex Search API v2
  YANDEX_SEARCH_URL: z.preprocess((v) => (v === '' ? undefined : v), z.string().regex(/^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/, 'must be an http:// or https:// base URL without credentials or query').transform((v) => v.replace(/\/+$/, '')).default('https://searchapi.api.cloud.yandex.net')),
  YANDEX_SEARCH_API_KEY: z.preprocess((v) => (typeof v === 'string' ? v.trim() || undefined : v), z.string().max(4096, 'is too long').regex(/^[\x21-\x7e]+$/, 'must be one line of printable characters without spaces').optional()),
  YANDEX_SEARCH_FOLDER_ID: z.preprocess((v) => (typeof v === 'string' ? v.trim() || undefined : v), z.string().max(64, 'is too long').regex(/^[A-Za-z0-9_-]+$/, 'must be a folder id (letters, digits, - and _)').optional()),
  YANDEX_SEARCH_TIMEOUT_MS: z.coerce.number().int('must be a whole number of milliseconds').min(100, 'must be at least 100').max(120_000, 'must be at most 120000').default(15_000),
  YANDEX_SEARCH_PER_SECOND: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(1000, 'must be at most 1000').default(10),
  YANDEX_SEARCH_PER_HOUR: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(10_000_000, 'must be at most 10000000').default(10_000),
  POSITION_DEPTH: z.coerce.number().int('must be a whole number').min(10, 'must be at least 10').max(250, 'must be at most 250').default(100),
  POSITION_RETENTION_DAYS: z.coerce.number().int('must be a whole number of days (0: forever)').min(0, 'must be at least 0').max(36500, 'must be at most 36500').default(400),
  // Marketplace (docs/wb.md): the Wildberries seller APIs, one base per API family, one token
  WB_TOKEN: z.preprocess((v) => (typeof v === 'string' ? v.trim() || undefined : v), z.string().max(4096, 'is too long').regex(/^[\x21-\x7e]+$/, 'must be one line of printable characters without spaces').optional()),
  WB_CONTENT_URL: z.preprocess((v) => (v === '' ? undefined : v), z.string().regex(/^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/, 'must be an http:// or https:// base URL without credentials or query').transform((v) => v.replace(/\/+$/, '')).default('https://content-api.wildberries.ru')),
  WB_STATISTICS_URL: z.preprocess((v) => (v === '' ? undefined : v), z.string().regex(/^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/, 'must be an http:// or https:// base URL without credentials or query').transform((v) => v.replace(/\/+$/, '')).default('https://statistics-api.wildberries.ru')),
  WB_ANALYTICS_URL: z.preprocess((v) => (v === '' ? undefined : v), z.string().regex(/^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/, 'must be an http:// or https:// base URL without credentials or query').transform((v) => v.replace(/\/+$/, '')).default('https://seller-analytics-api.wildberries.ru')),
  WB_ADVERT_URL: z.preprocess((v) => (v === '' ? undefined : v), z.string().regex(/^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/, 'must be an http:// or https:// base URL without credentials or query').transform((v) => v.replace(/\/+$/, '')).default('https://advert-api.wildberries.ru')),
  WB_TIMEOUT_MS: z.coerce.number().int('must be a whole number of milliseconds').min(100, 'must be at least 100').max(120_000, 'must be at most 120000').default(30_000),
  WB_FINANCE_INTERVAL_MS: z.coerce.number().int('must be a whole number of milliseconds').min(0, 'must be at least 0').max(600_000, 'must be at most 600000').default(60_000),
  WB_FUNNEL_INTERVAL_MS: z.coerce.number().int('must be a whole number of milliseconds').min(0, 'must be at least 0').max(600_000, 'must be at most 600000').default(20_000),
  WB_SYNC_DAYS: z.coerce.number().int('must be a whole number of days').min(1, 'must be at least 1').max(365, 'must be at most 365').default(30),
  // Report dashboards (docs/report.md): Yandex Metrika's Reporting API and the Yandex partner (RSYA) statistics API
  METRIKA_URL: z.preprocess((v) => (v === '' ? undefined : v), z.string().regex(/^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/, 'must be an http:// or https:// base URL without credentials or query').transform((v) => v.replace(/\/+$/, '')).default('https://api-metrika.yandex.net')),
  METRIKA_TOKEN: z.preprocess((v) => (typeof v === 'string' ? v.trim() || undefined : v), z.string().max(4096, 'is too long').regex(/^[\x21-\x7e]+$/, 'must be one line of printable characters without spaces').optional()),
  RSYA_URL: z.preprocess((v) => (v === '' ? undefined : v), z.string().regex(/^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/, 'must be an http:// or https:// base URL without credentials or query').transform((v) => v.replace(/\/+$/, '')).default('https://partner.yandex.ru')),
  RSYA_TOKEN: z.preprocess((v) => (typeof v === 'string' ? v.trim() || undefined : v), z.string().max(4096, 'is too long').regex(/^[\x21-\x7e]+$/, 'must be one line of printable characters without spaces').optional()),
  REPORT_TIMEOUT_MS: z.coerce.number().int('must be a whole number of milliseconds').min(100, 'must be at least 100').max(120_000, 'must be at most 120000').default(15_000),
  REPORT_METRIC_BOUNDS: z.string().regex(/^\s*([A-Za-z0-9_:.\-]+\s*:\s*-?\d+(\.\d+)?\s*-\s*-?\d+(\.\d+)?\s*(,\s*|$))*$/, "must be a comma list of 'metric:min-max' (connections:97-366)").default(''),
  MONITOR_INTERVAL_SECONDS: z.coerce.number().int('must be a whole number of seconds').min(10, 'must be at least 10').max(3600, 'must be at most 3600').default(60),
  MONITOR_CONCURRENCY: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(50, 'must be at most 50').default(10),
  MONITOR_POOL_SIZE: z.coerce.number().int('must be a whole number').min(0, 'must be at least 0').max(56, 'must be at most 56').default(32),
  MONITOR_SSH_TIMEOUT_MS: z.coerce.number().int('must be a whole number of milliseconds').min(500, 'must be at least 500').max(120_000, 'must be at most 120000').default(10_000),
  MONITOR_RETENTION_MINUTE_DAYS: z.coerce.number().int('must be a whole number of days').min(1, 'must be at least 1').max(3650, 'must be at most 3650').default(14),
  MONITOR_RETENTION_HOUR_DAYS: z.coerce.number().int('must be a whole number of days (0: forever)').min(0, 'must be at least 0').max(36500, 'must be at most 36500').default(730),
  MONITOR_RETENTION_DAY_DAYS: z.coerce.number().int('must be a whole number of days (0: forever)').min(0, 'must be at least 0').max(36500, 'must be at most 36500').default(0),
  MONITOR_RETENTION_WEEK_DAYS: z.coerce.number().int('must be a whole number of days (0: forever)').min(0, 'must be at least 0').max(36500, 'must be at most 36500').default(0),
  TERMINAL_MAX_PER_USER: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(200, 'must be at most 200').default(10),
  TERMINAL_MAX_TOTAL: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(56, 'must be at most 56 (the SSH connection bound is 64)').default(24),
  TERMINAL_IDLE_MINUTES: z.coerce.number().int('must be a whole number of minutes').min(1, 'must be at least 1').max(1440, 'must be at most 1440').default(30),
  TERMINAL_RECORDING_RETENTION_DAYS: z.coerce.number().int('must be a whole number of days (0: forever)').min(0, 'must be at least 0').max(36500, 'must be at most 36500').default(90),
  TERMINAL_RECORDING_MAX_MB: z.coerce.number().int('must be a whole number of MB').min(1, 'must be at least 1').max(2000, 'must be at most 2000').default(50),
  TERMINAL_RECORD_INPUT: z.enum(['0', '1', 'true', 'false']).default('0'),
  STREAM_HOURS_RETENTION_DAYS: z.coerce.number().int('must be a whole number of days (0: forever)').min(0, 'must be at least 0').max(36500, 'must be at most 36500').refine((n) => n === 0 || n >= 2, 'must be 0 (forever) or at least 2 (the hour charts read the last 24 hours)').default(35),
  STREAM_DAYS_RETENTION_DAYS: z.coerce.number().int('must be a whole number of days (0: forever)').min(0, 'must be at least 0').max(36500, 'must be at most 36500').refine((n) => n === 0 || n >= 31, 'must be 0 (forever) or at least 31 (the screens read up to 30 days)').default(400),
  PRIVACY_OPERATOR_NAME: z.preprocess(
    (v) => (v === '' ? undefined : v), // empty: unset
    z.string().trim().min(1).max(200, 'must be at most 200 characters').regex(/^[^\p{Cc}\p{Cf}]+$/u, 'must be one line of text').optional(),
  ),
  PRIVACY_OPERATOR_EMAIL: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.string().trim().max(254, 'must be at most 254 characters').pipe(z.email('must be an e-mail address')).optional(),
  ),
  PRIVACY_POLICY_URL: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.string().regex(/^https?:\/\/[^\s/?#]+[^\s]*$/, 'must be an http:// or https:// URL').max(500, 'must be at most 500 characters').optional(),
  ),
  RUN_ONCE_CONCURRENCY: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(50, 'must be at most 50').default(20),
  DEPLOY_CONCURRENCY: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(50, 'must be at most 50').default(10),
  NODE_AGENT_PORT: port.default(3010),
  NODE_AGENT_TIMEOUT_MS: z.coerce.number().int('must be a whole number of milliseconds').min(100, 'must be at least 100').max(120_000, 'must be at most 120000').default(10_000),
  NODE_AGENT_CONCURRENCY: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(50, 'must be at most 50').default(8),
  SMTP_URL: z.preprocess(
    (v) => (v === '' ? undefined : v), // empty: unset (no mail is sent)
    z.string().refine((v) => parseSmtpUrl(v) !== null, { message: 'must look like smtp://user:password@host:port or smtps://user:password@host:port (user and password optional, no path or query)' }).optional(),
  ),
  SMTP_TIMEOUT_MS: z.coerce.number().int('must be a whole number of milliseconds').min(500, 'must be at least 500').max(120_000, 'must be at most 120000').default(15_000),
  ALERT_MAIL_FROM: z.preprocess((v) => (v === '' ? undefined : v), z.string().trim().max(254, 'must be at most 254 characters').pipe(z.email('must be an e-mail address')).optional()),
  ALERT_MAIL_TO: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.string().transform((v) => v.split(',').map((x) => x.trim()).filter(Boolean)).pipe(z.array(z.email('must be e-mail addresses separated by commas')).max(50, 'must be at most 50 addresses')).optional(),
  ),
  TZ: z.preprocess(
    (v) => (v === '' ? undefined : v), // empty: the process's own zone
    z.string().refine(isTimeZone, 'must be an IANA time zone such as Europe/Moscow or UTC').optional(),
  ),
  TODO_ALERT_SCAN_MS: z.coerce.number().int('must be a whole number of milliseconds').min(100, 'must be at least 100').max(60_000, 'must be at most 60000').default(5_000),
  TODO_ALERT_BATCH: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(10_000, 'must be at most 10000').default(500),
  TODO_ALERT_LATE_SECONDS: z.coerce.number().int('must be a whole number of seconds').min(1, 'must be at least 1').max(86_400, 'must be at most 86400').default(60),
  TODO_ALERT_MAIL_RETRY_SECONDS: z.coerce.number().int('must be a whole number of seconds').min(1, 'must be at least 1').max(86_400, 'must be at most 86400').default(60),
  TODO_ALERT_MAIL_TRIES: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(50, 'must be at most 50').default(8),
  UI_DIR: z.string().optional(),
  STORAGE_DIR: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(1).optional()),
  STORAGE_MAX_MB: z.coerce.number().int('must be a whole number of MB').min(1, 'must be at least 1').max(100, 'must be at most 100').default(STORAGE_DEFAULT_MAX_MB),
  STORAGE_PUBLIC_URL: z.preprocess(
    (v) => (v === '' ? undefined : v), // empty: the console's own origin
    z.string().regex(/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/, 'must be an http:// or https:// base URL without query').transform((v) => v.replace(/\/+$/, '')).optional(),
  ),
});

/** True for a time zone name Intl knows (IANA names such as Europe/Moscow, and UTC). */
export function isTimeZone(v: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: v });
    return true;
  } catch {
    return false;
  }
}

/** SMTP_URL read: `smtp://` (STARTTLS when offered) or `smtps://` (TLS from the start), port 587 / 465 when missing. */
export interface SmtpSettings {
  host: string;
  port: number;
  secure: boolean;
  user: string | null;
  pass: string | null;
}

export function parseSmtpUrl(v: string): SmtpSettings | null {
  const m = /^(smtps?):\/\//i.exec(v);
  if (!m) return null;
  let u: URL;
  try { u = new URL(v); } catch { return null; }
  if (!u.hostname || (u.pathname && u.pathname !== '/') || u.search || u.hash) return null;
  const secure = m[1].toLowerCase() === 'smtps';
  const dec = (x: string) => { try { return decodeURIComponent(x); } catch { return x; } };
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port: u.port ? Number(u.port) : secure ? 465 : 587, secure, user: u.username ? dec(u.username) : null, pass: u.password ? dec(u.password) : null };
}

/** `host`, `host:port` or `[ipv6]:port` (port 43 when missing) as {host, port}, or null. */
export function parseHostPort(v: string, defaultPort = 43): { host: string; port: number } | null {
  const m = /^\[([0-9a-fA-F:.]+)\](?::(\d{1,5}))?$/.exec(v) ?? /^([A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)(?::(\d{1,5}))?$/.exec(v);
  if (!m) return null;
  const port = m[2] === undefined ? defaultPort : Number(m[2]);
  return port >= 1 && port <= 65535 ? { host: m[1], port } : null;
}

export type DatabaseConfig =
  | { type: 'better-sqlite3'; database: string }
  | { type: 'mariadb'; url: string };

export interface AppConfig {
  port: number;
  host: string;
  dataDir: string;
  database: DatabaseConfig;
  secretKey: string;
  redisUrl?: string;
  admin: { login: string; password?: string };
  sessionTtlMs: number;
  logLevel: string;
  trustProxy: boolean;
  bodyLimit: string;
  cronEnabled: boolean;
  /** Days audit entries are kept (0: forever); the audit retention job removes older ones. */
  auditRetentionDays: number;
  /** Hours access log entries and their per-IP counters are kept (firewall retention job). */
  firewallLogRetentionHours: number;
  /** The first whois server asked (IANA unless WHOIS_SERVER says otherwise) and the time-out of one whole lookup. */
  whois: { host: string; port: number; timeoutMs: number };
  /** The AI report service (`POST {url}/py/ai/report`), or no url when AI_REPORT_URL is unset; the time-out of one call. */
  aiReport: { url: string | null; timeoutMs: number };
  /**
   * Investments (docs/invest.md): the T-Bank Invest API's REST base (INVEST_API_URL, default the
   * broker's), its token (INVEST_TOKEN; null: not configured; from the environment only, sent only in the
   * Authorization header, never logged, stored or answered) and the time-out of one call.
   */
  invest: { apiUrl: string; token: string | null; timeoutMs: number };
  /**
   * Search positions (docs/position.md): Yandex Search API v2 base (YANDEX_SEARCH_URL), API key (sent only as
   * `Authorization: Api-Key`; null: not configured) and folder id, the time-out of one call, the service's quotas
   * the pacer and the scheduler keep to, the default depth of a check and the days of history kept (0: forever).
   */
  position: { searchUrl: string; apiKey: string | null; folderId: string | null; timeoutMs: number; perSecond: number; perHour: number; depth: number; retentionDays: number };
  /**
   * Marketplace (docs/wb.md): the Wildberries seller APIs' bases per family (WB_CONTENT_URL, WB_STATISTICS_URL,
   * WB_ANALYTICS_URL, WB_ADVERT_URL), the token (WB_TOKEN; null: not configured; environment only, sent only in
   * the Authorization header), the time-out of one call, the spacing of finance-report and funnel calls (their
   * limits: one a minute, three a minute) and the days the scheduled sync pulls.
   */
  wb: { token: string | null; contentUrl: string; statisticsUrl: string; analyticsUrl: string; advertUrl: string; timeoutMs: number; financeIntervalMs: number; funnelIntervalMs: number; syncDays: number };
  /**
   * Report dashboards (docs/report.md): Yandex Metrika (METRIKA_URL, METRIKA_TOKEN) and the Yandex partner
   * statistics API (RSYA_URL, RSYA_TOKEN); tokens from the environment only, sent only in the Authorization
   * header. `bounds`: metric reference bounds added to the spec's (REPORT_METRIC_BOUNDS 'metric:min-max,...').
   */
  report: { metrikaUrl: string; metrikaToken: string | null; rsyaUrl: string; rsyaToken: string | null; timeoutMs: number; bounds: string };
  /**
   * Monitoring (docs/monitoring.md): the collection interval, SSH fan-out and pooled connections of the
   * collector, its per-server connect/command time-out, and days each tier is kept (0: forever).
   */
  monitoring: {
    intervalMs: number;
    concurrency: number;
    poolSize: number;
    sshTimeoutMs: number;
    retentionDays: { minute: number; hour: number; day: number; week: number };
  };
  /**
   * Terminals (docs/terminals.md): open shells per user and in all (this instance), the idle time-out
   * (no input), and the recordings' retention (0: forever), size cap and whether keystrokes are recorded.
   */
  terminal: { maxPerUser: number; maxTotal: number; idleMs: number; recordingRetentionDays: number; recordingMaxBytes: number; recordInput: boolean };
  /** Input stream (docs/input-stream.md): days the hour and day aggregates are kept (0: forever). */
  stream: { hoursRetentionDays: number; daysRetentionDays: number };
  /**
   * The /privacy page (001 §2 "Privacy policy"): the operator (a sole proprietor), the address requests
   * and revocations go to, and where the policy is published (null: unset; the page then says so, and
   * the policy URL is the page's own address).
   */
  privacy: { operatorName: string | null; operatorEmail: string | null; policyUrl: string | null };
  /** Run once and deploy (docs/deploy.md): SSH executions at once per call. */
  deploy: { runOnceConcurrency: number; concurrency: number };
  /**
   * Node agents (docs/agent.md): the port of a node's agent when its `agent_url` is empty, the time-out
   * of one call, and how many calls run at once.
   */
  nodeAgent: { port: number; timeoutMs: number; concurrency: number };
  /**
   * Outgoing mail (src/core/outside/mail.client.ts): the SMTP server of SMTP_URL (null: not configured;
   * its password comes from the environment and is never logged or answered), the time-out of each SMTP
   * step, the sender (ALERT_MAIL_FROM, default console@<hostname>) and the default recipients of alerts.
   */
  mail: { smtp: SmtpSettings | null; timeoutMs: number; from: string; alertTo: string[] };
  /**
   * Image storage (docs/architecture.md "Storage"): where the local-disk backend keeps the files
   * (STORAGE_DIR, default DATA_DIR/storage), the largest upload taken (decoded bytes, STORAGE_MAX_MB),
   * and the absolute base URL the network's sites reach /storage under ('' = the console's own origin).
   */
  storage: { dir: string; maxBytes: number; publicUrl: string };
  /**
   * The console's time zone (TZ, an IANA name; default the process's own zone, which Node also takes
   * from TZ): todo alerts are computed in it ("every day at 09:00" is 09:00 there) and shown in it.
   */
  timeZone: string;
  /**
   * Todo alerts (docs/todo.md "Delivery"): how often each instance scans for due alerts, the most rows
   * one pass takes (a full pass is followed at once by the next), when a delivery counts as late, and
   * the back-off base and number of tries of a failed e-mail.
   */
  todoAlerts: { scanMs: number; batch: number; lateSeconds: number; mailRetryBaseMs: number; mailTries: number };
  uiDir: string;
}

export class ConfigError extends Error {}

const truthy = (v: string) => v === '1' || v === 'true';

/** Reads the secret key from DATA_DIR/secret.key, creating it (mode 0600) on first start; an older file is set to 0600. */
function loadOrCreateSecret(dataDir: string): string {
  const file = join(dataDir, 'secret.key');
  if (existsSync(file)) {
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    return readFileSync(file, 'utf8').trim();
  }
  const key = randomBytes(32).toString('base64url');
  writeFileSync(file, key + '\n', { mode: 0o600 });
  return key;
}

/**
 * DATA_DIR holds the database and the secret key: created readable by the owner only (0700), and an
 * existing one this process owns is set so (one owned by someone else, or a shared directory with the
 * sticky bit such as /tmp, is left as it is).
 */
function privateDir(dir: string) {
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = statSync(dir);
  const ours = typeof process.getuid === 'function' && st.uid === process.getuid();
  if ((st.mode & 0o077) !== 0 && (st.mode & 0o1000) === 0 && ours && dir !== '/') chmodSync(dir, 0o700);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const dataDir = resolve(e.DATA_DIR);
  privateDir(dataDir);
  let database: DatabaseConfig;
  if (!e.DATABASE_URL) database = { type: 'better-sqlite3', database: join(dataDir, 'console.sqlite') };
  else if (e.DATABASE_URL.startsWith('sqlite:')) {
    database = { type: 'better-sqlite3', database: resolve(e.DATABASE_URL.slice('sqlite:'.length)) };
  } else database = { type: 'mariadb', url: e.DATABASE_URL.replace(/^mariadb:/, 'mysql:') };
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir,
    database,
    secretKey: e.SECRET_KEY ?? loadOrCreateSecret(dataDir),
    redisUrl: e.REDIS_URL,
    admin: { login: e.ADMIN_LOGIN ?? 'admin', password: e.ADMIN_PASSWORD },
    sessionTtlMs: e.SESSION_TTL_HOURS * 3600_000,
    logLevel: e.LOG_LEVEL,
    trustProxy: truthy(e.TRUST_PROXY),
    bodyLimit: e.BODY_LIMIT,
    cronEnabled: truthy(e.CRON_ENABLED),
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    firewallLogRetentionHours: e.FIREWALL_LOG_RETENTION_HOURS,
    whois: { ...parseHostPort(e.WHOIS_SERVER)!, timeoutMs: e.WHOIS_TIMEOUT_MS },
    aiReport: { url: e.AI_REPORT_URL ?? null, timeoutMs: e.AI_REPORT_TIMEOUT_MS },
    invest: { apiUrl: e.INVEST_API_URL, token: e.INVEST_TOKEN ?? null, timeoutMs: e.INVEST_TIMEOUT_MS },
    position: { searchUrl: e.YANDEX_SEARCH_URL, apiKey: e.YANDEX_SEARCH_API_KEY ?? null, folderId: e.YANDEX_SEARCH_FOLDER_ID ?? null, timeoutMs: e.YANDEX_SEARCH_TIMEOUT_MS, perSecond: e.YANDEX_SEARCH_PER_SECOND, perHour: e.YANDEX_SEARCH_PER_HOUR, depth: e.POSITION_DEPTH, retentionDays: e.POSITION_RETENTION_DAYS },
    wb: { token: e.WB_TOKEN ?? null, contentUrl: e.WB_CONTENT_URL, statisticsUrl: e.WB_STATISTICS_URL, analyticsUrl: e.WB_ANALYTICS_URL, advertUrl: e.WB_ADVERT_URL, timeoutMs: e.WB_TIMEOUT_MS, financeIntervalMs: e.WB_FINANCE_INTERVAL_MS, funnelIntervalMs: e.WB_FUNNEL_INTERVAL_MS, syncDays: e.WB_SYNC_DAYS },
    report: { metrikaUrl: e.METRIKA_URL, metrikaToken: e.METRIKA_TOKEN ?? null, rsyaUrl: e.RSYA_URL, rsyaToken: e.RSYA_TOKEN ?? null, timeoutMs: e.REPORT_TIMEOUT_MS, bounds: e.REPORT_METRIC_BOUNDS },
    monitoring: {
      intervalMs: e.MONITOR_INTERVAL_SECONDS * 1000,
      concurrency: e.MONITOR_CONCURRENCY,
      poolSize: e.MONITOR_POOL_SIZE,
      sshTimeoutMs: e.MONITOR_SSH_TIMEOUT_MS,
      retentionDays: { minute: e.MONITOR_RETENTION_MINUTE_DAYS, hour: e.MONITOR_RETENTION_HOUR_DAYS, day: e.MONITOR_RETENTION_DAY_DAYS, week: e.MONITOR_RETENTION_WEEK_DAYS },
    },
    terminal: {
      maxPerUser: e.TERMINAL_MAX_PER_USER,
      maxTotal: e.TERMINAL_MAX_TOTAL,
      idleMs: e.TERMINAL_IDLE_MINUTES * 60_000,
      recordingRetentionDays: e.TERMINAL_RECORDING_RETENTION_DAYS,
      recordingMaxBytes: e.TERMINAL_RECORDING_MAX_MB * 1024 * 1024,
      recordInput: truthy(e.TERMINAL_RECORD_INPUT),
    },
    stream: { hoursRetentionDays: e.STREAM_HOURS_RETENTION_DAYS, daysRetentionDays: e.STREAM_DAYS_RETENTION_DAYS },
    privacy: { operatorName: e.PRIVACY_OPERATOR_NAME ?? null, operatorEmail: e.PRIVACY_OPERATOR_EMAIL ?? null, policyUrl: e.PRIVACY_POLICY_URL ?? null },
    deploy: { runOnceConcurrency: e.RUN_ONCE_CONCURRENCY, concurrency: e.DEPLOY_CONCURRENCY },
    nodeAgent: { port: e.NODE_AGENT_PORT, timeoutMs: e.NODE_AGENT_TIMEOUT_MS, concurrency: e.NODE_AGENT_CONCURRENCY },
    mail: { smtp: e.SMTP_URL ? parseSmtpUrl(e.SMTP_URL) : null, timeoutMs: e.SMTP_TIMEOUT_MS, from: e.ALERT_MAIL_FROM ?? `console@${hostname()}`, alertTo: e.ALERT_MAIL_TO ?? [] },
    storage: { dir: resolve(e.STORAGE_DIR ?? join(dataDir, 'storage')), maxBytes: e.STORAGE_MAX_MB * 1024 * 1024, publicUrl: e.STORAGE_PUBLIC_URL ?? '' },
    timeZone: e.TZ ?? new Intl.DateTimeFormat().resolvedOptions().timeZone,
    todoAlerts: {
      scanMs: e.TODO_ALERT_SCAN_MS,
      batch: e.TODO_ALERT_BATCH,
      lateSeconds: e.TODO_ALERT_LATE_SECONDS,
      mailRetryBaseMs: e.TODO_ALERT_MAIL_RETRY_SECONDS * 1000,
      mailTries: e.TODO_ALERT_MAIL_TRIES,
    },
    uiDir: resolve(e.UI_DIR ?? join(import.meta.dirname, '..', 'ui')),
  };
}

/** Injection token for the AppConfig object. */
export const APP_CONFIG = Symbol('APP_CONFIG');
