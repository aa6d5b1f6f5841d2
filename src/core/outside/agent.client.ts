/**
 * The one client of the node agents (docs/agent.md "Console side"; the agent is src/agent): every
 * console call to an agent goes through it, on the shared request path (src/core/outside/http.ts): the
 * cluster key in the X-Cluster-Key header (never in the URL), NODE_AGENT_TIMEOUT_MS per call, redirects
 * not followed, answers capped; at most NODE_AGENT_CONCURRENCY calls at once (the pacer, one lane for
 * all nodes); GETs tried again on a failure that may pass; and the hostname check of 000 §5 on every
 * answer. Failures are OutsideErrors naming the node; an agent's own error answer is an AgentAnswerError.
 */
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { CLUSTER_KEY_HEADER, LOG_MSG, type AgentAnswer } from '../../contracts/logs.js';
import type { AgentTarget } from '../../contracts/srv.js';
import { AppError } from '../errors.js';
import { checkHost, AgentAnswerWire, takeEvents, type AgentEvent } from './agent.wire.js';
import { openOutside, sendOutside, type Endpoint, type OutsideResponse } from './http.js';
import { OutsideError } from './outside-error.js';
import { Pacer } from './pacer.js';
import { withRetry } from './retry.js';

export { checkHost, type AgentEvent };

/** Four missed keep-alives of the agent's follow stream (one every 15 s). */
export const FOLLOW_IDLE_MS = 60_000;
/** Largest agent answer read (a tail of many long lines, a file list). */
export const AGENT_MAX_BYTES = 32 * 1024 * 1024;
/** Largest single event of a follow stream. */
const EVENT_MAX_CHARS = 4 * 1024 * 1024;
const SERVICE = 'agent';

/** An agent answered with an error status (the answer passed the hostname check). */
export class AgentAnswerError extends OutsideError {
  constructor(readonly agentStatus: number, message: string, readonly answer: AgentAnswer<unknown>) {
    super(SERVICE, 'upstream', message, {
      status: agentStatus,
      // the node refused what was asked (a bad name, a deploy it cannot do): the operator's to fix
      ...(agentStatus >= 400 && agentStatus < 500 ? { httpStatus: 422, envelope: 'rules' as const } : {}),
    });
  }
}

@Injectable()
export class AgentClient {
  private readonly pacer: Pacer;

  constructor(@Inject(APP_CONFIG) private readonly cfg: AppConfig) {
    this.pacer = new Pacer(SERVICE, { concurrent: cfg.nodeAgent.concurrency, maxWaitMs: 10 * 60_000 });
  }

  /**
   * A follow that sends nothing for this long has lost its agent (the agent writes a keep-alive every
   * 15 s: src/agent/agent.ts FOLLOW_HEARTBEAT_MS); 0 turns the watchdog off.
   */
  followIdleMs = FOLLOW_IDLE_MS;

  get defaultPort() {
    return this.cfg.nodeAgent.port;
  }

  /** The node as an endpoint: its base URL, its key in the header, its name in every message. */
  private endpoint(t: AgentTarget): Endpoint {
    if (!t.url) throw new OutsideError(SERVICE, 'config', `${t.name}: no agent address (set the Agent URL or an IP)`, { fields: { agent_url: 'No agent address' } });
    if (!t.key) throw new OutsideError(SERVICE, 'config', `${t.name}: no cluster key (on the node or on its WEB cluster)`, { fields: { cluster_key: 'No cluster key' } });
    const ms = this.cfg.nodeAgent.timeoutMs;
    return {
      service: SERVICE,
      baseUrl: t.url,
      timeoutMs: ms,
      maxBytes: AGENT_MAX_BYTES,
      auth: { header: CLUSTER_KEY_HEADER, value: t.key },
      messages: {
        timeout: () => `${t.name}: the agent did not answer in ${ms} ms`,
        unreachable: (code, message) => `${t.name}: agent unreachable (${code ?? message})`,
        status: (status) => `${t.name}: HTTP ${status}`,
        tooLarge: (max) => `${t.name}: the agent's answer is larger than ${max / 1024 / 1024} MB`,
        cancelled: () => `${t.name}: cancelled`,
      },
    };
  }

  /** An answer of any status: the key refused, not an agent answer, the host check, then the agent's own error. */
  private decode<T>(t: AgentTarget, res: OutsideResponse): AgentAnswer<T> & Record<string, unknown> {
    if (res.status === 401) throw new OutsideError(SERVICE, 'auth', `${t.name}: the agent refused the cluster key`, { status: 401 });
    if (res.status >= 300 && res.status < 400) throw new OutsideError(SERVICE, 'upstream', `${t.name}: the agent answered a redirect (not followed)`, { status: res.status });
    let parsed: unknown;
    try { parsed = JSON.parse(res.text()); } catch { parsed = undefined; }
    const wire = AgentAnswerWire.safeParse(parsed);
    if (!wire.success) throw new OutsideError(SERVICE, 'answer', `${t.name}: not an agent answer (HTTP ${res.status})`, { status: res.status });
    const body = wire.data as AgentAnswer<T> & Record<string, unknown>;
    checkHost(t.name, body.host);
    if (res.status < 200 || res.status >= 300) {
      const msg = typeof body.r.error === 'string' ? body.r.error : `HTTP ${res.status}`;
      if (res.status === 404 && msg === LOG_MSG.fileNotFound) throw new AppError(404, LOG_MSG.fileNotFound, 'empty');
      throw new AgentAnswerError(res.status, `${t.name}: ${msg}`, body);
    }
    return body;
  }

  /**
   * One call; answers the agent's `{host, r}` after the hostname check. An agent's own error (4xx/5xx)
   * is thrown with its text. GETs are tried again (twice in all) when the node could not be reached or
   * answered 502/503/504; POSTs (deletes, deploys) never.
   */
  async call<T>(t: AgentTarget, method: 'GET' | 'POST', path: string, opts: { query?: Record<string, string | number | undefined>; body?: unknown; signal?: AbortSignal } = {}): Promise<AgentAnswer<T> & Record<string, unknown>> {
    const ep = this.endpoint(t);
    const query = { _front_: 1, ...(path.startsWith('/sync/logs') ? { _srv_: t.name } : {}), ...opts.query };
    return withRetry(
      () => this.pacer.run('all', async () => this.decode<T>(t, await sendOutside(ep, { method, path, query, body: opts.body, signal: opts.signal, okOnly: false })), opts.signal),
      { idempotent: method === 'GET', policy: { tries: 2 }, signal: opts.signal },
    );
  }

  /**
   * A server-sent event stream from the agent (follow): yields each event after checking the `open`
   * event's host. Not counted against the concurrency (a follow is long-lived). NODE_AGENT_TIMEOUT_MS
   * bounds the connect and the first byte only; then the stream lasts until `signal` aborts (the
   * operator stops it, the socket or session ends: a plain return), the agent sends `end`, or the agent
   * goes away: it closes the stream, the connection breaks, or it sends nothing (not even its 15 s
   * keep-alive) for `followIdleMs` — each of those throws an error naming the node.
   */
  async *stream(t: AgentTarget, path: string, signal: AbortSignal): AsyncGenerator<AgentEvent> {
    const ep = this.endpoint(t);
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
    const timeout = () => new OutsideError(SERVICE, 'timeout', ep.messages!.timeout!(ep.timeoutMs));
    const lost = (detail: string) => {
      if (why === 'timeout') return timeout();
      if (why === 'idle') return new OutsideError(SERVICE, 'upstream', `${t.name}: the agent sent nothing for ${idleMs / 1000} s (follow ended)`);
      return new OutsideError(SERVICE, 'upstream', `${t.name}: ${detail}`);
    };
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    try {
      const res = await openOutside(ep, { path, query: { _srv_: t.name }, accept: 'text/event-stream', signal: ctl.signal });
      if (!res.ok || !res.body) {
        const text = await res.text().catch(() => '');
        if (res.status === 401) throw new OutsideError(SERVICE, 'auth', `${t.name}: the agent refused the cluster key`, { status: 401 });
        let msg = `HTTP ${res.status}`;
        try {
          const b = JSON.parse(text) as AgentAnswer<unknown>;
          checkHost(t.name, b.host);
          if (b.r?.error) msg = b.r.error;
        } catch (err) {
          if (err instanceof AppError) throw err;
        }
        if (res.status === 404 && msg === LOG_MSG.fileNotFound) throw new AppError(404, LOG_MSG.fileNotFound, 'empty');
        throw new OutsideError(SERVICE, 'upstream', `${t.name}: ${msg}`, { status: res.status });
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
        const { events, rest } = takeEvents(buf);
        buf = rest;
        for (const ev of events) {
          if (ev.event === 'open') {
            checkHost(t.name, (ev.data as { host?: unknown }).host);
            opened = true;
          } else if (!opened) throw new AppError(502, LOG_MSG.notValidHost, 'http');
          yield ev;
        }
        if (buf.length > EVENT_MAX_CHARS) throw new OutsideError(SERVICE, 'answer', `${t.name}: event too large`);
      }
    } catch (err) {
      // the connect ended by our own abort: the caller's is a cancel, the timer's a time-out
      if (err instanceof AppError && err.httpStatus === 499 && why === 'timeout') throw timeout();
      throw err;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      ctl.abort();
      await reader?.cancel().catch(() => undefined);
    }
  }
}
