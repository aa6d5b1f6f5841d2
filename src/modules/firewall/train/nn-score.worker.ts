/**
 * Worker thread of ScoringThread (nn-score.thread.ts): scores a whole host's addresses off the main event
 * loop. What arrives transferred (one Float64Array) is the addresses' packed counters (CounterTable of
 * ip-features.ts), whose inputs are built here
 * (inputsOfCounters, feature-vector.ts: the same code as the main thread's vectors); the scores go back
 * transferred. A model's weights come once and are kept by key (the host and model version).
 */
import { parentPort } from 'node:worker_threads';
import { inputsOfCounters } from './feature-vector.js';
import { SCORE_THREAD_MODELS, Scorer, type ScorerWeights } from './nn-model.js';

export interface ScoreRequest {
  id: number;
  key: string;
  /** Sent when this thread has not got the key yet. */
  weights?: ScorerWeights;
  /** The packed counters (COUNTERS an address) to build the inputs from. */
  counters: Float64Array;
}

export type ScoreReply = { id: number; ok: true; scores: Float64Array } | { id: number; ok: false; error: string };

const port = parentPort;
if (!port) throw new Error('nn-score.worker must run in a worker thread');

const models = new Map<string, Scorer>();

port.on('message', (m: ScoreRequest) => {
  let reply: ScoreReply;
  let transfer: ArrayBuffer[] = [];
  try {
    if (m.weights) {
      models.delete(m.key);
      models.set(m.key, new Scorer(m.weights));
      if (models.size > SCORE_THREAD_MODELS) models.delete(models.keys().next().value!);
    }
    const scorer = models.get(m.key);
    if (!scorer) throw new Error(`model ${m.key} is not loaded`);
    const scores = scorer.scoreFlat(inputsOfCounters(m.counters));
    reply = { id: m.id, ok: true, scores };
    transfer = [scores.buffer as ArrayBuffer];
  } catch (e) {
    reply = { id: m.id, ok: false, error: e instanceof Error ? e.message : String(e) };
  }
  port.postMessage(reply, transfer);
});
