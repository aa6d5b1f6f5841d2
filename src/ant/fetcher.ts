/**
 * HTTP for the reference ant (docs/ant.md "Fetching"): node:http/https directly, through the proxy the hub
 * assigned: plain HTTP proxying (absolute URI) for http:// and an HTTP CONNECT tunnel for https:// (or
 * always, with ANT_PROXY_TUNNEL=1), both with Basic auth (Proxy-Authorization). Per-host rate limit and
 * robots.txt (User-agent groups, Allow/Disallow longest match, '*' and '$') before every request.
 */
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import tls from 'node:tls';
import type { AntProxy } from '../contracts/ant.js';

const MAX_BODY = 5 * 1024 * 1024;
const MAX_REDIRECTS = 5;
const ROBOTS_TTL_MS = 10 * 60_000;

export class FetchError extends Error {
  constructor(message: string, readonly proxyError = false, readonly final = false) {
    super(message);
  }
}

export interface FetchResult {
  url: string;
  status: number;
  contentType: string;
  body: string;
}

interface Rule { allow: boolean; path: string }

export class Fetcher {
  private readonly next = new Map<string, number>();
  private readonly robots = new Map<string, { rules: Rule[]; until: number }>();

  constructor(private readonly o: { userAgent: string; ratePerHost: number; timeoutMs: number; tunnel: boolean; log: (line: string) => void }) {}

  /** GET `url` (robots.txt and the rate limit first), following redirects. */
  async get(url: string, proxy: AntProxy | null, signal?: AbortSignal): Promise<FetchResult> {
    let current = url;
    for (let i = 0; i <= MAX_REDIRECTS; i++) {
      const u = new URL(current);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new FetchError(`${current}: not http(s)`, false, true);
      if (!(await this.allowed(u, proxy, signal))) throw new FetchError(`${current}: disallowed by robots.txt`, false, true);
      const r = await this.request(u, proxy, signal);
      if (r.status >= 300 && r.status < 400 && r.location) {
        current = new URL(r.location, u).toString();
        continue;
      }
      if (r.status < 200 || r.status >= 300) throw new FetchError(`${current}: HTTP ${r.status}`, false, r.status === 404 || r.status === 410);
      return { url: current, status: r.status, contentType: r.contentType, body: r.body };
    }
    throw new FetchError(`${url}: too many redirects`, false, true);
  }

  private async allowed(u: URL, proxy: AntProxy | null, signal?: AbortSignal): Promise<boolean> {
    if (u.pathname === '/robots.txt') return true;
    let r = this.robots.get(u.origin);
    if (!r || r.until < Date.now()) {
      let rules: Rule[] = [];
      try {
        const res = await this.request(new URL('/robots.txt', u.origin), proxy, signal);
        if (res.status >= 200 && res.status < 300) rules = parseRobots(res.body, this.o.userAgent);
        else if (res.status === 401 || res.status === 403) rules = [{ allow: false, path: '/' }];
      } catch (err) {
        if (err instanceof FetchError && err.proxyError) throw err;
        // robots.txt unreachable: treated as none.
      }
      r = { rules, until: Date.now() + ROBOTS_TTL_MS };
      this.robots.set(u.origin, r);
    }
    return robotsAllows(r.rules, u.pathname + u.search);
  }

  /** Waits for this host's turn (ratePerHost requests a second). */
  private async turn(host: string, signal?: AbortSignal) {
    const gap = 1000 / this.o.ratePerHost;
    const now = Date.now();
    const at = Math.max(now, this.next.get(host) ?? 0);
    this.next.set(host, at + gap);
    if (at > now) await sleep(at - now, signal);
  }

  private async request(u: URL, proxy: AntProxy | null, signal?: AbortSignal) {
    await this.turn(u.host, signal);
    const secure = u.protocol === 'https:';
    const headers: Record<string, string> = { 'user-agent': this.o.userAgent, accept: 'text/html,application/xml,text/xml,text/plain;q=0.9,*/*;q=0.5' };
    const auth = proxy && (proxy.login || proxy.pass) ? `Basic ${Buffer.from(`${proxy.login}:${proxy.pass}`).toString('base64')}` : null;
    let opts: http.RequestOptions;
    if (proxy && !secure && !this.o.tunnel) {
      const [ph, pp] = splitHostPort(proxy.ip);
      opts = { host: ph, port: pp, path: u.toString(), headers: { ...headers, host: u.host, ...(auth ? { 'proxy-authorization': auth } : {}) } };
      this.o.log(`GET ${u} via proxy ${proxy.ip}`);
    } else if (proxy) {
      const sock = await this.tunnel(u, proxy, auth, signal);
      const conn = secure ? tls.connect({ socket: sock, servername: u.hostname }) : sock;
      opts = { host: u.hostname, port: u.port || (secure ? 443 : 80), path: u.pathname + u.search, headers: { ...headers, host: u.host }, createConnection: () => conn, agent: false } as http.RequestOptions;
      this.o.log(`GET ${u} via CONNECT ${proxy.ip}`);
    } else {
      opts = { host: u.hostname, port: u.port || (secure ? 443 : 80), path: u.pathname + u.search, headers: { ...headers, host: u.host } };
      this.o.log(`GET ${u}`);
    }
    return new Promise<{ status: number; contentType: string; body: string; location?: string }>((resolve, reject) => {
      // No keep-alive: a proxy (tinyproxy) closes its side after each answer, and a reused socket would hang up.
      const req = (secure && !proxy ? https : http).request({ agent: false, ...opts, method: 'GET', timeout: this.o.timeoutMs, signal }, (res) => {
        const status = res.statusCode ?? 0;
        if (proxy && status === 407) {
          res.resume();
          return reject(new FetchError(`proxy ${proxy.ip}: 407 Proxy Authentication Required`, true));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_BODY) req.destroy(new FetchError(`${u}: body over ${MAX_BODY} bytes`, false, true));
          else chunks.push(c);
        });
        res.on('end', () => resolve({ status, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('utf8'), location: res.headers.location }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new FetchError(`${u}: no answer within ${this.o.timeoutMs} ms`, !!proxy)));
      req.on('error', (err) => reject(err instanceof FetchError ? err : new FetchError(`${u}: ${err.message}`, !!proxy && isConnError(err))));
      req.end();
    });
  }

  private tunnel(u: URL, proxy: AntProxy, auth: string | null, signal?: AbortSignal): Promise<Socket> {
    const [ph, pp] = splitHostPort(proxy.ip);
    const target = `${u.hostname}:${u.port || (u.protocol === 'https:' ? 443 : 80)}`;
    return new Promise((resolve, reject) => {
      const req = http.request({ host: ph, port: pp, method: 'CONNECT', path: target, headers: { host: target, ...(auth ? { 'proxy-authorization': auth } : {}) }, timeout: this.o.timeoutMs, signal });
      req.on('connect', (res, socket) => {
        if (res.statusCode === 200) return resolve(socket);
        socket.destroy();
        reject(new FetchError(`proxy ${proxy.ip}: CONNECT ${target} answered ${res.statusCode}`, true));
      });
      req.on('timeout', () => req.destroy(new FetchError(`proxy ${proxy.ip}: no answer to CONNECT within ${this.o.timeoutMs} ms`, true)));
      req.on('error', (err) => reject(err instanceof FetchError ? err : new FetchError(`proxy ${proxy.ip}: ${err.message}`, true)));
      req.end();
    });
  }
}

const isConnError = (err: NodeJS.ErrnoException) => ['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ETIMEDOUT', 'ENOTFOUND'].includes(err.code ?? '');

export function splitHostPort(ip: string): [string, number] {
  const i = ip.lastIndexOf(':');
  return [ip.slice(0, i), Number(ip.slice(i + 1))];
}

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
    const onAbort = () => { clearTimeout(t); reject(signal!.reason); };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** The rules of robots.txt that apply to `userAgent`: its own group when one names it, else the '*' group. */
export function parseRobots(text: string, userAgent: string): Rule[] {
  const ua = userAgent.toLowerCase().split('/')[0];
  const groups: { agents: string[]; rules: Rule[] }[] = [];
  let cur: { agents: string[]; rules: Rule[] } | null = null;
  let lastWasAgent = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/#.*/, '').trim();
    const m = /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line);
    if (!m) continue;
    const key = m[1].toLowerCase();
    const val = m[2].trim();
    if (key === 'user-agent') {
      if (!cur || !lastWasAgent) groups.push((cur = { agents: [], rules: [] }));
      cur.agents.push(val.toLowerCase());
      lastWasAgent = true;
    } else {
      lastWasAgent = false;
      if (!cur) continue;
      if (key === 'disallow' && val) cur.rules.push({ allow: false, path: val });
      else if (key === 'allow' && val) cur.rules.push({ allow: true, path: val });
    }
  }
  const own = groups.filter((g) => g.agents.some((a) => a !== '*' && ua.includes(a)));
  const chosen = own.length ? own : groups.filter((g) => g.agents.includes('*'));
  return chosen.flatMap((g) => g.rules);
}

/** Longest matching rule wins; Allow wins a tie; no rule: allowed. */
export function robotsAllows(rules: Rule[], path: string): boolean {
  let best: Rule | null = null;
  for (const r of rules) {
    if (!robotsMatch(r.path, path)) continue;
    if (!best || r.path.length > best.path.length || (r.path.length === best.path.length && r.allow)) best = r;
  }
  return best ? best.allow : true;
}

function robotsMatch(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith('$');
  const body = (anchored ? pattern.slice(0, -1) : pattern).split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${body}${anchored ? '$' : ''}`).test(path);
}
