import { useCallback, useEffect, useRef } from 'react';
import type { Balancing, ChartItem, MonitorQuality, NodeAverage, ServerLoadItem, UpdateNginxEvent } from '../../../contracts/monitoring.js';
import { useAsync } from '../../api/hooks.js';
import { rest } from '../../api/rest.js';
import { rpc } from '../../api/rpc.js';
import { useSocketEvent, useSocketResync } from '../../api/socket.js';
import { MONITOR_REST, UPDATE_EVENT } from './api.js';

/** Rounds that end together (several instances, a manual round) cause one re-read. */
export const MONITOR_RELOAD_MS = 250;

/**
 * Calls `reload` after each 'update_nginx' (a collection round ended), at most once per
 * MONITOR_RELOAD_MS, and once after the socket reconnects (events sent while it was down are lost).
 * Returns the last event (for a "last round" hint).
 */
export function useMonitorUpdates(reload: () => void) {
  const latest = useRef(reload);
  latest.current = reload;
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const last = useRef<UpdateNginxEvent | null>(null);
  const soon = useCallback(() => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => latest.current(), MONITOR_RELOAD_MS);
  }, []);
  useEffect(() => () => clearTimeout(timer.current), []);
  useSocketEvent(UPDATE_EVENT, (e: UpdateNginxEvent) => {
    last.current = e;
    soon();
  });
  useSocketResync(soon);
  return last;
}

/** An answer with the key it was asked for, so a page can tell data of another filter from its own. */
export interface Keyed<T> {
  key: string;
  value: T;
}

/**
 * The charts of one server type (or the grouped types) over a range. A new range keeps the previous
 * charts on screen until the new answer arrives (no blank flash); the previous request is cancelled.
 */
export function useCharts(type: number | undefined, minutes: number, quality: MonitorQuality | undefined) {
  const key = `${type ?? 'grouped'}|${minutes}|${quality ?? 'auto'}`;
  return {
    key,
    ...useAsync<Keyed<ChartItem[]>>(
      async (signal) => ({ key, value: await rest.get<ChartItem[]>(MONITOR_REST.chart, { type, minutes, quality }, { signal }) }),
      key,
    ),
  };
}

/** The latest 1-minute load of every server (tiles). */
export function useServerLoads() {
  return useAsync<ServerLoadItem[]>((signal) => rest.get<ServerLoadItem[]>(MONITOR_REST.cpuLoading, undefined, { signal }), 'cpu_loading');
}

/** Node averages of one type (or all) over a range. */
export function useNodeAverages(type: number | undefined, minutes: number) {
  const key = `${type ?? 'all'}|${minutes}`;
  return {
    key,
    ...useAsync<Keyed<NodeAverage[]>>(async (signal) => ({ key, value: await rpc('monitor2.getListLoadAVG', { ...(type === undefined ? {} : { type }), minutes }, { signal }) }), key),
  };
}

/** The balancing view: Proxy, WEBCluster and db servers with their balancer fields and current load. */
export function useBalancing() {
  return useAsync<Balancing>((signal) => rest.get<Balancing>(MONITOR_REST.balancing, undefined, { signal }), 'balancing');
}
