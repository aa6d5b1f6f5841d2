/**
 * The engine's side of the cron HTTP thread (cron-http.worker.ts): the `curl=` runs are dispatched and
 * their responses read in one long-lived worker thread, so that a burst of a thousand requests due at
 * the same second, and above all the thousand responses read right after it, do not hold the main event
 * loop (the API, the sockets, the other jobs). One thread per engine, started on first need (the engine
 * warms it when it prepares its first HTTP task) and terminated by `close()` at shutdown.
 *
 * What crosses: each task's request (HttpPlan, Basic credentials included: same process, never logged)
 * goes once, under a plan id, with the first run that uses it; a run is then a few numbers. Two ways in:
 * - `run()`: the run starts as soon as the thread reads it (run now; a tick the engine starts itself);
 * - `ahead()`: a scheduled run posted before its second (the engine posts each second's HTTP runs about
 *   half a second ahead); the thread starts it at that second on its own timer. Until then `cancel()`
 *   takes it back: one compare-and-swap on a slot of a SharedArrayBuffer both threads see, against the
 *   thread's own swap at the second, so exactly one wins and the caller knows at once whether the run
 *   had started. A posted run's start, skip (its task still in flight in the thread), drop and outcome
 *   reach the caller through its `PostingEvents`, in the order they happened in the thread.
 * Runs are gathered into one message per turn of this loop (at most CHUNK runs a message for those that
 * start at once). Outcomes come back in columns, several runs a message. A run's abort (kill, time-out
 * is the thread's own, shutdown) is a message with its reason; the thread aborts the request and
 * answers the outcome an in-process run gives (abortOutcome). Until the thread has loaded (tens of ms
 * compiled; seconds when it starts from the TypeScript sources under the tests), `run()` makes the run
 * in-process with the same code (runHttp) and `ahead()` refuses (the engine starts those ticks itself).
 * A thread that dies ends its runs in flight as interrupted, gives back the posted runs it had not
 * started (`dropped`, lost), and the next run starts another.
 */
import { Worker } from 'node:worker_threads';
import { CRON_HTTP_TIMEOUT_MS } from '../../../contracts/cron.js';
import { messageOf, resolveWorkerScript } from '../../../core/worker-script.js';
import { abortOutcome, INTERRUPTED, RunAbort, runHttp, SHUTDOWN, type HttpPlan, type RunOutcome } from './cron-http.js';
import {
  EV_DROPPED, EV_ENDED, EV_SKIPPED, EV_STARTED, SLOT_CANCELLED, SLOT_POSTED, SLOT_SKIPPED, SLOT_STARTED,
  type FromHttpThread, type HttpThreadData, type HttpThreadEvents, type ToHttpThread,
} from './cron-http.protocol.js';

/**
 * A run's outcome with the clock of the thread that made it (epoch ms; one clock for every thread of
 * the process): `started` when the request was handed to undici, `ended` when it settled. Absent when
 * no request was made (a refused port, aborted before it was posted, the thread stopped).
 */
export interface TimedOutcome extends RunOutcome {
  started?: number;
  ended?: number;
}

/** What happens to a posted run (`ahead()`), called on the main loop in the order it happened in the thread. */
export interface PostingEvents {
  /** It started at `at` (the thread's clock; undefined when the thread stopped before saying when). Comes once. */
  started(p: Posting, at: number | undefined): void;
  /** Not started at its second: a run of its task was still in flight in the thread (`message` says since when). */
  skipped(p: Posting, message: string, at: number): void;
  /** Its outcome (after `started`). */
  ended(p: Posting, o: TimedOutcome): void;
  /** It will never start: cancelled (`lost` false), or its thread stopped before its second (`lost` true). */
  dropped(p: Posting, lost: boolean): void;
}

/** A run posted ahead of its second. `state` is what the caller knows of it: 'started' and 'skipped' may be learnt from `cancel`/`peek` before their event. */
export class Posting {
  state: 'posted' | 'cancelled' | 'started' | 'skipped' = 'posted';
  /** The start event came (or was made up when the thread stopped). */
  startSeen = false;
  constructor(
    readonly seq: number,
    readonly task: number,
    readonly at: number,
    readonly abort: RunAbort,
    readonly events: PostingEvents,
    readonly worker: Worker,
    readonly states: Int32Array,
    readonly slot: number,
  ) {}
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
  ahead: Map<number, number[]>;
}

/** Runs per start message: the first ones of a burst reach the thread before the engine's pass ends. */
const CHUNK = 100;
/** Slots for posted runs (one per run between its posting and its start event): twice 8,192 tasks a second. A run that finds none is left to the caller. */
const SLOTS = 16_384;

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
  private readonly postings = new Map<number, Posting>();
  /** The current thread's slot states (shared with it) and the slots free in it. */
  private states: Int32Array = new Int32Array(0);
  private free: number[] = [];
  private batch: Batch | null = null;
  private closing = false;

  constructor(private readonly opts: { timeoutMs?: number; workerUrl?: URL; onFailure?: (message: string) => void; onReady?: () => void } = {}) {}

  /** The thread has loaded: `run()` goes to it and `ahead()` accepts runs. */
  get isReady(): boolean {
    return this.ready && !this.closing;
  }

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
   * One run of `plan` in the thread, started as soon as the thread reads it, aborted through `abort`
   * (its reason decides the outcome, as for an in-process run). `task` (0: none) lets the thread skip
   * a posted run of the same task while this one is in flight. Never rejects.
   */
  run(plan: HttpPlan, abort: RunAbort, task = 0): Promise<TimedOutcome> {
    if (plan.refused) return Promise.resolve({ status: 'error', message: plan.refused, output: null });
    if (abort.aborted || this.closing) return Promise.resolve(abortOutcome(abort.aborted ? abort.reason : SHUTDOWN));
    const worker = this.worker ?? this.spawn();
    if (!this.ready) return this.inProcess(plan, abort);
    const b = this.batchFor(worker, plan);
    const seq = this.nextSeq++;
    b.runs.push(seq, this.planIds.get(plan)!, task);
    if (this.pending.size === 0 && this.postings.size === 0) worker.ref();
    return new Promise<TimedOutcome>((resolve) => {
      this.pending.set(seq, { worker, abort, resolve });
      abort.onabort = (reason) => {
        this.flush(); // its start first, if it is still in the batch
        this.post(worker, { t: 'abort', seq, reason: String(reason) });
      };
      if (b.runs.length >= CHUNK * 3) this.flush();
    });
  }

  /**
   * Posts a run of `task` that the thread starts at `at` (epoch ms; at once if that is past) unless
   * `cancel` takes it back first, or a run of the same task is still in flight there then (skipped).
   * Null when the thread has not loaded, or no slot is free: the caller starts that run itself.
   * `abort` (kill, shutdown) acts once it has started; before, it cancels it.
   */
  ahead(task: number, plan: HttpPlan, at: number, abort: RunAbort, events: PostingEvents): Posting | null {
    const worker = this.worker;
    if (!worker || !this.ready || this.closing || plan.refused) return null;
    const slot = this.free.pop();
    if (slot === undefined) return null;
    Atomics.store(this.states, slot, SLOT_POSTED);
    const b = this.batchFor(worker, plan);
    const seq = this.nextSeq++;
    let list = b.ahead.get(at);
    if (!list) b.ahead.set(at, (list = []));
    list.push(seq, this.planIds.get(plan)!, task, slot);
    if (this.pending.size === 0 && this.postings.size === 0) worker.ref();
    const p = new Posting(seq, task, at, abort, events, worker, this.states, slot);
    this.postings.set(seq, p);
    abort.onabort = (reason) => {
      if (this.cancel(p) === 'cancelled') return;
      this.flush();
      this.post(worker, { t: 'abort', seq, reason: String(reason) });
    };
    return p;
  }

  /**
   * Takes a posted run back unless the thread has taken it at its second: 'cancelled' (it never
   * starts; its `dropped` event follows), else what it became ('started': its events follow; 'skipped').
   */
  cancel(p: Posting): Posting['state'] {
    if (p.state !== 'posted') return p.state;
    const was = Atomics.compareExchange(p.states, p.slot, SLOT_POSTED, SLOT_CANCELLED);
    p.state = was === SLOT_POSTED ? 'cancelled' : was === SLOT_STARTED ? 'started' : was === SLOT_SKIPPED ? 'skipped' : p.state;
    return p.state;
  }

  /** What became of a posted run, as the thread decided it (no event needed): 'posted' until its second. */
  peek(p: Posting): Posting['state'] {
    if (p.state !== 'posted') return p.state;
    const s = Atomics.load(p.states, p.slot);
    if (s === SLOT_STARTED) p.state = 'started';
    else if (s === SLOT_SKIPPED) p.state = 'skipped';
    return p.state;
  }

  /** A plan no task uses any more (its task was changed or deleted): the thread forgets it. */
  drop(plan: HttpPlan): void {
    const id = this.planIds.get(plan);
    if (id === undefined || !this.held.delete(id) || !this.worker) return;
    this.flush();
    this.post(this.worker, { t: 'drop', ids: [id] });
  }

  /** Terminates the thread; runs still in it end as interrupted, posted ones not started are dropped. Later runs are refused the same way. */
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

  /** The batch being gathered for `worker`, with `plan` in it unless the thread holds it already. */
  private batchFor(worker: Worker, plan: HttpPlan): Batch {
    let id = this.planIds.get(plan);
    if (id === undefined) this.planIds.set(plan, (id = this.nextPlan++));
    let b = this.batch;
    if (!b) {
      b = this.batch = { worker, plans: [], runs: [], ahead: new Map() };
      queueMicrotask(() => this.flush()); // after the engine's synchronous pass
    }
    if (!this.held.has(id)) {
      this.held.add(id);
      b.plans.push([id, plan]);
    }
    return b;
  }

  private flush() {
    const b = this.batch;
    if (!b) return;
    this.batch = null;
    this.post(b.worker, { t: 'start', plans: b.plans, runs: b.runs, ahead: [...b.ahead] });
  }

  private post(worker: Worker, m: ToHttpThread) {
    if (worker === this.worker) worker.postMessage(m);
  }

  private spawn(): Worker {
    const states = new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT);
    const data: HttpThreadData = { timeoutMs: this.opts.timeoutMs ?? CRON_HTTP_TIMEOUT_MS, states };
    const worker = new Worker(this.opts.workerUrl ?? resolveWorkerScript('cron-http.worker', import.meta.url), { name: 'cron-http', workerData: data });
    this.worker = worker;
    this.ready = false;
    this.held.clear();
    this.states = new Int32Array(states);
    this.free = Array.from({ length: SLOTS }, (_, i) => SLOTS - 1 - i);
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

  /** A posted run's slot is the thread's no more (it has said what became of it): free for another. */
  private release(p: Posting) {
    if (p.worker === this.worker) this.free.push(p.slot);
  }

  private settled(worker: Worker, f: FromHttpThread) {
    if ('ready' in f) {
      if (worker !== this.worker) return;
      this.ready = true;
      for (const r of this.readyWaiters.splice(0)) r();
      this.opts.onReady?.();
      return;
    }
    const m: HttpThreadEvents = f;
    for (let i = 0; i < m.seq.length; i++) {
      const seq = m.seq[i];
      const kind = m.kind[i];
      if (kind === EV_ENDED) {
        const o: TimedOutcome = { status: m.status[i]!, message: m.message[i]!, output: m.output[i], started: m.started[i], ended: m.ended[i] };
        const d = this.pending.get(seq);
        if (d) {
          this.pending.delete(seq);
          d.abort.onabort = null;
          d.resolve(o);
          continue;
        }
        const p = this.postings.get(seq);
        if (!p) continue;
        this.postings.delete(seq);
        p.abort.onabort = null;
        p.events.ended(p, o);
        continue;
      }
      const p = this.postings.get(seq);
      if (!p) continue;
      this.release(p);
      if (kind === EV_STARTED) {
        p.state = 'started';
        p.startSeen = true;
        p.events.started(p, m.started[i]);
      } else if (kind === EV_SKIPPED) {
        this.postings.delete(seq);
        p.state = 'skipped';
        p.abort.onabort = null;
        p.events.skipped(p, m.message[i]!, m.started[i]);
      } else if (kind === EV_DROPPED) {
        this.postings.delete(seq);
        p.abort.onabort = null;
        p.events.dropped(p, false);
      }
    }
    if (this.pending.size === 0 && this.postings.size === 0) worker.unref();
  }

  /** Ends every run of a thread that stopped; its posted runs not started are dropped (lost), their slots with it. */
  private failAll(worker: Worker, message: string) {
    if (this.worker === worker) {
      this.worker = null;
      this.ready = false;
      this.held.clear();
      this.free = [];
      if (this.batch?.worker === worker) this.batch = null;
    }
    for (const [seq, p] of this.pending) {
      if (p.worker !== worker) continue;
      this.pending.delete(seq);
      p.abort.onabort = null;
      p.resolve({ status: 'error', message, output: null });
    }
    for (const [seq, p] of this.postings) {
      if (p.worker !== worker) continue;
      this.postings.delete(seq);
      p.abort.onabort = null;
      const before = p.state;
      // The thread is gone: a run it had not taken never starts (taken back here), whatever its second.
      const state = this.cancel(p);
      if (state === 'cancelled') p.events.dropped(p, before === 'posted');
      else if (state === 'skipped') p.events.skipped(p, 'Still running', Date.now());
      else {
        if (!p.startSeen) {
          p.startSeen = true;
          p.events.started(p, undefined);
        }
        p.events.ended(p, { status: 'error', message, output: null });
      }
    }
  }
}
