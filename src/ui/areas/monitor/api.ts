/** Typed calls of the monitoring area (000 §7): RPC methods by declaration merging, REST paths as constants. */
import type { CollectResult, NodeAverage, SeriesAnswer, MonitorMetric, MonitorQuality } from '../../../contracts/monitoring.js';

declare module '../../api/rpc.js' {
  interface RpcMethods {
    'monitor2.getListLoadAVG': { args: { type?: number; minutes?: number }; result: NodeAverage[] };
    'monitoring.getSeries': { args: { Id: number; minutes?: number; quality?: MonitorQuality; metric?: MonitorMetric }; result: SeriesAnswer };
    'monitoring.collectNow': { args: Record<string, never>; result: CollectResult[] };
  }
}

/** REST paths under /api (000 §7). */
export const MONITOR_REST = {
  chart: '/monitoring/srv/chart',
  cpuLoading: '/monitoring/srv/cpu_loading',
  balancing: '/monitoring/get_balancing',
} as const;

/** The socket event after each collection round (payload UpdateNginxEvent). */
export const UPDATE_EVENT = 'update_nginx';
