/**
 * The neural score's network (issue 9, 000 §9): training in a worker thread and scoring with a trained
 * model's JSON. Pure library: no Nest.
 *
 * Training: brain.js `NeuralNetwork#train` is synchronous (~165 ms per iteration on 2,000 samples), so it
 * never runs on the main thread: `trainInWorker` starts a worker thread whose code is a small CommonJS
 * script given inline (`eval: true`) that requires brain.js by its resolved path. It needs no
 * TypeScript and no file beside this module, so the same code runs from dist/ and under Jest. Progress
 * comes from brain.js's `callback` every `callbackPeriod` iterations; cancelling terminates the thread.
 *
 * Scoring: `Scorer` runs the forward pass itself over the weights of `toJSON()` in flat typed arrays,
 * a few inputs at a time, with brain.js's Float32 rounding of weights, biases and layer outputs and its
 * summation order, so its outputs equal brain.js `run` (unit test) at about three times its speed
 * (bench/firewall-train.ts). `ScoringThread` runs it in a worker thread for whole hosts.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { FEATURE_NAMES, NN_ACTIVATION, NN_ERROR_THRESHOLD, NN_HIDDEN_LAYERS, NN_ITERATIONS, type FeatureEffect } from '../../../contracts/firewall-train.js';

export interface TrainSample {
  input: number[];
  output: number;
}

export interface TrainProgress {
  iteration: number;
  error: number;
}

export interface TrainedModel {
  /** brain.js NeuralNetwork#toJSON(). */
  json: unknown;
  error: number;
  iterations: number;
  duration_ms: number;
}

export interface TrainOptions {
  onProgress?: (p: TrainProgress) => void;
  signal?: AbortSignal;
  iterations?: number;
  errorThresh?: number;
  /** Iterations between progress reports (brain.js callbackPeriod); default 10. */
  progressEvery?: number;
}

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const brain = require(workerData.brain);
const net = new brain.NeuralNetwork({ hiddenLayers: workerData.hiddenLayers, activation: workerData.activation });
const data = workerData.samples.map((s) => ({ input: s.input, output: [s.output] }));
const t0 = Date.now();
const r = net.train(data, {
  iterations: workerData.iterations,
  errorThresh: workerData.errorThresh,
  callback: (s) => parentPort.postMessage({ type: 'progress', iteration: s.iterations, error: s.error }),
  callbackPeriod: workerData.progressEvery,
});
parentPort.postMessage({ type: 'done', json: net.toJSON(), error: r.error, iterations: r.iterations, duration_ms: Date.now() - t0 });
`;

let brainPath: string | null = null;
const brainModule = () => (brainPath ??= createRequire(import.meta.url).resolve('brain.js'));

const abortError = () => {
  const e = new Error('Training cancelled');
  e.name = 'AbortError';
  return e;
};

const messageOf = (e: unknown) => (e && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string' ? (e as { message: string }).message : String(e));

/**
 * Trains a brain.js NeuralNetwork (hiddenLayers NN_HIDDEN_LAYERS, activation NN_ACTIVATION, iterations
 * NN_ITERATIONS, errorThresh NN_ERROR_THRESHOLD unless overridden) in a worker thread; progress every
 * `progressEvery` iterations; rejects with an Error whose name is 'AbortError' when the signal aborts
 * (the worker is terminated).
 */
export function trainInWorker(samples: TrainSample[], opts: TrainOptions = {}): Promise<TrainedModel> {
  if (opts.signal?.aborted) return Promise.reject(abortError());
  if (!samples.length) return Promise.reject(new Error('No samples to train on'));
  return new Promise<TrainedModel>((resolve, reject) => {
    const worker = new Worker(WORKER, {
      eval: true,
      name: 'nn-train',
      workerData: {
        brain: brainModule(),
        hiddenLayers: [...NN_HIDDEN_LAYERS],
        activation: NN_ACTIVATION,
        iterations: opts.iterations ?? NN_ITERATIONS,
        errorThresh: opts.errorThresh ?? NN_ERROR_THRESHOLD,
        progressEvery: Math.max(1, Math.floor(opts.progressEvery ?? 10)),
        samples: samples.map((s) => ({ input: s.input, output: s.output })),
      },
    });
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      opts.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = () => finish(() => {
      // terminate() stops the thread even in the middle of the synchronous train()
      void worker.terminate().finally(() => reject(abortError()));
    });
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (m: { type: 'progress'; iteration: number; error: number } | ({ type: 'done' } & TrainedModel)) => {
      if (settled) return;
      if (m.type === 'progress') {
        try {
          opts.onProgress?.({ iteration: m.iteration, error: m.error });
        } catch {
          // a listener's failure does not stop training
        }
      } else {
        finish(() => {
          resolve({ json: m.json, error: m.error, iterations: m.iterations, duration_ms: m.duration_ms });
          void worker.terminate();
        });
      }
    });
    worker.on('error', (e) => finish(() => reject(new Error(`Training failed: ${messageOf(e)}`))));
    worker.on('exit', (code) => finish(() => reject(new Error(`Training worker exited (code ${code})`))));
  });
}

interface NetJson {
  sizes: number[];
  layers: Array<Record<string, { bias?: number; weights?: Record<string, number> }>>;
  activation?: string;
}

/** Inputs scored together in the batched pass (each weight read once for all of them; the pass is written for 4). */
const BATCH = 4;

/** Models the scoring thread keeps (nn-score.worker.ts; the oldest dropped first, the caller sends a dropped one again). */
export const SCORE_THREAD_MODELS = 32;

/** A Scorer's weights as typed arrays (what goes to the scoring thread: copied, no JSON). */
export interface ScorerWeights {
  kind: 'scorer-weights';
  sizes: number[];
  /** Per layer from 1 (index 0 empty): weights row-major [node][k], biases [node]. */
  weights: Float64Array[];
  biases: Float64Array[];
}

/**
 * Scoring with a trained model's JSON (brain.js NeuralNetwork#toJSON(), sigmoid): the forward pass of
 * brain.js's `_runInputSigmoid`, batched. The weights are brain.js's Float32 values held in flat
 * Float64Arrays (the same numbers), each sum starts at the bias and adds weight × input in brain.js's
 * order, and each layer's output is rounded to Float32 (Math.fround) as brain.js stores it, so every
 * output equals brain.js `run` (test/unit/nn-model.spec.ts). BATCH inputs go through a layer together:
 * a weight is read once for all of them (bench/firewall-train.ts has the figures beside brain.js).
 */
export class Scorer {
  readonly inputSize: number;
  private readonly sizes: number[];
  /** Per layer (from 1): weights row-major [node][k], biases [node]. */
  private readonly weights: Float64Array[] = [];
  private readonly biases: Float64Array[] = [];
  /** Widest layer: the stride of one input's activations in the work buffers. */
  private readonly width: number;
  private a: Float64Array;
  private b: Float64Array;

  /** A brain.js model's JSON, or the weights of another Scorer (`exportWeights()`). */
  constructor(json: unknown) {
    const wj = json as ScorerWeights | null;
    if (wj && wj.kind === 'scorer-weights') {
      this.sizes = [...wj.sizes];
      this.inputSize = this.sizes[0];
      for (let l = 1; l < this.sizes.length; l++) {
        this.weights[l] = Float64Array.from(wj.weights[l]);
        this.biases[l] = Float64Array.from(wj.biases[l]);
      }
      this.width = Math.max(...this.sizes);
      this.a = new Float64Array(BATCH * this.width);
      this.b = new Float64Array(BATCH * this.width);
      return;
    }
    const j = json as NetJson;
    if (!j || !Array.isArray(j.sizes) || !Array.isArray(j.layers) || j.layers.length !== j.sizes.length || j.sizes.length < 2) {
      throw new Error('Not a brain.js NeuralNetwork model');
    }
    if (j.activation && j.activation !== 'sigmoid') throw new Error(`Unsupported activation ${j.activation} (sigmoid only)`);
    this.sizes = j.sizes.map(Number);
    this.inputSize = this.sizes[0];
    for (let l = 1; l < this.sizes.length; l++) {
      const n = this.sizes[l];
      const prev = this.sizes[l - 1];
      const w = new Float64Array(n * prev);
      const b = new Float64Array(n);
      const layer = j.layers[l];
      for (let node = 0; node < n; node++) {
        const cell = layer[String(node)];
        if (!cell || !cell.weights) throw new Error(`Model layer ${l} node ${node} is missing`);
        // brain.js keeps weights and biases in Float32Arrays
        b[node] = Math.fround(Number(cell.bias ?? 0));
        for (let k = 0; k < prev; k++) w[node * prev + k] = Math.fround(Number(cell.weights[String(k)] ?? 0));
      }
      this.weights[l] = w;
      this.biases[l] = b;
    }
    this.width = Math.max(...this.sizes);
    this.a = new Float64Array(BATCH * this.width);
    this.b = new Float64Array(BATCH * this.width);
  }

  /** The weights as typed arrays (for `new Scorer(weights)` elsewhere, e.g. in the scoring thread). */
  exportWeights(): ScorerWeights {
    return { kind: 'scorer-weights', sizes: [...this.sizes], weights: [new Float64Array(0), ...this.weights.slice(1)], biases: [new Float64Array(0), ...this.biases.slice(1)] };
  }

  /** The network's output (0..1) for one input (FEATURE_NAMES order). */
  score(input: ArrayLike<number>): number {
    const x = new Float64Array(this.inputSize);
    for (let k = 0; k < this.inputSize; k++) x[k] = input[k] ?? 0;
    return this.scoreFlat(x)[0];
  }

  scoreMany(inputs: ArrayLike<number>[]): number[] {
    const n = this.inputSize;
    const flat = new Float64Array(inputs.length * n);
    for (let i = 0; i < inputs.length; i++) for (let k = 0; k < n; k++) flat[i * n + k] = inputs[i][k] ?? 0;
    return Array.from(this.scoreFlat(flat));
  }

  /** Outputs of `flat.length / inputSize` inputs stored one after another (row-major), in that order. */
  scoreFlat(flat: Float64Array): Float64Array {
    const inSize = this.inputSize;
    const count = Math.floor(flat.length / inSize);
    const out = new Float64Array(count);
    const W = this.width;
    const L = this.sizes.length;
    const fround = Math.fround;
    for (let i0 = 0; i0 < count; i0 += BATCH) {
      const m = Math.min(BATCH, count - i0);
      let x = this.a;
      let y = this.b;
      for (let j = 0; j < BATCH; j++) {
        const src = (i0 + (j < m ? j : 0)) * inSize; // a short last batch repeats its first input
        for (let k = 0; k < inSize; k++) x[j * W + k] = flat[src + k];
      }
      for (let l = 1; l < L; l++) {
        const n = this.sizes[l];
        const prev = this.sizes[l - 1];
        const w = this.weights[l];
        const bias = this.biases[l];
        for (let node = 0; node < n; node++) {
          const o = node * prev;
          let s0 = bias[node];
          let s1 = s0;
          let s2 = s0;
          let s3 = s0;
          for (let k = 0; k < prev; k++) {
            const wk = w[o + k];
            s0 += wk * x[k];
            s1 += wk * x[W + k];
            s2 += wk * x[2 * W + k];
            s3 += wk * x[3 * W + k];
          }
          y[node] = fround(1 / (1 + Math.exp(-s0)));
          y[W + node] = fround(1 / (1 + Math.exp(-s1)));
          y[2 * W + node] = fround(1 / (1 + Math.exp(-s2)));
          y[3 * W + node] = fround(1 / (1 + Math.exp(-s3)));
        }
        const t = x;
        x = y;
        y = t;
      }
      for (let j = 0; j < m; j++) out[i0 + j] = x[j * W];
    }
    return out;
  }

  /**
   * Each feature's part in the score: score(input) - score(input with that feature set to `typical`),
   * the topN largest by absolute effect, largest first, sign kept (positive: the feature pushed the
   * score up). Features whose value is the typical one (effect 0) are left out.
   */
  explain(input: number[], typical: number[], topN = 5): FeatureEffect[] {
    const base = this.score(input);
    const x = input.slice();
    const effects: FeatureEffect[] = [];
    for (let i = 0; i < FEATURE_NAMES.length && i < x.length; i++) {
      const t = typical[i] ?? 0;
      if (x[i] === t) continue;
      x[i] = t;
      const effect = base - this.score(x);
      x[i] = input[i];
      if (effect !== 0) effects.push({ feature: FEATURE_NAMES[i], effect });
    }
    effects.sort((a, b) => Math.abs(b.effect) - Math.abs(a.effect));
    return effects.slice(0, Math.max(0, topN));
  }
}

/** The typical input of a host: per-feature median of the inputs (zeros when there are none). */
export function typicalInput(inputs: number[][]): number[] {
  let width = inputs.length ? 0 : FEATURE_NAMES.length;
  for (const v of inputs) if (v.length > width) width = v.length;
  const out = new Array<number>(width).fill(0);
  if (!inputs.length) return out;
  const col = new Float64Array(inputs.length);
  for (let i = 0; i < width; i++) {
    for (let j = 0; j < inputs.length; j++) col[j] = inputs[j][i] ?? 0;
    col.sort();
    const m = col.length >> 1;
    out[i] = col.length % 2 ? col[m] : (col[m - 1] + col[m]) / 2;
  }
  return out;
}
