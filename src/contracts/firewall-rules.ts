/**
 * Firewall rules (000 §3 IP rule, IP block rule, Firewall worker status; §4; §5 block rules; §7; §8):
 * statuses and their names, address parsing for rules and block lists, input schemas and answer
 * shapes, shared by the server and the UI. The traffic side (log entries, tags) is in firewall.ts.
 */
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { choice, flag, id, int, text } from './fields.js';

// ---------------------------------------------------------------------------------------------
// IP rule statuses (000 §3): -1 delete, 0 Allowed, 1 Denied, 2 Denied auth logs, 3-11 and 13-15
// automatic-ban reasons (texts not shown: named by number), 12 Media Center PC.

export const IP_RULE_DELETED = -1;
export const IP_RULE_ALLOWED = 0;
export const IP_RULE_DENIED = 1;

export const IP_RULE_STATUSES: Record<number, string> = {
  [-1]: 'Deleted',
  0: 'Allowed',
  1: 'Denied',
  2: 'Denied auth logs',
  ...Object.fromEntries([3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15].map((n) => [n, `Auto ban ${n}`])),
  12: 'Media Center PC',
};
export const IP_RULE_STATUS_IDS = Object.keys(IP_RULE_STATUSES).map(Number).sort((a, b) => a - b);
export const ipRuleStatusName = (s: number) => IP_RULE_STATUSES[s] ?? `Status ${s}`;
/** Statuses whose addresses are dropped on the proxies: 1 to 15 (not Allowed, not Deleted). */
export const isDenyingStatus = (s: number) => s >= 1 && s <= 15;

/** The iptables/ipset sets on each proxy (one per family) and the chain rule that drops their sources. */
export const IPSET_NAMES = { v4: 'console_deny4', v6: 'console_deny6' } as const;
/** Cluster config type whose rows (addresses or CIDR ranges, one per row) no ban may cover. */
export const ALLOWLIST_CONFIG_TYPE = 'firewall_allow';

// ---------------------------------------------------------------------------------------------
// Addresses

/** An IPv4 or IPv6 address in its normal form (IPv4-mapped IPv6 as IPv4), or null. */
export function normalizeIp(s: string): string | null {
  const v = s.trim();
  if (!ipaddr.isValid(v)) return null;
  // ipaddr.isValid accepts '0x7f.1', '127.1' and friends: only dotted quads and real IPv6 here.
  if (!v.includes(':') && !ipaddr.IPv4.isValidFourPartDecimal(v)) return null;
  const a = ipaddr.process(v);
  return a.toString();
}

/** An address or CIDR range (`10.0.0.0/8`, `2001:db8::/32`) as [normalized text, parsed range], or null. */
export function parseRange(s: string): { text: string; range: [ipaddr.IPv4 | ipaddr.IPv6, number] } | null {
  const v = s.trim();
  if (v.includes('/')) {
    const [addr, bits] = v.split('/');
    if (!/^\d{1,3}$/.test(bits) || normalizeIp(addr) === null) return null;
    try {
      const [net, len] = ipaddr.parseCIDR(v);
      const first = net.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(v) : ipaddr.IPv6.networkAddressFromCIDR(v);
      const full = len === (net.kind() === 'ipv4' ? 32 : 128);
      return { text: full ? first.toString() : `${first.toString()}/${len}`, range: [first, len] };
    } catch {
      return null;
    }
  }
  const ip = normalizeIp(v);
  if (!ip) return null;
  const a = ipaddr.parse(ip);
  return { text: ip, range: [a, a.kind() === 'ipv4' ? 32 : 128] };
}

/** True when `ip` lies in the range (same family only). */
export function rangeContains(range: [ipaddr.IPv4 | ipaddr.IPv6, number], ip: string): boolean {
  const a = ipaddr.parse(ip);
  if (a.kind() !== range[0].kind()) return false;
  return (a as ipaddr.IPv4).match(range as [ipaddr.IPv4, number]);
}

/** A sort key that orders addresses numerically, IPv4 before IPv6 (10.0.0.9 before 10.0.0.10). */
const hex2 = (n: number) => (n < 16 ? '0' : '') + n.toString(16);

/**
 * A dotted quad in normal form (no leading zeros, octets up to 255) as its 32-bit number, else -1: the
 * fast path for the plain addresses that make up most of a deny set (no regular expression, no object).
 */
export function plainV4(s: string): number {
  let n = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || dots === 3) return -1;
      n = n * 256 + octet;
      octet = 0;
      digits = 0;
      dots++;
      continue;
    }
    if (c < 48 || c > 57 || (digits > 0 && octet === 0)) return -1;
    octet = octet * 10 + (c - 48);
    if (++digits > 3 || octet > 255) return -1;
  }
  return dots === 3 && digits > 0 ? n * 256 + octet : -1;
}
export function addressSortKey(s: string): string {
  const [first, ...rest] = s.split(' '); // '10.0.0.5 nomatch' sorts as 10.0.0.5
  // a plain dotted quad (most of a deny set) without parsing it through ipaddr.js
  const n = plainV4(first);
  if (n >= 0) return `0|${n.toString(16).padStart(8, '0')}|032|${rest.join(' ')}`;
  const r = parseRange(first);
  if (!r) return `9|${s}`;
  const bytes = r.range[0].toByteArray().map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${r.range[0].kind() === 'ipv4' ? 0 : 1}|${bytes}|${String(r.range[1]).padStart(3, '0')}|${rest.join(' ')}`;
}
export const compareAddresses = (a: string, b: string) => (addressSortKey(a) < addressSortKey(b) ? -1 : addressSortKey(a) > addressSortKey(b) ? 1 : 0);
/**
 * The same order for long lists (a deny set of 50,000): plain dotted quads are sorted as numbers, the
 * other IPv4 entries (ranges, `nomatch` holes) by (address, prefix, rest) and merged in, IPv6 and the
 * rest by their keys after them.
 */
export function sortAddresses(list: Iterable<string>): string[] {
  const all = [...list];
  // plain quads: number * 2^20 + position, sorted as float64 (exact below 2^53), the strings taken back by position
  const keys = new Float64Array(all.length);
  let k = 0;
  const v4: Array<[number, number, string, string]> = [];
  const other: Array<[string, string]> = [];
  for (let i = 0; i < all.length; i++) {
    const s = all[i];
    const n = plainV4(s);
    if (n >= 0) {
      keys[k++] = n * 1_048_576 + i;
      continue;
    }
    const [first, ...rest] = s.split(' ');
    const r = parseRange(first);
    if (r && r.range[0].kind() === 'ipv4') v4.push([(r.range[0] as ipaddr.IPv4).octets.reduce((x, o) => x * 256 + o, 0), r.range[1], rest.join(' '), s]);
    else if (r) other.push([`1|${r.range[0].toByteArray().map(hex2).join('')}|${String(r.range[1]).padStart(3, '0')}|${rest.join(' ')}`, s]);
    else other.push([`9|${s}`, s]);
  }
  if (all.length >= 1_048_576) return all.sort(compareAddresses); // past the position bits: the slow way
  const sorted = keys.subarray(0, k).sort();
  v4.sort((x, y) => x[0] - y[0] || x[1] - y[1] || (x[2] < y[2] ? -1 : x[2] > y[2] ? 1 : 0));
  other.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  const out: string[] = [];
  let j = 0;
  for (const key of sorted) {
    const n = Math.floor(key / 1_048_576);
    // a plain address is (n, 32, ''): entries before it are smaller addresses, or the same with a shorter prefix
    while (j < v4.length && (v4[j][0] < n || (v4[j][0] === n && v4[j][1] < 32))) out.push(v4[j++][3]);
    out.push(all[key - n * 1_048_576]);
  }
  while (j < v4.length) out.push(v4[j++][3]);
  for (const x of other) out.push(x[1]);
  return out;
}

/**
 * Cleans a block rule's value (000 §5): empty lines removed, each line an address or CIDR range
 * (normal form), duplicates dropped, sorted numerically. Errors name the line: 'Line 3: "x" is not
 * an IP address or CIDR range'.
 */
export function cleanBlockValue(value: string): { lines: string[]; errors: string[] } {
  const errors: string[] = [];
  const seen = new Set<string>();
  value.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    const r = parseRange(line);
    if (!r) errors.push(`Line ${i + 1}: "${line.slice(0, 60)}" is not an IP address or CIDR range`);
    else seen.add(r.text);
  });
  return { lines: sortAddresses(seen), errors };
}

/** The block rule preview of 000 §5: the value on one line, cut at 50 characters. */
export const BLOCK_PREVIEW_CHARS = 50;
export const blockPreview = (value: string) => {
  const one = value.split(/\r?\n/).filter((l) => l.trim()).join(', ');
  return one.length > BLOCK_PREVIEW_CHARS ? `${one.slice(0, BLOCK_PREVIEW_CHARS)}…` : one;
};

// ---------------------------------------------------------------------------------------------
// Wire shapes and inputs (000 §7)

export interface IpRuleView {
  ip: string;
  status: number;
  /** ISO time of the last change. */
  time: string;
}
export interface BlockRuleView {
  Id: number;
  value: string;
  comment: string;
  status: number;
}
export interface SyncNodeResult {
  Id: number;
  name: string;
  ok: boolean;
  added: string[];
  removed: string[];
  error?: string;
}
export interface SyncResult {
  nodes: SyncNodeResult[];
  /** Addresses a rule asked to deny but the allowlist kept out (block-rule ranges covering an allowlisted address are listed by the address). */
  skipped: Array<{ value: string; reason: string }>;
  /** Size of the deny set sent to each proxy. */
  total: number;
}

/** An IPv4 or IPv6 address, answered in its normal form; anything else is refused naming the field. */
export const ipField = (label = 'IP') =>
  text(label, 64, { min: 1 }).transform((v, ctx) => {
    const ip = normalizeIp(v);
    if (!ip) {
      ctx.addIssue({ code: 'custom', message: `${label} must be an IPv4 or IPv6 address` });
      return z.NEVER;
    }
    return ip;
  });

export const IP_RULES_PAGE_SIZE = 50;

export const IpRulesListArgs = z
  .object({
    status: choice(IP_RULE_STATUS_IDS, 'Status').optional(),
    like: text('Like', 64).optional(),
    p_: int(1, 1_000_000, 'Page').optional(),
    limit: int(1, 500, 'Limit').optional(),
  })
  .default({});
export const IpBanArgs = z.object({ ip: ipField(), status: choice(IP_RULE_STATUS_IDS.filter(isDenyingStatus), 'Status').optional() });
export const IpArgs = z.object({ ip: ipField() });
const ipList = z.array(ipField()).min(1, 'IP list must not be empty').max(10_000, 'IP list has at most 10000 addresses');
/** One address or a non-empty list of them; a bad one is named (`ip`, or `ip.3` in a list). */
const ipOrList = z
  .union([z.string(), z.array(z.unknown())], { error: (iss) => (iss.input === undefined ? 'IP is required' : 'IP must be an address or a list of addresses') })
  .transform((v, ctx): string | string[] => {
    const r = Array.isArray(v) ? ipList.safeParse(v) : ipField().safeParse(v);
    if (r.success) return r.data;
    for (const issue of r.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path as (string | number)[], input: v });
    return z.NEVER;
  });
export const IpListArgs = z.object({ ip: ipOrList });
export const IpRulesByStatusArgs = z.object({ status: choice(IP_RULE_STATUS_IDS, 'Status') });

export const BlockRuleSaveArgs = z.object({
  Id: id().optional(),
  value: text('Value', 1_000_000, { multiline: true }),
  comment: text('Comment', 190).default(''),
  status: flag('Status').default(1),
});
export const BlockRuleSwitchArgs = z.object({ Id: id(), status: flag('Status') });
export const BlockRuleIdArgs = z.object({ Id: id() });

export const SyncArgs = z.object({ dry_run: flag('dry_run').optional() }).default({});

export const FW_MESSAGES = {
  banned: 'Set ban ok!',
  deleted: 'Delete rule ok!',
  saved: 'Save ok!',
  firewallStop: 'Firewall is STOP!!!',
  firewallRun: 'Firewall is Run!!!',
  syncOk: 'Iptables sync OK!!!',
  syncError: 'Iptables sync ERROR!!!',
} as const;
