/**
 * Whois of an address (issue 8 "Whois"; docs/firewall.md "Whois"): a client of the whois protocol
 * (RFC 3912: TCP, the query line, the answer text until the server closes) that asks IANA first
 * (WHOIS_SERVER, default whois.iana.org:43), follows its referral (`refer:` / `whois:`) to the regional
 * registry, and from there one more `ReferralServer: whois://...` (ARIN's hand-over to a national
 * registry), WHOIS_MAX_HOPS servers at most. One whole lookup is bounded by WHOIS_TIMEOUT_MS.
 *
 * The firewall area owns the method and the cache (src/modules/firewall/whois.service.ts, through the
 * answer cache); this client only asks. At most WHOIS_CONCURRENT queries at once per server (the
 * pacer: registries block addresses that ask too much). Not retried: a lookup has one deadline, and a
 * registry refusing connections is usually refusing us.
 *
 * Why not the whoiser package (checked, 1.18.0): its IP lookup asks `whois.iana.org` on port 43
 * always (the first server and its port cannot be set, so it cannot be pointed at a test server or
 * a mirror), drops the port of a `host:port` referral, and its time-out is a per-socket idle time
 * (a server trickling a byte at a time holds a lookup for ever); the 2.x line is a beta. The protocol
 * is a query line and a read until close: a few lines of node:net do it with a hard deadline.
 */
import { Socket } from 'node:net';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import type { OutsideServiceView } from '../../contracts/outside.js';
import { WHOIS_MAX_BYTES, WHOIS_MAX_HOPS, type WhoisSummary } from '../../contracts/whois.js';
import { AppError } from '../errors.js';
import { OutsideError } from './outside-error.js';
import { Pacer } from './pacer.js';
import { findReferral, label, summarize, type WhoisServerAddress } from './whois.wire.js';

const SERVICE = 'whois';
/** Queries at once to one whois server (per instance). */
export const WHOIS_CONCURRENT = 4;

/** One lookup: the servers asked, the one that gave the final text, the text and its summary. */
export interface WhoisLookup {
  ip: string;
  chain: string[];
  server: string;
  text: string;
  summary: WhoisSummary;
}

const timeoutError = (server: WhoisServerAddress, ms: number) =>
  new OutsideError(SERVICE, 'timeout', `Whois time-out: ${label(server)} did not answer within ${ms / 1000} s`);
const cancelledError = () => new AppError(499, 'Whois lookup cancelled', 'error');

/**
 * One query: connect, send the line, read until the server closes (at most WHOIS_MAX_BYTES: then the
 * rest is dropped and the answer says so). Rejects with a `timeout` OutsideError (504) at `deadline`,
 * `unreachable` (502) when the server cannot be reached, `answer` (502) when it closes with nothing.
 */
export function whoisQuery(server: WhoisServerAddress, query: string, deadline: number, timeoutMs: number, signal?: AbortSignal): Promise<string> {
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
    const onAbort = () => finish(cancelledError());
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
      finish(new OutsideError(SERVICE, 'unreachable', `Whois server ${label(server)} cannot be reached: ${e.code ?? e.message}`, { retryable: false })));
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (!text.trim()) finish(new OutsideError(SERVICE, 'answer', `Whois server ${label(server)} answered nothing`));
      else finish(null, text);
    });
    socket.connect({ host: server.host, port: server.port }, () => {
      socket.write(`${query}\r\n`);
    });
  });
}

@Injectable()
export class WhoisClient {
  private readonly first: WhoisServerAddress;
  private readonly timeoutMs: number;
  private readonly pacer = new Pacer(SERVICE, { concurrent: WHOIS_CONCURRENT, maxWaitMs: 120_000 });

  constructor(@Inject(APP_CONFIG) cfg: AppConfig) {
    this.first = { host: cfg.whois.host, port: cfg.whois.port };
    this.timeoutMs = cfg.whois.timeoutMs;
  }

  /** Whois always has a server (IANA by default). */
  readonly configured = true;

  describe(): OutsideServiceView {
    return { service: SERVICE, configured: true, target: label(this.first), env: ['WHOIS_SERVER', 'WHOIS_TIMEOUT_MS'], details: { timeout_ms: this.timeoutMs } };
  }

  /** The chain of queries for one address (normalised by the caller), within one deadline. */
  async lookup(ip: string, signal?: AbortSignal): Promise<WhoisLookup> {
    const deadline = Date.now() + this.timeoutMs;
    const chain: string[] = [];
    let server: WhoisServerAddress | null = this.first;
    let text = '';
    let answered = this.first;
    while (server && chain.length < WHOIS_MAX_HOPS) {
      const name = label(server);
      if (chain.includes(name)) break; // a server that refers to itself (or back): its answer is the answer
      chain.push(name);
      // ARIN answers a bare address with a summary; `n + addr` asks for the network with its details.
      const query = server.host.toLowerCase() === 'whois.arin.net' ? `n + ${ip}` : ip;
      const at: WhoisServerAddress = server;
      text = await this.pacer.run(name, () => whoisQuery(at, query, deadline, this.timeoutMs, signal), signal);
      answered = server;
      server = findReferral(text);
    }
    return { ip, chain, server: label(answered), text, summary: summarize(text) };
  }
}
