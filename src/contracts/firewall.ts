/**
 * Firewall traffic side (000 §2 "Firewall and traffic", §3, §5, §7, §9): shapes and inputs shared by
 * the server and the UI. The access log entry, log formats, tags and traffic constants are in
 * access-log.ts (kept free of zod for the parser's worker threads) and re-exported here. IP rules,
 * block lists and the sync are in firewall-rules.ts.
 */
export * from './access-log.js';
import { z } from 'zod';
import { ACCESS_LOG_TAGS, TOP_BUCKETS, TOP_IP_HEAD, type AccessLogTag, type LogBadLine } from './access-log.js';
import { choice, flag, int, text } from './fields.js';

// ---------------------------------------------------------------------------------------------
// Traffic screen and statistics (000 §2 /firewall, /firewall/processing_logs; §5; §7). Inputs are
// zod schemas (shared helpers of fields.ts), answers plain shapes.


/** Range options of the traffic filter in minutes (0 = all stored), default 60 (000 §5). */
export const TRAFFIC_RANGES = [0, 3, 5, 10, 15, 30, 60, 120, 180, 360, 720] as const;
export const TRAFFIC_RANGE_LABELS: Record<number, string> = {
  0: 'all', 3: '3 min', 5: '5 min', 10: '10 min', 15: '15 min', 30: '30 min', 60: '1 hour', 120: '2 hours', 180: '3 hours', 360: '6 hours', 720: '12 hours',
};
export const TRAFFIC_DEFAULT_RANGE = 60;
/** Code filters of 000 §5, verbatim, and what each matches. */
export const TRAFFIC_CODE_FILTERS = ['all', '200>', '201', '300>', '301/302', '400', '400>', '404', '500>'] as const;
export type TrafficCodeFilter = (typeof TRAFFIC_CODE_FILTERS)[number];
/** `N>` means N and above (200> is every code from 200 up); the others are exact codes. */
export function codeMatches(filter: TrafficCodeFilter, code: number): boolean {
  switch (filter) {
    case 'all': return true;
    case '200>': return code >= 200;
    case '300>': return code >= 300;
    case '400>': return code >= 400;
    case '500>': return code >= 500;
    case '301/302': return code === 301 || code === 302;
    default: return code === Number(filter);
  }
}
/** Unique-book statistics keep IPs that read at least this many different books (000 §5). */
export const UNIQUE_BOOKS_MIN = 5;
/** Cluster config type whose value is the regular expression of a book URL (first group = the book). */
export const BOOK_URL_CONFIG_TYPE = 'firewall_book_url';
export const DEFAULT_BOOK_URL_PATTERN = '^/book/([^/?#]+)';
/** Log retention of stored access log entries (h), unless FIREWALL_LOG_RETENTION_HOURS says otherwise. */
export const DEFAULT_LOG_RETENTION_HOURS = 72;

export const TrafficArgs = z.object({
  host: text('Domain', 190, { min: 1 }).transform((v) => v.toLowerCase()),
  range_minutes: choice(TRAFFIC_RANGES, 'Range').default(TRAFFIC_DEFAULT_RANGE),
  code: z.enum(TRAFFIC_CODE_FILTERS, { error: `Code must be one of ${TRAFFIC_CODE_FILTERS.join(', ')}` }).default('all'),
  /** How many top addresses (000 §9: head 200; buckets 5, 10, 50, 100). */
  top: choice([...TOP_BUCKETS, TOP_IP_HEAD], 'Top').default(TOP_IP_HEAD),
});
/** One address of the traffic report. */
export interface TrafficIp {
  ip: string;
  count: number;
  /** ISO times of the first and last request in the range. */
  first: string;
  last: string;
  /** Requests per status code. */
  codes: Record<string, number>;
  /** Requests per tag. */
  tags: Partial<Record<AccessLogTag, number>>;
  /** The address's IP rule status, or null when it has none. */
  rule: number | null;
}
export interface TrafficReport {
  host: string;
  range_minutes: number;
  code: TrafficCodeFilter;
  /** Matching requests in the range, and distinct addresses. */
  total: number;
  ips_total: number;
  list: TrafficIp[];
}
/** The log rows of one address on the traffic screen (000 §3 Traffic log row, plus tag and agent). */
export const TrafficRowsArgs = TrafficArgs.omit({ top: true }).extend({
  ip: text('IP', 64, { min: 1 }),
  tag: z.enum(ACCESS_LOG_TAGS, { error: `Tag must be one of ${ACCESS_LOG_TAGS.join(', ')}` }).optional(),
  limit: int(1, 1000, 'Limit').default(200),
});
export interface TrafficRow {
  time: string;
  proxy_addr: string;
  url: string;
  ref: string;
  code: number;
  tag: AccessLogTag;
  method: string;
  agent: string;
}
export const IpStatsArgs = z
  .object({
    host: text('Domain', 190).optional(),
    range_minutes: int(0, 525_600, 'Range').optional(),
    /** Only IPs that read at least UNIQUE_BOOKS_MIN different books (000 §5). */
    unique_books: flag('unique_books').optional(),
    min_count: int(0, 1_000_000_000, 'Minimum count').optional(),
    like: text('Like', 64).optional(),
    /** Rows answered, most hits first (default IP_STATS_LIMIT). */
    limit: int(1, 10_000, 'Limit').optional(),
  })
  .default({});
export interface IpStat {
  ip: string;
  count: number;
  /** With unique_books: different books read. */
  books?: number;
}
export const AccessLogQueryArgs = z.object({ cmd: text('Query', 500, { min: 1 }), limit: int(1, 1000, 'Limit').default(200) });
export interface WorkerStatus {
  /** 1 on, 0 off. */
  status: number;
  /** ISO time of the last finished run, or null. */
  last_worker_time: string | null;
}
export interface WorkerProxyResult {
  Id: number;
  name?: string;
  lines: number;
  bad_lines: number;
  error?: string;
  /** Read, but something was lost or skipped (a rotated log that could not be found). */
  warning?: string;
}
/** `firewall.setWorkerStatus {status}`: 1 on, 0 off. */
export const WorkerStatusArgs = z.object({ status: flag('Status') });
/** The `firewall.worker` event: the switch, the last run, and whether a run is going on (with its results when it ends). */
export interface WorkerStatusEvent extends WorkerStatus {
  running: boolean;
  results?: WorkerProxyResult[];
}
/** A bad line kept for display, with when it was read. */
export interface WorkerBadLine extends LogBadLine {
  /** ISO time of the run that read it. */
  at: string;
}
/** A proxy as the firewall worker sees it (`firewall.getWorkerProxies`): where its log read stands. */
export interface WorkerProxyState {
  Id: number;
  name: string;
  ip: string;
  /** Read by the worker: type 1, status 1 and read_nginx_log_firewall 1. */
  read: boolean;
  nginx_log: string;
  /** The log file being read (its inode on the proxy) and the byte offset reached: always a line start. */
  inode: string;
  pos: number;
  /** Lines stored and lines that did not parse, since the first read. */
  lines: number;
  bad_lines: number;
  /** The latest bad lines (at most LOG_BAD_SAMPLE_MAX). */
  bad_sample: WorkerBadLine[];
  last_read: string | null;
  /** Why the last read failed (or what it could not do), null after a good read. */
  last_error: string | null;
}

/** `firewall.getIpStats` answers at most this many addresses unless `limit` says otherwise. */
export const IP_STATS_LIMIT = 1000;
/** `firewall.getFilter`: the traffic screen's filter options (000 §2 /firewall, §5, §9). */
export interface TrafficFilter {
  /** Hosts with stored log lines, with the time of the newest (ISO), by name. */
  hosts: Array<{ host: string; last: string }>;
  ranges: Array<{ value: number; label: string }>;
  default_range: number;
  codes: readonly TrafficCodeFilter[];
  /** Top buckets (5, 10, 50, 100) and the head of the list (200). */
  top: readonly number[];
  head: number;
  tags: readonly AccessLogTag[];
}
