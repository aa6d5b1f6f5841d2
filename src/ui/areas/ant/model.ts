/** The UI's view of the ant contract (src/contracts/ant.ts): re-exports plus the small helpers the screens share. */
import {
  ANT_CLIENT_LABELS, ANT_CLIENT_OPTIONS as CLIENT_VALUES, ANT_CLIENT_STORAGE_KEY, USED_PROXY_LABELS,
  type AntClientOption, type AntCommandResult, type AntConnection, type UsedProxyStatus,
} from '../../../contracts/ant.js';

export {
  ANT_CONNECTIONS_DEBOUNCE_MS, ANT_LIST_HEIGHT_PX, ANT_PAGE_TITLE, ANT_SMOOTH_START_MS, ANT_TASK_LIST_DEBOUNCE_MS, ANT_TASK_LIST_ROWS,
  antStepDescription, DEFAULT_PROXY_PATTERN, formatOnlyStep, parseOnlyStep, parseProxyBatch, PROXY_PATTERNS, proxyWaitMessage,
  type AiAccountView, type AntCommandResult, type AntConnection, type AntLogResult, type AntLogType, type AntTaskStat, type AntTaskView,
  type AntWaitTask, type AntWorkerStatus, type ProxyAddResult, type ProxyPattern, type ProxyView, type UsedProxyStatus,
} from '../../../contracts/ant.js';

export const ANT_LABELS = { stopAll: 'Stop all', smoothStart: 'Smooth start', restartAll: 'Restart all', running: '(Running...)' } as const;
export const ANT_LOG_TYPES: { value: 'out' | 'err'; label: string }[] = [{ value: 'out', label: 'Output' }, { value: 'err', label: 'Error' }];
/** get_log's default (the contract: lines 1..5000, default 100). */
export const ANT_LOG_DEFAULT_LINES = 100;
export const ANT_LOG_MAX_LINES = 5000;

export const USED_PROXY_OPTIONS = ([0, 1, 2] as UsedProxyStatus[]).map((value) => ({ value, label: USED_PROXY_LABELS[value] }));
export const ANT_CLIENT_OPTIONS = CLIENT_VALUES.map((value) => ({ value, label: ANT_CLIENT_LABELS[value] }));
export type ClientAnt = AntClientOption;

/** The client-ant selector's value (001 §2: kept in local storage; docs/ant.md: 'local' lists this instance's ants, 'node' every instance's). */
export function getClientAnt(): ClientAnt {
  try {
    return localStorage.getItem(ANT_CLIENT_STORAGE_KEY) === 'node' ? 'node' : 'local';
  } catch {
    return 'local';
  }
}
export const setClientAnt = (v: ClientAnt) => localStorage.setItem(ANT_CLIENT_STORAGE_KEY, v);

/** 001 §4 Ant states: start only for a stopped, connected ant that is not 'moder'; stop for a running connected one; reload unless moder or disconnected. */
export const canStart = (a: AntConnection) => a.isStop && !a.isDisconnect && a.status !== 'moder';
export const canStop = (a: AntConnection) => !a.isStop && !a.isDisconnect && a.status !== 'moder';
export const canReload = (a: AntConnection) => !a.isDisconnect && a.status !== 'moder';

/** A command's answer as text, and whether the ant (or every ant) said ok. */
export function commandOutcome(result: unknown): { ok: boolean; text: string } {
  const one = (r: AntCommandResult) => r.message || (r.ok ? 'ok' : 'failed');
  if (Array.isArray(result)) {
    const rs = result as AntCommandResult[];
    if (!rs.length) return { ok: true, text: 'no ant connected' };
    const bad = rs.filter((r) => !r.ok);
    return { ok: bad.length === 0, text: `${rs.length - bad.length} of ${rs.length} ok${bad.length ? `; ${bad.map((r) => `${r.id}: ${one(r)}`).join('; ')}` : ''}` };
  }
  if (result && typeof result === 'object' && 'ok' in result && 'message' in result) {
    const r = result as AntCommandResult;
    return { ok: r.ok, text: one(r) };
  }
  return { ok: true, text: 'done' };
}
