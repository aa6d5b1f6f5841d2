/**
 * What the engine's side (cron-http.thread.ts) and the cron HTTP thread (cron-http.worker.ts) say to
 * each other, and the states of the shared slots of the runs posted ahead. Its own module: the worker's
 * module runs as soon as it is imported.
 */
import type { HttpPlan, RunOutcome } from './cron-http.js';

/** The states of a posted run's slot (`HttpThreadData.states`). */
export const SLOT_FREE = 0;
export const SLOT_POSTED = 1;
export const SLOT_STARTED = 2;
export const SLOT_SKIPPED = 3;
export const SLOT_CANCELLED = 4;

/** main -> thread */
export type ToHttpThread =
  /**
   * New plans (kept until dropped); the runs to start now, as triples [seq, plan id, task id]; the
   * runs to start at a second (epoch ms), as quadruples [seq, plan id, task id, slot]. Task id 0: no
   * task (tests), never skipped.
   */
  | { t: 'start'; plans: Array<[number, HttpPlan]>; runs: number[]; ahead: Array<[number, number[]]> }
  /** Abort a run with this reason (KILLED, SHUTDOWN; anything else records as interrupted). */
  | { t: 'abort'; seq: number; reason: string }
  /** Plans no task uses any more. */
  | { t: 'drop'; ids: number[] };

/** What happened to a run, in `HttpThreadEvents.kind`. */
export const EV_ENDED = 0;
export const EV_STARTED = 1;
export const EV_SKIPPED = 2;
export const EV_DROPPED = 3;

/** thread -> main: `{ ready: true }` once, when the thread has loaded; then the events since the last message, column by column (epoch ms for the times). */
export type FromHttpThread = { ready: true } | HttpThreadEvents;

export interface HttpThreadEvents {
  seq: number[];
  /** EV_ENDED (the outcome columns are set), EV_STARTED (a posted run started at `started`), EV_SKIPPED (`message` says why), EV_DROPPED (cancelled by the main loop). */
  kind: number[];
  status: Array<RunOutcome['status'] | null>;
  message: Array<string | null>;
  output: Array<string | null>;
  /** When the thread handed the request to undici (the run's recorded start), or when it skipped. */
  started: number[];
  ended: number[];
}

export interface HttpThreadData {
  timeoutMs: number;
  /** Int32Array over this SharedArrayBuffer: one state per slot of a posted run (SLOT_*). */
  states: SharedArrayBuffer;
}

