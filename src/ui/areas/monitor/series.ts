import type { ChartItem } from '../../../contracts/monitoring.js';

/** Dashed lines at the colour thresholds of 000 §9 (above 10 green, above 20 amber, above 30 red). */
export const LOAD_LINES = [
  { value: 10, colour: '#198754' },
  { value: 20, colour: '#fd7e14' },
  { value: 30, colour: '#dc3545' },
] as const;

type Num = number | null;

/**
 * The columns of a chart's rows by their head names (time, avg, min, max), falling back to the
 * positions the contract gives ([time ms, avg, min, max]).
 */
export function chartColumns(item: ChartItem): { avg: Array<[number, Num]>; band: Array<[number, Num, Num]> | null; points: number; last: number | null } {
  const head = item.chart.head.map((h) => h.toLowerCase());
  const at = (names: string[], fallback: number) => {
    const i = head.findIndex((h) => names.includes(h));
    return i >= 0 ? i : fallback;
  };
  const t = at(['time', 'ts', 'date'], 0);
  const a = at(['avg', 'average', 'la1', 'load'], 1);
  const lo = at(['min'], 2);
  const hi = at(['max'], 3);
  const rows = item.chart.body.filter((r) => typeof r[t] === 'number');
  const avg = rows.map((r) => [r[t] as number, r[a] ?? null] as [number, Num]);
  const band = item.tier === 'minute' ? null : rows.map((r) => [r[t] as number, r[lo] ?? null, r[hi] ?? null] as [number, Num, Num]);
  return { avg, band, points: rows.length, last: rows.length ? (rows[rows.length - 1][t] as number) : null };
}

/** True when no row of the range has a value (the server was never read in it). */
export const hasData = (item: ChartItem): boolean => chartColumns(item).avg.some(([, v]) => v !== null);
