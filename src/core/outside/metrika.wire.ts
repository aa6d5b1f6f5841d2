/**
 * Yandex Metrika's Reporting API answers (EXTERNAL-APIS.md "Yandex Metrika Reporting API"; the Metrika
 * API documentation, stat/openapi pages "data" and "bytime"): only the fields the console reads are
 * checked, the rest pass unseen (the documentation marks this version superseded: parse tolerantly).
 *
 * - `GET /stat/v1/data` -> `{query, data: [{dimensions: [{name, ...}], metrics: [n]}], total_rows,
 *   sampled, totals: [n], ...}`;
 * - `GET /stat/v1/data/bytime` -> `{query, data: [{dimensions, metrics: [[n per interval], ...]}],
 *   time_intervals: [[from, to], ...], totals: [[n per interval], ...]}`;
 * - errors `{errors: [{error_type, message}], code, message}`.
 */
import { z } from 'zod';

/** A metric value: a number, or null where Metrika has none (counted as 0). */
const value = z.union([z.number(), z.null()]).transform((v) => (v === null || !Number.isFinite(v) ? 0 : v));
const dimension = z.object({ name: z.union([z.string(), z.number(), z.null()]).optional(), id: z.union([z.string(), z.number(), z.null()]).optional() }).passthrough();

export const MetrikaDataWire = z.object({
  data: z.array(z.object({ dimensions: z.array(dimension), metrics: z.array(value) }).passthrough()),
  totals: z.array(value).optional(),
  total_rows: z.number().optional(),
  sampled: z.boolean().optional(),
}).passthrough();
export type MetrikaData = z.output<typeof MetrikaDataWire>;

export const MetrikaByTimeWire = z.object({
  data: z.array(z.object({ dimensions: z.array(dimension), metrics: z.array(z.array(value)) }).passthrough()),
  time_intervals: z.array(z.array(z.string()).min(1)).optional(),
  totals: z.array(z.array(value)).optional(),
}).passthrough();
export type MetrikaByTime = z.output<typeof MetrikaByTimeWire>;

export const MetrikaErrorWire = z.object({
  errors: z.array(z.object({ error_type: z.string().optional(), message: z.string().optional() }).passthrough()).optional(),
  code: z.union([z.number(), z.string()]).optional(),
  message: z.string().optional(),
}).passthrough();

/** A drawn point series per metric: [ms at the period's start, value]. */
export interface MetrikaSeries {
  metric: string;
  points: Array<[number, number]>;
}

/** Metrika's local time strings ('2026-11-20' or '2026-11-20 13:00:00') as UTC ms (the console draws UTC). */
export function metrikaTime(s: string): number {
  const t = Date.parse(s.length <= 10 ? `${s}T00:00:00Z` : `${s.replace(' ', 'T')}Z`);
  return Number.isNaN(t) ? NaN : t;
}

/** /stat/v1/data with dimensions=ym:s:date: one row per date -> a series per metric, by date. */
export function seriesOfData(d: MetrikaData, metrics: string[]): MetrikaSeries[] {
  const rows = d.data
    .map((r) => ({ t: metrikaTime(String(r.dimensions[0]?.name ?? r.dimensions[0]?.id ?? '')), m: r.metrics }))
    .filter((r) => Number.isFinite(r.t))
    .sort((a, b) => a.t - b.t);
  return metrics.map((metric, i) => ({ metric, points: rows.map((r): [number, number] => [r.t, r.m[i] ?? 0]) }));
}

/**
 * /stat/v1/data/bytime: the points of each metric over `time_intervals` (the start of each); without
 * intervals (an older answer), one per `stepMs` from `fromMs`. Several rows (dimensions) are summed.
 */
export function seriesOfByTime(d: MetrikaByTime, metrics: string[], fromMs: number, stepMs: number): MetrikaSeries[] {
  const n = Math.max(0, ...d.data.map((r) => Math.max(0, ...r.metrics.map((m) => m.length))), ...(d.totals ?? []).map((t) => t.length));
  const times = d.time_intervals?.length ? d.time_intervals.map((iv) => metrikaTime(iv[0])) : Array.from({ length: n }, (_, i) => fromMs + i * stepMs);
  return metrics.map((metric, mi) => {
    const sum = new Array<number>(times.length).fill(0);
    if (d.data.length) for (const r of d.data) (r.metrics[mi] ?? []).forEach((v, k) => { if (k < sum.length) sum[k] += v; });
    else (d.totals?.[mi] ?? []).forEach((v, k) => { if (k < sum.length) sum[k] = v; });
    return { metric, points: times.map((t, k): [number, number] => [t, sum[k]]).filter(([t]) => Number.isFinite(t)) };
  });
}
