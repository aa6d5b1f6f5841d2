/**
 * Drawing a report chart (001 §7 report.builItemsChart.get; docs/report.md "Drawing"): the grid from
 * count_day, quality and offset; the values from the console's statistics (type 0 or more,
 * report-sources.ts) or from Yandex Metrika (type -1, through the answer cache: 600 s, the last good
 * answer marked stale with its time when Metrika fails); the previous period beside it (compare_offset);
 * the number row with the reference bounds. The drawn chart is kept on the report (data, total, marge,
 * data_range_end) and shown, marked stale, when a later draw fails.
 */
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import type { DataSource, Repository } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import {
  parseBounds, REPORT_CACHE_TTL_MS, REPORT_MSG, REPORT_SOURCES, REPORT_TYPE_METRIKA, seriesOf, type ReportBuild, type ReportSeries, type ReportSource,
} from '../../contracts/report.js';
import { AnswerCache, type Cached } from '../../core/outside/answer-cache.js';
import { MetrikaClient, METRIKA_SERVICE } from '../../core/outside/metrika.client.js';
import { seriesOfByTime, seriesOfData, type MetrikaSeries } from '../../core/outside/metrika.wire.js';
import { OutsideError } from '../../core/outside/outside-error.js';
import { cellsOf, DAY, dayOf, gridOf, MAX_HOUR_DAYS, place, stepOfQuality, STEP_MS, totalOf, changeOf, type Grid, type Step } from './report-grid.js';
import { ReportChartEntity } from './report.entities.js';
import { sourceSeries } from './report-sources.js';

/** A Metrika filter matching the visits that started on a URL containing `match` (quotes escaped). */
export const metrikaFilter = (match: string) => (match ? `ym:s:startURL=@'${match.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : '');

@Injectable()
export class ReportBuildService {
  readonly bounds: Record<string, [number, number]>;

  constructor(
    @Inject(APP_CONFIG) cfg: AppConfig,
    @InjectDataSource() private readonly db: DataSource,
    @InjectRepository(ReportChartEntity) private readonly rows: Repository<ReportChartEntity>,
    private readonly metrika: MetrikaClient,
    private readonly cache: AnswerCache,
  ) {
    this.bounds = parseBounds(cfg.report.bounds);
  }

  /** The detail drawn: the report's quality, days past MAX_HOUR_DAYS of hours, days for banners (no hours kept). */
  stepOf(r: ReportChartEntity, notes: string[]): Step {
    let step = stepOfQuality(r.quality);
    if (step === 'hour' && r.count_day > MAX_HOUR_DAYS) {
      notes.push(`Hours are drawn up to ${MAX_HOUR_DAYS} days: drawn by days`);
      step = 'day';
    }
    if (step === 'hour' && r.type !== REPORT_TYPE_METRIKA && !REPORT_SOURCES[r.table as ReportSource]?.hours) {
      notes.push('Banner counters are kept per day: drawn by days');
      step = 'day';
    }
    return step;
  }

  async build(r: ReportChartEntity, signal?: AbortSignal, now = Date.now()): Promise<ReportBuild> {
    const notes: string[] = [];
    const step = this.stepOf(r, notes);
    const grid = gridOf({ count_day: r.count_day, step, offset: r.offset, now });
    const cgrid = r.compare_offset > 0 ? gridOf({ count_day: r.count_day, step, offset: r.offset, now, shiftDays: r.compare_offset }) : null;
    const wanted = seriesOf(r);
    const base: Omit<ReportBuild, 'series' | 'cells' | 'total' | 'marge' | 'source'> = {
      Id: r.Id, step, from: grid.from, to: grid.to, notes, fetched: null, cached: false, stale: false, configured: true,
    };
    if (!wanted.length) notes.push('No colums chosen: nothing to draw');

    let values: Map<string, number[]>;
    let cvalues: Map<string, number[]> | null = null;
    let source: string;
    if (r.type === REPORT_TYPE_METRIKA) {
      source = `Yandex Metrika (counters ${r.metrika_ids || '-'})`;
      if (!this.metrika.configured) return { ...base, configured: false, series: [], cells: [], total: 0, marge: 0, source, error: REPORT_MSG.metrikaNotConfigured };
      if (!r.metrika_ids) throw new OutsideError(METRIKA_SERVICE, 'config', REPORT_MSG.metrikaIds, { httpStatus: 422, envelope: 'rules' });
      try {
        const main = await this.metrikaRead(r, grid, wanted.map((w) => w.metric), signal);
        base.fetched = main.fetched;
        base.cached = main.cached;
        base.stale = main.stale;
        if (main.error) base.error = main.error;
        values = new Map(main.value.map((s) => [s.metric, place(grid, s.points)]));
        if (cgrid) {
          const cmp = await this.metrikaRead(r, cgrid, wanted.map((w) => w.metric), signal);
          cvalues = new Map(cmp.value.map((s) => [s.metric, place(cgrid, s.points)]));
          if (cmp.stale) base.stale = true;
        }
      } catch (err) {
        if (!(err instanceof OutsideError) || !r.data?.length) throw err;
        // no cached answer either: the last drawn chart, marked stale
        const kept = await this.kept(r, base, source, err.message);
        if (kept) return kept;
        throw err;
      }
    } else {
      const table = (r.table in REPORT_SOURCES ? r.table : 'stream') as ReportSource;
      source = REPORT_SOURCES[table].label;
      values = await sourceSeries(this.db, table, wanted.map((w) => w.metric), grid);
      if (cgrid) cvalues = await sourceSeries(this.db, table, wanted.map((w) => w.metric), cgrid);
    }

    const series: ReportSeries[] = [];
    for (const w of wanted) series.push({ name: w.name, metric: w.metric, start: grid.from, step: grid.stepMs, values: values.get(w.metric) ?? new Array<number>(grid.n).fill(0) });
    if (cgrid && cvalues) {
      for (const w of wanted) series.push({ name: `${w.name} (-${r.compare_offset} d)`, metric: w.metric, start: grid.from, step: grid.stepMs, values: cvalues.get(w.metric) ?? new Array<number>(grid.n).fill(0), compare: true });
    }
    const cells = cellsOf(series, this.bounds, grid, now);
    const first = series[0];
    const total = first ? totalOf(first.metric, first.values) : 0;
    const cmpFirst = series.find((s) => s.compare && first && s.metric === first.metric);
    const marge = cmpFirst ? changeOf(total, totalOf(cmpFirst.metric, cmpFirst.values)) ?? 0 : 0;
    await this.rows.update({ Id: r.Id }, { data: series, total, marge: Math.round(marge * 100) / 100, data_range_end: grid.to });
    return { ...base, series, cells, total, marge, source };
  }

  /** The last drawn chart of a report as a stale build (a failure with nothing in the cache). */
  private async kept(r: ReportChartEntity, base: Omit<ReportBuild, 'series' | 'cells' | 'total' | 'marge' | 'source'>, source: string, error: string): Promise<ReportBuild | null> {
    const series = r.data ?? [];
    if (!series.length) return null;
    const s0 = series[0];
    const grid: Grid = { step: base.step, stepMs: s0.step, from: s0.start, to: s0.start + s0.values.length * s0.step, n: s0.values.length };
    return {
      ...base, from: grid.from, to: grid.to, series, cells: cellsOf(series, this.bounds, grid, Date.now()), total: r.total, marge: r.marge, source,
      stale: true, cached: true, error, fetched: r.data_range_end ? new Date(Math.min(Date.now(), r.data_range_end)).toISOString() : null,
    };
  }

  /** The answer-cache key of a Metrika read (its every parameter: the same report drawn the same way is one entry). */
  metrikaKey(r: Pick<ReportChartEntity, 'metrika_ids' | 'metrika_match_url'>, grid: Grid, metrics: string[]): string {
    return [grid.step, r.metrika_ids.replace(/\s+/g, ''), metrics.join(','), dayOf(grid.from), dayOf(grid.to - 1), metrikaFilter(r.metrika_match_url)].join('|');
  }

  /** Days: /stat/v1/data by ym:s:date; hours and weeks: /stat/v1/data/bytime grouped so. Cached 600 s per key. */
  private metrikaRead(r: ReportChartEntity, grid: Grid, metrics: string[], signal?: AbortSignal): Promise<Cached<MetrikaSeries[]>> {
    const q = { ids: r.metrika_ids.replace(/\s+/g, ''), metrics, date1: dayOf(grid.from), date2: dayOf(grid.to - 1), filters: metrikaFilter(r.metrika_match_url) || undefined };
    return this.cache.read<MetrikaSeries[]>(METRIKA_SERVICE, this.metrikaKey(r, grid, metrics), { ttlMs: REPORT_CACHE_TTL_MS }, async () => {
      if (grid.step === 'day') {
        const d = await this.metrika.data({ ...q, dimensions: 'ym:s:date', sort: 'ym:s:date', limit: Math.ceil((grid.to - grid.from) / DAY) + 5 }, signal);
        return seriesOfData(d, metrics);
      }
      const d = await this.metrika.byTime({ ...q, group: grid.step }, signal);
      return seriesOfByTime(d, metrics, grid.from, STEP_MS[grid.step]);
    }, { signal });
  }

  /** Forgets the cached Metrika answers of a report's current settings (main and compare period). */
  async forget(r: ReportChartEntity, now = Date.now()): Promise<void> {
    if (r.type !== REPORT_TYPE_METRIKA) return;
    const step = this.stepOf(r, []);
    const metrics = seriesOf(r).map((w) => w.metric);
    for (const shiftDays of [0, r.compare_offset].filter((x, i) => i === 0 || x > 0)) {
      await this.cache.clear(METRIKA_SERVICE, this.metrikaKey(r, gridOf({ count_day: r.count_day, step, offset: r.offset, now, shiftDays }), metrics));
    }
  }
}
