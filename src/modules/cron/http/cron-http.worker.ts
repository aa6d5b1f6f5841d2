/**
 * The cron HTTP thread (started by CronHttpThread, cron-http.thread.ts): dispatches the `curl=` runs the
 * engine posts and reads their responses here, off the main event loop, through the same code as an
 * in-process run (runHttp of cron-http.ts: one keep-alive undici agent, the body's tail kept, the
 * time-out timer, abort by reason). The main thread sends each task's request once (`plans`, by plan
 * id; they hold the task's Basic credentials: kept in this map only, never logged) and then only
 * numbers. Two kinds of runs:
 * - `runs` start as soon as they arrive (run now, and the ticks the engine's own timer starts);
 * - `ahead`: a second's scheduled runs, posted about half a second before it; this thread starts them
 *   at that second on its own timer, so their start waits neither for the main loop's pass nor for the
 *   hop between threads. Each has a slot in the shared `states` array: the main loop cancels a posting
 *   (task removed, paused, edited, run now, shutdown) by swapping POSTED for CANCELLED there, and this
 *   thread takes it at the second by swapping POSTED for STARTED (or SKIPPED while a run of the same
 *   task is still in flight here): one compare-and-swap each side, so exactly one of them wins, and the
 *   main loop knows at once whether a run it cancels had started (no round trip).
 * Events go back in columns (ended, started, skipped, dropped), in the order they happened, gathered
 * until the thread's loop has read what arrived (setImmediate), so a burst costs the main loop a few
 * messages: a run's outcome always reaches it before the start of the next run of the same task.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { RunAbort, runHttp, type HttpPlan, type RunOutcome } from './cron-http.js';

import {
  EV_DROPPED, EV_ENDED, EV_SKIPPED, EV_STARTED, SLOT_POSTED, SLOT_SKIPPED, SLOT_STARTED, type FromHttpThread, type HttpThreadData, type HttpThreadEvents, type ToHttpThread,
} from './cron-http.protocol.js';

const port = parentPort;
if (!port) throw new Error('cron-http.worker must run in a worker thread');
const { timeoutMs, states: sab } = workerData as HttpThreadData;
const states = new Int32Array(sab);

const plans = new Map<number, HttpPlan>();
/** The runs in flight here, by seq. */
const inFlight = new Map<number, RunAbort>();
/** The task of each run in flight here (a posted run of a task found here is skipped), with its start. */
const busy = new Map<number, { seq: number; started: number }>();
/** Posted runs by the second they start at: [seq, plan id, task id, slot, ...]. */
const ahead = new Map<number, number[]>();
let out: HttpThreadEvents | null = null;

function event(seq: number, kind: number, o: RunOutcome | null, started: number, endedAt: number) {
  if (!out) {
    out = { seq: [], kind: [], status: [], message: [], output: [], started: [], ended: [] };
    setImmediate(send);
  }
  out.seq.push(seq);
  out.kind.push(kind);
  out.status.push(o?.status ?? null);
  out.message.push(o?.message ?? null);
  out.output.push(o?.output ?? null);
  out.started.push(started);
  out.ended.push(endedAt);
}

function send() {
  const m = out!;
  out = null;
  port!.postMessage(m);
}

function start(seq: number, plan: HttpPlan | undefined, task: number, started = Date.now()) {
  if (!plan) return event(seq, EV_ENDED, { status: 'error', message: 'Internal error: the request of this task was not sent to the HTTP thread', output: null }, started, Date.now());
  const abort = new RunAbort();
  inFlight.set(seq, abort);
  if (task) busy.set(task, { seq, started });
  void runHttp(plan, abort, timeoutMs).then((o) => {
    inFlight.delete(seq);
    if (task && busy.get(task)?.seq === seq) busy.delete(task);
    event(seq, EV_ENDED, o, started, Date.now());
  });
}

/** Keeps posted runs until their second; one timer per second. */
function post(at: number, runs: number[]) {
  const list = ahead.get(at);
  if (list) {
    for (const n of runs) list.push(n);
    return;
  }
  ahead.set(at, runs.slice());
  arm(at);
}

function arm(at: number) {
  setTimeout(() => due(at), Math.max(0, at - Date.now()));
}

/** The second `at` has come: every run posted for it starts now, in one pass, unless cancelled or its task still runs here. */
function due(at: number, late = false) {
  // A timer may fire a millisecond early (the loop's clock is cached): never start before the second.
  if (Date.now() < at) return arm(at);
  const list = ahead.get(at);
  if (!list) return;
  // A run of one of these tasks still in flight may have its response waiting to be read (this loop ran
  // late: timers come before I/O in a turn): read what arrived first (setImmediate runs after the I/O of
  // this turn), so a run that has ended is not taken for running.
  if (!late && busy.size) {
    for (let i = 2; i < list.length; i += 4) {
      if (busy.has(list[i])) {
        setImmediate(() => due(at, true));
        return;
      }
    }
  }
  ahead.delete(at);
  for (let i = 0; i < list.length; i += 4) {
    const seq = list[i];
    const task = list[i + 2];
    const slot = list[i + 3];
    const b = task ? busy.get(task) : undefined;
    const was = Atomics.compareExchange(states, slot, SLOT_POSTED, b ? SLOT_SKIPPED : SLOT_STARTED);
    if (was !== SLOT_POSTED) {
      event(seq, EV_DROPPED, null, 0, 0);
      continue;
    }
    if (b) {
      const now = Date.now();
      event(seq, EV_SKIPPED, { status: 'error', message: `Still running (started ${new Date(b.started).toISOString()})`, output: null }, now, now);
      continue;
    }
    // The start event first: the main loop learns of it before the outcome (which may come in the same message).
    const t = Date.now();
    event(seq, EV_STARTED, null, t, t);
    start(seq, plans.get(list[i + 1]), task, t);
  }
}

port.on('message', (m: ToHttpThread) => {
  if (m.t === 'start') {
    for (const [id, plan] of m.plans) plans.set(id, plan);
    for (let i = 0; i < m.runs.length; i += 3) start(m.runs[i], plans.get(m.runs[i + 1]), m.runs[i + 2]);
    for (const [at, runs] of m.ahead) post(at, runs);
  } else if (m.t === 'abort') {
    // Not here any more: it ended and its outcome is already on its way.
    inFlight.get(m.seq)?.abort(m.reason);
  } else if (m.t === 'drop') {
    for (const id of m.ids) plans.delete(id);
  }
});

port.postMessage({ ready: true } satisfies FromHttpThread);
