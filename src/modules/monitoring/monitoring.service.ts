/**
 * Monitoring reads (000 §7 GET /monitoring/srv/chart, /monitoring/srv/cpu_loading,
 * /monitoring/get_balancing, monitor2.getListLoadAVG; issue 10 monitoring.getSeries): every signed-in
 * user (the Monitor menu item is for every signed-in user, 000 §2). Series come from the tier the range
 * and quality pick (docs/monitoring.md "Tier choice"); no series ever has more than MONITOR_MAX_POINTS.
 */
import { Inject, Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import {
  ChartQuery, LoadAvgArgs, MONITOR_GROUPED_TYPES, MONITOR_MAX_POINTS, SeriesArgs,
  type Balancing, type BalancingRow, type ChartItem, type MonitorMetric, type MonitorQuality, type MonitorTier,
  type NodeAverage, type SeriesAnswer, type ServerLoadItem,
} from '../../contracts/monitoring.js';
import { Role } from '../../contracts/roles.js';
import { PROXY_TYPE, WEB_CLUSTER_TYPE, WEB_TYPE, type ServerView } from '../../contracts/srv.js';
import { Rpc } from '../../core/rpc/rpc.decorator.js';
import { SrvService } from '../srv/srv.service.js';
import { bucketCount, bucketOf, mergeAgg, MonitoringStore, TIER_MINUTES, tierFor, type BucketRow } from './monitoring-store.service.js';

export type Point = SeriesAnswer['points'][number];
/** Columns of a chart body row. */
export const CHART_HEAD = ['time', 'avg', 'min', 'max'];
/** get_balancing: the server types of each group (docs/monitoring.md "Balancing"). */
export const BALANCING_TYPES = { Proxy: [PROXY_TYPE], WEBCluster: [WEB_CLUSTER_TYPE, WEB_TYPE], db: [5, 6, 10] } as const;

const round = (v: number | null) => (v === null ? null : Math.round(v * 1000) / 1000);

@Injectable()
export class MonitoringService {
  constructor(
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
    private readonly store: MonitoringStore,
    private readonly srv: SrvService,
  ) {}

  /**
   * The series of each server over the last `minutes`: the tier read, and [ms, avg, min, max] points in
   * time order (a null point where buckets are missing, so a chart shows the gap). Past MONITOR_MAX_POINTS
   * buckets even in the week tier, k neighbouring buckets are merged into one.
   */
  async series(ids: number[], minutes: number, quality: MonitorQuality | undefined, metric: MonitorMetric): Promise<{ tier: MonitorTier; byId: Map<number, Point[]>; rows: BucketRow[] }> {
    const now = this.store.nowMin();
    const from = now - minutes;
    const tier = tierFor(minutes, quality, this.store.retentionDays, now);
    let rows = await this.store.read(tier, ids, metric, from, now);
    let step = TIER_MINUTES[tier];
    const count = bucketCount(tier, from, now);
    if (count > MONITOR_MAX_POINTS) {
      const k = Math.ceil(count / MONITOR_MAX_POINTS);
      const base = bucketOf(tier, from);
      step *= k;
      rows = regroup(rows, (ts) => base + Math.floor((ts - base) / step) * step);
    }
    const byId = new Map<number, Point[]>(ids.map((id) => [id, []]));
    let prev: BucketRow | null = null;
    for (const r of rows) {
      const pts = byId.get(r.server_id)!;
      if (prev && prev.server_id === r.server_id && r.ts - prev.ts > step) pts.push([(prev.ts + step) * 60_000, null, null, null]);
      pts.push(r.m.n ? [r.ts * 60_000, round(r.m.avg), round(r.m.min), round(r.m.max)] : [r.ts * 60_000, null, null, null]);
      prev = r;
    }
    for (const [id, pts] of byId) if (pts.length > MONITOR_MAX_POINTS) byId.set(id, pts.slice(-MONITOR_MAX_POINTS)); // never: kept as a guard
    return { tier, byId, rows };
  }

  @Rpc('monitoring.getSeries', {
    role: Role.user, input: SeriesArgs,
    summary: '{Id, minutes (000 §9 ranges, default 180), quality? (0 minutes, 1 days, 3 weeks; absent: automatic), metric? (default la1)}: {tier, points: [[ms, avg, min, max]]}, at most 2,000 points; null where the server could not be read',
  })
  async getSeries(a: z.output<typeof SeriesArgs>): Promise<SeriesAnswer> {
    await this.srv.get({ Id: a.Id }); // 404 for an unknown server
    const s = await this.series([a.Id], a.minutes, a.quality, a.metric);
    return { tier: s.tier, points: s.byId.get(a.Id) ?? [] };
  }

  @Rpc('monitoring.srvChart', {
    role: Role.user, input: ChartQuery,
    summary: 'RPC twin of GET /monitoring/srv/chart {type?, minutes?, not_id?, quality?}: [{Id, name, type, tier, chart: {head: [time, avg, min, max], body}}] per server (status 1) of that type, or of the grouped types 0,1,2,5,6,9; 1-minute load',
  })
  async chart(q: z.output<typeof ChartQuery>): Promise<ChartItem[]> {
    const servers = (await this.servers(q.type === undefined ? [...MONITOR_GROUPED_TYPES] : [q.type])).filter((s) => s.status === 1 && s.Id !== q.not_id);
    const s = await this.series(servers.map((x) => x.Id), q.minutes, q.quality, 'la1');
    return servers.map((x) => ({ Id: x.Id, name: x.name, type: x.type, tier: s.tier, chart: { head: CHART_HEAD, body: s.byId.get(x.Id) ?? [] } }));
  }

  @Rpc('monitoring.cpuLoading', {
    role: Role.user,
    summary: 'RPC twin of GET /monitoring/srv/cpu_loading: [{Id, name, type, cpu_la}] per server with status 1; cpu_la the 1-minute load of the latest round (null when that round could not read it or no round read it lately)',
  })
  async cpuLoading(): Promise<ServerLoadItem[]> {
    const servers = (await this.srv.getList({})).filter((s) => s.status === 1);
    const latest = await this.store.latest('la1', this.staleBefore());
    return servers.map((s) => ({ Id: s.Id, name: s.name, type: s.type, cpu_la: round(latest.get(s.Id) ?? null) }));
  }

  @Rpc('monitoring.getBalancing', {
    role: Role.user,
    summary: 'RPC twin of GET /monitoring/get_balancing: {Proxy: {data}, WEBCluster: {data}, db: {data}}: proxies (type 1); web clusters (2) and web servers (8); DB cache (5), DB (6), MemCache (10); each row {Id, name, type, status, balance_web, balance_db, balance_cache, balance_memcache, cpu_la}',
  })
  async balancing(): Promise<Balancing> {
    const all = await this.servers([...BALANCING_TYPES.Proxy, ...BALANCING_TYPES.WEBCluster, ...BALANCING_TYPES.db]);
    const latest = await this.store.latest('la1', this.staleBefore());
    const row = (s: ServerView): BalancingRow => ({
      Id: s.Id, name: s.name, type: s.type, status: s.status,
      balance_web: s.balance_web, balance_db: s.balance_db, balance_cache: s.balance_cache, balance_memcache: s.balance_memcache,
      cpu_la: round(latest.get(s.Id) ?? null),
    });
    const of = (types: readonly number[]) => ({ data: all.filter((s) => types.includes(s.type)).map(row) });
    return { Proxy: of(BALANCING_TYPES.Proxy), WEBCluster: of(BALANCING_TYPES.WEBCluster), db: of(BALANCING_TYPES.db) };
  }

  @Rpc('monitor2.getListLoadAVG', {
    role: Role.user, input: LoadAvgArgs,
    summary: '{type?, minutes? (default 180)}: [{Id, name, load}] per server (status 1) of that type, or of the grouped types 0,1,2,5,6,9: the mean 1-minute load over the range (weighted by samples; null without any)',
  })
  async loadAvg(a: z.output<typeof LoadAvgArgs>): Promise<NodeAverage[]> {
    const servers = (await this.servers(a.type === undefined ? [...MONITOR_GROUPED_TYPES] : [a.type])).filter((s) => s.status === 1);
    const s = await this.series(servers.map((x) => x.Id), a.minutes, undefined, 'la1');
    const sums = new Map<number, { sum: number; n: number }>();
    for (const r of s.rows) {
      if (!r.m.n || r.m.avg === null) continue;
      const e = sums.get(r.server_id) ?? { sum: 0, n: 0 };
      e.sum += r.m.avg * r.m.n;
      e.n += r.m.n;
      sums.set(r.server_id, e);
    }
    return servers.map((x) => {
      const e = sums.get(x.Id);
      return { Id: x.Id, name: x.name, load: e && e.n ? Math.round((e.sum / e.n) * 100) / 100 : null };
    });
  }

  private servers(types: number[]): Promise<ServerView[]> {
    return this.srv.getList({ type: types as never });
  }

  /** The latest row counts for "now" when it is at most three intervals (and at least 5 minutes) old. */
  private staleBefore(): number {
    return this.store.nowMin() - Math.max(5, Math.ceil((3 * this.cfg.monitoring.intervalMs) / 60_000));
  }
}

/** Merges rows of one server into coarser buckets (`keyOf` maps a bucket start to its group's start). */
function regroup(rows: BucketRow[], keyOf: (ts: number) => number): BucketRow[] {
  const out: BucketRow[] = [];
  for (const r of rows) {
    const ts = keyOf(r.ts);
    const last = out[out.length - 1];
    if (last && last.server_id === r.server_id && last.ts === ts) mergeAgg(last.m, r.m);
    else out.push({ server_id: r.server_id, ts, m: { ...r.m } });
  }
  return out;
}

