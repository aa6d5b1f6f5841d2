import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { CLUSTER_KEY_HEADER, LOG_MSG, type AgentAnswer } from '../../contracts/logs.js';
import type { AgentTarget } from '../../contracts/srv.js';
import { AppError, upstream } from '../../core/errors.js';

/** 000 §5: the answering host must be the node asked for (its name, or its name's FQDN). */
export function checkHost(node: string, host: unknown): string {
  if (typeof host !== 'string' || !host.trim()) throw new AppError(502, LOG_MSG.notValidHost, 'http', { host: LOG_MSG.notValidHost });
  const h = host.trim().toLowerCase();
  const n = node.trim().toLowerCase();
  if (h !== n && !h.startsWith(`${n}.`)) throw new AppError(502, LOG_MSG.notConfirmHost(node), 'http', { host: host });
  return host;
}

/** Four missed keep-alives of the agent's follow stream (one every 15 s). */
export const FOLLOW_IDLE_MS = 60_000;

/** A counting semaphore: at most `n` calls at once, the others wait in order. */
class Limiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(private readonly n: number) {}
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.n) await new Promise<void>((r) => this.waiting.push(r));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

export interface AgentEvent { event: string; data: unknown }

/**
 * The one client of the node agents (docs/agent.md): every console call to an agent goes through it,
 * with the cluster key in the X-Cluster-Key header (never in the URL), a time-out per call
 * (NODE_AGENT_TIMEOUT_MS), at most NODE_AGENT_CONCURRENCY calls at once, and the hostname check of
 * 000 §5 on every answer. Failures are AppErrors naming the node.
 */
@Injectable()
export class AgentClient {
  private readonly limiter: Limiter;
  constructor(@Inject(APP_CONFIG) private readonly cfg: AppConfig) {
    this.limiter = new Limiter(cfg.nodeAgent.concurrency);
  }

  /**
   * A follow that sends nothing for this long has lost its agent (the agent writes a keep-alive every
   * 15 s: src/agent/agent.ts FOLLOW_HEARTBEAT_MS); 0 turns the watchdog off.
   */
  followIdleMs = FOLLOW_IDLE_MS;

  get defaultPort() {
    return this.cfg.nodeAgent.port;
  }

  private prepare(t: AgentTarget, path: string, query: Record<string, string | number | undefined>) {
    if (!t.url) throw new AppError(422, `${t.name}: no agent address (set the Agent URL or an IP)`, 'rules', { agent_url: 'No agent address' });
    if (!t.key) throw new AppError(422, `${t.name}: no cluster key (on the node or on its WEB cluster)`, 'rules', { cluster_key: 'No cluster key' });
    const u = new URL(t.url.replace(/\/+$/, '') + path);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) u.searchParams.set(k, String(v));
    return u;
  }

  private failure(t: AgentTarget, err: unknown): AppError {
    if (err instanceof AppError) return err;
    const e = err as { name?: string; cause?: { code?: string; message?: string }; message?: string };
    if (e.name === 'TimeoutError') return new AppError(504, `${t.name}: the agent did not answer in ${this.cfg.nodeAgent.timeoutMs} ms`, 'http');
    if (e.name === 'AbortError') return new AppError(499, `${t.name}: cancelled`, 'http');
    return upstream(`${t.name}: agent unreachable (${e.cause?.code ?? e.cause?.message ?? e.message ?? 'error'})`);
  }

  /** One call; answers the agent's `{host, r}` after the hostname check. An agent's own error (4xx/5xx) is thrown with its text. */
  async call<T>(t: AgentTarget, method: 'GET' | 'POST', path: string, opts: { query?: Record<string, string | number | undefined>; body?: unknown; signal?: AbortSignal } = {}): Promise<AgentAnswer<T> & Record<string, unknown>> {
    const url = this.prepare(t, path, { _front_: 1, ...(path.startsWith('/sync/logs') ? { _srv_: t.name } : {}), ...opts.query });
    return this.limiter.run(async () => {
      let res: Response;
      let text: string;
      try {
        const signal = opts.signal ? AbortSignal.any([opts.signal, AbortSignal.timeout(this.cfg.nodeAgent.timeoutMs)]) : AbortSignal.timeout(this.cfg.nodeAgent.timeoutMs);
        res = await fetch(url, {
          method,
          headers: { [CLUSTER_KEY_HEADER]: t.key!, accept: 'application/json', ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}) },
          body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
          signal,
          redirect: 'error',
        });
        text = await res.text();
      } catch (err) {
        throw this.failure(t, err);
      }
      if (res.status === 401) throw upstream(`${t.name}: the agent refused the cluster key`);
      let body: AgentAnswer<T> & Record<string, unknown>;
      try { body = JSON.parse(text) as never; } catch { throw upstream(`${t.name}: not an agent answer (HTTP ${res.status})`); }
      if (!body || typeof body !== 'object' || typeof body.r !== 'object' || body.r === null) throw upstream(`${t.name}: not an agent answer (HTTP ${res.status})`);
      checkHost(t.name, body.host);
      if (!res.ok) {
        const msg = typeof body.r.error === 'string' ? body.r.error : `HTTP ${res.status}`;
        if (res.status === 404 && msg === LOG_MSG.fileNotFound) throw new AppError(404, LOG_MSG.fileNotFound, 'empty');
        throw new AgentAnswerError(res.status, `${t.name}: ${msg}`, body);
      }
      return body;
    });
  }

  /**
   * A server-sent event stream from the agent (follow): yields each event after checking the `open`
   * event's host. Not counted against the concurrency (a follow is long-lived). NODE_AGENT_TIMEOUT_MS
   * bounds the connect and the first byte only; then the stream lasts until `signal` aborts (the
   * operator stops it, the socket or session ends: a plain return), the agent sends `end`, or the agent
   * goes away: it closes the stream, the connection breaks, or it sends nothing (not even its 15 s
   * keep-alive) for `followIdleMs` — each of those throws an AppError naming the node.
   */
  async *stream(t: AgentTarget, path: string, signal: AbortSignal): AsyncGenerator<AgentEvent> {
    const url = this.prepare(t, path, { _srv_: t.name });
    // One controller for the whole request (fetch's signal also aborts the body): the caller's abort,
    // the time-out until the first byte, then the idle watchdog.
    const ctl = new AbortController();
    let why: 'caller' | 'timeout' | 'idle' | null = null;
    const stop = (w: 'caller' | 'timeout' | 'idle') => {
      why ??= w;
      ctl.abort(w === 'timeout' ? new DOMException('The agent did not answer in time', 'TimeoutError') : new DOMException('Follow stopped', 'AbortError'));
    };
    const onAbort = () => stop('caller');
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    let timer: NodeJS.Timeout | undefined = setTimeout(() => stop('timeout'), this.cfg.nodeAgent.timeoutMs);
    const idleMs = this.followIdleMs;
    const lost = (detail: string) => {
      if (why === 'timeout') return this.failure(t, new DOMException('', 'TimeoutError'));
      if (why === 'idle') return upstream(`${t.name}: the agent sent nothing for ${idleMs / 1000} s (follow ended)`);
      return upstream(`${t.name}: ${detail}`);
    };
    let res: Response;
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    try {
      try {
        res = await fetch(url, { headers: { [CLUSTER_KEY_HEADER]: t.key!, accept: 'text/event-stream' }, signal: ctl.signal, redirect: 'error' });
      } catch (err) {
        throw why === 'timeout' || why === null ? this.failure(t, err) : this.failure(t, new DOMException('', 'AbortError'));
      }
      if (!res.ok || !res.body) {
        const text = await res.text().catch(() => '');
        if (res.status === 401) throw upstream(`${t.name}: the agent refused the cluster key`);
        let msg = `HTTP ${res.status}`;
        try {
          const b = JSON.parse(text) as AgentAnswer<unknown>;
          checkHost(t.name, b.host);
          if (b.r?.error) msg = b.r.error;
        } catch (err) {
          if (err instanceof AppError) throw err;
        }
        if (res.status === 404 && msg === LOG_MSG.fileNotFound) throw new AppError(404, LOG_MSG.fileNotFound, 'empty');
        throw upstream(`${t.name}: ${msg}`);
      }
      reader = res.body.getReader();
      const decoder = new TextDecoder();
      let buf = '';
      let opened = false;
      let first = true;
      for (;;) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (err) {
          if (why === 'caller' || signal.aborted) return;
          const e = err as { cause?: { code?: string }; message?: string };
          throw lost(`the follow stream broke (${e.cause?.code ?? e.message ?? 'error'})`);
        }
        if (chunk.done) {
          if (why === 'caller' || signal.aborted) return;
          throw lost('the agent closed the follow stream');
        }
        // The first byte ends the connect time-out; from then on only silence past followIdleMs ends it.
        if (first || idleMs > 0) {
          first = false;
          clearTimeout(timer);
          timer = idleMs > 0 ? setTimeout(() => stop('idle'), idleMs) : undefined;
        }
        buf += decoder.decode(chunk.value, { stream: true });
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (!data.length) continue;
          let parsed: unknown;
          try { parsed = JSON.parse(data.join('\n')); } catch { continue; }
          if (event === 'open') {
            checkHost(t.name, (parsed as { host?: unknown }).host);
            opened = true;
          } else if (!opened) throw new AppError(502, LOG_MSG.notValidHost, 'http');
          yield { event, data: parsed };
        }
        if (buf.length > 4 * 1024 * 1024) throw upstream(`${t.name}: event too large`);
      }
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      ctl.abort();
      await reader?.cancel().catch(() => undefined);
    }
  }
}

/** An agent answered with an error status (the answer passed the hostname check). */
export class AgentAnswerError extends AppError {
  constructor(readonly agentStatus: number, message: string, readonly answer: AgentAnswer<unknown>) {
    super(agentStatus >= 400 && agentStatus < 500 ? 422 : 502, message, agentStatus >= 400 && agentStatus < 500 ? 'rules' : 'http');
  }
}
