/**
 * Monitoring (000 §2 "Monitoring", §3 Server load item, Node average, Monitor filter; §7; §9): the
 * fleet's load collected over SSH, kept in tiers, charted. Shapes, inputs and constants shared by the
 * server and the UI. Decisions: docs/monitoring.md.
 */
import { z } from 'zod';
import { choice, id, int } from './fields.js';
import type { SshReason } from './srv.js';

// ---------------------------------------------------------------------------------------------
// Constants of 000 §9 and §3

/** Range options in minutes (3 hours to about 7 years), default 180. */
export const MONITOR_RANGES = [180, 720, 1440, 10080, 302400, 907200, 1814400, 3628800] as const;
export const MONITOR_DEFAULT_RANGE = 180;
export const MONITOR_RANGE_LABELS: Record<number, string> = {
  180: '3 hours', 720: '12 hours', 1440: '1 day', 10080: '1 week', 302400: '7 months', 907200: '21 months', 1814400: '42 months', 3628800: '7 years',
};
/** Quality of 000 §9: 0 minutes, 1 days, 3 weeks (absent: chosen from the range). */
export const MONITOR_QUALITIES = [0, 1, 3] as const;
export type MonitorQuality = (typeof MONITOR_QUALITIES)[number];
export const MONITOR_QUALITY_LABELS: Record<MonitorQuality, string> = { 0: 'minutes', 1: 'days', 3: 'weeks' };
/** Storage tiers: raw minutes, then hour, day and week rollups (min, avg, max, samples). */
export const MONITOR_TIERS = ['minute', 'hour', 'day', 'week'] as const;
export type MonitorTier = (typeof MONITOR_TIERS)[number];
export const TIER_SECONDS: Record<MonitorTier, number> = { minute: 60, hour: 3600, day: 86_400, week: 604_800 };
/** The tier a quality asks for. */
export const QUALITY_TIER: Record<MonitorQuality, MonitorTier> = { 0: 'minute', 1: 'day', 3: 'week' };
/** No series answers more points than this (a finer tier is never chosen past it). */
export const MONITOR_MAX_POINTS = 2000;
/** Server types shown together on /monitor (000 §3 "Grouped types on the monitor"). */
export const MONITOR_GROUPED_TYPES = [0, 1, 2, 5, 6, 9] as const;
/** /monitor/{cat}: the server type each category charts. */
export const MONITOR_CATS = { web: 8, db: 6, cache: 5, memcache: 10 } as const;
export type MonitorCat = keyof typeof MONITOR_CATS;

/** Load colours of 000 §9: above 10 green, above 20 amber, above 30 red; null is shown as a dash. */
export function loadColour(load: number | null | undefined): 'red' | 'amber' | 'green' | null {
  if (load === null || load === undefined) return null;
  if (load > 30) return 'red';
  if (load > 20) return 'amber';
  if (load > 10) return 'green';
  return null;
}
export const NULL_LOAD = '-';

/** The metrics collected per server and minute. */
export const MONITOR_METRICS = ['la1', 'la5', 'la15', 'procs_running', 'procs_total', 'cores', 'mem_used_pct', 'cpu_busy_pct'] as const;
export type MonitorMetric = (typeof MONITOR_METRICS)[number];

// ---------------------------------------------------------------------------------------------
// Inputs

const minutes = choice(MONITOR_RANGES, 'Minutes');
const quality = choice(MONITOR_QUALITIES, 'Quality');

/** GET /api/monitoring/srv/chart?type=&minutes=&not_id=&quality= */
export const ChartQuery = z.object({
  type: int(0, 100, 'Type').optional(),
  minutes: minutes.default(MONITOR_DEFAULT_RANGE),
  /** A server to leave out. */
  not_id: int(0, 2_147_483_647, 'not_id').optional(),
  quality: quality.optional(),
});
/** monitoring.getSeries */
export const SeriesArgs = z.object({ Id: id('Id'), minutes: minutes.default(MONITOR_DEFAULT_RANGE), quality: quality.optional(), metric: z.enum(MONITOR_METRICS, { error: `Metric must be one of ${MONITOR_METRICS.join(', ')}` }).default('la1') });
/** monitor2.getListLoadAVG */
export const LoadAvgArgs = z.object({ type: int(0, 100, 'Type').optional(), minutes: minutes.default(MONITOR_DEFAULT_RANGE) });

// ---------------------------------------------------------------------------------------------
// Answers

/** Server load item of 000 §3 (the latest 1-minute load; null when the last round could not read it). */
export interface ServerLoadItem {
  Id: number;
  name: string;
  type: number;
  cpu_la: number | null;
}
/** Node average of 000 §3: the mean 1-minute load over the range. */
export interface NodeAverage {
  Id: number;
  name: string;
  load: number | null;
}
/** A chart of one server: head names the columns of body rows ([time ms, avg, min, max] per row). */
export interface ChartItem {
  Id: number;
  name: string;
  type: number;
  tier: MonitorTier;
  chart: { head: string[]; body: Array<Array<number | null>> };
}
/** monitoring.getSeries: [epoch ms, avg, min, max] per point (null where the server could not be read). */
export interface SeriesAnswer {
  tier: MonitorTier;
  points: Array<[number, number | null, number | null, number | null]>;
}
/**
 * monitoring.collectNow: one row per server switched on (status 1): read (ok), not read (error and
 * reason: an SSH failure), or not tried for want of credentials (reason `no_credentials`).
 */
export interface CollectResult {
  Id: number;
  name: string;
  ok: boolean;
  cpu_la?: number;
  error?: string;
  /** Why it was not read (SSH_REASON_TEXT of contracts/srv.ts says it as a sentence). */
  reason?: SshReason;
}
export interface BalancingRow {
  Id: number;
  name: string;
  type: number;
  status: number;
  balance_web: number;
  balance_db: number;
  balance_cache: number;
  balance_memcache: number;
  cpu_la: number | null;
}
/** GET /api/monitoring/get_balancing */
export type Balancing = Record<'Proxy' | 'WEBCluster' | 'db', { data: BalancingRow[] }>;
/** Socket event 'update_nginx' (every signed-in user): a round ended. */
export interface UpdateNginxEvent {
  at: string;
  servers: number;
  ok: number;
}
