/**
 * Search positions (001 §2 "Position tracking", §3 Project / Query, §4 query dialog, §7 /position/*,
 * §9; issue 23 "Search positions"): shapes, constants, labels and input schemas shared by the server
 * and the UI. Decisions where the spec is silent: docs/position.md.
 */
import { z } from 'zod';
import { choice, hostName, id, int, name, optionalId, text } from './fields.js';

/** 001 §9: 20 queries per page on a project's page (`p_`). */
export const POSITION_PAGE = 20;
/** 001 §9: a query's history answered for the last 120 days by default. */
export const POSITION_QUERY_DAYS = 120;
/** 001 §9: the project's top-stats chart covers the last 30 days ... */
export const POSITION_TOP_DAYS = 30;
/** ... and its 10 best queries. */
export const POSITION_TOP_N = 10;
/** Points of the sparkline in the query table (days). */
export const POSITION_SPARK_DAYS = 30;
/** Results checked per query by default (issue 23: a configured depth, default 100); Yandex answers at most 250. */
export const POSITION_DEPTH_DEFAULT = 100;
export const POSITION_DEPTH_MAX = 250;
/** Results per search page: positions beyond the first page cost one request per page. */
export const POSITION_PAGE_SIZE = 10;
/** Queries added at most in one call (pasted lines). */
export const POSITION_QUERIES_MAX = 1000;
/** Yandex Search API: a query text is at most 400 characters. */
export const POSITION_QUERY_MAX = 400;
/** Days of position history kept by default (POSITION_RETENTION_DAYS; 0 keeps everything). */
export const POSITION_RETENTION_DAYS = 400;

/** Search engines a project may be checked in (one position source each; `yandex` is the first). */
export const POSITION_ENGINES = ['yandex'] as const;
export type PositionEngine = (typeof POSITION_ENGINES)[number];
export const POSITION_ENGINE_LABELS: Record<PositionEngine, string> = { yandex: 'Yandex' };

/** Yandex search regions offered in the form (lr ids); any other id may be typed. */
export const POSITION_REGIONS: Array<{ id: number; label: string }> = [
  { id: 225, label: 'Russia' },
  { id: 213, label: 'Moscow' },
  { id: 2, label: 'Saint Petersburg' },
  { id: 54, label: 'Yekaterinburg' },
  { id: 65, label: 'Novosibirsk' },
  { id: 43, label: 'Kazan' },
  { id: 149, label: 'Belarus' },
  { id: 159, label: 'Kazakhstan' },
];
export const POSITION_REGION_DEFAULT = 213;

/** How often a project's queries are checked, in hours (daily by default). */
export const POSITION_SCHEDULES = [6, 12, 24, 48, 168] as const;
export const POSITION_SCHEDULE_DEFAULT = 24;
export const POSITION_SCHEDULE_LABELS: Record<number, string> = { 6: 'Every 6 hours', 12: 'Every 12 hours', 24: 'Daily', 48: 'Every 2 days', 168: 'Weekly' };

export const POSITION_MSG = {
  saveOk: 'Save ok!',
  insertOk: 'Insert ok!',
  updateOk: 'Update ok!',
  deleteOk: 'Delete ok!',
  projectNotFound: 'Project not found',
  queryNotFound: 'Query not found',
  notConfigured: 'Search positions are not configured (YANDEX_SEARCH_URL, YANDEX_SEARCH_API_KEY, YANDEX_SEARCH_FOLDER_ID)',
  noQueries: 'No queries: paste one per line',
} as const;

// ---------------------------------------------------------------------------------------------
// Shapes

/**
 * One day's position. `pos` is the place (1 = first result) or null for "not in the top `top`"
 * (its own value: never 0, never a failure). A failed check writes no point (the query is marked stale).
 */
export interface PositionPoint {
  pos: number | null;
  /** YYYY-MM-DD (the console's day of the check). */
  date: string;
  /** The depth checked that day. */
  top: number;
  /** The result's URL on the domain when found. */
  url?: string;
}

export interface PositionProject {
  id_project: number;
  name: string;
  domain: string;
  engine: PositionEngine;
  region: number;
  /** Hours between two checks of each query. */
  schedule_hours: number;
  depth: number;
  /** Number of queries. */
  queries: number;
  /** Average of the current positions found (null: none found); queries not in the top are not counted. */
  avg_pos: number | null;
  /** Queries with a current position in the top `depth`. */
  found: number;
  /** Queries whose last check failed (their last position stays, marked stale). */
  stale: number;
  /** Last check of any query of the project (ISO), or null. */
  checked: string | null;
}

export interface PositionQueryRow {
  id_query: number;
  id_project: number;
  query_text: string;
  cat_id: number;
  /** Time of the last good check (ISO), or null when never checked. */
  checked: string | null;
  /** History, newest first (the last `days` days, one point a day). */
  pos: PositionPoint[];
  /** The current position: the newest point (null: never checked). */
  current: PositionPoint | null;
  /** Current minus previous day's place, when both were found (positive: moved down); null otherwise. */
  change: number | null;
  /** The last check failed: `current` is the last good one, from `checked`. */
  stale: boolean;
  /** When the failing check ran (ISO), and its error. */
  stale_at: string | null;
  error: string | null;
}

export interface PositionQueryList {
  project: PositionProject;
  list: PositionQueryRow[];
  count: number;
  page: number;
  limit: number;
  configured: boolean;
}

export interface PositionTopSeries {
  id_query: number;
  query_text: string;
  /** Oldest first, one point per day checked. */
  data: Array<{ date: string; pos: number | null }>;
}

export interface PositionTopStats {
  id_project: number;
  days: number;
  top: number;
  series: PositionTopSeries[];
}

export interface PositionCheckResult {
  id_project: number;
  checked: number;
  failed: number;
  requests: number;
  /** Queries past the first 300, made due for the check job instead. */
  queued: number;
  errors: string[];
}

export interface PositionStatus {
  configured: boolean;
  engines: Array<{ engine: PositionEngine; configured: boolean; per_second: number; per_hour: number; page_size: number }>;
  due: number;
  retention_days: number;
}

// ---------------------------------------------------------------------------------------------
// Input

/** A site domain: a host name, lower case; a pasted URL is reduced to its host (https://www.x.ru/a -> www.x.ru). */
export const domainField = z.preprocess((v) => {
  if (typeof v !== 'string') return v;
  const s = v.trim();
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]+)/i.exec(s);
  return (m ? m[1] : s).replace(/\/+$/, '').replace(/:\d+$/, '');
}, hostName('Domain'));

export const PositionSaveProjectArgs = z.object({
  id_project: optionalId('id_project'),
  name: name('Name', 190),
  domain: domainField,
  engine: z.enum(POSITION_ENGINES, { error: `Search engine must be one of ${POSITION_ENGINES.join(', ')}` }).optional(),
  region: int(1, 100_000_000, 'Region').optional(),
  schedule_hours: choice(POSITION_SCHEDULES, 'Schedule').optional(),
  depth: int(POSITION_PAGE_SIZE, POSITION_DEPTH_MAX, 'Depth').optional(),
});

export const PositionProjectArgs = z.object({ id_project: id('id_project') });

/** Lines of text: an array of strings, or one string with a query per line. */
const queryLines = z
  .union([z.array(z.string({ error: 'queries must be text lines' })).max(POSITION_QUERIES_MAX, `queries has at most ${POSITION_QUERIES_MAX} lines`), z.string().max(POSITION_QUERIES_MAX * (POSITION_QUERY_MAX + 2), 'queries is too long')], {
    error: (iss) => (iss.input === undefined ? 'queries is required' : 'queries must be a list of texts or lines of text'),
  })
  .transform((v, ctx): string[] => {
    const lines = (Array.isArray(v) ? v : v.split(/\r?\n/)).map((s) => s.replace(/\s+/g, ' ').trim()).filter(Boolean);
    if (!lines.length) {
      ctx.addIssue({ code: 'custom', message: POSITION_MSG.noQueries });
      return z.NEVER;
    }
    if (lines.length > POSITION_QUERIES_MAX) {
      ctx.addIssue({ code: 'custom', message: `queries has at most ${POSITION_QUERIES_MAX} lines` });
      return z.NEVER;
    }
    for (const [i, l] of lines.entries()) {
      const r = text('Query', POSITION_QUERY_MAX).safeParse(l);
      if (!r.success) {
        ctx.addIssue({ code: 'custom', message: `line ${i + 1}: ${r.error.issues[0].message}` });
        return z.NEVER;
      }
    }
    return lines;
  });

export const PositionSaveQueriesArgs = z.object({
  id_project: id('id_project'),
  queries: queryLines,
  cat_id: int(0, 2_147_483_647, 'Category id').optional(),
});

export const PositionUpdateQueryArgs = z.object({
  id_query: id('id_query'),
  query_text: text('Query', POSITION_QUERY_MAX, { min: 1 }).optional(),
  cat_id: int(0, 2_147_483_647, 'Category id').optional(),
});

export const PositionQueryIdArgs = z.object({ id_query: id('id_query') });

export const PositionQueryListArgs = z.object({
  id_project: id('id_project'),
  p_: int(1, 1_000_000, 'p_').optional(),
  limit: int(1, 100, 'limit').optional(),
  /** Days of history per query (default 120). */
  days: int(1, 3660, 'days').optional(),
  /** One query (the dialog). */
  id_query: optionalId('id_query'),
});

export const PositionTopArgs = z.object({
  id_project: id('id_project'),
  days: int(1, 366, 'days').optional(),
  top: int(1, 50, 'top').optional(),
});

/** The place shown for a point: '3', or 'not in top 100'. */
export const posLabel = (p: Pick<PositionPoint, 'pos' | 'top'> | null | undefined): string => (!p ? '-' : p.pos === null ? `not in top ${p.top}` : String(p.pos));
