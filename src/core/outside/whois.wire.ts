/**
 * The whois protocol's answers (RFC 3912: free text) read into values: the referral to the next server
 * (IANA's `refer:` / `whois:`, a registry's `ReferralServer: whois://…`) and a summary of the final answer.
 */
import { isIP } from 'node:net';
import { parseHostPort } from '../../../config/config.js';
import type { WhoisSummary } from '../../contracts/whois.js';

export interface WhoisServerAddress {
  host: string;
  port: number;
}
export const label = (s: WhoisServerAddress) => (isIP(s.host) === 6 ? `[${s.host}]:${s.port}` : `${s.host}:${s.port}`);

/** A server named in an answer: `host`, `host:port`, `whois://host[:port]`, `[v6]:port`; other schemes (rwhois://, http://) are not followed. */
export function referralTarget(value: string): WhoisServerAddress | null {
  let v = value.trim().replace(/\/+$/, '');
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(v);
  if (scheme) {
    if (scheme[1].toLowerCase() !== 'whois') return null;
    v = v.slice(scheme[0].length);
  }
  return parseHostPort(v);
}

/** The referral of an answer: IANA's `refer:` (or `whois:`), a registry's `ReferralServer:`. */
export function findReferral(text: string): WhoisServerAddress | null {
  for (const key of ['refer', 'whois', 'referralserver']) {
    const re = new RegExp(`^\\s*${key}:\\s*(\\S+)\\s*$`, 'im');
    const m = re.exec(text);
    if (m) {
      const t = referralTarget(m[1]);
      if (t) return t;
    }
  }
  return null;
}

/** The first value of any of these field names (case-insensitive, comment lines skipped). */
function field(text: string, names: string[]): string | undefined {
  for (const name of names) {
    const m = new RegExp(`^${name}:[ \\t]*(.+?)\\s*$`, 'im').exec(text);
    if (m && m[1]) return m[1];
  }
  return undefined;
}

export function summarize(text: string): WhoisSummary {
  const s: WhoisSummary = {};
  const range = field(text, ['inetnum', 'inet6num', 'NetRange', 'CIDR', 'IPv4 Address', 'network']);
  const netname = field(text, ['netname', 'NetName', 'network-name']);
  const country = field(text, ['country', 'Country']);
  const org = field(text, ['org-name', 'OrgName', 'organisation', 'organization', 'owner', 'descr', 'Organization']);
  const abuse = /^(?:abuse-mailbox|OrgAbuseEmail|e-mail|abuse-c-email):\s*(\S+@\S+)\s*$/im.exec(text)?.[1] ?? /\b[\w.+-]*abuse[\w.+-]*@[\w.-]+\.[a-z]{2,}\b/i.exec(text)?.[0];
  if (range) s.range = range;
  if (netname) s.netname = netname;
  if (country) s.country = country;
  if (org) s.org = org;
  if (abuse) s.abuse = abuse;
  return s;
}

