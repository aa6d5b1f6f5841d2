/**
 * Whois of an address (issue 8 "Whois"; 000 §2 "whois viewer", §7 `getIpWhois`, `getWhois(ip)`):
 * the answer shape and the input, shared by the server and the UI. The client is
 * src/core/outside/whois.client.ts, the method and cache src/modules/firewall/whois.service.ts;
 * decisions in docs/firewall.md "Whois".
 */
import { z } from 'zod';
import { IpArgs } from './firewall-rules.js';

/** Answers are kept this long per address (a day). */
export const WHOIS_CACHE_TTL_S = 86_400;
/** Addresses kept in the cache at most (the oldest used goes first). */
export const WHOIS_CACHE_MAX = 2_000;
/** Servers asked for one address at most: IANA, the regional registry, one more referral (ARIN's ReferralServer). */
export const WHOIS_MAX_HOPS = 3;
/** An answer longer than this is cut (and says so). */
export const WHOIS_MAX_BYTES = 256 * 1024;
/** Default server and whole-lookup time-out (WHOIS_SERVER, WHOIS_TIMEOUT_MS). */
export const WHOIS_DEFAULT_SERVER = 'whois.iana.org:43';
export const WHOIS_DEFAULT_TIMEOUT_MS = 10_000;

/** `{ip}`, or the address alone (`getWhois(ip)` of 000 §7). */
export const WhoisArgs = z.preprocess((v) => (typeof v === 'string' ? { ip: v } : v), IpArgs);

/** A few fields read from the final answer (the first line of each name; absent when the registry has none). */
export interface WhoisSummary {
  /** inetnum / NetRange / inet6num / CIDR. */
  range?: string;
  netname?: string;
  country?: string;
  /** org-name / OrgName / organisation / owner / descr. */
  org?: string;
  /** An abuse contact mailbox found in the answer. */
  abuse?: string;
}

export interface WhoisAnswer {
  ip: string;
  /** The servers asked, in order (`host:port`); the last one gave `text`. */
  chain: string[];
  server: string;
  text: string;
  summary: WhoisSummary;
  /** ISO time the answer was fetched (older when it came from the cache). */
  fetched: string;
  cached: boolean;
  /** The lookup failed now and this is the last good answer (of `fetched`); `error` says why. */
  stale: boolean;
  error?: string;
}
