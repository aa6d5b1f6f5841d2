/**
 * The price forecast of item.getChartBrain (001 §3 item chart data, §7; docs/wb.md "The forecast"):
 * a brain.js NeuralNetwork that reads a card's paid price (retail_amount / pieces) of `step` days and
 * predicts the next day's. Pure library: no Nest.
 *
 * - The series: one value a day from the first to the last day with a sale; a day without a sale
 *   carries the last known price (the price did not change because nobody bought).
 * - Scaling: min-max into [0.1, 0.9] (sigmoid outputs), back to rubles for the answer.
 * - Samples: every window of `step` days and the day after it. The last max(7, 20 %) samples are held
 *   out: the network never trains on them; its error on them (MAE in rubles, MAPE in percent) is what
 *   the answer reports, beside the error of "tomorrow's price = today's" on the same days.
 * - Training runs in a worker thread (brain.js `train()` is synchronous), like the firewall's network
 *   (src/modules/firewall/train/nn-model.ts): an inline CommonJS script that requires brain.js by its
 *   resolved path. The thread predicts every day from the `step` days before it (one day ahead, with
 *   the real history) and then WB_BRAIN_HORIZON days past the end, each from the predictions before it.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export const BRAIN_HIDDEN = [16, 8];
export const BRAIN_ITERATIONS = 3000;
export const BRAIN_ERROR_THRESH = 0.0004;
export const BRAIN_LEARNING_RATE = 0.3;
/** At least this many samples are held out, and at least this many train. */
export const BRAIN_MIN_HELD_OUT = 7;
export const BRAIN_MIN_TRAIN = 14;

export interface PricePoint {
  day: string;
  /** Average retail_price of the day's sales (rubles), null on a day without a sale. */
  price: number | null;
  /** Average paid price of the day's sales (rubles), null on a day without a sale. */
  paid: number | null;
}

export interface BrainRun {
  /** One-day-ahead predictions, aligned to `series` (null for the first `step` days). */
  predicted: Array<number | null>;
  /** The days after the last one. */
  forecast: number[];
  samples: number;
  held_out: number;
  mae: number;
  mape: number;
  naive_mae: number;
  iterations: number;
  train_error: number;
  duration_ms: number;
}

/** The continuous daily series (carry forward on days without a sale) of the paid price. */
export function continuous(points: PricePoint[]): { days: string[]; values: number[]; price: Array<number | null>; paid: Array<number | null> } {
  const sorted = points.filter((p) => p.paid !== null).sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
  if (!sorted.length) return { days: [], values: [], price: [], paid: [] };
  const byDay = new Map(sorted.map((p) => [p.day, p]));
  const days: string[] = [];
  const values: number[] = [];
  const price: Array<number | null> = [];
  const paid: Array<number | null> = [];
  let last = sorted[0].paid!;
  const end = sorted[sorted.length - 1].day;
  for (let d = sorted[0].day; d <= end; d = new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)) {
    const p = byDay.get(d);
    if (p?.paid !== undefined && p.paid !== null) last = p.paid;
    days.push(d);
    values.push(last);
    price.push(p?.price ?? null);
    paid.push(p?.paid ?? null);
  }
  return { days, values, price, paid };
}

/** How many samples a series of `n` days gives with windows of `step`, and how many are held out. */
export function split(n: number, step: number): { samples: number; heldOut: number } {
  const samples = Math.max(0, n - step);
  const heldOut = Math.max(BRAIN_MIN_HELD_OUT, Math.round(samples * 0.2));
  return { samples, heldOut };
}

export const enoughHistory = (n: number, step: number) => {
  const s = split(n, step);
  return s.samples - s.heldOut >= BRAIN_MIN_TRAIN;
};

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const brain = require(workerData.brain);
const { values, step, heldOut, horizon } = workerData;
let lo = Infinity, hi = -Infinity;
for (const v of values) { if (v < lo) lo = v; if (v > hi) hi = v; }
const span = hi > lo ? hi - lo : Math.max(1, Math.abs(lo) * 0.1);
const sc = (v) => 0.1 + 0.8 * (v - lo) / span;
const un = (x) => lo + (x - 0.1) / 0.8 * span;
const x = values.map(sc);
const samples = [];
for (let t = step; t < x.length; t++) samples.push({ input: x.slice(t - step, t), output: [x[t]] });
const train = samples.slice(0, samples.length - heldOut);
const net = new brain.NeuralNetwork({ hiddenLayers: workerData.hidden, activation: 'sigmoid', learningRate: workerData.learningRate });
const t0 = Date.now();
const r = net.train(train, { iterations: workerData.iterations, errorThresh: workerData.errorThresh, learningRate: workerData.learningRate });
const predicted = values.map(() => null);
for (let t = step; t < x.length; t++) predicted[t] = un(net.run(x.slice(t - step, t))[0]);
let ae = 0, ape = 0, naive = 0;
for (let t = x.length - heldOut; t < x.length; t++) {
  ae += Math.abs(predicted[t] - values[t]);
  ape += values[t] !== 0 ? Math.abs(predicted[t] - values[t]) / Math.abs(values[t]) : 0;
  naive += Math.abs(values[t - 1] - values[t]);
}
const hist = x.slice();
const forecast = [];
for (let h = 0; h < horizon; h++) {
  const next = net.run(hist.slice(hist.length - step))[0];
  hist.push(next);
  forecast.push(un(next));
}
parentPort.postMessage({ predicted, forecast, samples: samples.length, held_out: heldOut, mae: ae / heldOut, mape: ape / heldOut * 100, naive_mae: naive / heldOut, iterations: r.iterations, train_error: r.error, duration_ms: Date.now() - t0 });
`;

let brainPath: string | null = null;
const brainModule = () => (brainPath ??= createRequire(import.meta.url).resolve('brain.js'));

/** Trains and predicts in a worker thread (module comment). `values`: the continuous series; needs enoughHistory. */
export function runPriceBrain(values: number[], step: number, horizon: number, opts: { iterations?: number; errorThresh?: number; signal?: AbortSignal } = {}): Promise<BrainRun> {
  const { heldOut } = split(values.length, step);
  if (!enoughHistory(values.length, step)) return Promise.reject(new Error('Not enough price history for a forecast'));
  return new Promise<BrainRun>((resolve, reject) => {
    const worker = new Worker(WORKER, {
      eval: true,
      name: 'wb-price-brain',
      workerData: { brain: brainModule(), values, step, heldOut, horizon, hidden: BRAIN_HIDDEN, iterations: opts.iterations ?? BRAIN_ITERATIONS, errorThresh: opts.errorThresh ?? BRAIN_ERROR_THRESH, learningRate: BRAIN_LEARNING_RATE },
    });
    let done = false;
    const finish = (fn: () => void) => {
      if (done) return;
      done = true;
      opts.signal?.removeEventListener('abort', onAbort);
      fn();
      void worker.terminate();
    };
    const onAbort = () => finish(() => reject(Object.assign(new Error('Training cancelled'), { name: 'AbortError' })));
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (m: BrainRun) => finish(() => resolve(m)));
    worker.on('error', (e) => finish(() => reject(new Error(`Training failed: ${e instanceof Error ? e.message : String(e)}`))));
    worker.on('exit', (code) => finish(() => reject(new Error(`Training worker exited (code ${code})`))));
  });
}
