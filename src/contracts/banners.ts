/**
 * Ad banners (001 §2 "Ad banners", §3 Banner, §4, §7 /abs/*, §9 rate 10; docs/content.md "Banners"):
 * the console keeps the banners, the network's sites read the working ones with their rates and
 * report views and clicks through the input stream's ingestion endpoint (docs/input-stream.md).
 */
import { z } from 'zod';
import { choice, flag, id, int, INT_MAX, isHttpUrl, requiredOnCreate, text } from './fields.js';

/** 001 §3/§4: 0 works, 1 stopped. */
export const BANNER_STATUS = { works: 0, stopped: 1 } as const;
export const BANNER_STATUS_LABELS: Record<number, string> = { 0: 'Works', 1: 'Stopped' };
/** 001 §9: a new banner's rate. */
export const BANNER_DEFAULT_RATE = 10;
export const BANNER_RATE_MAX = 1000;
/** The list's page size (not in the spec: 20 like the other content lists). */
export const BANNER_PAGE = 20;
/** Days the banner page charts (and the longest window `days` takes). */
export const BANNER_CHART_DAYS = 30;
export const BANNER_MAX_DAYS = 366;
/** Banner records in one ingestion batch at most. */
export const BANNER_BATCH_MAX = 5000;
/** The batch key banner records travel under (docs/input-stream.md "Record kinds"). */
export const BANNER_BATCH_KEY = 'banners';

export const BANNER_LABELS = {
  addNew: 'Add new block',
  list: 'Banners',
  saveOk: 'Save ok!',
} as const;

const url = (label: string) => text(label, 2000, { min: 1 }).refine((v) => isHttpUrl(v), `${label} must be an http:// or https:// URL`);

/**
 * POST /abs/set_abs: without Idb makes a banner (title and target required), with Idb changes it.
 * `img_data`: a new image as base64 (a `data:image/...;base64,` URL or the bare base64), JPEG, PNG,
 * WebP or GIF, stored in the image storage (code 'abs'); it replaces the banner's image (the old one is
 * released: docs/content.md "Banners"). `img_remove: 1` drops it.
 */
export const BannerSave = z.object({
  Idb: id('Idb').optional(),
  title: text('title', 190, { min: 1 }).optional(),
  description: text('description', 2000, { multiline: true }).optional(),
  target: url('target').optional(),
  status: choice([BANNER_STATUS.works, BANNER_STATUS.stopped], 'status').optional(),
  rate: int(0, BANNER_RATE_MAX, 'rate').optional(),
  img_data: z.string({ error: 'img_data must be text (base64)' }).min(1, 'img_data must not be empty').optional(),
  img_remove: flag('img_remove').optional(),
}).superRefine(requiredOnCreate('Idb', { title: 'title is required', target: 'target is required' }));
export type BannerSave = z.output<typeof BannerSave>;

/** GET /abs/get: the list (`p_`, `q` on the title, `status`), or one banner with `Idb` (`joinStats=1` adds its daily series of `days`). */
export const BannerGet = z.object({
  Idb: id('Idb').optional(),
  p_: int(1, INT_MAX, 'p_').optional(),
  q: text('q', 190).optional(),
  status: choice([BANNER_STATUS.works, BANNER_STATUS.stopped], 'status').optional(),
  joinStats: flag('joinStats').optional(),
  days: int(1, BANNER_MAX_DAYS, 'days').optional(),
});

/** One banner record of an ingestion batch (docs/input-stream.md "Banner records"). */
export const BannerEvent = z.object({
  Idb: id('Idb'),
  /** Unix seconds of the observation (the day it is counted in). */
  time: int(0, INT_MAX, 'time'),
  views: int(0, 1_000_000, 'views').optional(),
  clicks: int(0, 1_000_000, 'clicks').optional(),
  /** The visitor who clicked (any id the site keeps: cookie, session): clicks then count once per (banner, visitor, minute). */
  visitor: text('visitor', 128, { min: 1 }).optional(),
});
export type BannerEvent = z.output<typeof BannerEvent>;

export interface BannerCounters {
  views: number;
  /** Views today (UTC day). */
  tviews: number;
  click: number;
  /** Clicks today (UTC day). */
  tclick: number;
  /** click / views in percent, one decimal. */
  ctr: number;
}

export interface BannerView extends BannerCounters {
  Idb: number;
  title: string;
  description: string;
  target: string;
  /** The image's URL (/storage/<alias>; /files/<key> for an image stored before issue 20), or '' without an image. */
  img: string;
  status: number;
  rate: number;
  time_update: string;
}

/** One day of a banner's counters (`time`: the day's start, unix seconds UTC). */
export interface BannerDay {
  time: number;
  views: number;
  click: number;
  ctr: number;
}

export interface BannerDetail extends BannerView {
  series?: BannerDay[];
}

/** What a site reads: the working banners and their rates (the weight to pick one by). */
export interface SiteBanner {
  Idb: number;
  title: string;
  description: string;
  target: string;
  img: string;
  rate: number;
}
