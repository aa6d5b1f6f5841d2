/**
 * Report dashboards (001 §2 "Reports and marketplace", §3 Report chart, §4 Report form, §6 partner
 * totals, §7 /report/*, report.builItemsChart.get, yandex.getTotalRsy, §9 chart constants; issue 23
 * "Report dashboards"; docs/report.md), shared by the server and the UI: the constants, the input
 * schemas, the answer shapes and the pure rules (the hours/days switch, the range of a chart, the
 * reference bounds that colour the cells).
 */
import { z } from 'zod';
import { choice, int, text, optionalId, id } from './fields.js';

// ---------------------------------------------------------------------------------------------
// Constants of 001 §9

/** Chart filter count_day options. */
export const REPORT_COUNT_DAYS = [1, 7, 30, 90, 180, 360] as const;
/** quality: 0 hours, 1 days, 3 weeks. */
export const REPORT_QUALITY = { 0: 'hours', 1: 'days', 3: 'weeks' } as const;
export const REPORT_QUALITIES = [0, 1, 3] as const;
export type ReportQuality = (typeof REPORT_QUALITIES)[number];
/** status: 0 not working, 1 working. */
export const REPORT_STATUS = { 0: 'not working', 1: 'working' } as const;
/** tab_number 1 (Reading), 2, 3, 4, 5 (Misc). */
export const REPORT_TABS = { 1: 'Reading', 2: '2', 3: '3', 4: '4', 5: 'Misc' } as const;
export const REPORT_TAB_NUMBERS = [1, 2, 3, 4, 5] as const;
/**
 * type_caption 0 to 5 (001 §9): how the values are captioned (docs/report.md "Fields": the spec names
 * the range only).
 */
export const REPORT_TYPE_CAPTIONS = { 0: 'number', 1: 'thousands (k)', 2: 'percent (%)', 3: 'rubles (₽)', 4: 'seconds as time', 5: 'bytes' } as const;
/** custom 0 to 14 (001 §9): the chart's colour set (0 the default palette; docs/report.md). */
export const REPORT_CUSTOM_MAX = 14;
/** Chart series types: `type` for the console's statistics (0 or more), `metrika_chart_type` for Metrika. */
export const REPORT_CHART_TYPES = { 0: 'line', 1: 'column', 2: 'area', 3: 'spline' } as const;
export const REPORT_CHART_TYPE_IDS = [0, 1, 2, 3] as const;
/** type -1: Yandex Metrika; 0 or more: the console's own statistics, drawn as REPORT_CHART_TYPES[type]. */
export const REPORT_TYPE_METRIKA = -1;

/** Filter defaults (001 §3 Report chart): quality 0, status 1, limit false, count_day 1. */
export const REPORT_FILTER_DEFAULTS = { quality: 0, status: 1, count_day: 1 } as const;

/** Partner totals: the default range starts 30 days ago (001 §9 "Report money default start 30 days ago"). */
export const RSYA_DEFAULT_DAYS = 30;
/** The spec's answer cache TTL for outside services (600 s). */
export const REPORT_CACHE_TTL_MS = 600_000;

/** The console's own statistics a report of type 0 or more draws (`table`), with their columns (`colums`). */
export const REPORT_SOURCES = {
  stream: {
    label: 'Input stream: shows and clicks of the books on the network\'s sites (stream_hours / stream_days)',
    columns: { shows: 'Shows', clicks: 'Clicks', ctr: 'CTR, %', pos: 'Average position' },
    hours: true,
  },
  views: {
    label: 'Views data (/stats/get_views_data): books shown (objects) and their shows (count) per period (stream_hours / stream_days)',
    columns: { object: 'Books shown', count: 'Shows', clicks: 'Clicks' },
    hours: true,
  },
  banners: {
    label: 'Banner counters: views and clicks of the ad banners (banner_days; kept per day only)',
    columns: { views: 'Views', clicks: 'Clicks', ctr: 'CTR, %' },
    hours: false,
  },
} as const;
export type ReportSource = keyof typeof REPORT_SOURCES;
export const REPORT_SOURCE_NAMES = Object.keys(REPORT_SOURCES) as ReportSource[];

/** Metrika metrics offered in the form (any `ym:s:` metric may be typed in `colums`). */
export const METRIKA_METRICS = {
  'ym:s:visits': 'Visits',
  'ym:s:pageviews': 'Pageviews',
  'ym:s:users': 'Users',
  'ym:s:newUsers': 'New users',
  'ym:s:bounceRate': 'Bounce rate, %',
  'ym:s:pageDepth': 'Page depth',
  'ym:s:avgVisitDurationSeconds': 'Visit duration, s',
} as const;
export const METRIKA_MAX_METRICS = 20;

/**
 * The metric reference bounds of 001 §9 ("Report metric reference bounds colour cells, for example
 * connections 97-366"): a value inside [min, max] is in range (green), outside out of range (red).
 * The spec gives this one; others come from REPORT_METRIC_BOUNDS (docs/report.md "Reference bounds").
 */
export const REPORT_DEFAULT_BOUNDS: Record<string, [number, number]> = { connections: [97, 366] };

// ---------------------------------------------------------------------------------------------
// Entity and answers

/** Report chart (001 §3), every field by its spec name. */
export interface ReportChart {
  Id: number;
  title: string;
  sort_number: number;
  tab_number: number;
  status: number;
  type: number;
  custom: number;
  table: string;
  quality: number;
  colums: string;
  names: string;
  count_day: number;
  offset: number;
  marge_to: number;
  type_caption: number;
  val_round: number;
  metrika_ids: string;
  metrika_chart_type: number;
  metrika_match_url: string;
  compare_offset: number;
  /** The last drawn series (kept until /report/clear_stats): [{name, metric, start, step, values, compare?}]. */
  data: ReportSeries[] | null;
  /** The first series' sum over the last drawn range. */
  total: number;
  /** Change of `total` against the compare period, in percent (0 without compare_offset). */
  marge: number;
  /** End of the last drawn range (ms), null when nothing was drawn yet (or cleared). */
  data_range_end: number | null;
}

/** New reports start with these (001 §4). */
export const REPORT_DEFAULTS: Omit<ReportChart, 'Id'> = {
  title: '', sort_number: 0, tab_number: 1, status: 1, type: 0, custom: 0, table: 'stream', quality: 0, colums: 'shows,clicks', names: '',
  count_day: 1, offset: 0, marge_to: 0, type_caption: 0, val_round: 0, metrika_ids: '', metrika_chart_type: 0, metrika_match_url: '',
  compare_offset: 0, data: null, total: 0, marge: 0, data_range_end: null,
};

/** A series on a regular time grid (Highcharts pointStart / pointInterval): value i is the period starting at start + i * step. */
export interface ReportSeries {
  name: string;
  /** The metric or column it draws. */
  metric: string;
  /** ms, UTC. */
  start: number;
  step: number;
  values: number[];
  /** The previous period (compare_offset) drawn on this one's time axis. */
  compare?: boolean;
}

/** One cell of the number row: a series' total, average per period and last value, coloured by the bounds. */
export interface ReportCell {
  name: string;
  metric: string;
  total: number;
  avg: number;
  last: number | null;
  /** The compare period's total and the change in percent (compare_offset > 0). */
  compare_total?: number;
  change?: number | null;
  bounds: [number, number] | null;
  /** 'in' within the bounds, 'out' outside, null without bounds. */
  tone: 'in' | 'out' | null;
}

/** report.builItemsChart.get: one report's chart. */
export interface ReportBuild {
  Id: number;
  /** 'hour' | 'day' | 'week': the detail actually drawn (banners have no hours: 'day'). */
  step: 'hour' | 'day' | 'week';
  from: number;
  to: number;
  series: ReportSeries[];
  cells: ReportCell[];
  total: number;
  marge: number;
  /** Where the data came from (docs/report.md "Sources"). */
  source: string;
  notes: string[];
  /** type -1: Metrika's answer time, cached flag and stale mark (a failure shows the last good data). */
  fetched: string | null;
  cached: boolean;
  stale: boolean;
  error?: string;
  /** type -1 without METRIKA_TOKEN. */
  configured: boolean;
}

export interface ReportTypeMetrics {
  sources: Array<{ table: ReportSource; label: string; hours: boolean; columns: Array<{ name: string; caption: string }> }>;
  metrika: { configured: boolean; metrics: Array<{ name: string; caption: string }>; max: number };
  chart_types: Array<{ id: number; name: string }>;
  type_captions: Array<{ id: number; name: string }>;
  quality: Array<{ id: number; name: string }>;
  count_day: number[];
  tabs: Array<{ id: number; name: string }>;
  bounds: Record<string, [number, number]>;
  custom_max: number;
}

export interface RsyaTotals {
  configured: true;
  date1: string;
  date2: string;
  /** The sum of partner_wo_nds over the range. */
  total: number;
  /** Partner totals (001 §3): the list of numbers, one per day. */
  list: number[];
  points: Array<{ date: string; value: number }>;
  fetched: string;
  cached: boolean;
  stale: boolean;
  error?: string;
}

// ---------------------------------------------------------------------------------------------
// Input

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;
const day = (label: string) =>
  z.string({ error: `${label} is required` }).regex(DAY_RE, `${label} must be a date yyyy-MM-dd`).refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().slice(0, 10) === s, `${label} must be a real date`);

/** Comma list of columns or Metrika metrics: letters, digits, ':', '_' and '.' each. */
const colums = text('colums', 1000).refine((s) => s.split(',').map((x) => x.trim()).filter(Boolean).every((x) => /^[A-Za-z0-9_:.]{1,100}$/.test(x)), 'colums must be a comma list of column or metric names');
const metrikaIds = text('metrika_ids', 500).refine((s) => s === '' || /^\d{1,12}(\s*,\s*\d{1,12})*$/.test(s), 'metrika_ids must be a comma list of counter ids');

export const ReportSaveArgs = z
  .object({
    Id: optionalId('Id'),
    title: text('title', 190, { min: 1 }),
    sort_number: int(-1_000_000, 1_000_000, 'sort_number').optional(),
    tab_number: choice(REPORT_TAB_NUMBERS, 'tab_number').optional(),
    status: choice([0, 1] as const, 'status').optional(),
    type: int(-1, 3, 'type').optional(),
    custom: int(0, REPORT_CUSTOM_MAX, 'custom').optional(),
    table: z.enum(REPORT_SOURCE_NAMES as [ReportSource, ...ReportSource[]], { error: `table must be one of ${REPORT_SOURCE_NAMES.join(', ')}` }).optional(),
    quality: choice(REPORT_QUALITIES, 'quality').optional(),
    colums: colums.optional(),
    names: text('names', 1000).optional(),
    count_day: choice(REPORT_COUNT_DAYS, 'count_day').optional(),
    offset: int(0, 3650, 'offset').optional(),
    marge_to: int(0, 2_147_483_647, 'marge_to').optional(),
    type_caption: int(0, 5, 'type_caption').optional(),
    val_round: int(0, 6, 'val_round').optional(),
    metrika_ids: metrikaIds.optional(),
    metrika_chart_type: choice(REPORT_CHART_TYPE_IDS, 'metrika_chart_type').optional(),
    metrika_match_url: text('metrika_match_url', 500).optional(),
    compare_offset: int(0, 3650, 'compare_offset').optional(),
  })
  .superRefine((a, ctx) => {
    if (a.colums !== undefined && a.colums.split(',').filter((x) => x.trim()).length > METRIKA_MAX_METRICS) ctx.addIssue({ code: 'custom', path: ['colums'], message: `colums: at most ${METRIKA_MAX_METRICS} names` });
  });
export type ReportSaveArgs = z.output<typeof ReportSaveArgs>;

/** /report/get: the filter (defaults quality 0, status 1, count_day 1), or one report by Id. */
export const ReportGetArgs = z.object({
  Id: optionalId('Id'),
  quality: choice(REPORT_QUALITIES, 'quality').optional(),
  status: choice([0, 1] as const, 'status').optional(),
  count_day: choice(REPORT_COUNT_DAYS, 'count_day').optional(),
  tab_number: choice(REPORT_TAB_NUMBERS, 'tab_number').optional(),
});
export type ReportGetArgs = z.output<typeof ReportGetArgs>;

export const ReportDeleteArgs = z.object({ deleteId: id('deleteId') });
export const ReportClearArgs = z.object({ clearId: id('clearId') });
export const ReportBuildArgs = z.object({ Id: id('Id') });

export const RsyaArgs = z
  .object({ date1: day('date1'), date2: day('date2') })
  .refine((a) => a.date1 <= a.date2, { path: ['date2'], message: 'date2 must not be before date1' })
  .refine((a) => (Date.parse(a.date2) - Date.parse(a.date1)) / 86_400_000 <= 366, { path: ['date2'], message: 'The range is at most 366 days' });
export type RsyaArgs = z.output<typeof RsyaArgs>;

// ---------------------------------------------------------------------------------------------
// Rules

/**
 * 001 §4: when the day count changes from 1 to more than 1, detail switches from hours to days; back
 * to 1 from days, it switches back to hours. Back to 1 from weeks also switches to hours (one day by
 * weeks would be a single point; docs/report.md). Any other change keeps the detail chosen.
 */
export function detailAfterCountDay(prevCountDay: number, nextCountDay: number, quality: number): number {
  if (prevCountDay === 1 && nextCountDay > 1 && quality === 0) return 1;
  if (prevCountDay > 1 && nextCountDay === 1 && quality !== 0) return 0;
  return quality;
}

/** Metric names and captions of a report: `colums` split, `names` giving the captions in order (else the source's caption). */
export function seriesOf(r: Pick<ReportChart, 'type' | 'table' | 'colums' | 'names'>): Array<{ metric: string; name: string }> {
  const metrics = r.colums.split(',').map((s) => s.trim()).filter(Boolean);
  const names = r.names.split(',').map((s) => s.trim());
  const src = REPORT_SOURCES[r.table as ReportSource];
  return metrics.map((m, i) => ({
    metric: m,
    name: names[i] || (r.type === REPORT_TYPE_METRIKA ? (METRIKA_METRICS as Record<string, string>)[m] ?? m : (src?.columns as Record<string, string> | undefined)?.[m] ?? m),
  }));
}

/** REPORT_METRIC_BOUNDS ('metric:min-max,...') over the spec's defaults. */
export function parseBounds(spec: string): Record<string, [number, number]> {
  const out: Record<string, [number, number]> = { ...REPORT_DEFAULT_BOUNDS };
  for (const part of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([A-Za-z0-9_:.\-]+)\s*:\s*(-?\d+(?:\.\d+)?)\s*-\s*(-?\d+(?:\.\d+)?)$/.exec(part);
    if (!m) continue;
    const lo = Number(m[2]);
    const hi = Number(m[3]);
    out[m[1]] = lo <= hi ? [lo, hi] : [hi, lo];
  }
  return out;
}

/** The bounds of a metric: by its full name (ym:s:visits), its short name (visits) or its caption. */
export function boundsFor(bounds: Record<string, [number, number]>, metric: string, name?: string): [number, number] | null {
  const short = metric.includes(':') ? metric.slice(metric.lastIndexOf(':') + 1) : metric;
  return bounds[metric] ?? bounds[short] ?? (name ? bounds[name] ?? bounds[name.toLowerCase()] : undefined) ?? null;
}

export function toneOf(value: number | null, b: [number, number] | null): 'in' | 'out' | null {
  if (!b || value === null || !Number.isFinite(value)) return null;
  return value >= b[0] && value <= b[1] ? 'in' : 'out';
}

/** A value rounded to val_round decimals. */
export const roundTo = (v: number, digits: number) => {
  const f = 10 ** Math.max(0, Math.min(6, digits));
  return Math.round(v * f) / f;
};

/** A value as type_caption says (0 number, 1 thousands, 2 percent, 3 rubles, 4 seconds as time, 5 bytes), rounded to val_round. */
export function captionValue(v: number | null | undefined, typeCaption: number, valRound: number): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  const fmt = (x: number) => roundTo(x, valRound).toLocaleString('en-US', { maximumFractionDigits: valRound, minimumFractionDigits: 0 });
  switch (typeCaption) {
    case 1: return `${fmt(v / 1000)}k`;
    case 2: return `${fmt(v)}%`;
    case 3: return `${fmt(v)} ₽`;
    case 4: {
      const s = Math.round(Math.abs(v));
      const hh = Math.floor(s / 3600);
      const mm = Math.floor((s % 3600) / 60);
      const ss = s % 60;
      return `${v < 0 ? '-' : ''}${hh ? `${hh}:${String(mm).padStart(2, '0')}` : mm}:${String(ss).padStart(2, '0')}`;
    }
    case 5: {
      const a = Math.abs(v);
      if (a < 1024) return `${fmt(v)} b`;
      if (a < 1024 ** 2) return `${fmt(v / 1024)} kb`;
      return `${fmt(v / 1024 ** 2)} mb`;
    }
    default: return fmt(v);
  }
}

export const REPORT_MSG = {
  saved: 'Save ok!',
  deleted: 'Delete ok!',
  cleared: 'Clear ok!',
  notFound: 'Report not found',
  metrikaIds: 'metrika_ids is required for a Metrika report (type -1)',
  metrikaNotConfigured: 'Yandex Metrika is not configured (METRIKA_TOKEN)',
  rsyaNotConfigured: 'Yandex partner statistics are not configured (RSYA_TOKEN)',
} as const;
