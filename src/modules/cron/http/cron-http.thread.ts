/**
 * The engine's side of the cron HTTP thread (cron-http.worker.ts): the `curl=` runs are dispatched and
 * their responses read in one long-lived worker thread, so that a burst of a thousand requests due at
 * the same second, and above all the thousand responses read right after it, do not hold the main event
 * loop (the API, the sockets, the other jobs). One thread per engine, started on first need (the engine
 * warms it when it prepares its first HTTP task) and terminated by `close()` at shutdown.
 *
 * What crosses: each task's request (HttpPlan, Basic credentials included: same process, never logged)
 * goes once, under a plan id, with the first run that uses it; a run is then two numbers, [run seq,
 * plan id], gathered into one message per pass of the engine's timer (at most CHUNK runs a message, so
 * the thread starts dispatching while the pass goes on). Outcomes come back in columns, several runs a
 * message. A run's abort (kill, time-out is the thread's own, shutdown) is a message with its reason;
 * the thread aborts the request and answers the outcome an in-process run gives (abortOutcome).
 * Until the thread has loaded (tens of ms compiled; seconds when it starts from the TypeScript sources
 * under the tests), runs are made in-process with the same code (runHttp), so the first ticks after
 * a start do not wait for it. A thread that dies ends its runs in flight as interrupted; the next run
 * starts another.
 */
import { Worker } from 'node:worker_threads';
import { CRON_HTTP_TIMEOUT_MS } from '../../../contracts/cron.js';
import { messageOf, resolveWorkerScript } from '../../../core/worker-script.js';
import { abortOutcome, INTERRUPTED, RunAbort, runHttp, SHUTDOWN, type HttpPlan, type RunOutcome } from './cron-http.js';
import type { FromHttpThread, HttpThreadData, HttpThreadOutcomes, ToHttpThread } from './cron-http.worker.js';

/**
 * A run's outcome with the clock of the thread that made it (epoch ms; one clock for every thread of
 * the process): `started` when the request was handed to undici, `ended` when it settled. Absent when
 * no request was made (a refused port, aborted before it was posted, the thread stopped).
 */
export interface TimedOutcome extends RunOutcome {
  started?: number;
  ended?: number;
}

interface Pending {
  worker: Worker;
  abort: RunAbort;
  resolve: (o: TimedOutcome) => void;
}

interface Batch {
  worker: Worker;
  plans: Array<[number, HttpPlan]>;
  runs: number[];
}

/** Runs per start message: the first ones of a burst reach the thread before the engine's pass ends. */
const CHUNK = 100;

export class CronHttpThread {
  private worker: Worker | null = null;
  /** The current thread has loaded (said `ready`): runs go to it. */
  private ready = false;
  private readyWaiters: Array<() => void> = [];
  private readonly planIds = new WeakMap<HttpPlan, number>();
  /** The plan ids the current thread holds. */
  private readonly held = new Set<number>();
  private nextPlan = 1;
  private nextSeq = 1;
  private readonly pending = new Map<number, Pending>();
  private batch: Batch | null = null;
  private closing = false;

  constructor(private readonly opts: { timeoutMs?: number; workerUrl?: URL; onFailure?: (message: string) => void } = {}) {}

  /** Starts the thread if it is not running (it boots in the background; what is posted meanwhile waits for it). */
  warm(): void {
    if (!this.worker && !this.closing) this.spawn();
  }

  /** Resolves once a thread has loaded (starting one if none runs): from then on runs go to it. */
  whenReady(): Promise<void> {
    this.warm();
    if (this.ready) return Promise.resolve();
    return new Promise((r) => this.readyWaiters.push(r));
  }

  /**
   * One run of `plan` in the thread, aborted through `abort` (its reason decides the outcome, as for an
   * in-process run). Never rejects.
   */
  run(plan: HttpPlan, abort: RunAbort): Promise<TimedOutcome> {
    if (plan.refused) return Promise.resolve({ status: 'error', message: plan.refused, output: null });
    if (abort.aborted || this.closing) return Promise.resolve(abortOutcome(abort.aborted ? abort.reason : SHUTDOWN));
    const worker = this.worker ?? this.spawn();
    if (!this.ready) return this.inProcess(plan, abort);
    let id = this.planIds.get(plan);
    if (id === undefined) this.planIds.set(plan, (id = this.nextPlan++));
    const b = this.batch ?? this.open(worker);
    if (!this.held.has(id)) {
      this.held.add(id);
      b.plans.push([id, plan]);
    }
    const seq = this.nextSeq++;
    b.runs.push(seq, id);
    if (this.pending.size === 0) worker.ref();
    return new Promise<TimedOutcome>((resolve) => {
      this.pending.set(seq, { worker, abort, resolve });
      abort.onabort = (reason) => {
        this.flush(); // its start first, if it is still in the batch
        this.post(worker, { t: 'abort', seq, reason: String(reason) });
      };
      if (b.runs.length >= CHUNK * 2) this.flush();
    });
  }

  /** A plan no task uses any more (its task was changed or deleted): the thread forgets it. */
  drop(plan: HttpPlan): void {
    const id = this.planIds.get(plan);
    if (id === undefined || !this.held.delete(id) || !this.worker) return;
    this.flush();
    this.post(this.worker, { t: 'drop', ids: [id] });
  }

  /** Terminates the thread; runs still in it end as interrupted. Later runs are refused the same way. */
  async close(): Promise<void> {
    this.closing = true;
    const w = this.worker;
    if (!w) return;
    this.flush();
    await w.terminate();
    this.failAll(w, INTERRUPTED); // the exit event may come after terminate() resolves
  }

  /** A run on this thread's loop, while the HTTP thread loads. */
  private async inProcess(plan: HttpPlan, abort: RunAbort): Promise<TimedOutcome> {
    const started = Date.now();
    const o = await runHttp(plan, abort, this.opts.timeoutMs ?? CRON_HTTP_TIMEOUT_MS);
    return { ...o, started, ended: Date.now() };
  }

  private open(worker: Worker): Batch {
    const b: Batch = { worker, plans: [], runs: [] };
    this.batch = b;
    queueMicrotask(() => this.flush()); // after the engine's synchronous pass
    return b;
  }

  private flush() {
    const b = this.batch;
    if (!b) return;
    this.batch = null;
    this.post(b.worker, { t: 'start', plans: b.plans, runs: b.runs });
  }

  private post(worker: Worker, m: ToHttpThread) {
    if (worker === this.worker) worker.postMessage(m);
  }

  private spawn(): Worker {
    const data: HttpThreadData = { timeoutMs: this.opts.timeoutMs ?? CRON_HTTP_TIMEOUT_MS };
    const worker = new Worker(this.opts.workerUrl ?? resolveWorkerScript('cron-http.worker', import.meta.url), { name: 'cron-http', workerData: data });
    this.worker = worker;
    this.ready = false;
    this.held.clear();
    worker.unref();
    worker.on('message', (m: FromHttpThread) => this.settled(worker, m));
    let failed = false;
    const fail = (why: string) => {
      if (failed) return;
      failed = true;
      if (!this.closing) this.opts.onFailure?.(why);
      this.failAll(worker, this.closing ? INTERRUPTED : `Interrupted: the cron HTTP thread stopped (${why})`);
    };
    worker.on('error', (e) => fail(messageOf(e)));
    worker.on('exit', (code) => fail(`exit code ${code}`));
    return worker;
  }

  private settled(worker: Worker, f: FromHttpThread) {
    if ('ready' in f) {
      if (worker !== this.worker) return;
      this.ready = true;
      for (const r of this.readyWaiters.splice(0)) r();
      return;
    }
    const m: HttpThreadOutcomes = f;
    for (let i = 0; i < m.seq.length; i++) {
      const p = this.pending.get(m.seq[i]);
      if (!p) continue;
      this.pending.delete(m.seq[i]);
      p.abort.onabort = null;
      p.resolve({ status: m.status[i], message: m.message[i], output: m.output[i], started: m.started[i], ended: m.ended[i] });
    }
    if (this.pending.size === 0) worker.unref();
  }

  /** Ends every run of a thread that stopped. */
  private failAll(worker: Worker, message: string) {
    if (this.worker === worker) {
      this.worker = null;
      this.ready = false;
      this.held.clear();
      if (this.batch?.worker === worker) this.batch = null;
    }
    for (const [seq, p] of this.pending) {
      if (p.worker !== worker) continue;
      this.pending.delete(seq);
      p.abort.onabort = null;
      p.resolve({ status: 'error', message, output: null });
    }
  }
}
