/**
 * The time grid of a report chart (docs/report.md "Range and detail"): pure functions, unit-tested in
 * test/unit/report.spec.ts. Times are UTC ms; weeks start on Monday.
 */
import { boundsFor, toneOf, type ReportCell, type ReportSeries } from '../../contracts/report.js';

export const HOUR = 3_600_000;
export const DAY = 86_400_000;
export const WEEK = 7 * DAY;
/** 1970-01-05 was a Monday: weeks are aligned to it. */
const MONDAY0 = 4 * DAY;
/** Hour detail is drawn up to this many days; longer ranges are drawn by days (a note says so). */
export const MAX_HOUR_DAYS = 30;

export type Step = 'hour' | 'day' | 'week';
export const STEP_MS: Record<Step, number> = { hour: HOUR, day: DAY, week: WEEK };

export const stepOfQuality = (quality: number): Step => (quality === 1 ? 'day' : quality === 3 ? 'week' : 'hour');

/** The start of the period holding `t`. */
export function alignDown(t: number, step: Step): number {
  if (step === 'week') return Math.floor((t - MONDAY0) / WEEK) * WEEK + MONDAY0;
  const ms = STEP_MS[step];
  return Math.floor(t / ms) * ms;
}

export interface Grid {
  step: Step;
  stepMs: number;
  /** First period's start (inclusive) and the end (exclusive). */
  from: number;
  to: number;
  n: number;
}

/**
 * The grid of a chart: it ends with the period holding `now - offset days` (the current period
 * included, partly filled) and covers `count_day` days before that end, aligned to whole periods.
 * `shiftDays` moves the whole grid back (the compare period).
 */
export function gridOf(o: { count_day: number; step: Step; offset: number; now: number; shiftDays?: number }): Grid {
  const stepMs = STEP_MS[o.step];
  const end = o.now - (o.offset + (o.shiftDays ?? 0)) * DAY;
  const to = alignDown(end, o.step) + stepMs;
  const from = alignDown(to - o.count_day * DAY, o.step);
  const n = Math.max(1, Math.round((to - from) / stepMs));
  return { step: o.step, stepMs, from: to - n * stepMs, to, n };
}

/** Values placed by time on the grid (points outside it are dropped; several in one period are summed). */
export function place(grid: Grid, points: Iterable<[number, number]>): number[] {
  const out = new Array<number>(grid.n).fill(0);
  for (const [t, v] of points) {
    if (t < grid.from || t >= grid.to || !Number.isFinite(v)) continue;
    out[Math.floor((t - grid.from) / grid.stepMs)] += v;
  }
  return out;
}

/** Metrics that are rates or averages: their total is the mean of the periods that have data, not a sum. */
export function isRate(metric: string): boolean {
  const m = metric.includes(':') ? metric.slice(metric.lastIndexOf(':') + 1) : metric;
  return /^(ctr|pos)$/.test(m) || /rate|avg|depth|percent|share/i.test(m);
}

export function totalOf(metric: string, values: number[]): number {
  if (!isRate(metric)) return values.reduce((s, v) => s + v, 0);
  const had = values.filter((v) => v !== 0);
  return had.length ? had.reduce((s, v) => s + v, 0) / had.length : 0;
}

/** Change of `now` against `before` in percent (null when before is 0). */
export function changeOf(now: number, before: number): number | null {
  if (!before) return null;
  return ((now - before) / Math.abs(before)) * 100;
}

/**
 * The number row: per drawn series its total, average per period, last complete period's value
 * (the current period is still filling when the range ends now), the compare period's total and the
 * change; the reference bounds colour the average.
 */
export function cellsOf(series: ReportSeries[], bounds: Record<string, [number, number]>, grid: Grid, now: number): ReportCell[] {
  const main = series.filter((s) => !s.compare);
  return main.map((s) => {
    const total = totalOf(s.metric, s.values);
    const avg = isRate(s.metric) ? total : s.values.length ? total / s.values.length : 0;
    const lastIndex = grid.to > now ? s.values.length - 2 : s.values.length - 1;
    const last = lastIndex >= 0 ? s.values[lastIndex] : null;
    const cmp = series.find((c) => c.compare && c.metric === s.metric);
    const b = boundsFor(bounds, s.metric, s.name);
    const cell: ReportCell = { name: s.name, metric: s.metric, total, avg, last, bounds: b, tone: toneOf(avg, b) };
    if (cmp) {
      cell.compare_total = totalOf(cmp.metric, cmp.values);
      cell.change = changeOf(total, cell.compare_total);
    }
    return cell;
  });
}

export const dayOf = (t: number) => new Date(t).toISOString().slice(0, 10);
