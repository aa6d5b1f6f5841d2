import { useCallback } from 'react';
import { useParams, useSearchParams } from 'react-router-dom';
import {
  MONITOR_CATS, MONITOR_DEFAULT_RANGE, MONITOR_GROUPED_TYPES, MONITOR_QUALITIES, MONITOR_RANGES,
  type MonitorCat, type MonitorQuality,
} from '../../../contracts/monitoring.js';

/** URL keys of the Monitor filter (000 §3: range_minutes, quality). */
export const RANGE_PARAM = 'range_minutes';
export const QUALITY_PARAM = 'quality';

export const isMonitorCat = (c: string | undefined): c is MonitorCat => !!c && Object.hasOwn(MONITOR_CATS, c);

/**
 * The monitor filter as the URL holds it (reloads and shared links keep it): the range in minutes
 * (default 180: absent from the URL) and the quality (absent: automatic). Unknown values fall back to
 * the defaults. `cat` is the route's /monitor/{cat} part; `type` the server type it charts (undefined:
 * the grouped types of /monitor).
 */
export function useMonitorUrl() {
  const [params, setParams] = useSearchParams();
  const { cat: rawCat } = useParams();
  const cat = isMonitorCat(rawCat) ? rawCat : null;
  const type: number | undefined = cat ? MONITOR_CATS[cat] : undefined;
  const rangeRaw = Number(params.get(RANGE_PARAM));
  const minutes = (MONITOR_RANGES as readonly number[]).includes(rangeRaw) ? rangeRaw : MONITOR_DEFAULT_RANGE;
  const qRaw = params.get(QUALITY_PARAM);
  const quality: MonitorQuality | undefined =
    qRaw !== null && qRaw !== '' && (MONITOR_QUALITIES as readonly number[]).includes(Number(qRaw)) ? (Number(qRaw) as MonitorQuality) : undefined;

  const set = useCallback(
    (key: typeof RANGE_PARAM | typeof QUALITY_PARAM, value: number | undefined) =>
      setParams((prev) => {
        const next = new URLSearchParams(prev);
        if (value === undefined || (key === RANGE_PARAM && value === MONITOR_DEFAULT_RANGE)) next.delete(key);
        else next.set(key, String(value));
        return next;
      }),
    [setParams],
  );
  const setMinutes = useCallback((m: number) => set(RANGE_PARAM, m), [set]);
  const setQuality = useCallback((q: MonitorQuality | undefined) => set(QUALITY_PARAM, q), [set]);
  return { cat, type, rawCat, minutes, quality, setMinutes, setQuality, search: params.toString() };
}

/** Server types the charts of a page show: the cat's type, else the grouped types (000 §3). */
export const typesOf = (type: number | undefined): readonly number[] => (type === undefined ? MONITOR_GROUPED_TYPES : [type]);
