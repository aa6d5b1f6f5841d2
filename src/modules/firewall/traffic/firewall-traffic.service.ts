/**
 * Traffic queries of the firewall area (000 §2 /firewall, /firewall/processing_logs; §3 IP stats, Access
 * log entry, Traffic log row; §5; §7; §9): the traffic report (top addresses of a host), an address's log
 * rows, IP statistics, the access-log query language and the traffic screen's filter options. Admin only.
 * Decisions and the query syntax: docs/firewall.md "Traffic report", "IP statistics", "Log query".
 *
 * The report reads a summary, not only raw rows: fw_traffic_hours holds hits per (host, epoch hour, ip,
 * code, tag) rolled up from fw_access_log up to a watermark Id. A report over [start, now] adds three
 * parts that never overlap:
 *   S  summary rows of the whole hours from ceil(start / 3600) on (rows with Id <= watermark);
 *   E  raw rows with Id <= watermark in the leading part-hour [start, first whole hour);
 *   T  raw rows with Id > watermark (not rolled up yet), any time >= start.
 * So the answer is exact at any moment, whatever the rollup has reached; the rollup (a job every minute,
 * `rollup()`) only moves work from raw rows to the summary. Late lines (a proxy that was unreachable for
 * hours) get a higher Id and are rolled up into their own hours like any other.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, QueryRunner } from 'typeorm';
import type { z } from 'zod';
import { APP_CONFIG, type AppConfig } from '../../../../config/config.js';
import {
  ACCESS_LOG_TAGS, AccessLogQueryArgs, BOOK_URL_CONFIG_TYPE, DEFAULT_BOOK_URL_PATTERN, IP_STATS_LIMIT, IpStatsArgs, TOP_BUCKETS, TOP_IP_HEAD,
  TRAFFIC_CODE_FILTERS, TRAFFIC_DEFAULT_RANGE, TRAFFIC_RANGES, TRAFFIC_RANGE_LABELS, TrafficArgs, TrafficRowsArgs, UNIQUE_BOOKS_MIN,
  type AccessLogEntry, type AccessLogTag, type IpStat, type TrafficCodeFilter, type TrafficFilter, type TrafficIp, type TrafficReport, type TrafficRow,
} from '../../../contracts/firewall.js';
import { normalizeIp } from '../../../contracts/firewall-rules.js';
import { Role } from '../../../contracts/roles.js';
import { LIKE_CONTAINS, likeEscape } from '../../../core/database/like.js';
import { AppError } from '../../../core/errors.js';
import { Rpc } from '../../../core/rpc/rpc.decorator.js';
import { CfgConfigsService } from '../../cfg-configs/cfg-configs.service.js';
import { ROLLUP_CHUNK_IDS, ROLLUP_SETTLE_MS, Serial, SettleWindow, type SqliteHandle, type SqliteStatement } from './id-rollup.js';
import { FeatureRollupService } from '../train/feature-rollup.service.js';

const HOUR = 3600;
/** fw_settings row holding the highest fw_access_log Id rolled up into fw_traffic_hours. */
export const ROLLUP_SETTING = 'traffic_rollup_id';
/** Addresses per `IN (...)` list. */
const IN_CHUNK = 500;
/** Raw rows per page when scanning for unique books. */
const BOOK_PAGE = 5000;

const nowS = () => Math.floor(Date.now() / 1000);
const iso = (s: number) => new Date(s * 1000).toISOString();
const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));
const marks = (n: number) => new Array(n).fill('?').join(', ');
/** LIKE patterns use '!' as the escape character (core/database/like.ts). */
const LIKE = LIKE_CONTAINS;

function chunks<T>(list: T[], n = IN_CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += n) out.push(list.slice(i, i + n));
  return out;
}

/** SQL of a code filter of 000 §5 (`N>` is N and above, the others exact codes). */
export function codeSql(f: TrafficCodeFilter, column = 'code'): [string, number[]] {
  switch (f) {
    case 'all': return ['', []];
    case '200>': case '300>': case '400>': case '500>': return [` AND ${column} >= ?`, [Number(f.slice(0, 3))]];
    case '301/302': return [` AND ${column} IN (?, ?)`, [301, 302]];
    default: return [` AND ${column} = ?`, [Number(f)]];
  }
}

// ---------------------------------------------------------------------------------------------
// The access-log query language (firewall.getAccessLogsByStr; docs/firewall.md "Log query")

export const LOG_QUERY_FIELDS = ['ip', 'url', 'code', 'host', 'tag', 'method', 'agent', 'ref', 'proxy', 'range'] as const;
export type LogQueryField = (typeof LOG_QUERY_FIELDS)[number];
const FIELD_ALIASES: Record<string, LogQueryField> = {
  ip: 'ip', url: 'url', path: 'url', code: 'code', status: 'code', host: 'host', domain: 'host', proxy_host: 'host', tag: 'tag',
  method: 'method', agent: 'agent', ua: 'agent', ref: 'ref', referer: 'ref', proxy: 'proxy', proxy_addr: 'proxy', range: 'range', last: 'range',
};
const METHODS = /^(GET|POST|HEAD|PUT|DELETE|PATCH|OPTIONS|CONNECT|TRACE|PROPFIND)$/;
const HOST_SHAPE = /^(?=.*\.)[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z][a-z0-9-]*$/i;

export interface LogQueryTerm {
  field: LogQueryField;
  value: string;
  not: boolean;
}

/** The SQL condition of one term (and its parameters), or an error naming the term. */
function termSql(t: LogQueryTerm, now: number): [string, unknown[]] | string {
  const v = t.value;
  switch (t.field) {
    case 'ip': {
      const cidr = /^(\d{1,3}(?:\.\d{1,3}){3})\/(8|16|24|32)$/.exec(v);
      if (cidr) {
        const base = normalizeIp(cidr[1]);
        if (!base) break;
        const octets = Number(cidr[2]) / 8;
        if (octets === 4) return ['ip = ?', [base]];
        return [`ip ${LIKE}`, [`${likeEscape(base.split('.').slice(0, octets).join('.'))}.%`]];
      }
      if (/^[0-9a-f:.]+\*$/i.test(v) || /^\d{1,3}(\.\d{1,3}){0,2}\.$/.test(v)) return [`ip ${LIKE}`, [`${likeEscape(v.replace(/\*$/, '').toLowerCase())}%`]];
      const ip = normalizeIp(v);
      if (!ip) break;
      const forms = [...new Set([ip, v.toLowerCase()])];
      return [`ip IN (${marks(forms.length)})`, forms];
    }
    case 'code': {
      if (/^\d{3}$/.test(v)) return ['code = ?', [Number(v)]];
      if (/^\dxx$/i.test(v)) return ['code BETWEEN ? AND ?', [Number(v[0]) * 100, Number(v[0]) * 100 + 99]];
      if (/^\d{3}>$/.test(v)) return ['code >= ?', [Number(v.slice(0, 3))]];
      break;
    }
    case 'tag':
      if ((ACCESS_LOG_TAGS as readonly string[]).includes(v.toLowerCase())) return ['tag = ?', [v.toLowerCase()]];
      return `"${t.field}:${v}": tag must be one of ${ACCESS_LOG_TAGS.join(', ')}`;
    case 'method':
      if (/^[A-Za-z]{1,16}$/.test(v)) return ['method = ?', [v.toUpperCase()]];
      break;
    case 'host': return ['proxy_host = ?', [v.toLowerCase()]];
    case 'proxy': return ['proxy_addr = ?', [v]];
    case 'url': case 'agent': case 'ref': return [`${t.field} ${LIKE}`, [`%${likeEscape(v)}%`]];
    case 'range':
      if (/^\d{1,6}$/.test(v) && Number(v) >= 1 && Number(v) <= 525_600) return ['stime >= ?', [now - Number(v) * 60]];
      return `"range:${v}": range is a number of minutes from 1 to 525600`;
  }
  const what: Record<string, string> = {
    ip: 'an IPv4 or IPv6 address, a prefix ending in * or a dot (10.1.*), or an IPv4 range /8, /16, /24 or /32',
    code: 'a status code (404), a class (4xx) or a lower bound (400>)',
    method: 'a request method (GET)',
  };
  return `"${t.field}:${v}": ${t.field} must be ${what[t.field]}`;
}

/** Guesses the field of a bare term by its shape (docs/firewall.md "Log query"). */
export function guessField(v: string): LogQueryField {
  if (normalizeIp(v) || /^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/.test(v) || /^\d{1,3}(\.\d{1,3}){0,2}\.?\*$/.test(v)) return 'ip';
  if (/^\d{3}>?$/.test(v) || /^\dxx$/i.test(v)) return 'code';
  if ((ACCESS_LOG_TAGS as readonly string[]).includes(v)) return 'tag';
  if (METHODS.test(v)) return 'method';
  if (v.includes('/') || v.includes('?')) return 'url';
  if (HOST_SHAPE.test(v)) return 'host';
  return 'url';
}

/**
 * Parses `ip:1.2.3.4 url:/book code:404 host:x tag:bot` (and bare terms, quoted values, `-` for not).
 * Throws a 422 naming the bad terms.
 */
export function parseLogQuery(cmd: string): LogQueryTerm[] {
  const terms: LogQueryTerm[] = [];
  const errors: string[] = [];
  // `\S*`: a field with nothing after its colon is caught below; an empty match between terms is skipped
  const re = /(-)?(?:([A-Za-z_]+):)?(?:"([^"]*)"?|(\S*))/g;
  for (let m = re.exec(cmd); m; m = re.exec(cmd)) {
    if (m[0].trim() === '') { re.lastIndex++; continue; }
    const not = m[1] === '-';
    let name: string | undefined = m[2]?.toLowerCase();
    let value = m[3] ?? m[4] ?? '';
    if (name && !FIELD_ALIASES[name]) {
      // 'abcd::1' is an IPv6 address, not the field 'abcd'
      const whole = `${m[2]}:${value}`;
      if (normalizeIp(whole)) { name = undefined; value = whole; } else { errors.push(`"${m[0].trim()}": unknown field '${m[2]}' (fields: ${LOG_QUERY_FIELDS.join(', ')})`); continue; }
    }
    if (value === '') {
      if (m[0].trim() !== '-') errors.push(`"${m[0].trim()}": a value is missing`);
      continue;
    }
    terms.push({ field: name ? FIELD_ALIASES[name] : guessField(value), value, not });
  }
  if (errors.length) throw new AppError(422, errors.join('; '), 'rules', { cmd: errors.join('; ') });
  if (!terms.length) throw new AppError(422, 'Query is required', 'rules', { cmd: 'Query is required' });
  return terms;
}

/** WHERE clause of parsed terms: the same field's terms are alternatives (OR), different fields all apply (AND), `-` terms exclude. */
export function logQueryWhere(terms: LogQueryTerm[], now = nowS()): { where: string; params: unknown[] } {
  const errors: string[] = [];
  const any = new Map<LogQueryField, Array<[string, unknown[]]>>();
  const parts: string[] = [];
  const params: unknown[] = [];
  for (const t of terms) {
    const sql = termSql(t, now);
    if (typeof sql === 'string') { errors.push(sql); continue; }
    if (t.not) { parts.push(`NOT (${sql[0]})`); params.push(...sql[1]); continue; }
    any.set(t.field, [...(any.get(t.field) ?? []), sql]);
  }
  if (errors.length) throw new AppError(422, errors.join('; '), 'rules', { cmd: errors.join('; ') });
  const positive: string[] = [];
  const positiveParams: unknown[] = [];
  for (const alts of any.values()) {
    positive.push(alts.length === 1 ? alts[0][0] : `(${alts.map((a) => a[0]).join(' OR ')})`);
    for (const a of alts) positiveParams.push(...a[1]);
  }
  return { where: [...positive, ...parts].join(' AND ') || '1 = 1', params: [...positiveParams, ...params] };
}

// ---------------------------------------------------------------------------------------------

interface Agg { count: number; first: number; last: number }
/** One query on the view of `snapshot()`. */
type QueryFn = <R = Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<R[]>;
/** The summary part of a report (see getTraffic). */
interface SummaryHead { head: Array<{ ip: string; agg: Agg }>; total: number; ips: number }
/** Summary parts kept (least recently used dropped first). */
const MEMO_SIZE = 64;
/** Kept summary parts used this recently are refreshed by the job (refreshKept). */
const KEEP_FRESH_MS = 15 * 60_000;
/** A kept summary part: exact at watermark `w`, for the report arguments it was made for. */
interface KeptPart extends SummaryHead { w: number; args: { host: string; range_minutes: number; code: TrafficCodeFilter }; used: number }
interface GroupRow { ip: string; code: number; tag: string; c: number; f: number; l: number }

@Injectable()
export class FirewallTrafficService {
  private readonly log = new Logger('FirewallTraffic');
  readonly dialect: 'sqlite' | 'mariadb';
  private readonly settle = new SettleWindow();
  private readonly serial = new Serial();
  /** Summary parts of reports by (host, code, first hour): see summaryPart. */
  private readonly memo = new Map<string, KeptPart>();
  /** SQLite: prepared statements of the report. */
  private readonly stmts = new Map<string, SqliteStatement>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly configs: CfgConfigsService,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
    private readonly features: FeatureRollupService,
  ) {
    this.dialect = db.options.type === 'better-sqlite3' ? 'sqlite' : 'mariadb';
  }

  /** Index hint: the summary by its primary key (host, hour, ...); with statistics, the planners would walk the address index for GROUP BY ip. */
  private get byHour() {
    // (SQLite's name of a WITHOUT ROWID table's primary key; NOT INDEXED does not keep it off the other index)
    return this.dialect === 'sqlite' ? 'INDEXED BY sqlite_autoindex_fw_traffic_hours_1' : 'FORCE INDEX (PRIMARY)';
  }

  /** Index hint: the summary by address (IDX_fw_traffic_hours_host_ip covers every column the report reads). */
  private get byAddress() {
    return this.dialect === 'sqlite' ? 'INDEXED BY IDX_fw_traffic_hours_host_ip' : 'FORCE INDEX (IDX_fw_traffic_hours_host_ip)';
  }

  private q<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.db.query(sql, params) as Promise<T[]>;
  }

  // ------------------------------------------------------------------------------------------
  // Traffic report

  @Rpc('firewall.getTraffic', {
    role: Role.admin, input: TrafficArgs,
    summary: "{host, range_minutes?, code?, top?}: the traffic report of a host: top addresses (head 200; top 5/10/50/100) over the range (minutes, 0 = all stored; default 60) and code filter (all, 200>, 201, 300>, 301/302, 400, 400>, 404, 500>): {host, range_minutes, code, total, ips_total, list: [{ip, count, first, last, codes, tags, rule}]}",
  })
  async getTraffic(a: z.output<typeof TrafficArgs>): Promise<TrafficReport> {
    return this.snapshot((q) => this.report(q, a));
  }

  private async report(q: QueryFn, a: z.output<typeof TrafficArgs>): Promise<TrafficReport> {
    const report: TrafficReport = { host: a.host, range_minutes: a.range_minutes, code: a.code, total: 0, ips_total: 0, list: [] };
    const part = await this.summaryPart(q, a);
    if (!part) return report;
    const { s, start, h0, w, codeCond, codeParams } = part;
    // E + T: raw rows per (address, code, tag)
    const raw = await this.rawGroups(q, a.host, start, h0 * HOUR, w, codeCond, codeParams);

    // The true top N lies in the summary's top N plus the addresses of the raw rows: any other address has
    // only summary hits, no more than each of the summary's top N. The raw rows' addresses outside the
    // summary's head are looked up in it (their totals, and whether they are new addresses).
    const per = new Map<string, Agg>();
    for (const h of s.head) per.set(h.ip, { ...h.agg });
    let total = s.total;
    let ipsTotal = s.ips;
    const rawPer = new Map<string, Agg>();
    for (const r of raw) {
      total += r.c;
      const p = rawPer.get(r.ip);
      if (!p) rawPer.set(r.ip, { count: r.c, first: r.f, last: r.l });
      else { p.count += r.c; p.first = Math.min(p.first, r.f); p.last = Math.max(p.last, r.l); }
    }
    const outside = [...rawPer.keys()].filter((ip) => !per.has(ip));
    const inSummary = new Set<string>();
    for (const part of chunks(outside)) {
      const rows = await q<{ ip: string; c: unknown; f: unknown; l: unknown }>(
        `SELECT ip, SUM(count) AS c, MIN(first_stime) AS f, MAX(last_stime) AS l FROM fw_traffic_hours ${this.byAddress} WHERE proxy_host = ? AND ip IN (${marks(part.length)}) AND hour >= ?${codeCond} GROUP BY ip`,
        [a.host, ...part, h0, ...codeParams],
      );
      for (const r of rows) {
        inSummary.add(r.ip);
        per.set(r.ip, { count: num(r.c), first: num(r.f), last: num(r.l) });
      }
    }
    for (const [ip, r] of rawPer) {
      const p = per.get(ip);
      if (!p) { per.set(ip, { ...r }); if (!inSummary.has(ip)) ipsTotal++; }
      else { p.count += r.count; p.first = Math.min(p.first, r.first); p.last = Math.max(p.last, r.last); }
    }
    report.total = total;
    report.ips_total = ipsTotal;
    if (!per.size) return report;

    const top = topN(per, a.top);
    const ips = top.map(([ip]) => ip);
    const codes = new Map<string, Map<number, number>>(ips.map((ip) => [ip, new Map()]));
    const tags = new Map<string, Map<string, number>>(ips.map((ip) => [ip, new Map()]));
    const addDetail = (ip: string, code: number, tag: string, c: number) => {
      const cm = codes.get(ip);
      if (!cm) return;
      cm.set(code, (cm.get(code) ?? 0) + c);
      const tm = tags.get(ip)!;
      tm.set(tag, (tm.get(tag) ?? 0) + c);
    };
    for (const r of raw) addDetail(r.ip, r.code, r.tag, r.c);
    const rules = new Map<string, number>();
    for (const part of chunks(ips)) {
      const details = await q<{ ip: string; code: unknown; tag: string; c: unknown }>(
        `SELECT ip, code, tag, SUM(count) AS c FROM fw_traffic_hours ${this.byAddress} WHERE proxy_host = ? AND ip IN (${marks(part.length)}) AND hour >= ?${codeCond} GROUP BY ip, code, tag`,
        [a.host, ...part, h0, ...codeParams],
      );
      for (const d of details) addDetail(d.ip, num(d.code), d.tag, num(d.c));
      for (const r of await q<{ ip: string; status: unknown }>(`SELECT ip, status FROM fw_ip_rules WHERE ip IN (${marks(part.length)})`, part)) rules.set(r.ip, num(r.status));
    }
    report.list = top.map(([ip, p]): TrafficIp => ({
      ip,
      count: p.count,
      first: iso(p.first),
      last: iso(p.last),
      codes: Object.fromEntries([...codes.get(ip)!].sort((x, y) => x[0] - y[0]).map(([c, n]) => [String(c), n])),
      tags: Object.fromEntries([...tags.get(ip)!].sort((x, y) => y[1] - x[1])) as Partial<Record<AccessLogTag, number>>,
      rule: rules.get(ip) ?? null,
    }));
    return report;
  }

  /**
   * S of the file comment for a report: the summary's top addresses (head 200) over the hours from the
   * window's first whole hour on, with its count of addresses and hits, exact at watermark `w`. null when
   * the host has no stored line.
   *
   * Kept parts: S depends only on (host, code, first hour) and the watermark. A kept part made at an
   * older watermark is brought forward instead of recomputed: the rollup added exactly the raw rows with
   * Id in (kept.w, w], so their hits per address (from hour h0 on) are added to the kept head, and those
   * addresses outside the head are looked up in the summary. The head stays the true head: an address in
   * neither the head nor the new rows has the hits it had, no more than any head address had then. So a
   * report costs a grouping of a minute's rows instead of the whole window, until the window's first hour
   * changes (hourly, or when retention removes the oldest hour); the job (refreshKept) makes those anew
   * in the background.
   */
  private async summaryPart(q: QueryFn, a: { host: string; range_minutes: number; code: TrafficCodeFilter }, now = nowS()) {
    const [row] = await q<{ s: unknown }>('SELECT MIN(stime) AS s FROM fw_access_log WHERE proxy_host = ?', [a.host]);
    if (row?.s === null || row?.s === undefined) return null;
    // The window: `range` minutes back, never before the host's oldest stored line (the summary's hours
    // are never read past what retention removed).
    const oldest = Number(row.s);
    const start = a.range_minutes > 0 ? Math.max(oldest, now - a.range_minutes * 60) : oldest;
    const w = await this.watermark(q);
    const h0 = Math.ceil(start / HOUR);
    const [codeCond, codeParams] = codeSql(a.code);
    const key = `${a.host}\t${a.code}\t${h0}`;
    let s = this.memo.get(key);
    if (s && s.w > w) s = undefined; // made on a newer view than this one (MariaDB: a snapshot that started earlier)
    if (s && s.w < w) s = await this.advance(q, s, a.host, h0, w, codeCond, codeParams);
    if (!s) {
      // A window over most of what is stored is grouped along the covering address index (address order,
      // no sort of the groups); a short one reads its range of hours by the primary key.
      const hint = (now - start) * 2 >= now - oldest ? this.byAddress : this.byHour;
      s = { ...(await this.summaryHead(q, `FROM fw_traffic_hours ${hint} WHERE proxy_host = ? AND hour >= ?${codeCond}`, [a.host, h0, ...codeParams], TOP_IP_HEAD)), w, args: { ...a }, used: 0 };
    }
    s.used = Date.now();
    this.memo.delete(key); // re-inserted last: the map's order is the order of use
    this.memo.set(key, s);
    if (this.memo.size > MEMO_SIZE) this.memo.delete(this.memo.keys().next().value!);
    return { s, start, h0, w, codeCond, codeParams };
  }

  /** A kept part brought from its watermark to `w` (see summaryPart). */
  private async advance(q: QueryFn, s: KeptPart, host: string, h0: number, w: number, codeCond: string, codeParams: number[]): Promise<KeptPart> {
    const byId = this.dialect === 'sqlite' ? '' : 'FORCE INDEX (PRIMARY)';
    const added = await q<{ ip: string; c: unknown; f: unknown; l: unknown }>(
      `SELECT ip, COUNT(*) AS c, MIN(stime) AS f, MAX(stime) AS l FROM fw_access_log ${byId} WHERE Id > ? AND Id <= ? AND proxy_host = ? AND stime >= ?${codeCond} GROUP BY ip`,
      [s.w, w, host, h0 * HOUR, ...codeParams],
    );
    const per = new Map<string, Agg>(s.head.map((h) => [h.ip, { ...h.agg }]));
    let total = s.total;
    let ips = s.ips;
    const outside: string[] = [];
    for (const r of added) {
      const c = num(r.c);
      total += c;
      const p = per.get(r.ip);
      if (p) { p.count += c; p.first = Math.min(p.first, num(r.f)); p.last = Math.max(p.last, num(r.l)); } else outside.push(r.ip);
    }
    // Addresses of the new rows outside the head: their totals now; an address whose total is just its
    // new rows was not in the summary before (a new address of the window).
    const addedCount = new Map(added.map((r) => [r.ip, num(r.c)]));
    for (const part of chunks(outside)) {
      const rows = await q<{ ip: string; c: unknown; f: unknown; l: unknown }>(
        `SELECT ip, SUM(count) AS c, MIN(first_stime) AS f, MAX(last_stime) AS l FROM fw_traffic_hours ${this.byAddress} WHERE proxy_host = ? AND ip IN (${marks(part.length)}) AND hour >= ?${codeCond} GROUP BY ip`,
        [host, ...part, h0, ...codeParams],
      );
      for (const r of rows) {
        if (num(r.c) === addedCount.get(r.ip)) ips++;
        per.set(r.ip, { count: num(r.c), first: num(r.f), last: num(r.l) });
      }
    }
    const head = topN(per, TOP_IP_HEAD).map(([ip, agg]) => ({ ip, agg }));
    return { head, total, ips, w, args: s.args, used: s.used };
  }

  /**
   * The job's part on every instance: kept parts used in the last KEEP_FRESH_MS are brought to the
   * current watermark, and made anew when their window's first hour has moved, so that reports rarely
   * wait for a whole grouping. Failures are logged, never thrown.
   */
  async refreshKept(): Promise<void> {
    const since = Date.now() - KEEP_FRESH_MS;
    const seen = new Set<string>();
    for (const s of [...this.memo.values()].reverse()) {
      const id = `${s.args.host}\t${s.args.code}\t${s.args.range_minutes}`;
      if (s.used < since || seen.has(id)) continue;
      seen.add(id);
      const used = s.used;
      try {
        await this.snapshot(async (q) => {
          const part = await this.summaryPart(q, s.args);
          if (part) part.s.used = used; // a refresh is not a use
        });
      } catch (e) {
        this.log.warn(`traffic summary refresh failed: ${(e as Error).message}`);
      }
    }
  }

  /** Forgets the kept summary parts (the benchmark measures reports without them). */
  forgetSummaryParts() {
    this.memo.clear();
  }

  /** The summary's top `n` addresses in `from` (FROM ... WHERE ...), with its count of addresses and hits: one grouping pass on SQLite, two on MariaDB. */
  private async summaryHead(q: QueryFn, from: string, params: unknown[], n: number): Promise<SummaryHead> {
    const grouped = `SELECT ip, SUM(count) AS c, MIN(first_stime) AS f, MAX(last_stime) AS l ${from} GROUP BY ip`;
    let rows: Array<{ ip: string | null; c: unknown; f: unknown; l: unknown }>;
    if (this.dialect === 'sqlite') {
      // the grouped rows once (MATERIALIZED), then its head and its totals (the row with a NULL address)
      rows = await q(`WITH g AS MATERIALIZED (${grouped}) SELECT * FROM (SELECT ip, c, f, l FROM g ORDER BY c DESC, ip LIMIT ?) UNION ALL SELECT NULL, SUM(c), COUNT(*), NULL FROM g`, [...params, n]);
    } else {
      rows = [
        ...(await q<{ ip: string; c: unknown; f: unknown; l: unknown }>(`${grouped} ORDER BY c DESC, ip LIMIT ?`, [...params, n])),
        ...(await q<{ ip: null; c: unknown; f: unknown; l: unknown }>(`SELECT NULL AS ip, SUM(c) AS c, COUNT(*) AS f, NULL AS l FROM (${grouped}) g`, params)),
      ];
    }
    const totals = rows.find((r) => r.ip === null);
    return {
      head: rows.filter((r) => r.ip !== null).map((r) => ({ ip: r.ip!, agg: { count: num(r.c), first: num(r.f), last: num(r.l) } })),
      total: num(totals?.c),
      ips: num(totals?.f),
    };
  }

  /** E and T of the file comment, per (ip, code, tag). */
  private async rawGroups(q: QueryFn, host: string, start: number, edgeEnd: number, w: number, codeCond: string, codeParams: number[]): Promise<GroupRow[]> {
    const cols = 'ip, code, tag, COUNT(*) AS c, MIN(stime) AS f, MAX(stime) AS l';
    // Index hints: with statistics, the planners would rather walk the address index for GROUP BY ip than
    // read the edge by (host, time) or the tail by Id (a scan of every stored line).
    const sqlite = this.dialect === 'sqlite';
    const byTime = sqlite ? 'INDEXED BY IDX_fw_access_log_host_stime' : 'FORCE INDEX (IDX_fw_access_log_host_stime)';
    const byId = sqlite ? 'NOT INDEXED' : 'FORCE INDEX (PRIMARY)';
    const edge = start < edgeEnd
      ? await q<Record<string, unknown>>(`SELECT ${cols} FROM fw_access_log ${byTime} WHERE proxy_host = ? AND stime >= ? AND stime < ? AND Id <= ?${codeCond} GROUP BY ip, code, tag`, [host, start, edgeEnd, w, ...codeParams])
      : [];
    const tail = await q<Record<string, unknown>>(`SELECT ${cols} FROM fw_access_log ${byId} WHERE Id > ? AND proxy_host = ? AND stime >= ?${codeCond} GROUP BY ip, code, tag`, [w, host, start, ...codeParams]);
    return [...edge, ...tail].map((r) => ({ ip: String(r.ip), code: num(r.code), tag: String(r.tag), c: num(r.c), f: num(r.f), l: num(r.l) }));
  }

  /**
   * Runs `fn` on one consistent view of the database, so that the summary and the raw rows after the
   * watermark are read at the same moment (a rollup in between would count rows twice). SQLite: every
   * query runs synchronously on the connection, and nothing else runs between them (the rollup and the
   * store's writes are synchronous steps of their own). MariaDB: one REPEATABLE READ transaction.
   */
  private async snapshot<T>(fn: (q: QueryFn) => Promise<T>): Promise<T> {
    if (this.dialect === 'sqlite') {
      const raw = this.sqlite;
      const q: QueryFn = <R>(sql: string, params: unknown[] = []) => Promise.resolve(this.stmt(raw, sql).all(...params) as R[]);
      return fn(q);
    }
    const qr = this.db.createQueryRunner();
    try {
      await qr.connect();
      await qr.startTransaction('REPEATABLE READ');
      try {
        return await fn(<R>(sql: string, params: unknown[] = []) => qr.query(sql, params) as Promise<R[]>);
      } finally {
        await qr.commitTransaction().catch(() => undefined);
      }
    } finally {
      await qr.release();
    }
  }

  private get sqlite(): SqliteHandle {
    return (this.db.driver as unknown as { databaseConnection: SqliteHandle }).databaseConnection;
  }

  private stmt(raw: SqliteHandle, sql: string) {
    let st = this.stmts.get(sql);
    if (!st) {
      st = raw.prepare(sql);
      this.stmts.set(sql, st);
      if (this.stmts.size > 200) this.stmts.delete(this.stmts.keys().next().value!);
    }
    return st;
  }

  @Rpc('firewall.getTrafficRows', {
    role: Role.admin, input: TrafficRowsArgs,
    summary: '{host, ip, range_minutes?, code?, tag?, limit?}: the log rows of one address on the traffic screen, newest first (limit 200): [{time, proxy_addr, url, ref, code, tag, method, agent}]',
  })
  async getTrafficRows(a: z.output<typeof TrafficRowsArgs>): Promise<TrafficRow[]> {
    const ip = normalizeIp(a.ip);
    if (!ip) throw new AppError(422, 'IP must be an IPv4 or IPv6 address', 'rules', { ip: 'IP must be an IPv4 or IPv6 address' });
    const forms = [...new Set([ip, a.ip.toLowerCase()])];
    const since = a.range_minutes > 0 ? nowS() - a.range_minutes * 60 : 0;
    const [codeCond, codeParams] = codeSql(a.code);
    const tagCond = a.tag ? ' AND tag = ?' : '';
    const rows = await this.q<Record<string, unknown>>(
      `SELECT stime, proxy_addr, url, ref, code, tag, method, agent FROM fw_access_log WHERE ip IN (${marks(forms.length)}) AND stime >= ? AND proxy_host = ?${codeCond}${tagCond} ORDER BY stime DESC, Id DESC LIMIT ?`,
      [...forms, since, a.host, ...codeParams, ...(a.tag ? [a.tag] : []), a.limit],
    );
    return rows.map((r) => ({
      time: iso(num(r.stime)), proxy_addr: String(r.proxy_addr), url: String(r.url), ref: String(r.ref ?? ''), code: num(r.code),
      tag: String(r.tag) as AccessLogTag, method: String(r.method), agent: String(r.agent ?? ''),
    }));
  }

  // ------------------------------------------------------------------------------------------
  // IP statistics (per-IP minute counters)

  @Rpc('firewall.getIpStats', {
    role: Role.admin, input: IpStatsArgs,
    summary: `{host?, range_minutes?, unique_books?, min_count?, like?, limit?}: hits per address over the stored window (every parsed line, from the per-minute counters), most first (limit ${IP_STATS_LIMIT}): [{ip, count}]; unique_books: only addresses that read at least ${UNIQUE_BOOKS_MIN} different books (cluster config '${BOOK_URL_CONFIG_TYPE}'), with books`,
  })
  async getIpStats(a: z.output<typeof IpStatsArgs> = {}): Promise<IpStat[]> {
    const limit = a.limit ?? IP_STATS_LIMIT;
    const host = a.host ? a.host.toLowerCase() : null;
    // whole minutes: the window starts at the start of the minute `range_minutes` ago
    const fromMinute = a.range_minutes ? Math.floor((nowS() - a.range_minutes * 60) / 60) : null;
    const where: string[] = [];
    const params: unknown[] = [];
    if (host) { where.push('proxy_host = ?'); params.push(host); }
    if (fromMinute !== null) { where.push('minute >= ?'); params.push(fromMinute); }
    if (a.like) { where.push(`ip ${LIKE}`); params.push(`%${likeEscape(a.like)}%`); }

    if (!a.unique_books) {
      const having = a.min_count ? ' HAVING SUM(count) >= ?' : '';
      const rows = await this.q<{ ip: string; c: unknown }>(
        `SELECT ip, SUM(count) AS c FROM fw_ip_minutes${where.length ? ` WHERE ${where.join(' AND ')}` : ''} GROUP BY ip${having} ORDER BY c DESC, ip LIMIT ?`,
        [...params, ...(a.min_count ? [a.min_count] : []), limit],
      );
      return rows.map((r) => ({ ip: r.ip, count: num(r.c) }));
    }

    const books = await this.booksPerIp(host, fromMinute === null ? null : fromMinute * 60, a.like ?? null);
    const readers = [...books].filter(([, set]) => set.size >= UNIQUE_BOOKS_MIN).map(([ip]) => ip);
    const out: IpStat[] = [];
    for (const part of chunks(readers)) {
      const rows = await this.q<{ ip: string; c: unknown }>(
        `SELECT ip, SUM(count) AS c FROM fw_ip_minutes WHERE ip IN (${marks(part.length)})${where.length ? ` AND ${where.join(' AND ')}` : ''} GROUP BY ip`,
        [...part, ...params],
      );
      for (const r of rows) out.push({ ip: r.ip, count: num(r.c), books: books.get(r.ip)!.size });
    }
    return out
      .filter((s) => !a.min_count || s.count >= a.min_count)
      .sort((x, y) => y.count - x.count || (y.books ?? 0) - (x.books ?? 0) || (x.ip < y.ip ? -1 : 1))
      .slice(0, limit);
  }

  /** The book URL pattern: the first cluster config row of type firewall_book_url, else the default. */
  async bookPattern(): Promise<RegExp> {
    const value = (await this.configs.firstValue(BOOK_URL_CONFIG_TYPE))?.trim() || DEFAULT_BOOK_URL_PATTERN;
    try {
      return new RegExp(value);
    } catch (e) {
      const message = `The cluster config '${BOOK_URL_CONFIG_TYPE}' is not a valid regular expression: ${(e as Error).message}`;
      throw new AppError(422, message, 'rules', { unique_books: message });
    }
  }

  /** Different books read per address: raw rows of the window whose URL matches the pattern (its first group, else the whole match, is the book). */
  private async booksPerIp(host: string | null, since: number | null, like: string | null): Promise<Map<string, Set<string>>> {
    const re = await this.bookPattern();
    // A pattern that starts with ^ and literal characters narrows the rows in SQL first.
    const lit = /^\^((?:[A-Za-z0-9_\-/~]|\\[/.\-_~])+)/.exec(re.source);
    const prefix = lit ? lit[1].replace(/\\(.)/g, '$1') : null;
    const where: string[] = [];
    const params: unknown[] = [];
    if (host) { where.push('proxy_host = ?'); params.push(host); }
    if (since !== null) { where.push('stime >= ?'); params.push(since); }
    if (like) { where.push(`ip ${LIKE}`); params.push(`%${likeEscape(like)}%`); }
    if (prefix) { where.push(`url ${LIKE}`); params.push(`${likeEscape(prefix)}%`); }
    const books = new Map<string, Set<string>>();
    let after = 0;
    for (;;) {
      const rows = await this.q<{ Id: unknown; ip: string; url: string }>(
        `SELECT Id, ip, url FROM fw_access_log WHERE Id > ?${where.length ? ` AND ${where.join(' AND ')}` : ''} ORDER BY Id LIMIT ${BOOK_PAGE}`,
        [after, ...params],
      );
      for (const r of rows) {
        const m = re.exec(r.url);
        if (!m) continue;
        const book = m[1] ?? m[0];
        let set = books.get(r.ip);
        if (!set) books.set(r.ip, (set = new Set()));
        set.add(book);
      }
      if (rows.length < BOOK_PAGE) break;
      after = num(rows[rows.length - 1].Id);
    }
    return books;
  }

  // ------------------------------------------------------------------------------------------
  // Log query

  @Rpc('firewall.getAccessLogsByStr', {
    role: Role.admin, input: AccessLogQueryArgs,
    summary: "{cmd, limit?}: access log entries matching a query such as 'ip:1.2.3.4 url:/book code:404 host:x tag:bot' (fields ip, url, code, host, tag, method, agent, ref, proxy, range; bare terms guessed by shape; -term excludes; docs/firewall.md), newest first (limit 200)",
  })
  async getAccessLogsByStr(a: z.output<typeof AccessLogQueryArgs>): Promise<AccessLogEntry[]> {
    const { where, params } = logQueryWhere(parseLogQuery(a.cmd));
    const rows = await this.q<Record<string, unknown>>(
      `SELECT ip, forward, stime, upstream_response_time, request_time, method, url, code, ref, agent, proxy_host, proxy_addr, tag FROM fw_access_log WHERE ${where} ORDER BY stime DESC, Id DESC LIMIT ?`,
      [...params, a.limit],
    );
    return rows.map((r) => {
      const t = iso(num(r.stime));
      return {
        ip: String(r.ip), forward: String(r.forward ?? ''), date: t.slice(0, 10), time: t.slice(11, 19), stime: num(r.stime),
        upstream_response_time: String(r.upstream_response_time ?? ''), request_time: r.request_time === null || r.request_time === undefined ? null : Number(r.request_time),
        method: String(r.method), url: String(r.url), code: num(r.code), ref: String(r.ref ?? ''), agent: String(r.agent ?? ''),
        proxy_host: String(r.proxy_host), proxy_addr: String(r.proxy_addr), tag: String(r.tag) as AccessLogTag,
      };
    });
  }

  // ------------------------------------------------------------------------------------------
  // Filter options

  @Rpc('firewall.getFilter', {
    role: Role.admin,
    summary: "The traffic screen's filter options: {hosts: [{host, last}] (hosts with stored lines), ranges: [{value, label}], default_range, codes, top, head, tags}",
  })
  async getFilter(): Promise<TrafficFilter> {
    // One index seek per host ((proxy_host, stime)), not a scan of the stored lines.
    const hosts: TrafficFilter['hosts'] = [];
    let prev = '';
    for (let i = 0; i < 1000; i++) {
      const [row] = await this.q<{ h: string | null }>('SELECT MIN(proxy_host) AS h FROM fw_access_log WHERE proxy_host > ?', [prev]);
      if (row?.h === null || row?.h === undefined) break;
      const [last] = await this.q<{ s: unknown }>('SELECT MAX(stime) AS s FROM fw_access_log WHERE proxy_host = ?', [row.h]);
      hosts.push({ host: row.h, last: iso(num(last?.s)) });
      prev = row.h;
    }
    return {
      hosts,
      ranges: TRAFFIC_RANGES.map((value) => ({ value, label: TRAFFIC_RANGE_LABELS[value] })),
      default_range: TRAFFIC_DEFAULT_RANGE,
      codes: TRAFFIC_CODE_FILTERS,
      top: TOP_BUCKETS,
      head: TOP_IP_HEAD,
      tags: ACCESS_LOG_TAGS,
    };
  }

  // ------------------------------------------------------------------------------------------
  // Rollup into fw_traffic_hours

  /** The highest fw_access_log Id rolled up (0: none). */
  async watermark(q: QueryFn = (sql, params) => this.q(sql, params)): Promise<number> {
    const [row] = await q<{ value: string }>('SELECT value FROM fw_settings WHERE name = ?', [ROLLUP_SETTING]);
    return row ? Number(row.value) || 0 : 0;
  }

  /**
   * Rolls new fw_access_log rows up into fw_traffic_hours, ROLLUP_CHUNK_IDS Ids per transaction. Each
   * transaction first moves the watermark by compare-and-set, so two instances never add the same rows
   * twice (the second finds the watermark moved and stops). Answers the Ids covered.
   */
  rollup(opts: { settleMs?: number } = {}): Promise<{ from: number; to: number }> {
    // one at a time per process; a second call waits for the first and runs after it
    return this.serial.run(() => this.rollupNow(opts.settleMs ?? (this.dialect === 'sqlite' ? 0 : ROLLUP_SETTLE_MS)));
  }

  private async rollupNow(settleMs: number): Promise<{ from: number; to: number }> {
    await this.db.createQueryBuilder().insert().into('fw_settings', ['name', 'value']).values({ name: ROLLUP_SETTING, value: '0' }).orIgnore().execute();
    const [m] = await this.q<{ m: unknown }>('SELECT MAX(Id) AS m FROM fw_access_log');
    const target = this.settle.settled(num(m?.m), settleMs);
    const start = await this.watermark();
    let from = start;
    while (from < target) {
      const to = Math.min(target, from + ROLLUP_CHUNK_IDS);
      if (!(await this.rollupChunk(from, to))) break;
      from = to;
      await new Promise((r) => setImmediate(r));
    }
    return { from: start, to: from };
  }

  private async rollupChunk(from: number, to: number): Promise<boolean> {
    const cas = 'UPDATE fw_settings SET value = ? WHERE name = ? AND value = ?';
    const casParams = [String(to), ROLLUP_SETTING, String(from)];
    if (this.dialect === 'sqlite') {
      // One synchronous transaction on the raw handle: nothing else runs on the connection meanwhile.
      const raw = this.sqlite;
      return raw.transaction(() => {
        if (raw.prepare(cas).run(...casParams).changes !== 1) return false;
        raw.prepare(
          'INSERT INTO fw_traffic_hours (proxy_host, hour, ip, code, tag, count, first_stime, last_stime) ' +
            'SELECT proxy_host, stime / 3600, ip, code, tag, COUNT(*), MIN(stime), MAX(stime) FROM fw_access_log WHERE Id > ? AND Id <= ? GROUP BY proxy_host, stime / 3600, ip, code, tag ' +
            'ON CONFLICT (proxy_host, hour, ip, code, tag) DO UPDATE SET count = count + excluded.count, first_stime = MIN(first_stime, excluded.first_stime), last_stime = MAX(last_stime, excluded.last_stime)',
        ).run(from, to);
        return true;
      })();
    }
    const qr: QueryRunner = this.db.createQueryRunner();
    try {
      await qr.connect();
      // READ COMMITTED: the INSERT ... SELECT takes no gap locks that would hold up the store's inserts
      await qr.startTransaction('READ COMMITTED');
      try {
        const r = await qr.query(cas, casParams, true);
        if ((r.affected ?? 0) !== 1) { await qr.rollbackTransaction(); return false; }
        await qr.query(
          'INSERT INTO fw_traffic_hours (proxy_host, hour, ip, code, tag, count, first_stime, last_stime) ' +
            'SELECT proxy_host, stime DIV 3600, ip, code, tag, COUNT(*), MIN(stime), MAX(stime) FROM fw_access_log WHERE Id > ? AND Id <= ? GROUP BY proxy_host, stime DIV 3600, ip, code, tag ' +
            'ON DUPLICATE KEY UPDATE count = count + VALUES(count), first_stime = LEAST(first_stime, VALUES(first_stime)), last_stime = GREATEST(last_stime, VALUES(last_stime))',
          [from, to],
        );
        await qr.commitTransaction();
        return true;
      } catch (e) {
        await qr.rollbackTransaction().catch(() => undefined);
        throw e;
      }
    } finally {
      await qr.release();
    }
  }

  /** Summary hours before the oldest stored line are gone from the raw rows too (retention): removed. */
  async pruneSummary(): Promise<number> {
    const [row] = await this.q<{ s: unknown }>('SELECT MIN(stime) AS s FROM fw_access_log');
    const before = row?.s === null || row?.s === undefined ? Math.floor(nowS() / HOUR) - 1 : Math.floor(Number(row.s) / HOUR);
    const r = await this.db.createQueryBuilder().delete().from('fw_traffic_hours').where('hour < :before', { before }).execute();
    return r.affected ?? 0;
  }

  /** The job (every minute): on instances with CRON_ENABLED rollup, then prune; on every instance, its kept summary parts brought forward. Failures are logged, never thrown. */
  async scheduledRollup(): Promise<void> {
    if (this.cfg.cronEnabled) {
      try {
        await this.rollup();
        await this.pruneSummary();
      } catch (e) {
        this.log.warn(`traffic rollup failed: ${(e as Error).message}`);
      }
      await this.features.scheduledRollup(); // the score's feature counters (feature-rollup.service.ts; logs its own failures)
    }
    await this.refreshKept();
  }
}


/** The `n` addresses with the most hits (ties: by address), without sorting them all. */
function topN(per: Map<string, Agg>, n: number): Array<[string, Agg]> {
  const all = [...per];
  const better = (x: [string, Agg], y: [string, Agg]) => x[1].count > y[1].count || (x[1].count === y[1].count && x[0] < y[0]);
  if (all.length <= n * 4) return all.sort((x, y) => (better(x, y) ? -1 : better(y, x) ? 1 : 0)).slice(0, n);
  // threshold: the n-th largest count, by a partial quickselect on the counts
  const counts = all.map((e) => e[1].count);
  const k = n - 1;
  let lo = 0;
  let hi = counts.length - 1;
  while (lo < hi) {
    const pivot = counts[(lo + hi) >> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (counts[i] > pivot) i++;
      while (counts[j] < pivot) j--;
      if (i <= j) { [counts[i], counts[j]] = [counts[j], counts[i]]; i++; j--; }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  const threshold = counts[k];
  return all.filter((e) => e[1].count >= threshold).sort((x, y) => (better(x, y) ? -1 : better(y, x) ? 1 : 0)).slice(0, n);
}
