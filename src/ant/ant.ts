/**
 * The reference ant (docs/ant.md "The reference ant"): connects to the hub's ANT_NAMESPACE with its
 * token, starts stopped, obeys hub.start / hub.stop / hub.reload, answers hub.get_log from its own log
 * (two streams, 'out' and 'err', also streamed to the hub as they grow), and while started asks for a
 * task, works it (renewing the lease) and reports it done or failed. No UI, no database.
 */
import { io, type Socket } from 'socket.io-client';
import {
  ANT_IMPLEMENTED_STEPS, ANT_LEASE_MS, ANT_NAMESPACE, type AntBookShingles, type AntLeasedTask, type AntLogType, type AntStatus,
} from '../contracts/ant.js';
import type { AntConfig } from './config.js';
import { FetchError, Fetcher, sleep } from './fetcher.js';
import { runStep } from './steps.js';

/** Without a wake-up, an idle ant asks again after this long. */
const IDLE_POLL_MS = 5_000;
const BOOKS_TTL_MS = 30_000;
const LOG_FLUSH_MS = 200;

export interface AntHandle {
  readonly name: string;
  readonly socket: Socket;
  /** Resolves once connected (rejects with the hub's refusal, e.g. 'Invalid ant token'). */
  readonly connected: Promise<void>;
  /** The connection id the hub knows this ant by. */
  id(): string | undefined;
  running(): boolean;
  logLines(type: AntLogType): string[];
  /** Closes the connection cleanly (its task, if any, goes back to the queue). */
  close(): Promise<void>;
  /** Simulates a crash: the connection drops at once, mid-task, nothing is reported. */
  kill(): void;
}

export function startAnt(cfg: AntConfig): AntHandle {
  const logs: Record<AntLogType, string[]> = { out: [], err: [] };
  const pending: Record<AntLogType, string[]> = { out: [], err: [] };
  let flushTimer: NodeJS.Timeout | undefined;
  const socket: Socket = io(`${cfg.hubUrl}${ANT_NAMESPACE}`, {
    auth: { token: cfg.token, name: cfg.name, host: cfg.host },
    transports: ['websocket'],
    forceNew: true,
    reconnectionDelay: 500,
    reconnectionDelayMax: 5_000,
  });
  const write = (type: AntLogType, msg: string) => {
    const line = `${new Date().toISOString()} ${msg}`;
    const buf = logs[type];
    buf.push(line);
    if (buf.length > cfg.logLines) buf.splice(0, buf.length - cfg.logLines);
    if (cfg.echo) (type === 'out' ? process.stdout : process.stderr).write(`${JSON.stringify({ time: new Date().toISOString(), context: 'Ant', name: cfg.name, msg })}\n`);
    pending[type].push(line);
    flushTimer ??= setTimeout(flush, LOG_FLUSH_MS);
  };
  const flush = () => {
    flushTimer = undefined;
    for (const type of ['out', 'err'] as const) {
      if (!pending[type].length || !socket.connected) continue;
      socket.emit('ant.log', { type, lines: pending[type].splice(0, 1000) });
    }
  };
  const out = (msg: string) => write('out', msg);
  const err = (msg: string) => write('err', msg);

  const fetcher = new Fetcher({ userAgent: cfg.userAgent, ratePerHost: cfg.ratePerHost, timeoutMs: cfg.timeoutMs, tunnel: cfg.proxyTunnel, log: out });
  let running = false;
  let closed = false;
  let loop: Promise<void> | null = null;
  let current: { task: AntLeasedTask; abort: AbortController } | null = null;
  let wake: (() => void) | null = null;
  let books: { at: number; version: string; list: AntBookShingles[] } | null = null;

  const status = (): AntStatus => (!running ? 'stop' : current ? 'work' : 'wait');
  const report = () => {
    if (socket.connected) socket.emit('ant.status', { isStop: !running, status: status(), steps: [...ANT_IMPLEMENTED_STEPS] });
  };
  const ask = <T>(event: string, args: unknown): Promise<T> => socket.timeout(10_000).emitWithAck(event, args) as Promise<T>;

  const loadBooks = async (): Promise<AntBookShingles[]> => {
    if (books && Date.now() - books.at < BOOKS_TTL_MS) return books.list;
    const list: AntBookShingles[] = [];
    let after = 0;
    let version = '';
    for (;;) {
      const r = await ask<{ books: AntBookShingles[]; next: number | null; version: string }>('ant.book_shingles', { after });
      list.push(...r.books);
      version = r.version;
      if (r.next === null) break;
      after = r.next;
    }
    books = { at: Date.now(), version, list };
    out(`book shingles loaded: ${list.length} book(s), version ${version}`);
    return list;
  };

  const work = async (task: AntLeasedTask) => {
    const abort = new AbortController();
    current = { task, abort };
    report();
    const started = Date.now();
    out(`task ${task.Id} step ${task.step} ${task.item.slice(0, 200)}${task.proxy ? ` (proxy ${task.proxy.ip})` : ''}`);
    const beat = setInterval(() => {
      void ask<{ ok: boolean }>('ant.heartbeat', { Id: task.Id, lease: task.lease }).then((r) => {
        if (!r.ok) {
          err(`task ${task.Id}: lease lost`);
          abort.abort(new Error('lease lost'));
        }
      }).catch(() => undefined);
    }, Math.max(1000, Math.floor(ANT_LEASE_MS / 3)));
    try {
      const result = await runStep(task, { fetcher, signal: abort.signal, books: loadBooks, log: out });
      if (abort.signal.aborted) throw abort.signal.reason;
      const r = await ask<{ ok: boolean; message?: string }>('ant.done', { Id: task.Id, lease: task.lease, out: result, ms: Date.now() - started });
      if (r.ok) out(`task ${task.Id} done in ${Date.now() - started} ms`);
      else err(`task ${task.Id}: ${r.message ?? 'refused'}`);
    } catch (e) {
      const fe = e instanceof FetchError ? e : null;
      const message = (e as Error)?.message ?? String(e);
      err(`task ${task.Id} step ${task.step} failed: ${message}`);
      if (socket.connected) {
        await ask('ant.fail', { Id: task.Id, lease: task.lease, error: message, proxyError: fe?.proxyError ?? false, final: fe?.final ?? false }).catch(() => undefined);
      }
    } finally {
      clearInterval(beat);
      current = null;
      report();
    }
  };

  const run = async () => {
    while (running && !closed) {
      if (!socket.connected) {
        await new Promise<void>((r) => {
          const t = setTimeout(r, IDLE_POLL_MS);
          wake = () => { clearTimeout(t); r(); };
        });
        wake = null;
        continue;
      }
      let task: AntLeasedTask | null = null;
      try {
        task = (await ask<{ task: AntLeasedTask | null }>('ant.next', { steps: [...ANT_IMPLEMENTED_STEPS] })).task;
      } catch {
        task = null;
      }
      if (!running || closed) {
        // Stopped while asking: the hub gets it back through a failure without penalty of work done.
        if (task) await ask('ant.fail', { Id: task.Id, lease: task.lease, error: 'stopped before start' }).catch(() => undefined);
        break;
      }
      if (task) {
        await work(task);
        continue;
      }
      await new Promise<void>((r) => {
        const t = setTimeout(r, IDLE_POLL_MS);
        wake = () => { clearTimeout(t); r(); };
      });
      wake = null;
    }
  };
  const startLoop = () => {
    if (loop) return;
    loop = run().catch((e) => err(`loop failed: ${(e as Error).message}`)).finally(() => { loop = null; });
  };

  socket.on('hub.start', (_a: unknown, ack?: (r: unknown) => void) => {
    const was = running;
    running = true;
    out(was ? 'start: already running' : 'start');
    report();
    startLoop();
    ack?.({ ok: true, message: was ? 'Already running' : 'Started' });
  });
  socket.on('hub.stop', (_a: unknown, ack?: (r: unknown) => void) => {
    const was = running;
    running = false;
    wake?.();
    out(was ? 'stop (the current task, if any, is finished)' : 'stop: already stopped');
    report();
    ack?.({ ok: true, message: was ? 'Stopped' : 'Already stopped' });
  });
  socket.on('hub.reload', (_a: unknown, ack?: (r: unknown) => void) => {
    out('reload');
    books = null;
    current?.abort.abort(new Error('reload'));
    wake?.();
    report();
    ack?.({ ok: true, message: running ? 'Reloaded (running)' : 'Reloaded (stopped)' });
  });
  socket.on('hub.get_log', (a: { lines?: number; type?: AntLogType } | undefined, ack?: (r: unknown) => void) => {
    const type: AntLogType = a?.type === 'err' ? 'err' : 'out';
    const n = Math.max(1, Math.min(5000, Number(a?.lines) || 100));
    ack?.({ ok: true, lines: logs[type].slice(-n) });
  });
  socket.on('hub.wake', () => wake?.());

  const connected = new Promise<void>((resolve, reject) => {
    socket.on('connect', () => {
      out(`connected to ${cfg.hubUrl} as ${socket.id}`);
      report();
      resolve();
    });
    socket.on('connect_error', (e) => {
      err(`connect failed: ${e.message}`);
      // A refusal by the hub (wrong token) is final; a network failure is retried by socket.io.
      if (!socket.active) {
        reject(e);
      }
    });
  });
  socket.on('disconnect', (reason) => {
    out(`disconnected: ${reason}`);
    current?.abort.abort(new Error('disconnected'));
  });

  return {
    name: cfg.name,
    socket,
    connected,
    id: () => socket.id,
    running: () => running,
    logLines: (type) => [...logs[type]],
    async close() {
      closed = true;
      running = false;
      wake?.();
      current?.abort.abort(new Error('closing'));
      clearTimeout(flushTimer);
      socket.disconnect();
      await loop?.catch(() => undefined);
    },
    kill() {
      closed = true;
      running = false;
      clearTimeout(flushTimer);
      // The engine's transport closes without a disconnect packet, as when the process dies.
      socket.io.reconnection(false);
      (socket.io.engine as unknown as { close(): void }).close();
      socket.disconnect();
      current?.abort.abort(new Error('killed'));
      wake?.();
    },
  };
}
