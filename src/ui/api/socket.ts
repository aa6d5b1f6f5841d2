import { useEffect, useRef, useSyncExternalStore } from 'react';
import type { Socket, io as IoFn } from 'socket.io-client';
import {
  API_TIMEOUT_MS, SOCKET_CLIENT_STATUS, SOCKET_RECONNECT_ATTEMPTS, SOCKET_RECONNECT_MS, TIMEOUT_MESSAGE, TIMEOUT_STATUS,
} from '../../contracts/constants.js';
import type { ServerEvents } from '../../contracts/events.js';
import { MSG } from '../../contracts/messages.js';
import { ApiError, sessionEnded } from './http.js';
import { getHash, subscribeSession, updateSession } from './session.js';

/**
 * The one socket.io connection of the tab (000 §4 "Realtime"): same origin, handshake
 * `auth: {hash, status: 'moder'}`, reconnects every 3 s for up to 10 attempts, and queues messages
 * until the connection is open. Re-created when the session hash changes; closed on logout.
 *
 * The socket also carries the session itself: `session.changed {role, name}` (on connect and when an
 * admin changes them) updates the stored session, so the menu and role checks follow live;
 * `session.ended` (signed out elsewhere, expired, deactivated, password reset) and a refused handshake
 * end the session here and go to /auth.
 *
 * socket.io-client (~12 KB compressed) is loaded on the first use while signed in, not with the first
 * page: until it has arrived the status is 'connecting' and messages wait in the same queue.
 */
export type SocketStatus = 'idle' | 'connecting' | 'connected' | 'reconnecting' | 'failed';

type Handler = (...args: unknown[]) => void;

let socket: Socket | null = null;
let socketHash: string | null = null;
let status: SocketStatus = 'idle';
let lastError = '';
let manualAttempts = 0;
let manualTimer: ReturnType<typeof setTimeout> | undefined;
const queue: Array<(s: Socket) => void> = [];
const handlers = new Map<string, Set<Handler>>();
const statusListeners = new Set<() => void>();

function setStatus(s: SocketStatus) {
  if (s === status) return;
  status = s;
  for (const l of statusListeners) l();
}

function flush(s: Socket) {
  while (queue.length && s.connected) queue.shift()!(s);
}

/** A refusal by the server's middleware (no or expired session) is not retried by socket.io itself. */
function retryManually(s: Socket) {
  clearTimeout(manualTimer);
  if (manualAttempts >= SOCKET_RECONNECT_ATTEMPTS) {
    setStatus('failed');
    return;
  }
  manualAttempts++;
  setStatus('reconnecting');
  manualTimer = setTimeout(() => {
    if (socket === s && !s.connected) s.connect();
  }, SOCKET_RECONNECT_MS);
}

let io: typeof IoFn | null = null;
let ioLoading: Promise<void> | null = null;

/** Loads socket.io-client once, then connects if still signed in. */
function loadIo() {
  ioLoading ??= import('socket.io-client').then(
    (m) => {
      io = m.io;
      if (getHash()) getSocket();
    },
    (err: unknown) => {
      ioLoading = null;
      lastError = err instanceof Error ? err.message : String(err);
      setStatus('failed');
    },
  );
}

/** The socket for the current session (created on first use), or null when logged out or while socket.io-client loads. */
export function getSocket(): Socket | null {
  const hash = getHash();
  if (!hash) {
    closeSocket();
    return null;
  }
  if (socket && socketHash === hash) return socket;
  if (!io) {
    loadIo();
    setStatus('connecting');
    return null;
  }
  if (socket) closeSocket();
  socketHash = hash;
  manualAttempts = 0;
  const s = io({
    path: '/socket.io',
    transports: ['websocket'],
    auth: { hash, status: SOCKET_CLIENT_STATUS },
    reconnection: true,
    reconnectionDelay: SOCKET_RECONNECT_MS,
    reconnectionDelayMax: SOCKET_RECONNECT_MS,
    randomizationFactor: 0,
    reconnectionAttempts: SOCKET_RECONNECT_ATTEMPTS,
  });
  socket = s;
  setStatus('connecting');
  s.on('connect', () => {
    manualAttempts = 0;
    lastError = '';
    setStatus('connected');
    flush(s);
  });
  s.on('disconnect', (reason) => {
    if (socket !== s) return;
    if (reason === 'io client disconnect') return;
    if (reason === 'io server disconnect') retryManually(s);
    else setStatus('reconnecting');
  });
  s.on('connect_error', (err) => {
    if (socket !== s) return;
    lastError = err.message;
    // The server refused the handshake's session (expired or ended elsewhere): sign in again.
    if (err.message === MSG.sessionRequired) {
      closeSocket();
      sessionEnded();
      return;
    }
    if (s.active) setStatus('reconnecting');
    else retryManually(s);
  });
  s.io.on('reconnect_failed', () => {
    if (socket === s) setStatus('failed');
  });
  s.on('session.changed', (v: ServerEvents['session.changed']) => {
    if (socket === s) updateSession(v);
  });
  s.on('session.ended', () => {
    if (socket !== s) return;
    closeSocket();
    sessionEnded();
  });
  s.onAny((event: string, ...args: unknown[]) => {
    for (const h of handlers.get(event) ?? []) h(...args);
  });
  return s;
}

/** Closes the connection (logout) and drops queued messages. */
export function closeSocket() {
  clearTimeout(manualTimer);
  queue.length = 0;
  if (socket) {
    const s = socket;
    socket = null;
    socketHash = null;
    s.removeAllListeners();
    s.io.removeAllListeners();
    s.disconnect();
  }
  setStatus('idle');
}

// Signed out (here or in another tab): the connection closes and queued messages are dropped.
subscribeSession(() => {
  if (!getHash()) closeSocket();
});

/** Sends a message now, or once connected (000 §4: messages are queued until the connection opens). */
export function emit(event: string, ...args: unknown[]) {
  const s = getSocket();
  if (!s) {
    if (getHash()) queue.push((c) => c.emit(event, ...args));
    return;
  }
  if (s.connected) s.emit(event, ...args);
  else queue.push((c) => c.emit(event, ...args));
}

/**
 * Sends a message and waits for the server's acknowledgement (a @SubscribeMessage return value).
 * Rejects with ApiError 'Time wait end' (-1) after the time-out (30 s by default).
 */
export function request<T = unknown>(event: string, payload?: unknown, timeoutMs = API_TIMEOUT_MS): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const s = getSocket();
    if (!s && !getHash()) return reject(new ApiError({ status: 'error', message: 'Not signed in', code: 401 }));
    let done = false;
    const timer = setTimeout(() => {
      done = true;
      reject(new ApiError({ status: TIMEOUT_STATUS, message: TIMEOUT_MESSAGE }));
    }, timeoutMs);
    const send = (c: Socket) =>
      c.emit(event, payload ?? {}, (answer: T) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(answer);
      });
    if (s?.connected) send(s);
    else queue.push(send);
  });
}

/** Listens to a server event (typed for the events of src/contracts/events.ts); returns the unsubscribe. */
export function on<K extends keyof ServerEvents>(event: K, handler: (payload: ServerEvents[K]) => void): () => void;
export function on(event: string, handler: (...args: any[]) => void): () => void;
export function on(event: string, handler: Handler): () => void {
  getSocket();
  let set = handlers.get(event);
  if (!set) handlers.set(event, (set = new Set()));
  set.add(handler);
  return () => {
    set!.delete(handler);
  };
}

export const getSocketStatus = () => status;
export const getSocketError = () => lastError;
function subscribeStatus(l: () => void) {
  statusListeners.add(l);
  return () => {
    statusListeners.delete(l);
  };
}

/** The connection state, for an indicator. Connects when called while signed in. */
export function useSocketStatus(): SocketStatus {
  useEffect(() => {
    getSocket();
  }, []);
  return useSyncExternalStore(subscribeStatus, getSocketStatus, getSocketStatus);
}

/**
 * Calls `resync` when events may have been missed: after the socket reconnects (events sent while it
 * was down are lost) and when the server says its instance lost events of the others (`realtime.resync`,
 * Redis was unreachable). Pages re-read what they show there.
 */
export function useSocketResync(resync: () => void): void {
  const ref = useRef(resync);
  ref.current = resync;
  const socketStatus = useSocketStatus();
  const wasConnected = useRef(false);
  useEffect(() => {
    if (socketStatus === 'connected' && wasConnected.current) ref.current();
    if (socketStatus === 'connected') wasConnected.current = true;
  }, [socketStatus]);
  useEffect(() => on('realtime.resync', () => ref.current()), []);
}

/** Subscribes to a server event for the component's lifetime; the latest handler is always called. */
export function useSocketEvent<K extends keyof ServerEvents>(event: K, handler: (payload: ServerEvents[K]) => void): void;
export function useSocketEvent(event: string, handler: (...args: any[]) => void): void;
export function useSocketEvent(event: string, handler: Handler): void {
  const ref = useRef(handler);
  ref.current = handler;
  useEffect(() => on(event, (...args: unknown[]) => ref.current(...args)), [event]);
}
