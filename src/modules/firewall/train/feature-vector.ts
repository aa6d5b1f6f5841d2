/**
 * Counters to the network's input (the transforms of the table in ip-features.ts's header): the one
 * place where an address's summed counters become its 16 feature values. Pure and free of Nest and
 * TypeORM, so the scoring thread (nn-score.worker.ts) runs the same code as the main thread: the main
 * thread only reads and packs the counters (COUNTERS numbers an address in a Float64Array, transferred),
 * the thread builds the inputs and runs the forward pass.
 */
import { FEATURE_NAMES } from '../../../contracts/firewall-train.js';

/** The counter columns of fw_ip_feature_minutes / fw_ip_feature_sums, in table order (also the packed order). */
export const COUNTER_COLUMNS = [
  'n', 'nonstatic', 'busy_s', 'urls', 'c4xx', 'c5xx', 'static', 'empty_ref', 'ua_missing', 'ua_library', 'ua_bot', 'agents', 'head_post',
  'rt_sum', 'rt_n', 'night', 'depth_sum', 'books', 'first_stime', 'last_stime',
] as const;
/** Numbers per address in a packed counter array. */
export const COUNTERS = COUNTER_COLUMNS.length;
/** Values per input (FEATURE_NAMES order). */
export const INPUT_SIZE = FEATURE_NAMES.length;

/** Positions of the counters in a packed row (COUNTER_COLUMNS order). */
const C = {
  n: 0, nonstatic: 1, busy_s: 2, urls: 3, c4xx: 4, c5xx: 5, static_: 6, empty_ref: 7, ua_missing: 8, ua_library: 9, ua_bot: 10, agents: 11, head_post: 12, rt_sum: 13, rt_n: 14, night: 15, depth_sum: 16, books: 17, first_stime: 18, last_stime: 19,
} as const;

/** Caps of the transforms (ip-features.ts header). */
const RATE_CAP = 600;
const BOOKS_CAP = 60;
const RT_CAP_MS = 10_000;
const DEPTH_CAP = 10;
const AGENTS_CAP = 10;

const logScale = (x: number, cap: number) => (x <= 0 ? 0 : Math.min(1, Math.log1p(x) / Math.log1p(cap)));
const clamp01 = (x: number) => (x > 0 ? (x < 1 ? x : 1) : 0);

const at = (name: (typeof FEATURE_NAMES)[number]) => FEATURE_NAMES.indexOf(name);
const F_RATE = at('rate');
const F_BURST = at('burst');
const F_URLS = at('distinct_urls');
const F_4XX = at('share_4xx');
const F_5XX = at('share_5xx');
const F_STATIC = at('share_static');
const F_EREF = at('empty_ref');
const F_UAM = at('ua_missing');
const F_UAL = at('ua_library');
const F_UAB = at('ua_bot');
const F_AGENTS = at('agents_per_ip');
const F_HP = at('head_post');
const F_RT = at('request_time');
const F_NIGHT = at('night');
const F_DEPTH = at('url_depth');
const F_BOOKS = at('books_per_min');

/**
 * Writes the input of the counters at c[p .. p + COUNTERS) (COUNTER_COLUMNS order: sums of minutes,
 * agents the most of one minute, first/last the oldest and newest second) to out[o .. o + INPUT_SIZE)
 * in FEATURE_NAMES order. No rows (n = 0): every value 0.
 */
export function writeInput(c: ArrayLike<number>, p: number, out: { [i: number]: number }, o: number): void {
  const n = c[p + C.n];
  if (!n) {
    for (let k = 0; k < INPUT_SIZE; k++) out[o + k] = 0;
    return;
  }
  const minutes = Math.max(1, (c[p + C.last_stime] - c[p + C.first_stime]) / 60);
  const nonstatic = c[p + C.nonstatic];
  const rtN = c[p + C.rt_n];
  out[o + F_RATE] = logScale(n / minutes, RATE_CAP);
  out[o + F_BURST] = nonstatic ? clamp01((nonstatic - c[p + C.busy_s]) / nonstatic) : 0;
  out[o + F_URLS] = clamp01(c[p + C.urls] / n);
  out[o + F_4XX] = clamp01(c[p + C.c4xx] / n);
  out[o + F_5XX] = clamp01(c[p + C.c5xx] / n);
  out[o + F_STATIC] = clamp01(c[p + C.static_] / n);
  out[o + F_EREF] = clamp01(c[p + C.empty_ref] / n);
  out[o + F_UAM] = clamp01(c[p + C.ua_missing] / n);
  out[o + F_UAL] = clamp01(c[p + C.ua_library] / n);
  out[o + F_UAB] = clamp01(c[p + C.ua_bot] / n);
  out[o + F_AGENTS] = clamp01((c[p + C.agents] - 1) / (AGENTS_CAP - 1));
  out[o + F_HP] = clamp01(c[p + C.head_post] / n);
  out[o + F_RT] = rtN ? logScale((c[p + C.rt_sum] / rtN) * 1000, RT_CAP_MS) : 0;
  out[o + F_NIGHT] = clamp01(c[p + C.night] / n);
  out[o + F_DEPTH] = clamp01(c[p + C.depth_sum] / n / DEPTH_CAP);
  out[o + F_BOOKS] = logScale(c[p + C.books] / minutes, BOOKS_CAP);
}

/** The inputs (INPUT_SIZE an address, FEATURE_NAMES order) of packed counters (COUNTERS an address). */
export function inputsOfCounters(counters: Float64Array): Float64Array {
  const count = Math.floor(counters.length / COUNTERS);
  const out = new Float64Array(count * INPUT_SIZE);
  for (let i = 0; i < count; i++) writeInput(counters, i * COUNTERS, out, i * INPUT_SIZE);
  return out;
}
