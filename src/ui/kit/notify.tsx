import { useSyncExternalStore } from 'react';
import Toast from 'react-bootstrap/Toast';
import ToastContainer from 'react-bootstrap/ToastContainer';
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

const BG: Record<NotifyType, string> = { success: 'success', error: 'danger', info: 'secondary' };

/** Rendered once by the Layout. */
export function Notifications() {
  const list = useSyncExternalStore(subscribe, getItems, getItems);
  return (
    <ToastContainer position="top-end" className="app-notify-stack p-2" containerPosition="fixed">
      {list.map((n) => (
        <Toast
          key={n.id}
          bg={BG[n.type]}
          onClose={() => dismiss(n.id)}
          className="app-notify text-white"
          data-type={n.type}
          role={n.type === 'error' ? 'alert' : 'status'}
        >
          <div className="d-flex align-items-start">
            <Toast.Body className="flex-grow-1 app-notify-text">{n.text}</Toast.Body>
            <button type="button" className="btn-close btn-close-white me-2 mt-2" aria-label="Close" onClick={() => dismiss(n.id)} />
          </div>
        </Toast>
      ))}
    </ToastContainer>
  );
}
