import { useCallback, useEffect, useRef, useState } from 'react';
import { on, useSocketResync } from '../../api/socket.js';
import type { AntOperatorMessage } from '../../../contracts/ant.js';
import { antAsk } from './api.js';

export interface Live<T> {
  data: T | undefined;
  error: Error | null;
  loading: boolean;
  /** When the shown data was last read or pushed (ms). */
  at: number | null;
  /** Reads it again now. */
  reload: () => Promise<void>;
  /** Reads it again after the debounce (collapses bursts of events). */
  reloadSoon: () => void;
  setData: (update: (prev: T | undefined) => T | undefined) => void;
}

export interface LiveOptions<T> {
  /** The message's payload (JSON-compared: a change re-reads). */
  payload?: unknown;
  /** Server events that carry the new value (`map` turns the payload into T, or undefined: re-read instead). */
  events?: string[];
  map?: (event: string, payload: unknown, prev: T | undefined) => T | undefined;
  /** Bursts of events are applied at most once per this many ms (the last one wins). 0: at once. */
  debounceMs?: number;
  /** Skip while false. */
  enabled?: boolean;
  /** Turns the answer into T (default: as is). */
  read?: (answer: unknown) => T;
}

/**
 * One list or value of the /ant page kept live over the session socket: read by its `get` message on
 * mount (and after a reconnect or a resync), then updated by its server events, debounced.
 */
export function useLive<T>(get: AntOperatorMessage, opts: LiveOptions<T> = {}): Live<T> {
  const { events = [], debounceMs = 0, enabled = true } = opts;
  const [data, setDataRaw] = useState<T | undefined>(undefined);
  const dataRef = useRef<T | undefined>(undefined);
  const setDataState = useCallback((v: T | undefined) => {
    dataRef.current = v;
    setDataRaw(v);
  }, []);
  const [error, setError] = useState<Error | null>(null);
  const [loading, setLoading] = useState(enabled);
  const [at, setAt] = useState<number | null>(null);
  const optsRef = useRef(opts);
  optsRef.current = opts;
  const seq = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const pending = useRef<{ event: string; payload: unknown }[]>([]);
  const payloadKey = JSON.stringify(opts.payload ?? {});

  const reload = useCallback(async () => {
    const my = ++seq.current;
    setLoading(true);
    try {
      const answer: unknown = await antAsk(get, (optsRef.current.payload ?? {}) as never);
      if (my !== seq.current) return;
      const read = optsRef.current.read;
      setDataState(read ? read(answer) : (answer as T));
      setError(null);
      setAt(Date.now());
    } catch (e) {
      if (my !== seq.current) return;
      setError(e instanceof Error ? e : new Error(String(e)));
    } finally {
      if (my === seq.current) setLoading(false);
    }
  }, [get, setDataState]);

  const flush = useCallback(() => {
    timer.current = undefined;
    const batch = pending.current;
    pending.current = [];
    let cur = dataRef.current;
    let reread = false;
    for (const { event, payload } of batch) {
      const next = event ? optsRef.current.map?.(event, payload, cur) : undefined;
      if (next === undefined) reread = true;
      else cur = next;
    }
    if (cur !== dataRef.current) {
      dataRef.current = cur;
      setDataState(cur);
      setAt(Date.now());
    }
    if (reread) void reload();
  }, [reload]);

  const schedule = useCallback(() => {
    if (timer.current !== undefined) return;
    if (debounceMs <= 0) flush();
    else timer.current = setTimeout(flush, debounceMs);
  }, [debounceMs, flush]);

  const reloadSoon = useCallback(() => {
    pending.current.push({ event: '', payload: undefined });
    schedule();
  }, [schedule]);

  useEffect(() => {
    if (!enabled) {
      setLoading(false);
      return;
    }
    void reload();
    return () => {
      seq.current++;
    };
  }, [reload, payloadKey, enabled]);

  const eventsKey = events.join('\u0000');
  useEffect(() => {
    if (!enabled) return;
    const offs = eventsKey.split('\u0000').filter(Boolean).map((ev) =>
      on(ev, (payload: unknown) => {
        pending.current.push({ event: ev, payload });
        schedule();
      }),
    );
    return () => offs.forEach((off) => off());
  }, [eventsKey, enabled, schedule]);

  useEffect(() => () => clearTimeout(timer.current), []);
  useSocketResync(() => {
    if (enabled) void reload();
  });

  const setData = useCallback((update: (prev: T | undefined) => T | undefined) => setDataState(update(dataRef.current)), [setDataState]);
  return { data, error, loading, at, reload, reloadSoon, setData };
}
