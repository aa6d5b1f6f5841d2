/**
 * The neural score's forward pass in a worker thread (nn-score.worker.ts), so that scoring a whole host
 * (tens of thousands of addresses, a few hundred ms of pure CPU) leaves the event loop free. One thread,
 * started on first use and kept (unref'd while idle); calls queue in order. What goes over is one
 * transferred Float64Array, the packed counters of loadCounters: the thread builds the inputs, so the
 * main thread makes no vector at all; the scores come back the same way. A model's weights go once per key (the thread
 * keeps SCORE_THREAD_MODELS of them, the oldest dropped first, mirrored here). A thread that dies fails
 * its pending calls; the next call starts another.
 */
import { Worker } from 'node:worker_threads';
import { messageOf, resolveWorkerScript } from '../../../core/worker-script.js';
import { SCORE_THREAD_MODELS, type Scorer } from './nn-model.js';
import type { ScoreReply, ScoreRequest } from './nn-score.worker.js';

interface Pending {
  worker: Worker;
  resolve: (s: Float64Array) => void;
  reject: (e: Error) => void;
}

export class ScoringThread {
  private worker: Worker | null = null;
  /** The keys the thread holds, oldest first (the same operations as the thread's own map). */
  private readonly held = new Map<string, true>();
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private readonly workerUrl: URL;

  constructor(workerUrl?: URL) {
    this.workerUrl = workerUrl ?? resolveWorkerScript('nn-score.worker', import.meta.url);
  }

  /**
   * The scores of addresses from their packed counters (CounterTable.counters: COUNTERS numbers an
   * address), the same numbers as scorer.scoreFlat(inputsOfCounters(counters)). `key` names the model
   * (host and version): a new key sends its weights. `counters` is transferred (detached here) when it
   * owns its whole buffer, else copied.
   */
  scoreCounters(key: string, scorer: Scorer, counters: Float64Array): Promise<Float64Array> {
    const worker = this.worker ?? this.spawn();
    const own = counters.byteOffset === 0 && counters.byteLength === counters.buffer.byteLength && !(counters.buffer instanceof SharedArrayBuffer);
    const data = own ? counters : Float64Array.from(counters);
    const req: ScoreRequest = { id: this.nextId++, key, counters: data };
    if (!this.held.has(key)) {
      req.weights = scorer.exportWeights();
      this.held.set(key, true);
      if (this.held.size > SCORE_THREAD_MODELS) this.held.delete(this.held.keys().next().value!);
    }
    return new Promise<Float64Array>((resolve, reject) => {
      this.pending.set(req.id, { worker, resolve, reject });
      worker.ref();
      worker.postMessage(req, [data.buffer as ArrayBuffer]);
    });
  }

  /** Stops the thread (pending calls fail). */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }

  private spawn(): Worker {
    const worker = new Worker(this.workerUrl, { name: 'nn-score' });
    this.worker = worker;
    this.held.clear();
    worker.unref();
    worker.on('message', (m: ScoreReply) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (![...this.pending.values()].some((q) => q.worker === worker)) worker.unref();
      if (m.ok) p.resolve(m.scores);
      else p.reject(new Error(`scoring failed: ${m.error}`));
    });
    const fail = (err: Error) => {
      if (this.worker === worker) {
        this.worker = null;
        this.held.clear();
      }
      for (const [id, p] of this.pending) {
        if (p.worker !== worker) continue;
        this.pending.delete(id);
        p.reject(err);
      }
    };
    worker.on('error', (e) => fail(new Error(`scoring thread failed: ${messageOf(e)}`)));
    worker.on('exit', (code) => fail(new Error(`scoring thread exited (code ${code})`)));
    return worker;
  }
}
