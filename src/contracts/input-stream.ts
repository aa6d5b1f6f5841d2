/**
 * Input stream (001 §2 "/input_stream", §3 stat rows, §7 metrics.get and /stats/get_views_data, §9):
 * shows and clicks of books placed in categories, reported by the network's sites through the
 * ingestion endpoint (docs/input-stream.md), aggregated per hour and per day.
 */
import { z } from 'zod';
import { flag, id, int, INT_MAX, requiredOnCreate, text } from './fields.js';

/** 001 §9: the category page lists 50 books; the items filter screens 20 rows. */
export const STREAM_CAT_BOOKS_PAGE = 50;
export const STREAM_ITEMS_PAGE = 20;
/** Events in one ingestion batch at most, and how old (days) or early (minutes) an event may be. */
export const STREAM_BATCH_MAX = 5000;
export const STREAM_MAX_AGE_DAYS = 30;
export const STREAM_MAX_AHEAD_MIN = 10;
/** The header a site sends its token in. */
export const STREAM_TOKEN_HEADER = 'x-site-token';
/** Day windows the screens offer. */
export const STREAM_DAYS = [1, 7, 30] as const;
export const STREAM_DEFAULT_DAYS = 7;

// ---------------------------------------------------------------------------------------------
// Ingestion (sites -> console)

export const StreamEvent = z.object({
  cat: id('cat'),
  book: id('book'),
  /** The book's position on the category page (1 = first). */
  pos: int(1, 100_000, 'pos'),
  shows: int(0, 1_000_000, 'shows'),
  clicks: int(0, 1_000_000, 'clicks'),
  /** Unix seconds of the observation (the hour and day it is counted in). */
  time: int(0, INT_MAX, 'time'),
});
export type StreamEvent = z.output<typeof StreamEvent>;

export const StreamBatch = z.object({
  batch_id: text('batch_id', 64, { min: 1 }).refine((v) => /^[A-Za-z0-9._:-]+$/.test(v), 'batch_id: letters, digits and . _ : - only'),
  /** Book events; may be left out when the batch carries records of another kind (docs/input-stream.md "Record kinds"). */
  events: z.array(StreamEvent, { error: 'events must be a list' }).max(STREAM_BATCH_MAX, `events has at most ${STREAM_BATCH_MAX} items`).default([]),
});
export type StreamBatch = z.output<typeof StreamBatch>;

export interface StreamIngestResult {
  batch_id: string;
  /** Records (events and those of other kinds) counted now (0 for a batch already received). */
  accepted: number;
  /** True when this batch id was already received from this site: nothing was counted again. */
  duplicate: boolean;
}

// ---------------------------------------------------------------------------------------------
// Sites and their tokens (admins)

export interface StreamSiteView {
  Id: number;
  name: string;
  active: number;
  created_at: string;
  last_seen_at: string | null;
  batches: number;
  events: number;
}

export const StreamSiteSave = z.object({
  Id: id().optional(),
  name: text('name', 190, { min: 1 }).optional(),
  active: flag('active').optional(),
}).superRefine(requiredOnCreate('Id', { name: 'name is required' }));
export const StreamSiteId = z.object({ Id: id() });

/** Answered once, when a site is made or its token rotated: the token is never shown again. */
export interface StreamSiteToken {
  Id: number;
  name: string;
  token: string;
}

// ---------------------------------------------------------------------------------------------
// Reading

const days = int(1, 366, 'days').optional();
const page = int(1, INT_MAX, 'p_').optional();

/** stream.cats: categories with their totals over the last `days` (20 per page). */
export const StreamCatsArgs = z.object({ p_: page, days, Id_cat: id('Id_cat').optional(), q: text('q', 190).optional() });
/** stream.items: books (optionally of one category) with their totals (20 per page). */
export const StreamItemsArgs = z.object({ p_: page, days, Id_cat: id('Id_cat').optional(), Id_book: id('Id_book').optional() });
/** stream.cat: one category's books with their series (50 per page). */
export const StreamCatArgs = z.object({ id: id('id'), p_: page, days });
/** metrics.get: totals and the daily series, of everything or one category / book. */
export const MetricsArgs = z.object({ days, Id_cat: id('Id_cat').optional(), Id_book: id('Id_book').optional() });
/** GET /stats/get_views_data: `time_more_than` unix seconds, `select` a comma list of object, count, clicks. */
export const ViewsDataQuery = z.object({
  time_more_than: int(0, INT_MAX, 'time_more_than').optional(),
  select: text('select', 64).optional()
    .refine((v) => !v || v.split(',').every((c) => ['object', 'count', 'clicks'].includes(c.trim())), 'select: a comma list of object, count, clicks'),
  limit: int(1, 1000, 'limit').optional(),
});

export interface StreamTotals {
  shows: number;
  clicks: number;
  /** Clicks per 100 shows, one decimal. */
  ctr: number;
  /** Average reported position (weighted by reports), one decimal; null without reports. */
  pos: number | null;
}
export interface StreamCatRow extends StreamTotals {
  Id_cat: number;
  cat_title: string;
  books: number;
}
export interface StreamItemRow extends StreamTotals {
  Id_book: number;
  book_title: string;
  Id_cat: number;
  cat_title: string;
}
/** One point of a book's series: hour or day start (unix seconds). */
export interface StreamPoint extends StreamTotals {
  time: number;
}
export interface StreamCatBook extends StreamTotals {
  Id_book: number;
  book_title: string;
  series: StreamPoint[];
}
export interface StreamCatView {
  Id_cat: number;
  cat_title: string;
  /** 'hour' when days is 1, else 'day'. */
  step: 'hour' | 'day';
  list: StreamCatBook[];
  count: number;
  page: number;
  limit: number;
}
export interface MetricsView extends StreamTotals {
  days: number;
  series: StreamPoint[];
}

/** CTR as the screens show it: clicks per 100 shows, one decimal (0 without shows). */
export const ctrOf = (shows: number, clicks: number) => (shows > 0 ? Math.round((clicks * 1000) / shows) / 10 : 0);
