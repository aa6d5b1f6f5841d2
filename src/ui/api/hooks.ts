import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { getSession, subscribeSession, type Session } from './session.js';
import { rest, type Query } from './rest.js';
import { rpc, type OtherMethod, type RpcMethods, type RpcName } from './rpc.js';

/** The current session (null when logged out); re-renders on login, logout and other tabs' changes. */
export function useSession(): Session | null {
  return useSyncExternalStore(subscribeSession, getSession, getSession);
}

export interface AsyncState<T> {
  data: T | undefined;
  /** The failure (ApiError for API calls); its message is the text to show. */
  error: Error | null;
  /** True while a load is running (also during reloads, when `data` still holds the previous answer). */
  loading: boolean;
  /** Runs the call again; resolves when done. */
  reload: () => Promise<void>;
  /** Replaces the data locally (optimistic updates after a save). */
  setData: (update: T | undefined | ((prev: T | undefined) => T | undefined)) => void;
}

export interface AsyncOptions {
  /** Skip the call while false (e.g. until a filter is set). Default true. */
  enabled?: boolean;
}

/**
 * Runs `fn` on mount and whenever `key` changes; keeps the latest answer only (a slow earlier call
 * cannot overwrite a newer one).
 */
export function useAsync<T>(fn: (signal: AbortSignal) => Promise<T>, key: string, opts: AsyncOptions = {}): AsyncState<T> {
  const enabled = opts.enabled ?? true;
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<Error | null>(null);
  const [loading, setLoading] = useState<boolean>(enabled);
  const fnRef = useRef(fn);
  fnRef.current = fn;
  const seq = useRef(0);
  const ctl = useRef<AbortController | null>(null);

  const run = useCallback(async () => {
    const my = ++seq.current;
    ctl.current?.abort();
    const c = new AbortController();
    ctl.current = c;
    setLoading(true);
    try {
      const v = await fnRef.current(c.signal);
      if (my !== seq.current) return;
      setData(v);
      setError(null);
    } catch (e) {
      if (my !== seq.current) return;
      setError(e instanceof Error ? e : new Error(String(e)));
    } finally {
      if (my === seq.current) setLoading(false);
    }
  }, []);

  useEffect(() => {
    if (!enabled) {
      setLoading(false);
      return;
    }
    void run();
    return () => {
      seq.current++;
      ctl.current?.abort();
    };
  }, [key, enabled, run]);

  return { data, error, loading, reload: run, setData };
}

/**
 * Loads one RPC method and re-loads when the method or the (JSON of the) arguments change.
 *   const { data, error, loading, reload } = useRpc('audit.getList', { page, limit: 50 });
 */
export function useRpc<M extends RpcName>(method: M, args: RpcMethods[M]['args'], opts?: AsyncOptions): AsyncState<RpcMethods[M]['result']>;
export function useRpc<T = unknown, M extends string = string>(method: OtherMethod<M>, args?: unknown, opts?: AsyncOptions): AsyncState<T>;
export function useRpc(method: string, args?: unknown, opts?: AsyncOptions): AsyncState<unknown> {
  const key = `${method}\u0000${JSON.stringify(args ?? null)}`;
  return useAsync((signal) => rpc<unknown>(method, args, { signal }), key, opts);
}

/** Loads one REST GET under /api and re-loads when the path or query change. */
export function useRest<T = unknown>(path: string, query?: Query, opts?: AsyncOptions): AsyncState<T> {
  const key = `${path}\u0000${JSON.stringify(query ?? null)}`;
  return useAsync((signal) => rest.get<T>(path, query, { signal }), key, opts);
}
