/**
 * The neural score's network (src/modules/firewall/train/nn-model.ts): the Scorer's forward pass equals
 * brain.js `run`; training in a worker thread on 70% of generated labelled traffic (test/helpers/
 * traffic-gen.ts through the real log parser and featuresOf) scores the held-out 30% with accuracy of
 * 0.9 or more; progress arrives; an abort rejects with AbortError and ends the thread; explain puts the
 * feature made extreme first.
 */
import brain from 'brain.js';
import { readdirSync } from 'node:fs';
import { FEATURE_NAMES, NN_HIDDEN_LAYERS } from '../../src/contracts/firewall-train.js';
import { featuresOf, toInput } from '../../src/modules/firewall/train/ip-features.js';
import { finishChunk, parseChunk } from '../../src/modules/firewall/worker/log-parser.js';
import { Scorer, trainInWorker, typicalInput, type TrainProgress, type TrainSample } from '../../src/modules/firewall/train/nn-model.js';
import { ScoringThread } from '../../src/modules/firewall/train/nn-score.thread.js';
import { COUNTERS, inputsOfCounters } from '../../src/modules/firewall/train/feature-vector.js';
import { generateTraffic, prng, TRAFFIC_BOOK_PATTERN } from '../helpers/traffic-gen.js';

const START = Date.UTC(2026, 4, 12, 9, 0, 0) / 1000; // 09:00 UTC: daytime
const MINUTES = 60;

/** Samples of generated traffic: real log lines through the real parser, then featuresOf per address. */
function samplesOf(seed: number, people: number, bots: number): Array<TrainSample & { ip: string }> {
  const { lines, labels } = generateTraffic({ seed, people, bots, host: 'books.test', start: START, minutes: MINUTES });
  const data = Buffer.from(lines.join('\n') + '\n', 'latin1');
  const first = parseChunk(data);
  const rest = finishChunk(first.state);
  const entries = [...first.batch.toEntries({ proxy_addr: '10.0.0.1' }), ...rest.batch.toEntries({ proxy_addr: '10.0.0.1' })];
  expect(entries.length).toBe(lines.length);
  const byIp = new Map<string, typeof entries>();
  for (const e of entries) {
    let l = byIp.get(e.ip);
    if (!l) byIp.set(e.ip, (l = []));
    l.push(e);
  }
  const opts = { bookPattern: TRAFFIC_BOOK_PATTERN, now: START + MINUTES * 60, windowS: MINUTES * 60 };
  return [...labels].map(([ip, label]) => ({ ip, input: toInput(featuresOf(byIp.get(ip) ?? [], opts)), output: label }));
}

/** Threads of this process (Linux): a worker thread adds some while it runs. */
const threads = () => readdirSync('/proc/self/task').length;

/** The largest difference between the Scorer (scoreMany, scoreFlat, score) and brain.js run over `inputs`. */
const worstAgainstBrain = (json: unknown, inputs: number[][]) => {
  const scorer = new Scorer(json);
  const net = new brain.NeuralNetwork().fromJSON(JSON.parse(JSON.stringify(json)));
  const many = scorer.scoreMany(inputs);
  const flat = scorer.scoreFlat(Float64Array.from(inputs.flat()));
  expect(many.length).toBe(inputs.length);
  expect(flat.length).toBe(inputs.length);
  let worst = 0;
  inputs.forEach((x, i) => {
    const want = net.run(x)[0];
    worst = Math.max(worst, Math.abs(many[i] - want), Math.abs(flat[i] - want), i % 25 === 0 ? Math.abs(scorer.score(x) - want) : 0);
  });
  return { worst, many };
};

describe('Scorer', () => {
  it('gives the same output as brain.js run (within 1e-9) on random inputs, in batches of any length', () => {
    const rnd = prng(7);
    const net = new brain.NeuralNetwork({ hiddenLayers: [...NN_HIDDEN_LAYERS], activation: 'sigmoid' });
    const data = Array.from({ length: 40 }, () => ({ input: FEATURE_NAMES.map(() => rnd()), output: [rnd() < 0.5 ? 0 : 1] }));
    net.train(data, { iterations: 3 });
    const json = net.toJSON();
    // 303 inputs: the last batch is short; values outside 0..1 too (the pass must not assume them)
    const inputs = Array.from({ length: 303 }, (_, i) => FEATURE_NAMES.map(() => (i % 10 === 0 ? rnd() * 8 - 4 : rnd())));
    const { worst, many } = worstAgainstBrain(json, inputs);
    expect(worst).toBeLessThan(1e-9);
    expect(new Set(many.map((v) => v.toFixed(6))).size).toBeGreaterThan(1);
    for (const n of [1, 2, 3, 5]) expect(worstAgainstBrain(json, inputs.slice(0, n)).worst).toBeLessThan(1e-9);
  });

  /** `n` addresses' packed counters: rows, the other counts up to them, first/last seconds apart (address 0 with no rows). */
  const packedCounters = (rnd: () => number, n: number) => {
    const counters = new Float64Array(n * COUNTERS);
    for (let i = 1; i < n; i++) {
      const p = i * COUNTERS;
      const rows = 1 + Math.floor(rnd() * 200);
      for (let k = 0; k < COUNTERS - 2; k++) counters[p + k] = Math.floor(rnd() * (rows + 1));
      counters[p] = rows;
      counters[p + COUNTERS - 2] = 1_700_000_000 + Math.floor(rnd() * 600);
      counters[p + COUNTERS - 1] = counters[p + COUNTERS - 2] + Math.floor(rnd() * 3000);
    }
    return counters;
  };
  const trainedScorer = (rnd: () => number) => {
    const net = new brain.NeuralNetwork({ hiddenLayers: [...NN_HIDDEN_LAYERS], activation: 'sigmoid' });
    net.train(Array.from({ length: 30 }, () => ({ input: FEATURE_NAMES.map(() => rnd()), output: [rnd() < 0.5 ? 0 : 1] })), { iterations: 2 });
    return new Scorer(net.toJSON());
  };

  it('ScoringThread.scoreCounters: the thread builds the inputs from packed counters (inputsOfCounters) and scores them as scoreFlat does', async () => {
    const rnd = prng(11);
    const scorer = trainedScorer(rnd);
    const counters = packedCounters(rnd, 257);
    const inputs = inputsOfCounters(counters);
    expect(Array.from(inputs.subarray(0, FEATURE_NAMES.length))).toEqual(FEATURE_NAMES.map(() => 0));
    expect(new Set(Array.from(inputs)).size).toBeGreaterThan(100);
    const want = scorer.scoreFlat(inputs);
    const thread = new ScoringThread();
    try {
      const copy = Float64Array.from(counters);
      expect(Array.from(await thread.scoreCounters('books.test\n1', scorer, copy))).toEqual(Array.from(want));
      expect(copy.length).toBe(0); // transferred
    } finally {
      await thread.close();
    }
  });

  it('ScoringThread: the same scores for several models, a view copied not transferred, and again after the thread was closed', async () => {
    const rnd = prng(9);
    const nets = [trainedScorer(rnd), trainedScorer(rnd)];
    const counters = packedCounters(rnd, 1001);
    const thread = new ScoringThread();
    try {
      for (let round = 0; round < 2; round++) {
        for (const [k, scorer] of nets.entries()) {
          const got = await thread.scoreCounters(`books.test\n${k}`, scorer, Float64Array.from(counters));
          expect(Array.from(got)).toEqual(Array.from(scorer.scoreFlat(inputsOfCounters(counters))));
        }
        // a view into a larger buffer is copied, not transferred
        const view = new Float64Array(counters.buffer, 8 * COUNTERS, 10 * COUNTERS);
        expect(Array.from(await thread.scoreCounters('books.test\n0', nets[0], view))).toEqual(Array.from(nets[0].scoreFlat(inputsOfCounters(view))));
        expect(view.length).toBe(10 * COUNTERS);
        await thread.close(); // the next round starts another thread and sends the weights again
      }
    } finally {
      await thread.close();
    }
  });

  it('refuses what is not a model', () => {
    expect(() => new Scorer({})).toThrow('Not a brain.js NeuralNetwork model');
    expect(() => new Scorer(null)).toThrow('Not a brain.js NeuralNetwork model');
  });

  it('typicalInput is the per-feature median', () => {
    expect(typicalInput([[0, 1], [1, 0], [0.5, 0.2]])).toEqual([0.5, 0.2]);
    expect(typicalInput([[0, 1], [1, 0]])).toEqual([0.5, 0.5]);
    expect(typicalInput([])).toEqual(FEATURE_NAMES.map(() => 0));
  });
});

describe('trainInWorker', () => {
  const all = samplesOf(11, 150, 100);
  // a seeded shuffle, then 70% / 30%
  const rnd = prng(3);
  const shuffled = all.map((s) => ({ s, k: rnd() })).sort((a, b) => a.k - b.k).map((x) => x.s);
  const cut = Math.round(shuffled.length * 0.7);
  const train = shuffled.slice(0, cut);
  const held = shuffled.slice(cut);

  it('the generated traffic has both labels in both parts', () => {
    for (const part of [train, held]) {
      expect(part.some((s) => s.output === 0)).toBe(true);
      expect(part.some((s) => s.output === 1)).toBe(true);
    }
  });

  it('learns from 70% of the traffic and scores the held-out 30% with accuracy >= 0.9; progress arrives; explain names the extreme feature', async () => {
    const progress: TrainProgress[] = [];
    const model = await trainInWorker(train, { iterations: 400, errorThresh: 0.01, progressEvery: 5, onProgress: (p) => progress.push(p) });
    expect(model.iterations).toBeGreaterThan(0);
    expect(model.duration_ms).toBeGreaterThanOrEqual(0);
    expect(model.error).toBeLessThan(0.05);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0].iteration).toBe(5);
    expect(progress.every((p, i) => i === 0 || p.iteration > progress[i - 1].iteration)).toBe(true);
    expect(Number.isFinite(progress[progress.length - 1].error)).toBe(true);

    const scorer = new Scorer(model.json);
    // the model from the worker is a brain.js model: brain.js scores it the same
    const { worst, many: scores } = worstAgainstBrain(model.json, held.map((s) => s.input));
    expect(worst).toBeLessThan(1e-9);
    const right = held.filter((s, i) => (scores[i] >= 0.5 ? 1 : 0) === s.output).length;
    const accuracy = right / held.length;
    expect(accuracy).toBeGreaterThanOrEqual(0.9);

    // explain: a person with a library's agent on every request; ua_library pushed the score up most
    const typical = typicalInput(train.map((s) => s.input));
    const person = held.find((s, i) => s.output === 0 && scores[i] < 0.2)!;
    expect(person).toBeDefined();
    const lib = FEATURE_NAMES.indexOf('ua_library');
    const x = person.input.slice();
    x[lib] = 1;
    const top = scorer.explain(x, typical, 3);
    expect(top.length).toBeGreaterThan(0);
    expect(top.length).toBeLessThanOrEqual(3);
    expect(top[0].feature).toBe('ua_library');
    expect(top[0].effect).toBeGreaterThan(0);
    for (let i = 1; i < top.length; i++) expect(Math.abs(top[i].effect)).toBeLessThanOrEqual(Math.abs(top[i - 1].effect));
    // the effect is the score's change when the feature goes back to the typical value
    const back = x.slice();
    back[lib] = typical[lib];
    expect(top[0].effect).toBeCloseTo(scorer.score(x) - scorer.score(back), 12);
  });

  it('an abort rejects with AbortError and ends the worker thread', async () => {
    const before = threads();
    const ctl = new AbortController();
    let seen = 0;
    // big enough to still be training when aborted
    const big = Array.from({ length: 3 }, () => train).flat();
    const p = trainInWorker(big, {
      iterations: 100_000,
      errorThresh: 1e-9,
      progressEvery: 1,
      signal: ctl.signal,
      onProgress: () => {
        if (++seen === 2) ctl.abort();
      },
    });
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toBeGreaterThanOrEqual(2);
    const after = await (async () => {
      for (let i = 0; i < 50; i++) {
        if (threads() <= before) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      return threads();
    })();
    expect(after).toBeLessThanOrEqual(before);
  });

  it('an already aborted signal rejects at once; no samples is an error', async () => {
    const ctl = new AbortController();
    ctl.abort();
    await expect(trainInWorker(train, { signal: ctl.signal })).rejects.toMatchObject({ name: 'AbortError' });
    await expect(trainInWorker([])).rejects.toThrow('No samples to train on');
  });
});
