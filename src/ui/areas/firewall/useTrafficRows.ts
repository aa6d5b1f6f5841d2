import { useEffect, useRef, useState } from 'react';
import type { TrafficRow } from '../../../contracts/firewall.js';
import { rpcBatch } from '../../api/rpc.js';
import type { TrafficQuery } from './api.js';

/** The IP list preloads the log rows of its addresses in groups of this many (one batched call each, 000 §2). */
export const PRELOAD_GROUP = 10;
/** Rows kept per address (the newest). */
export const ROWS_LIMIT = 200;

/**
 * The log rows of the addresses on the IP list's page, preloaded in groups of PRELOAD_GROUP: the first
 * group at once, then the next, one batched POST /api each, so opening an address (or stepping to the
 * next one from the mobile bar) shows its rows without waiting. Rows are kept per query; a new query
 * (host, range, code) starts again.
 */
export function useTrafficRows(query: TrafficQuery | null, ips: string[]) {
  const key = query ? JSON.stringify([query.host, query.range_minutes, query.code]) : '';
  const [rows, setRows] = useState<Map<string, TrafficRow[]>>(() => new Map());
  const [failed, setFailed] = useState<Map<string, string>>(() => new Map());
  const loaded = useRef({ key: '', ips: new Set<string>() });

  useEffect(() => {
    if (loaded.current.key !== key) {
      loaded.current = { key, ips: new Set() };
      setRows(new Map());
      setFailed(new Map());
    }
  }, [key]);

  const ipsKey = ips.join(',');
  useEffect(() => {
    if (!query) return;
    let stop = false;
    const want = ips.filter((ip) => !loaded.current.ips.has(ip));
    void (async () => {
      for (let i = 0; i < want.length && !stop; i += PRELOAD_GROUP) {
        const group = want.slice(i, i + PRELOAD_GROUP);
        group.forEach((ip) => loaded.current.ips.add(ip));
        const answers = await rpcBatch(group.map((ip) => ['firewall.getTrafficRows', { host: query.host, range_minutes: query.range_minutes, code: query.code, ip, limit: ROWS_LIMIT }] as const));
        if (stop || loaded.current.key !== key) {
          group.forEach((ip) => loaded.current.ips.delete(ip));
          return;
        }
        setRows((m) => {
          const next = new Map(m);
          answers.forEach((a, j) => { if (a.status === 'ok') next.set(group[j], a.result as TrafficRow[]); });
          return next;
        });
        setFailed((m) => {
          const next = new Map(m);
          answers.forEach((a, j) => {
            if (a.status !== 'ok') {
              next.set(group[j], a.message);
              loaded.current.ips.delete(group[j]); // asked again next time
            }
          });
          return next;
        });
      }
    })();
    return () => { stop = true; };
  }, [key, ipsKey]); // eslint-disable-line react-hooks/exhaustive-deps

  return { rows, failed };
}
