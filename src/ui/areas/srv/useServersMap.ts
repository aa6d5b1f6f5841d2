import { useCallback, useEffect, useRef } from 'react';
import type { SrvChangedEvent } from '../../../contracts/events.js';
import type { ServersMap, ServerView } from '../../../contracts/srv.js';
import { MSG } from '../../../contracts/messages.js';
import { useRpc } from '../../api/hooks.js';
import { errorText } from '../../api/http.js';
import { rpc } from '../../api/rpc.js';
import { useSocketEvent, useSocketResync } from '../../api/socket.js';
import { notify } from '../../kit/notify.js';
import { FW_MESSAGES } from '../../../contracts/firewall-rules.js';
import { runSyncAndNotify } from '../firewall/sync.js';
import './api.js';

/** Replaces one server in the map, keeping every other object as it was (memoised rows stay put). */
export function patchMap(map: ServersMap, Id: number, patch: Partial<ServerView>): ServersMap {
  let hit = false;
  const groups = map.groups.map((g) => {
    let gHit = false;
    const parent = g.parent && g.parent.Id === Id ? ((gHit = true), { ...g.parent, ...patch }) : g.parent;
    const types = g.types.map((t) => {
      const i = t.list.findIndex((s) => s.Id === Id);
      if (i < 0) return t;
      gHit = true;
      const list = t.list.slice();
      list[i] = { ...list[i], ...patch };
      return { ...t, list };
    });
    if (!gHit) return g;
    hit = true;
    return { ...g, parent, types };
  });
  return hit ? { ...map, groups } : map;
}

export type Toggle = 'status' | 'balance_web' | 'read_nginx_log_firewall';

/** Events that arrive together (a batch of writes, check all) cause one re-read. */
export const LIVE_RELOAD_MS = 250;

/**
 * Re-reads after `srv.changed` / `ssl.changed`-like events, at most once per LIVE_RELOAD_MS, and once
 * after the socket reconnects (events sent while it was down are lost).
 */
export function useLiveReload(reload: () => void) {
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const latest = useRef(reload);
  latest.current = reload;
  const reloadSoon = useCallback(() => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => latest.current(), LIVE_RELOAD_MS);
  }, []);
  useEffect(() => () => clearTimeout(timer.current), []);
  useSocketResync(reloadSoon);
  return reloadSoon;
}

/**
 * The map and its switches: a switch saves {Id, field} alone (000 §4, §7), optimistically, and goes
 * back if the save fails. The firewall-log switch of a proxy then runs the iptables sync. Live: another operator's change (`srv.changed`) re-reads the map and the
 * upstream preview; a status switch shows at once.
 */
export function useServersMap() {
  const map = useRpc('srv.servers_map', undefined);
  const upstream = useRpc('srv.nginxUpstream', undefined);

  const reloadSoon = useLiveReload(() => {
    void map.reload();
    void upstream.reload();
  });
  // Per server, the newest change applied: an event that arrives late (after a newer one) is not applied over it.
  const applied = useRef(new Map<number, number>());
  useSocketEvent('srv.changed', (e: SrvChangedEvent) => {
    if (e.at < (applied.current.get(e.Id) ?? 0)) return;
    applied.current.set(e.Id, e.at);
    if (e.action === 'status' && e.status !== undefined) map.setData((m) => (m ? patchMap(m, e.Id, { status: e.status }) : m));
    reloadSoon();
  });

  const toggle = useCallback(
    async (s: ServerView, field: Toggle, on: boolean) => {
      const value = on ? 1 : 0;
      const before = s[field];
      map.setData((m) => (m ? patchMap(m, s.Id, { [field]: value }) : m));
      try {
        await rpc('srv.save_server', { Id: s.Id, [field]: value });
        if (field === 'read_nginx_log_firewall') {
          // 000 §4, §8: the firewall flag answers Run / STOP, then the iptables sync runs and answers OK / ERROR
          notify.success(on ? FW_MESSAGES.firewallRun : FW_MESSAGES.firewallStop);
          void runSyncAndNotify();
        } else notify.success(MSG.saveServerOk);
        if (field === 'balance_web' || (field === 'status' && s.balance_web)) void upstream.reload();
      } catch (e) {
        map.setData((m) => (m ? patchMap(m, s.Id, { [field]: before }) : m));
        notify.error(errorText(e));
      }
    },
    [map.setData, upstream.reload],
  );

  return { map, upstream, toggle };
}
