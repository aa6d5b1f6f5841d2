/**
 * The HTTP side of `curl=` tasks: undici's dispatcher API on one keep-alive agent, instead of `fetch`.
 * A burst of a thousand tasks due in the same second is started at once, so what each start costs
 * decides the lateness of the last one; `fetch` cost 0.1-0.2 ms of CPU per request (Request/Headers
 * objects, web streams, an AbortSignal and its listener). Here a run hands undici one plain options
 * object, prepared once per task, and a handler that keeps the body's tail.
 * The engine's runs go through this code in the cron HTTP thread (cron-http.thread.ts,
 * cron-http.worker.ts), so the dispatches and the responses of a burst stay off the main event loop;
 * `runCronCmd` (cron-runner.ts) calls it in-process.
 */
import type { Duplex } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, type Gunzip } from 'node:zlib';
import { Agent, Dispatcher, interceptors } from 'undici';
import { CRON_HTTP_TIMEOUT_MS, CRON_OUTPUT_TAIL, httpRequestOf, type CronHttpCmd, type CronRunStatus } from '../../../contracts/cron.js';
import { TIMEOUT_MESSAGE } from '../../../contracts/constants.js';
import { basicAuthorization } from '../cron-secret.js';

export interface RunOutcome {
  status: Exclude<CronRunStatus, 'skipped'>;
  message: string;
  output: string | null;
}

/** The reason a run's abort is given when an operator kills it. */
export const KILLED = 'killed';
/** ... and when the console shuts down. */
export const SHUTDOWN = 'shutdown';
export const TIMED_OUT = 'timeout';
export const INTERRUPTED = 'Interrupted: the console stopped';

/**
 * A run's abort: kill, shutdown and the time-out call `abort(reason)`. Lighter than an AbortController
 * for the HTTP path (one callback, no EventTarget); an action gets a real AbortSignal (`signal`), made
 * on first use and aborted with the same reason.
 */
export class RunAbort {
  aborted = false;
  reason: unknown = undefined;
  /** The one listener (the HTTP run in flight). */
  onabort: ((reason: unknown) => void) | null = null;
  private ctl?: AbortController;

  abort(reason: unknown) {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.ctl?.abort(reason);
    const f = this.onabort;
    this.onabort = null;
    f?.(reason);
  }

  get signal(): AbortSignal {
    if (!this.ctl) {
      this.ctl = new AbortController();
      if (this.aborted) this.ctl.abort(this.reason);
    }
    return this.ctl.signal;
  }

  /** The same abort driven by an AbortController's signal (callers that have one). */
  static from(signal: AbortSignal): RunAbort {
    const a = new RunAbort();
    if (signal.aborted) a.abort(signal.reason);
    else signal.addEventListener('abort', () => a.abort(signal.reason), { once: true });
    return a;
  }
}

/** What a run records when its abort came first: the reason says which (kill, time-out, or shutdown). */
export function abortOutcome(reason: unknown): RunOutcome {
  return reason === KILLED ? { status: 'killed', message: 'Killed', output: null } : reason === TIMED_OUT ? { status: 'error', message: TIMEOUT_MESSAGE, output: null } : { status: 'error', message: INTERRUPTED, output: null };
}

const tail = (s: string) => (s.length > CRON_OUTPUT_TAIL ? '…' + s.slice(-CRON_OUTPUT_TAIL) : s);

/**
 * What a `curl=` task sends, worked out once per task (not per run): the origin and path as undici takes
 * them (no URL parsing per run), the method, the headers with the URL's user part as `Authorization:
 * Basic` (never in the URL), the body. `refused`: the message every run records instead (a bad port).
 */
export interface HttpPlan {
  origin: string;
  path: string;
  method: Dispatcher.HttpMethod;
  headers: Record<string, string>;
  body?: string;
  refused?: string;
}

/**
 * The ports the fetch standard blocks (SMTP, IRC, SIP, ...). Tasks ran through `fetch` before and were
 * refused there with 'fetch failed: bad port': the same ports stay refused with the same message.
 */
const BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119,
  123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990,
  993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** The request of a `curl=` cmd (its secrets filled in). Throws CronCmdError for a cmd that cannot run. */
export function httpPlanOf(cmd: CronHttpCmd): HttpPlan {
  const req = httpRequestOf(cmd);
  const url = new URL(req.url);
  // The defaults fetch sent, which a target may look at. No Accept-Encoding: bodies come uncompressed
  // (one compressed all the same is decoded).
  const headers: Record<string, string> = { accept: '*/*', 'user-agent': 'node', ...req.headers };
  if (req.userinfo) headers.authorization = basicAuthorization(req.userinfo);
  const plan: HttpPlan = { origin: url.origin, path: url.pathname + url.search, method: req.method as Dispatcher.HttpMethod, headers };
  if (req.body !== undefined) plan.body = req.body;
  if (url.port && BAD_PORTS.has(Number(url.port))) plan.refused = 'fetch failed: bad port';
  return plan;
}

/** Idle keep-alive connections are closed after this long. */
const KEEP_ALIVE_MS = 10_000;

/**
 * The one HTTP client of the cron runs: an undici Agent (a keep-alive pool per origin, no cap on its
 * connections: a task never overlaps itself, so there are never more than the HTTP tasks, and no request
 * of a burst waits for another's), redirects followed like fetch did (20 at most; 303, and 301/302 after
 * a POST, become GET; credentials dropped on a change of origin).
 */
let agent: Dispatcher | undefined;
export function cronHttpAgent(): Dispatcher {
  agent ??= new Agent({ keepAliveTimeout: KEEP_ALIVE_MS }).compose(interceptors.redirect({ maxRedirections: 20 }));
  return agent;
}

/**
 * One request as an undici dispatch handler: keeps the status line and the body's last
 * CRON_OUTPUT_TAIL characters' worth of bytes (bounded memory; a compressed body is decoded first),
 * and settles once: on the end of the body, an error, or the run's abort (kill, time-out, shutdown),
 * which also aborts the request (undici then closes its connection: nothing is left unread).
 */
class HttpRun implements Dispatcher.DispatchHandler {
  private ctl: Dispatcher.DispatchController | null = null;
  private status = 0;
  private statusText = '';
  private chunks: Buffer[] = [];
  private size = 0;
  private cut = false;
  private decoder: Gunzip | Duplex | null = null;
  private timer?: ReturnType<typeof setTimeout>;
  private done = false;

  constructor(
    private readonly abort: RunAbort,
    private readonly resolve: (o: RunOutcome) => void,
  ) {}

  start(plan: HttpPlan, timeoutMs: number, dispatcher: Dispatcher) {
    if (this.abort.aborted) return this.aborted();
    this.abort.onabort = () => {
      this.ctl?.abort(new Error(String(this.abort.reason)));
      this.aborted();
    };
    // The run's own abort carries the time-out too (one timer).
    this.timer = setTimeout(() => this.abort.abort(TIMED_OUT), timeoutMs);
    try {
      dispatcher.dispatch({ origin: plan.origin, path: plan.path, method: plan.method, headers: plan.headers, body: plan.body }, this);
    } catch (err) {
      this.failed(err as Error);
    }
  }

  onRequestStart(controller: Dispatcher.DispatchController) {
    this.ctl = controller;
    if (this.done) controller.abort(new Error(String(this.abort.reason ?? 'settled')));
  }

  onResponseStart(_c: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>, statusMessage?: string) {
    this.status = statusCode;
    this.statusText = statusMessage ?? '';
    const raw = headers['content-encoding'];
    const enc = (Array.isArray(raw) ? raw.join(',') : (raw ?? '')).trim().toLowerCase();
    const d = enc === 'gzip' || enc === 'x-gzip' ? createGunzip() : enc === 'deflate' ? createInflate() : enc === 'br' ? createBrotliDecompress() : null;
    if (d) {
      this.decoder = d;
      d.on('data', (c: Buffer) => this.keep(c));
      d.once('end', () => this.ended());
      d.once('error', (err) => {
        this.ctl?.abort(err);
        this.failed(err);
      });
    }
  }

  onResponseData(_c: Dispatcher.DispatchController, chunk: Buffer) {
    if (this.decoder) this.decoder.write(chunk);
    else this.keep(chunk);
  }

  onResponseEnd() {
    if (this.decoder) this.decoder.end();
    else this.ended();
  }

  onResponseError(_c: Dispatcher.DispatchController, err: Error) {
    this.decoder?.destroy();
    this.failed(err);
  }

  private keep(c: Buffer) {
    if (this.done) return;
    this.chunks.push(c);
    this.size += c.length;
    const keep = CRON_OUTPUT_TAIL * 4;
    if (this.size > keep * 2) {
      const all = Buffer.concat(this.chunks);
      this.chunks = [all.subarray(all.length - keep)];
      this.size = keep;
      this.cut = true;
    }
  }

  private ended() {
    const text = (this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks)).toString('utf8');
    const output = this.cut ? '…' + text.slice(-CRON_OUTPUT_TAIL) : tail(text);
    const ok = this.status >= 200 && this.status < 300;
    this.settle({ status: ok ? 'ok' : 'error', message: `HTTP ${this.status}${this.statusText ? ' ' + this.statusText : ''}`, output });
  }

  private failed(err: Error) {
    if (this.abort.aborted) return this.aborted();
    // The socket's code and message, as fetch's cause was shown before ('ECONNREFUSED: connect ECONNREFUSED ...').
    const e = err as Error & { code?: string };
    this.settle({ status: 'error', message: e.code ? `${e.code}: ${e.message}` : e.message, output: null });
  }

  private aborted() {
    this.settle(abortOutcome(this.abort.reason));
  }

  private settle(o: RunOutcome) {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    if (this.abort.onabort) this.abort.onabort = null;
    this.chunks = [];
    this.resolve(o);
  }
}

/**
 * One `curl=` run through the shared agent, aborted by a kill or after `timeoutMs`. 2xx is ok, anything
 * else an error `HTTP {status} {reason}` with the body's tail as output. Never rejects.
 */
export function runHttp(plan: HttpPlan, abort: RunAbort, timeoutMs = CRON_HTTP_TIMEOUT_MS, dispatcher = cronHttpAgent()): Promise<RunOutcome> {
  if (plan.refused) return Promise.resolve({ status: 'error', message: plan.refused, output: null });
  return new Promise<RunOutcome>((resolve) => new HttpRun(abort, resolve).start(plan, timeoutMs, dispatcher));
}
