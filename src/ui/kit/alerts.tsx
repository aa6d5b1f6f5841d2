import { useEffect, useSyncExternalStore } from 'react';
import { PlainAlert } from './PlainAlert.js';
import { useLocation } from 'react-router-dom';

/**
 * The alert area of the base page (000 §2): page-level alerts under the top bar that stay until
 * dismissed or the route changes (notifications are the transient ones). `key` replaces an alert
 * with the same key instead of stacking it.
 */
export type AlertVariant = 'danger' | 'warning' | 'success' | 'info';
export interface PageAlert {
  key: string;
  variant: AlertVariant;
  text: string;
  /** Kept across route changes (e.g. a connection warning). */
  sticky?: boolean;
}

let alerts: PageAlert[] = [];
let seq = 0;
const listeners = new Set<() => void>();
const changed = () => listeners.forEach((l) => l());

export const pageAlerts = {
  show(a: Omit<PageAlert, 'key'> & { key?: string }): string {
    const key = a.key ?? `a${++seq}`;
    alerts = [...alerts.filter((x) => x.key !== key), { ...a, key }];
    changed();
    return key;
  },
  dismiss(key: string) {
    const n = alerts.filter((x) => x.key !== key);
    if (n.length !== alerts.length) {
      alerts = n;
      changed();
    }
  },
  clearTransient() {
    const n = alerts.filter((x) => x.sticky);
    if (n.length !== alerts.length) {
      alerts = n;
      changed();
    }
  },
};

/** const alerts = useAlertArea(); alerts.show({variant: 'danger', text: 'File not found'}) */
export const useAlertArea = () => pageAlerts;

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => {
    listeners.delete(l);
  };
};
const get = () => alerts;

export function AlertArea() {
  const list = useSyncExternalStore(subscribe, get, get);
  const { pathname } = useLocation();
  useEffect(() => pageAlerts.clearTransient(), [pathname]);
  if (!list.length) return null;
  return (
    <div className="app-alerts px-3 pt-2">
      {list.map((a) => (
        <PlainAlert key={a.key} variant={a.variant} onClose={() => pageAlerts.dismiss(a.key)} className="py-2 mb-2">
          {a.text}
        </PlainAlert>
      ))}
    </div>
  );
}
