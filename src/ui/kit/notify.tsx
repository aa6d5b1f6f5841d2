import { lazy, Suspense, useSyncExternalStore } from 'react';
import { NOTIFY_MAX_STACK, notifyDurationMs } from '../../contracts/constants.js';

/**
 * Notifications (000 §2, 001 §8): top right, up to 5 stacked (the oldest goes when a sixth comes),
 * each shown max(3000 ms, text length / 18 s). A module-level store, so code outside components can
 * notify too (`notify.error(text)`); components use `useNotify()`.
 */
export type NotifyType = 'success' | 'error' | 'info';
export interface NotifyItem {
  id: number;
  type: NotifyType;
  text: string;
  until: number;
}

let items: NotifyItem[] = [];
let nextId = 1;
const timers = new Map<number, ReturnType<typeof setTimeout>>();
const listeners = new Set<() => void>();
const changed = () => listeners.forEach((l) => l());

function dismiss(id: number) {
  clearTimeout(timers.get(id));
  timers.delete(id);
  const before = items.length;
  items = items.filter((i) => i.id !== id);
  if (items.length !== before) changed();
}

function push(type: NotifyType, text: string): number {
  const id = nextId++;
  const ms = notifyDurationMs(text);
  items = [...items, { id, type, text, until: Date.now() + ms }];
  while (items.length > NOTIFY_MAX_STACK) {
    const oldest = items[0];
    clearTimeout(timers.get(oldest.id));
    timers.delete(oldest.id);
    items = items.slice(1);
  }
  timers.set(id, setTimeout(() => dismiss(id), ms));
  changed();
  return id;
}

export interface Notifier {
  success: (text: string) => number;
  error: (text: string) => number;
  info: (text: string) => number;
  notify: (type: NotifyType, text: string) => number;
  dismiss: (id: number) => void;
}

/** Usable anywhere: notify.success('Save ok!'), notify.error(err.message). */
export const notify: Notifier = {
  success: (t) => push('success', t),
  error: (t) => push('error', t),
  info: (t) => push('info', t),
  notify: push,
  dismiss,
};

/** The notifier for components: const n = useNotify(); n.success(MSG.saveOk); n.error(errorText(e)). */
export const useNotify = (): Notifier => notify;

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => {
    listeners.delete(l);
  };
};
const getItems = () => items;

/** The toasts (react-bootstrap Toast, transitions): loaded with the first notification, not with the first page. */
const NotifyStack = lazy(() => import('./NotifyStack.js'));

/** Rendered once by the Layout. */
export function Notifications() {
  const list = useSyncExternalStore(subscribe, getItems, getItems);
  if (!list.length) return null;
  return (
    <Suspense fallback={null}>
      <NotifyStack list={list} dismiss={dismiss} />
    </Suspense>
  );
}
