/**
 * The cron HTTP thread (started by CronHttpThread, cron-http.thread.ts): dispatches the `curl=` runs the
 * engine posts and reads their responses here, off the main event loop, through the same code as an
 * in-process run (runHttp of cron-http.ts: one keep-alive undici agent, the body's tail kept, the
 * time-out timer, abort by reason). The main thread sends each task's request once (`plans`, by plan
 * id; they hold the task's Basic credentials: kept in this map only, never logged) and then only
 * numbers: `runs` is [run seq, plan id, ...]. Outcomes go back in columns, gathered until the thread's
 * loop has read what arrived (setImmediate), so a burst of responses costs the main loop a few messages.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { RunAbort, runHttp, type HttpPlan, type RunOutcome } from './cron-http.js';

/** main -> thread */
export type ToHttpThread =
  /** New plans (kept until dropped), then the runs to start now, as pairs [seq, plan id]. */
  | { t: 'start'; plans: Array<[number, HttpPlan]>; runs: number[] }
  /** Abort a run with this reason (KILLED, SHUTDOWN; anything else records as interrupted). */
  | { t: 'abort'; seq: number; reason: string }
  /** Plans no task uses any more. */
  | { t: 'drop'; ids: number[] };

/** thread -> main: `{ ready: true }` once, when the thread has loaded; then the runs that ended since the last message, column by column (epoch ms for the times). */
export type FromHttpThread = { ready: true } | HttpThreadOutcomes;

export interface HttpThreadOutcomes {
  seq: number[];
  status: Array<RunOutcome['status']>;
  message: string[];
  output: Array<string | null>;
  /** When the thread handed the request to undici (the run's recorded start). */
  started: number[];
  ended: number[];
}

export interface HttpThreadData {
  timeoutMs: number;
}

const port = parentPort;
if (!port) throw new Error('cron-http.worker must run in a worker thread');
const { timeoutMs } = workerData as HttpThreadData;

const plans = new Map<number, HttpPlan>();
/** The runs in flight here, by seq. */
const inFlight = new Map<number, RunAbort>();
let out: HttpThreadOutcomes | null = null;

function ended(seq: number, o: RunOutcome, started: number) {
  if (!out) {
    out = { seq: [], status: [], message: [], output: [], started: [], ended: [] };
    setImmediate(send);
  }
  out.seq.push(seq);
  out.status.push(o.status);
  out.message.push(o.message);
  out.output.push(o.output);
  out.started.push(started);
  out.ended.push(Date.now());
}

function send() {
  const m = out!;
  out = null;
  port!.postMessage(m);
}

function start(seq: number, plan: HttpPlan | undefined) {
  const started = Date.now();
  if (!plan) return ended(seq, { status: 'error', message: 'Internal error: the request of this task was not sent to the HTTP thread', output: null }, started);
  const abort = new RunAbort();
  inFlight.set(seq, abort);
  void runHttp(plan, abort, timeoutMs).then((o) => {
    inFlight.delete(seq);
    ended(seq, o, started);
  });
}

port.on('message', (m: ToHttpThread) => {
  if (m.t === 'start') {
    for (const [id, plan] of m.plans) plans.set(id, plan);
    for (let i = 0; i < m.runs.length; i += 2) start(m.runs[i], plans.get(m.runs[i + 1]));
  } else if (m.t === 'abort') {
    // Not here any more: it ended and its outcome is already on its way.
    inFlight.get(m.seq)?.abort(m.reason);
  } else if (m.t === 'drop') {
    for (const id of m.ids) plans.delete(id);
  }
});

port.postMessage({ ready: true } satisfies FromHttpThread);
