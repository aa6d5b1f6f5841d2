import { useCallback, useState } from 'react';
import { errorText } from '../api/http.js';
import { notify } from './notify.js';

/**
 * Runs a write and reports it: success text as a notification, failure as an error notification with
 * the server's message. `run` resolves to the result, or undefined on failure (never throws).
 *   const { run, busy } = useAction();
 *   await run(() => rpc('user.save', { uid, active: 1 }), MSG.saveOk);
 */
export function useAction() {
  const [busy, setBusy] = useState(0);
  const run = useCallback(async <T,>(fn: () => Promise<T>, success?: string | ((result: T) => string), onError?: (err: unknown) => void): Promise<T | undefined> => {
    setBusy((b) => b + 1);
    try {
      const r = await fn();
      if (success) notify.success(typeof success === 'function' ? success(r) : success);
      return r;
    } catch (e) {
      notify.error(errorText(e));
      onError?.(e);
      return undefined;
    } finally {
      setBusy((b) => b - 1);
    }
  }, []);
  return { run, busy: busy > 0 };
}
