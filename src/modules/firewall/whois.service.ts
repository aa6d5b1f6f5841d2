/**
 * Whois of an address (issue 8 "Whois"; 000 §2 whois viewer; §7 `getIpWhois`, `getWhois(ip)`): a
 * client of the whois protocol (RFC 3912: TCP, the query line, the answer text until the server
 * closes) that asks IANA first (WHOIS_SERVER, default whois.iana.org:43), follows its referral
 * (`refer:` / `whois:`) to the regional registry, and from there one more `ReferralServer:
 * whois://...` (ARIN's hand-over to a national registry), WHOIS_MAX_HOPS servers at most. One whole
 * lookup is bounded by WHOIS_TIMEOUT_MS; answers are cached per address for a day, WHOIS_CACHE_MAX
 * addresses at most, and concurrent lookups of one address share one chain of queries.
 *
 * Why not the whoiser package (checked, 1.18.0): its IP lookup asks `whois.iana.org` on port 43
 * always (the first server and its port cannot be set, so it cannot be pointed at a test server or
 * a mirror), drops the port of a `host:port` referral, and its time-out is a per-socket idle time
 * (a server trickling a byte at a time holds a lookup for ever); the 2.x line is a beta. The protocol
 * is a query line and a read until close: a few lines of node:net do it with a hard deadline.
 */
import { isIP, Socket } from 'node:net';
import { Inject, Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { APP_CONFIG, parseHostPort, type AppConfig } from '../../../config/config.js';
import { Role } from '../../contracts/roles.js';
import {
  WHOIS_CACHE_MAX, WHOIS_CACHE_TTL_S, WHOIS_MAX_BYTES, WHOIS_MAX_HOPS, WhoisArgs, type WhoisAnswer, type WhoisSummary,
} from '../../contracts/whois.js';
import { AppError } from '../../core/errors.js';
import { Rpc, type RpcContext } from '../../core/rpc/rpc.decorator.js';

interface Server {
  host: string;
  port: number;
}
const label = (s: Server) => (isIP(s.host) === 6 ? `[${s.host}]:${s.port}` : `${s.host}:${s.port}`);

/** A server named in an answer: `host`, `host:port`, `whois://host[:port]`, `[v6]:port`; other schemes (rwhois://, http://) are not followed. */
export function referralTarget(value: string): Server | null {
  let v = value.trim().replace(/\/+$/, '');
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(v);
  if (scheme) {
    if (scheme[1].toLowerCase() !== 'whois') return null;
    v = v.slice(scheme[0].length);
  }
  return parseHostPort(v);
}

/** The referral of an answer: IANA's `refer:` (or `whois:`), a registry's `ReferralServer:`. */
export function findReferral(text: string): Server | null {
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

const timeoutError = (server: Server, ms: number) =>
  new AppError(504, `Whois time-out: ${label(server)} did not answer within ${ms / 1000} s`, 'http');

/**
 * One query: connect, send the line, read until the server closes (at most WHOIS_MAX_BYTES: then the
 * rest is dropped and the answer says so). Rejects with a 504 AppError at `deadline`, a 502 one when
 * the server cannot be reached or closes with nothing.
 */
export function whoisQuery(server: Server, query: string, deadline: number, timeoutMs: number, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let cut = false;
    let settled = false;
    const socket = new Socket();
    const finish = (err: Error | null, text?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      if (err) reject(err);
      else resolve(text!);
    };
    const onAbort = () => finish(new AppError(499, 'Whois lookup cancelled', 'error'));
    const left = deadline - Date.now();
    if (left <= 0) return reject(timeoutError(server, timeoutMs));
    const timer = setTimeout(() => finish(timeoutError(server, timeoutMs)), left);
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.on('data', (chunk: Buffer) => {
      if (cut) return;
      if (size + chunk.length > WHOIS_MAX_BYTES) {
        chunks.push(chunk.subarray(0, WHOIS_MAX_BYTES - size));
        size = WHOIS_MAX_BYTES;
        cut = true;
        // enough: stop reading, answer what came
        const text = Buffer.concat(chunks).toString('utf8');
        return finish(null, `${text}\n% (answer cut at ${WHOIS_MAX_BYTES / 1024} KiB)\n`);
      }
      chunks.push(chunk);
      size += chunk.length;
    });
    socket.on('error', (e: NodeJS.ErrnoException) =>
      finish(new AppError(502, `Whois server ${label(server)} cannot be reached: ${e.code ?? e.message}`, 'http')));
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (!text.trim()) finish(new AppError(502, `Whois server ${label(server)} answered nothing`, 'http'));
      else finish(null, text);
    });
    socket.connect({ host: server.host, port: server.port }, () => {
      socket.write(`${query}\r\n`);
    });
  });
}

interface CacheEntry {
  at: number;
  answer: WhoisAnswer;
}

/** Whois lookups for the firewall screens (admin only). */
@Injectable()
export class WhoisService {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly running = new Map<string, Promise<WhoisAnswer>>();
  private readonly first: Server;
  private readonly timeoutMs: number;

  constructor(@Inject(APP_CONFIG) cfg: AppConfig) {
    this.first = { host: cfg.whois.host, port: cfg.whois.port };
    this.timeoutMs = cfg.whois.timeoutMs;
  }

  @Rpc('firewall.getIpWhois', {
    role: Role.admin, input: WhoisArgs, aliases: ['firewall.getWhois'],
    summary: `{ip} (or the address alone): whois of an address over TCP port 43: IANA (WHOIS_SERVER) first, its referral to the regional registry followed (${WHOIS_MAX_HOPS} servers at most), cached a day; answers {ip, chain, server, text, summary: {range?, netname?, country?, org?, abuse?}, fetched, cached}; 504 when the servers do not answer within WHOIS_TIMEOUT_MS, 502 when one cannot be reached`,
  })
  async getIpWhois(a: z.output<typeof WhoisArgs>, ctx?: RpcContext): Promise<WhoisAnswer> {
    const ip = a.ip;
    const hit = this.cache.get(ip);
    if (hit && Date.now() - hit.at < WHOIS_CACHE_TTL_S * 1000) {
      // most recently used last: the oldest used is the first to go
      this.cache.delete(ip);
      this.cache.set(ip, hit);
      return { ...hit.answer, cached: true };
    }
    if (hit) this.cache.delete(ip);
    let p = this.running.get(ip);
    if (!p) {
      // shared by concurrent callers: one caller going away does not cancel the others' lookup
      p = this.lookup(ip).finally(() => this.running.delete(ip));
      this.running.set(ip, p);
    }
    const answer = await (ctx?.signal ? raceAbort(p, ctx.signal) : p);
    return { ...answer };
  }

  /** The chain of queries for one address; caches the answer. */
  private async lookup(ip: string): Promise<WhoisAnswer> {
    const deadline = Date.now() + this.timeoutMs;
    const chain: string[] = [];
    let server: Server | null = this.first;
    let text = '';
    let answered = this.first;
    while (server && chain.length < WHOIS_MAX_HOPS) {
      const name = label(server);
      if (chain.includes(name)) break; // a server that refers to itself (or back): its answer is the answer
      chain.push(name);
      // ARIN answers a bare address with a summary; `n + addr` asks for the network with its details.
      const query = server.host.toLowerCase() === 'whois.arin.net' ? `n + ${ip}` : ip;
      text = await whoisQuery(server, query, deadline, this.timeoutMs);
      answered = server;
      server = findReferral(text);
    }
    const answer: WhoisAnswer = { ip, chain, server: label(answered), text, summary: summarize(text), fetched: new Date().toISOString(), cached: false };
    this.remember(ip, answer);
    return answer;
  }

  private remember(ip: string, answer: WhoisAnswer) {
    this.cache.delete(ip);
    this.cache.set(ip, { at: Date.now(), answer });
    while (this.cache.size > WHOIS_CACHE_MAX) {
      const oldest = this.cache.keys().next().value as string;
      this.cache.delete(oldest);
    }
  }

  /** Addresses cached now (tests and the docs' figures). */
  get cacheSize(): number {
    return this.cache.size;
  }
}

/** Rejects when `signal` aborts (the caller went away), leaving the shared lookup running. */
function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new AppError(499, 'Whois lookup cancelled', 'error'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AppError(499, 'Whois lookup cancelled', 'error'));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
