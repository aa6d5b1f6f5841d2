/**
 * Whois for the firewall screens (issue 8 "Whois"; 000 §2 whois viewer; §7 `getIpWhois`, `getWhois(ip)`;
 * docs/firewall.md "Whois"): the method and its cache. The protocol client is
 * src/core/outside/whois.client.ts; answers are kept in the outside services' answer cache
 * (src/core/outside/answer-cache.ts) for WHOIS_CACHE_TTL_S per address, WHOIS_CACHE_MAX addresses at
 * most (the least recently used go first), shared by the instances and kept over a restart; concurrent
 * lookups of one address share one chain of queries; a failed lookup of an address looked up before
 * answers the last good answer marked stale, with its time and the error.
 */
import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { Role } from '../../contracts/roles.js';
import { WHOIS_CACHE_MAX, WHOIS_CACHE_TTL_S, WHOIS_MAX_HOPS, WhoisArgs, type WhoisAnswer } from '../../contracts/whois.js';
import { AnswerCache } from '../../core/outside/answer-cache.js';
import { WhoisClient, type WhoisLookup } from '../../core/outside/whois.client.js';
import { Rpc, type RpcContext } from '../../core/rpc/rpc.decorator.js';

/** The answer cache's service name for whois entries. */
export const WHOIS_CACHE = 'whois';
const POLICY = { ttlMs: WHOIS_CACHE_TTL_S * 1000, maxEntries: WHOIS_CACHE_MAX };

@Injectable()
export class WhoisService {
  constructor(private readonly client: WhoisClient, private readonly cache: AnswerCache) {}

  @Rpc('firewall.getIpWhois', {
    role: Role.admin, input: WhoisArgs, aliases: ['firewall.getWhois'],
    summary: `{ip} (or the address alone): whois of an address over TCP port 43: IANA (WHOIS_SERVER) first, its referral to the regional registry followed (${WHOIS_MAX_HOPS} servers at most), cached a day (${WHOIS_CACHE_MAX} addresses, shared by the instances); answers {ip, chain, server, text, summary: {range?, netname?, country?, org?, abuse?}, fetched, cached, stale, error?}; a failed lookup of an address known before answers the last answer with stale: true and the error; otherwise 504 when the servers do not answer within WHOIS_TIMEOUT_MS, 502 when one cannot be reached`,
  })
  async getIpWhois(a: z.output<typeof WhoisArgs>, ctx?: Pick<RpcContext, 'signal'>): Promise<WhoisAnswer> {
    const r = await this.cache.read<WhoisLookup>(WHOIS_CACHE, a.ip, POLICY, () => this.client.lookup(a.ip), { signal: ctx?.signal });
    return { ...r.value, fetched: r.fetched, cached: r.cached, stale: r.stale, ...(r.error ? { error: r.error } : {}) };
  }

  /** Addresses cached now (tests and the docs' figures). */
  cacheSize(): Promise<number> {
    return this.cache.count(WHOIS_CACHE);
  }
}
