import { useCallback, useEffect, useRef, useState } from 'react';
import { LOG_MSG, type LogFilesResult, type LogLinesEvent, type LogFollowEndEvent, type LogNodeView } from '../../../contracts/logs.js';
import { errorText } from '../../api/http.js';
import { rpc } from '../../api/rpc.js';
import { emit, on, request } from '../../api/socket.js';
import type { Envelope } from '../../../contracts/envelope.js';
import { notify } from '../../kit/notify.js';
import './api.js';

/** 000 §2 "Log panel states": not loaded (start), waiting (spinner), loaded (list, 'Empty' with the time), or failed. */
export type PanelState =
  | { kind: 'start' }
  | { kind: 'wait' }
  | { kind: 'loaded'; data: LogFilesResult; at: Date }
  | { kind: 'error'; message: string; hostMismatch: boolean };

/** 000 §5: a refused hostname is shown in red in the panel; an unreadable one is also an alert. */
export function failureState(e: unknown): PanelState {
  const message = errorText(e);
  if (message === LOG_MSG.notValidHost) notify.error(message);
  return { kind: 'error', message, hostMismatch: /^Not confirm hostname /.test(message) || message === LOG_MSG.notValidHost };
}

/** One node's panel: its files, loaded on mount and on reload(); remove() takes a file out of the list (000 §4). */
export function useNodePanel(node: LogNodeView, reloadKey: number) {
  const [state, setState] = useState<PanelState>({ kind: 'start' });
  const seq = useRef(0);
  const load = useCallback(async () => {
    const my = ++seq.current;
    setState({ kind: 'wait' });
    try {
      const data = await rpc('logs.getFiles', { Id: node.Id });
      if (my === seq.current) setState({ kind: 'loaded', data, at: new Date() });
    } catch (e) {
      if (my === seq.current) setState(failureState(e));
    }
  }, [node.Id]);
  useEffect(() => { void load(); }, [load, reloadKey]);
  const remove = async (name: string) => {
    try {
      const r = await rpc('logs.remove', { Id: node.Id, name });
      if (r.res !== 'ok') return notify.error(typeof r.res === 'string' ? r.res : JSON.stringify(r.res)); // 000 §8
      setState((s) => (s.kind === 'loaded' ? { ...s, data: { ...s.data, files: s.data.files.filter((f) => f.name !== name) } } : s));
    } catch (e) {
      notify.error(errorText(e));
    }
  };
  return { state, load, remove };
}

/**
 * Follows a file live over the socket while `enabled`: `logs.follow` then `logs.lines` events for this
 * follow; switching off, leaving the page or a new file sends `logs.unfollow` (the server also stops
 * the agent stream when the socket goes).
 */
export function useFollow(Id: number | undefined, name: string, enabled: boolean, onLines: (lines: string[], truncated: boolean) => void) {
  const [status, setStatus] = useState<'off' | 'starting' | 'on' | 'ended'>('off');
  const [error, setError] = useState('');
  const cb = useRef(onLines);
  cb.current = onLines;
  useEffect(() => {
    if (!enabled || !Id || !name) { setStatus('off'); return; }
    let fid = '';
    let gone = false;
    setStatus('starting');
    setError('');
    const offLines = on('logs.lines', (e: LogLinesEvent) => { if (e.fid === fid) cb.current(e.lines, !!e.truncated); });
    const offEnd = on('logs.follow_end', (e: LogFollowEndEvent) => {
      if (e.fid !== fid) return;
      setStatus('ended');
      if (e.error) setError(e.error);
    });
    request<Envelope<{ fid: string }>>('logs.follow', { Id, name }).then((env) => {
      if (env.status !== 'ok') { if (!gone) { setStatus('ended'); setError(env.message); } return; }
      fid = env.result.fid;
      if (gone) emit('logs.unfollow', { fid });
      else setStatus('on');
    }, (e) => { if (!gone) { setStatus('ended'); setError(errorText(e)); } });
    return () => {
      gone = true;
      offLines();
      offEnd();
      if (fid) emit('logs.unfollow', { fid });
    };
  }, [Id, name, enabled]);
  return { status, error };
}
