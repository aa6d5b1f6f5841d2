import type { SessionValues } from '../../contracts/auth.js';
import { DEFAULT_ROLE } from '../../contracts/roles.js';

/**
 * The session of 000 §3, kept in local storage under the spec's keys: atime, inpoint, attemts
 * (spelled so), role (integer, 100 when missing), uid, name, hash. Logged in iff `atime` (the session
 * time mark) and `hash` exist (000 §4).
 */
export const SESSION_KEYS = ['atime', 'inpoint', 'attemts', 'role', 'uid', 'name', 'hash'] as const;
export type SessionKey = (typeof SESSION_KEYS)[number];

export interface Session {
  atime: number;
  uid: number;
  name: string;
  role: number;
  hash: string;
}

const store = (): Storage | null => {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
};
const read = (k: SessionKey) => store()?.getItem(k) ?? null;
const write = (k: SessionKey, v: string | number) => store()?.setItem(k, String(v));
const remove = (k: SessionKey) => store()?.removeItem(k);

const listeners = new Set<() => void>();
let snapshot: Session | null = null;
let snapshotKey = '';

function emit() {
  for (const l of listeners) l();
}

/** The current session, or null when logged out. Stable identity between changes (for useSyncExternalStore). */
export function getSession(): Session | null {
  const atime = read('atime');
  const hash = read('hash');
  const key = [atime, hash, read('uid'), read('name'), read('role')].join('\u0000');
  if (key === snapshotKey) return snapshot;
  snapshotKey = key;
  if (!atime || !hash) {
    snapshot = null;
    return null;
  }
  const role = Number.parseInt(read('role') ?? '', 10);
  snapshot = {
    atime: Number(atime),
    hash,
    uid: Number(read('uid') ?? 0),
    name: read('name') ?? '',
    role: Number.isFinite(role) ? role : DEFAULT_ROLE,
  };
  return snapshot;
}

export const isLoggedIn = () => getSession() !== null;
/** The stored role, 100 when missing (000 §3). */
export const getRole = () => getSession()?.role ?? DEFAULT_ROLE;
export const getHash = () => read('hash');

/** Stores the values the server answered on login; resets the failed-attempt counter. */
export function saveSession(v: SessionValues) {
  write('uid', v.uid);
  write('name', v.name);
  write('role', v.role);
  write('hash', v.hash);
  write('atime', v.atime);
  remove('attemts');
  emit();
}

/**
 * The server's word on the signed-in session's current role and name (the socket's `session.changed`):
 * stored under the same keys, so the menu, the route guard and every role check re-render at once.
 * Ignored when signed out.
 */
export function updateSession(v: { role?: number; name?: string }) {
  if (!getSession()) return;
  let changed = false;
  if (typeof v.role === 'number' && Number.isInteger(v.role) && String(v.role) !== read('role')) {
    write('role', v.role);
    changed = true;
  }
  if (typeof v.name === 'string' && v.name !== read('name')) {
    write('name', v.name);
    changed = true;
  }
  if (changed) emit();
}

/** Forgets the session (keeps `inpoint`, so a re-login returns to where the user was). */
export function clearSession() {
  for (const k of ['atime', 'hash', 'uid', 'name', 'role'] as const) remove(k);
  emit();
}

/** The entry point to return to after login (000 §4). Never /auth, /register or /logout. */
export function setInpoint(path: string) {
  if (!path || /^\/(auth|register|logout)(\/|\?|$)/.test(path)) return;
  write('inpoint', path);
}
/** Reads and forgets the saved entry point; '/' by default. */
export function takeInpoint(): string {
  const p = read('inpoint');
  remove('inpoint');
  return p && p.startsWith('/') && !p.startsWith('//') ? p : '/';
}

/** Failed login attempts since the last success (`attemts`, spelled as in 000 §3). */
export const getAttempts = () => Number(read('attemts') ?? 0) || 0;
export function addAttempt() {
  write('attemts', getAttempts() + 1);
}

export function subscribeSession(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (e: StorageEvent) => {
    if (e.key === null || (SESSION_KEYS as readonly string[]).includes(e.key)) listener();
  };
  globalThis.addEventListener?.('storage', onStorage);
  return () => {
    listeners.delete(listener);
    globalThis.removeEventListener?.('storage', onStorage);
  };
}
