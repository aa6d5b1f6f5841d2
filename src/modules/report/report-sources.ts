/**
 * The console's own statistics a report of type 0 or more draws (docs/report.md "Sources"), read only:
 *
 * - `stream`: the input stream's per-book shows and clicks the network's sites report (input-stream
 *   area, tables stream_hours — epoch hour — and stream_days — epoch day): shows, clicks, ctr, pos;
 * - `views`: the same hours and days as /stats/get_views_data reads them: object (books shown), count
 *   (their shows), clicks;
 * - `banners`: the banner counters (banners area, banner_days — epoch day; no hours are kept): views,
 *   clicks, ctr.
 *
 * Each answers, per column asked, the values on the report's grid. Weeks are summed from days.
 */
import type { DataSource } from 'typeorm';
import type { ReportSource } from '../../contracts/report.js';
import { DAY, HOUR, place, type Grid } from './report-grid.js';

const n = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));

interface Row { t: number; [k: string]: number }

/** The aggregate rows of a source per period (the period's start in ms). */
async function rowsOf(db: DataSource, source: ReportSource, grid: Grid): Promise<Row[]> {
  const hours = grid.step === 'hour';
  const unit = hours ? HOUR : DAY;
  const lo = Math.floor(grid.from / unit);
  const hi = Math.ceil(grid.to / unit);
  const table = source === 'banners' ? 'banner_days' : hours ? 'stream_hours' : 'stream_days';
  const sql = source === 'banners'
    ? `SELECT ts, SUM(views) AS views, SUM(clicks) AS clicks FROM ${table} WHERE ts >= ? AND ts < ? GROUP BY ts`
    : source === 'views'
      ? `SELECT ts, COUNT(DISTINCT Id_book) AS object, SUM(shows) AS count, SUM(clicks) AS clicks FROM ${table} WHERE ts >= ? AND ts < ? AND shows > 0 GROUP BY ts`
      : `SELECT ts, SUM(shows) AS shows, SUM(clicks) AS clicks, SUM(pos_sum) AS pos_sum, SUM(pos_n) AS pos_n FROM ${table} WHERE ts >= ? AND ts < ? GROUP BY ts`;
  const rows: Record<string, unknown>[] = await db.query(sql, [lo, hi]);
  return rows.map((r) => {
    const out: Row = { t: n(r.ts) * unit };
    for (const [k, v] of Object.entries(r)) if (k !== 'ts') out[k] = n(v);
    return out;
  });
}

/** The values of each column on the grid. Ratios (ctr, pos) are computed per period from the summed parts. */
export async function sourceSeries(db: DataSource, source: ReportSource, columns: string[], grid: Grid): Promise<Map<string, number[]>> {
  const rows = await rowsOf(db, source, grid);
  const sum = (k: string) => place(grid, rows.map((r): [number, number] => [r.t, r[k] ?? 0]));
  const out = new Map<string, number[]>();
  const cache = new Map<string, number[]>();
  const get = (k: string) => cache.get(k) ?? (cache.set(k, sum(k)), cache.get(k)!);
  for (const c of columns) {
    if (c === 'ctr') {
      const shows = get(source === 'banners' ? 'views' : 'shows');
      const clicks = get('clicks');
      out.set(c, shows.map((s, i) => (s ? (clicks[i] / s) * 100 : 0)));
    } else if (c === 'pos' && source === 'stream') {
      const ps = get('pos_sum');
      const pn = get('pos_n');
      out.set(c, ps.map((s, i) => (pn[i] ? s / pn[i] : 0)));
    } else out.set(c, get(c));
  }
  return out;
}
