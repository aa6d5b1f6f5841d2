/**
 * Ant: the crawler hub, its workers ("ants"), proxies, AI accounts and proxy import (001 §2 "Ant worker
 * control", "Proxy import"; §3 Ant connection, Proxy, AI account, Task stat, step descriptions; §4 Worker,
 * Ant states, Smooth start; §5 Proxy batch, Only-step field; §7 POST /proxy/add and the realtime ant
 * message set; §8 'Wait insert N row'; §9 ant constants). Shared by the hub (src/modules/ant), the
 * reference ant (src/ant) and the UI (/ant, /proxy/add). Decisions: docs/ant.md.
 *
 * Three wires:
 *  - operators (role 1) send ANT_OPERATOR_MESSAGES over their session socket (default namespace) and get
 *    the session envelope `{status:'ok', result}` through the socket.io acknowledgement; they receive
 *    AntServerEvents (admins' room);
 *  - ants connect to the ANT_NAMESPACE namespace with an ant token and speak AntToHub / HubToAnt;
 *  - RPC methods (ant.createToken, ant.listTokens, ant.revokeToken, ant.addTask, ant.getUniqueness,
 *    ant.addAiAccount) and REST POST /api/proxy/add.
 */
import { z } from 'zod';
import { id, int, optionalId } from './fields.js';

// ---------------------------------------------------------------------------------------------------
// Constants (001 §9)

/** 001 §9: the task list shows at most 15 rows. */
export const ANT_TASK_LIST_ROWS = 15;
/** 001 §9: smooth start starts one stopped ant every 2 s. */
export const ANT_SMOOTH_START_MS = 2000;
/** 001 §9: task-list refresh debounce. */
export const ANT_TASK_LIST_DEBOUNCE_MS = 400;
/** 001 §9: connections refresh debounce. */
export const ANT_CONNECTIONS_DEBOUNCE_MS = 1000;
/** 001 §9: proxy and AI lists are 300 px high (scroll). */
export const ANT_LIST_HEIGHT_PX = 300;
/** Page title of /ant (001 §2). */
export const ANT_PAGE_TITLE = 'Ant v2';
/** socket.io namespace the ants connect to, on the console's port. */
export const ANT_NAMESPACE = '/ant';
/** Deadline of every hub→ant command (socket.io ack time-out). */
export const ANT_COMMAND_TIMEOUT_MS = 5000;
/** A task's lease: an ant that neither finishes nor renews (ant.heartbeat) within it loses the task. */
export const ANT_LEASE_MS = 60_000;
/** Default per-host rate limit of the reference ant (requests a second per host; ANT_RATE_PER_HOST). */
export const ANT_DEFAULT_RATE_PER_HOST = 1;
/** A proxy failing this many times in a row is set aside (with its last error) for ANT_PROXY_ASIDE_MS. */
export const ANT_PROXY_MAX_FAILS = 3;
export const ANT_PROXY_ASIDE_MS = 10 * 60_000;
/** A task that failed this many times is no longer handed out (state 'failed'). */
export const ANT_TASK_MAX_ATTEMPTS = 5;
/** Step 3: pages whose similarity to a book is at least this are kept as uniqueness marks. */
export const ANT_SIMILARITY_THRESHOLD = 0.1;
/** Step 3: words per shingle. */
export const ANT_SHINGLE_WORDS = 4;
/** Local storage key of the client-ant selector (001 §2: Local or Node). */
export const ANT_CLIENT_STORAGE_KEY = 'ant.client';
/**
 * The client-ant selector (proposal, docs/ant.md): which connections the page lists. 'local': the ants
 * connected to the console instance serving the page (AntConnection.worker === that instance);
 * 'node': the ants of every instance (the shared view). Changing it reloads the page (001 §2).
 */
export const ANT_CLIENT_OPTIONS = ['local', 'node'] as const;
export type AntClientOption = (typeof ANT_CLIENT_OPTIONS)[number];
export const ANT_CLIENT_LABELS: Record<AntClientOption, string> = { local: 'Local', node: 'Node' };

// ---------------------------------------------------------------------------------------------------
// Steps (001 §3: descriptions exist for steps 1-8, 10, 20-23)

export const ANT_STEPS: Record<number, string> = {
  1: 'category links',
  2: 'items of category',
  3: 'uniqueness check',
  4: 'page scan',
  5: 'main page scan',
  6: 'page count',
  7: 'download check',
  8: 'sitemap',
  10: 'move item',
  20: 'queue uniqueness task',
  21: 'write uniqueness marks',
  22: 'uniqueness result',
  23: 'queue book scan tasks',
};
/** Every step with a description, ascending. */
export const ANT_STEP_IDS: readonly number[] = Object.keys(ANT_STEPS).map(Number).sort((a, b) => a - b);
/** Steps the reference ant works (in chain order); the others are refused with ANT_STEP_REFUSED. */
export const ANT_IMPLEMENTED_STEPS: readonly number[] = [8, 1, 2, 4, 20, 3, 21, 22];
export const antStepDescription = (step: number) => ANT_STEPS[step] ?? `step ${step}`;
export const ANT_STEP_REFUSED = (step: number) =>
  `Step ${step} (${antStepDescription(step)}) is not implemented by this ant`;

// ---------------------------------------------------------------------------------------------------
// Only-step (001 §5: comma-separated integers; entries not greater than 0 dropped; empty allowed)

/** Parses the only-step field: the positive integers, de-duplicated, in order; [] = every step. */
export function parseOnlyStep(text: string | null | undefined): number[] {
  const out: number[] = [];
  for (const part of String(text ?? '').split(',')) {
    const s = part.trim();
    if (!/^[+-]?\d+$/.test(s)) continue;
    const n = Number(s);
    if (!Number.isSafeInteger(n) || n <= 0 || out.includes(n)) continue;
    out.push(n);
  }
  return out;
}
/** The stored/answered form of an only-step list ('1,2,8', '' for all steps). */
export const formatOnlyStep = (steps: readonly number[]) => steps.join(',');

// ---------------------------------------------------------------------------------------------------
// Proxy batch (001 §5: each line must have as many colon-separated parts as the chosen pattern)

export const PROXY_PATTERNS = ['ip:port:login:pass', 'login:pass:ip:port', 'ip:port:pass:login', 'ip:port'] as const;
export type ProxyPattern = (typeof PROXY_PATTERNS)[number];
export const DEFAULT_PROXY_PATTERN: ProxyPattern = 'ip:port:login:pass';

/** One proxy of POST /api/proxy/add: `ip` is 'host:port'. */
export interface ProxyAddRow {
  ip: string;
  login: string;
  pass: string;
}
export interface ProxyBatchDropped {
  /** 1-based line number in the batch text. */
  line: number;
  text: string;
  reason: string;
}
export interface ProxyBatchParse {
  rows: ProxyAddRow[];
  dropped: ProxyBatchDropped[];
}

const HOST_RE = /^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/;
/** 'host:port' with a host name or IPv4 address and a port 1-65535. */
export function isProxyAddress(ip: string): boolean {
  const m = /^([^:\s]+):(\d{1,5})$/.exec(ip);
  if (!m) return false;
  const port = Number(m[2]);
  return HOST_RE.test(m[1]) && port >= 1 && port <= 65535;
}

/**
 * Parses a batch: blank lines are skipped; a line with another number of colon-separated parts than
 * the pattern, or whose address is not host:port, is dropped (listed with its reason).
 */
export function parseProxyBatch(text: string, pattern: ProxyPattern = DEFAULT_PROXY_PATTERN): ProxyBatchParse {
  const keys = pattern.split(':');
  const rows: ProxyAddRow[] = [];
  const dropped: ProxyBatchDropped[] = [];
  String(text ?? '')
    .split(/\r?\n/)
    .forEach((raw, i) => {
      const line = raw.trim();
      if (!line) return;
      const parts = line.split(':').map((p) => p.trim());
      if (parts.length !== keys.length) {
        dropped.push({ line: i + 1, text: line, reason: `${parts.length} parts, the pattern has ${keys.length}` });
        return;
      }
      const v: Record<string, string> = {};
      keys.forEach((k, j) => (v[k] = parts[j]));
      const ip = `${v.ip}:${v.port}`;
      if (!isProxyAddress(ip)) {
        dropped.push({ line: i + 1, text: line, reason: `${ip} is not host:port` });
        return;
      }
      rows.push({ ip, login: v.login ?? '', pass: v.pass ?? '' });
    });
  return { rows, dropped };
}

/** 001 §8: shown while the batch is sent. */
export const proxyWaitMessage = (n: number) => `Wait insert ${n} row`;

/** POST /api/proxy/add body (001 §7). At most 10,000 rows a call. */
export const ProxyAddArgs = z.object({
  data: z
    .array(
      z.object({
        ip: z.string().trim().refine(isProxyAddress, 'ip must be host:port'),
        login: z.string().max(255).default(''),
        pass: z.string().max(255).default(''),
      }),
    )
    .min(1, 'data is empty')
    .max(10_000, 'At most 10000 proxies a call'),
});
/** Answer of POST /api/proxy/add: `message` is 'Insert ok! inserted N, updated M' (duplicates by ip:port update). */
export interface ProxyAddResult {
  message: string;
  inserted: number;
  updated: number;
  total: number;
}

// ---------------------------------------------------------------------------------------------------
// Views (001 §3)

/** 0 Not used, 1 Used, 2 Used unique (a proxy held by one ant at a time). */
export type UsedProxyStatus = 0 | 1 | 2;
export const USED_PROXY_LABELS: Record<UsedProxyStatus, string> = { 0: 'Not used', 1: 'Used', 2: 'Used unique' };

/** Worker switch (001 §4: status 'ok' shows Stop, otherwise Start). `time`: ms epoch the switch was last set (0 never). */
export interface AntWorkerStatus {
  status: 'ok' | 'stop';
  time: number;
  /** The console instance answering (compare with AntConnection.worker for the 'local' selector). */
  instance: string;
}

export interface AntTaskView {
  Id: number;
  step: number;
  item: string;
  /** ms epoch the task was queued. */
  time: number;
}

/**
 * A connection's status: an ant is 'work' (a task in hand), 'wait' (started, no task) or 'stop';
 * 'moder' is an operator's console socket (SOCKET_CLIENT_STATUS, role 1) listed among the connections
 * (no start/stop/reload, 001 §4); 'disconnect' once gone.
 */
export type AntStatus = 'work' | 'wait' | 'stop' | 'moder' | 'disconnect';

/** Ant connection (001 §3). */
export interface AntConnection {
  /** Connection id (stable for one connection of one ant process; a reconnect gets a new one). */
  id: string;
  host: string;
  name: string;
  /** Console instance the ant is connected to. */
  worker: string;
  status: AntStatus;
  isStop: boolean;
  isDisconnect: boolean;
  /** ms epoch connected (or disconnected, when isDisconnect). */
  time: number;
  /** ms epoch of the last change reported. */
  updateList: number;
  /** Tasks finished on this connection. */
  count_send: number;
  /** Mean ms per finished task. */
  avg_time_work: number;
  /** The proxy the hub assigned ('host:port'), or null. */
  proxy: string | null;
  task: AntTaskView | null;
}

/** Proxy as answered (001 §3): `pass` is always SECRET_MASK ('***') when set, '' when empty. */
export interface ProxyView {
  Id: number;
  ip: string;
  login: string;
  pass: string;
  fail_count: number;
  /** ms epoch until which it is set aside, 0 when in use. */
  aside_until: number;
  last_error: string | null;
}

/** AI account (001 §3): `pass` masked like ProxyView.pass. ttl_start: ms epoch, 0 never. */
export interface AiAccountView {
  Id: number;
  login: string;
  pass: string;
  last_error: string | null;
  ttl_start: number;
  connects: number;
}

/** Task stat (001 §3): queued tasks per step, with the step's description. */
export interface AntTaskStat {
  step: number;
  description: string;
  count: number;
}

/** A task waiting on something (get_list_wait_task): held by an ant under lease, or waiting to be retried. */
export interface AntWaitTask extends AntTaskView {
  state: 'leased' | 'retry';
  /** Connection id holding it (leased), else null. */
  ant: string | null;
  antName: string | null;
  /** ms epoch the lease ends (leased) or the retry is due (retry). */
  until: number;
  attempts: number;
  last_error: string | null;
}

/** One uniqueness result row (ant.getUniqueness): which outside page copies which book, and how much (0..1). */
export interface AntUniquenessRow {
  Id_book: number;
  url: string;
  similarity: number;
}

export interface AntTokenView {
  Id: number;
  name: string;
  /** ms epoch. */
  created: number;
  last_used: number;
  revoked: boolean;
}

export type AntLogType = 'out' | 'err';

// ---------------------------------------------------------------------------------------------------
// Operator messages (001 §7 "sends"): name → payload / answer (the `result` of the envelope)

export interface AntCommandResult {
  id: string;
  ok: boolean;
  /** The ant's answer or why it failed ('No answer within 5000 ms', 'Ant not connected'). */
  message: string;
}

export interface AntOperatorMessages {
  get_worker_status: { args: void; result: AntWorkerStatus };
  worker_start: { args: void; result: AntWorkerStatus };
  worker_stop: { args: void; result: AntWorkerStatus };
  get_only_step: { args: void; result: { only_step: string } };
  set_only_step: { args: { only_step: string }; result: { only_step: string } };
  ant_get_task_list: { args: void; result: AntTaskView[] };
  reload_task_list: { args: void; result: AntTaskView[] };
  /** Every connection, connected and disconnected (isDisconnect), of every instance. */
  get_list_connections: { args: void; result: AntConnection[] };
  ant_stop_all: { args: void; result: AntCommandResult[] };
  ant_start: { args: { id: string }; result: AntCommandResult };
  ant_stop: { args: { id: string }; result: AntCommandResult };
  ant_restart_all: { args: void; result: AntCommandResult[] };
  ant_reload: { args: { id: string }; result: AntCommandResult };
  'server.get_status_used_proxy': { args: void; result: { status: UsedProxyStatus } };
  'server.set_status_used_proxy': { args: { status: UsedProxyStatus }; result: { status: UsedProxyStatus } };
  'task.getStats': { args: void; result: AntTaskStat[] };
  get_proxy_list: { args: void; result: ProxyView[] };
  update_proxy_list: { args: void; result: ProxyView[] };
  /** lines: 1..5000 (default 100); type default 'out'. */
  get_log: { args: { id: string; lines?: number; type?: AntLogType }; result: AntLogResult };
  get_list_wait_task: { args: void; result: AntWaitTask[] };
  'server.get_open_ai_account_preload_list': { args: void; result: AiAccountView[] };
  'server.open_ai.run_account_preload': { args: void; result: AiAccountView[] };
  'server.open_ai.reset_account_error': { args: { Id: number }; result: AiAccountView };
}
export type AntOperatorMessage = keyof AntOperatorMessages;
export const ANT_OPERATOR_MESSAGES = [
  'get_worker_status', 'worker_start', 'worker_stop', 'get_only_step', 'set_only_step', 'ant_get_task_list',
  'reload_task_list', 'get_list_connections', 'ant_stop_all', 'ant_start', 'ant_stop', 'ant_restart_all',
  'ant_reload', 'server.get_status_used_proxy', 'server.set_status_used_proxy', 'task.getStats', 'get_proxy_list',
  'update_proxy_list', 'get_log', 'get_list_wait_task', 'server.get_open_ai_account_preload_list',
  'server.open_ai.run_account_preload', 'server.open_ai.reset_account_error',
] as const satisfies readonly AntOperatorMessage[];

export interface AntLogResult {
  id: string;
  type: AntLogType;
  /** The last `lines` lines of that stream of the ant's own log, oldest first. */
  lines: string[];
  /** ms epoch of the read. */
  time: number;
}

/** Server → operator events (001 §7 "receives"); admins' room. */
export interface AntServerEvents {
  worker_status: AntWorkerStatus;
  /** One connection changed (status, task, counters, disconnected). */
  ant_change: AntConnection;
  /** The first ANT_TASK_LIST_ROWS queued tasks (after any queue change, debounced by the hub). */
  task_list: AntTaskView[];
  /** Every connection (connected and disconnected) after a connect/disconnect. */
  ant_list: AntConnection[];
  /** New lines of an ant's own log. */
  stream_logs: { id: string; type: AntLogType; lines: string[] };
  'task.stats': AntTaskStat[];
  proxy_list: ProxyView[];
  /** The hub's settings changed. */
  'server.change': { status_used_proxy: UsedProxyStatus };
  'server.open_ai.preload_list_change': AiAccountView[];
  set_only_step: { only_step: string };
  list_wait_task: AntWaitTask[];
}

// ---------------------------------------------------------------------------------------------------
// RPC (POST /api) methods, admins only

/** ant.createToken {name} → {token} (shown once; stored hashed). */
export const AntCreateTokenArgs = z.object({ name: z.string().trim().min(1, 'name is required').max(64) });
export interface AntCreateTokenResult {
  Id: number;
  name: string;
  token: string;
}
/** ant.listTokens {} → AntTokenView[]; ant.revokeToken {Id} → AntTokenView (its ants are disconnected). */
export const AntTokenIdArgs = z.object({ Id: id() });
/** ant.addTask {step, item} → AntTaskView (an existing same step+item answers that task, `duplicate: true`). */
export const AntAddTaskArgs = z.object({
  step: int(1, 1000, 'step'),
  item: z.string().trim().min(1, 'item is required').max(2000),
});
export type AntAddTaskResult = AntTaskView & { duplicate: boolean };
/** ant.getUniqueness {Id_book?} → AntUniquenessRow[] (highest similarity first). */
export const AntGetUniquenessArgs = z.object({ Id_book: optionalId('Id_book') });
/** ant.addAiAccount {login, pass} → AiAccountView (same login updates the pass). */
export const AntAddAiAccountArgs = z.object({
  login: z.string().trim().min(1, 'login is required').max(255),
  pass: z.string().max(255).default(''),
});

// ---------------------------------------------------------------------------------------------------
// Hub ↔ ant protocol (namespace ANT_NAMESPACE). Handshake: `auth: {token, name, host}`; a wrong or
// revoked token is refused at connect (connect_error 'Invalid ant token').

export interface AntHandshake {
  token: string;
  name: string;
  host: string;
}

/** A proxy handed to an ant with a task (cleartext only on the ant wire). */
export interface AntProxy {
  Id: number;
  /** 'host:port'. */
  ip: string;
  login: string;
  pass: string;
}

/** A task handed out under lease. `data`: what the hub attaches (step 3: the scanned page's text). */
export interface AntLeasedTask extends AntTaskView {
  lease: string;
  leaseUntil: number;
  attempts: number;
  proxy: AntProxy | null;
  data?: { text?: string; title?: string };
}

/** What finishing a task produces; applied by the hub with the completion (atomically, lease checked). */
export interface AntTaskOutput {
  /** New tasks (duplicates of an existing step+item are ignored). */
  tasks?: { step: number; item: string }[];
  /** Step 4: the page scanned. */
  page?: { url: string; title: string; text: string };
  /** Step 21: the marks to write (similarity of `url` to each book). */
  marks?: { url: string; Id_book: number; similarity: number }[];
  /** Step 22: publish the result rows of this url (its marks at or above the threshold). */
  result?: { url: string };
}

/**
 * Book shingles for step 3: hashed word shingles (ANT_SHINGLE_WORDS words, 32-bit FNV-1a) of each page
 * of a book; a scanned page's similarity to a book is its best Jaccard against one of the book's pages.
 */
export interface AntBookShingles {
  Id_book: number;
  pages: { num: number; shingles: number[] }[];
}

/** ant → hub messages: name → payload / ack answer (`{ok:false, message}` on refusal). */
export interface AntToHub {
  /** The ant's state after start/stop or a task change. */
  'ant.status': { args: { isStop: boolean; status: AntStatus; steps: number[] }; result: { ok: true } };
  /** Asks for the next task; null when none (the hub emits 'hub.wake' when tasks arrive). */
  'ant.next': { args: { steps?: number[] }; result: { task: AntLeasedTask | null } };
  'ant.heartbeat': { args: { Id: number; lease: string }; result: { ok: boolean; leaseUntil: number } };
  'ant.done': { args: { Id: number; lease: string; out: AntTaskOutput; ms: number }; result: { ok: boolean; message?: string } };
  /** proxyError: the failure was the proxy's (counts toward setting it aside). */
  'ant.fail': { args: { Id: number; lease: string; error: string; proxyError?: boolean; final?: boolean }; result: { ok: boolean } };
  /** Books' shingles, `after` Id_book (paging, 50 a page); `version` changes when book pages change. */
  'ant.book_shingles': { args: { after: number }; result: { books: AntBookShingles[]; next: number | null; version: string } };
  /** New lines of the ant's own log (no ack). */
  'ant.log': { args: { type: AntLogType; lines: string[] }; result: void };
}

/** hub → ant commands, each acknowledged within ANT_COMMAND_TIMEOUT_MS. */
export interface HubToAnt {
  'hub.start': { args: Record<string, never>; result: { ok: boolean; message: string } };
  'hub.stop': { args: Record<string, never>; result: { ok: boolean; message: string } };
  /** Drop the current task (returned to the queue by the hub), re-read settings, start again if running. */
  'hub.reload': { args: Record<string, never>; result: { ok: boolean; message: string } };
  'hub.get_log': { args: { lines: number; type: AntLogType }; result: { lines: string[] } };
  /** Tasks are available (no ack). */
  'hub.wake': { args: Record<string, never>; result: void };
}

// ---------------------------------------------------------------------------------------------------
// Similarity (step 3): word shingles + Jaccard (docs/ant.md). Pure: the hub hashes book pages, the ant its page.

/** Lower-cased words (letters and digits of any script). */
export function antWords(text: string): string[] {
  return String(text ?? '').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}
/** 32-bit FNV-1a of a string. */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}
/** The set of hashed `k`-word shingles of a text, sorted ascending (a text shorter than k words gives one shingle of all its words). */
export function antShingles(text: string, k = ANT_SHINGLE_WORDS): number[] {
  const w = antWords(text);
  const set = new Set<number>();
  if (w.length && w.length < k) set.add(fnv1a(w.join(' ')));
  for (let i = 0; i + k <= w.length; i++) set.add(fnv1a(w.slice(i, i + k).join(' ')));
  return [...set].sort((a, b) => a - b);
}
/** Jaccard similarity |A∩B| / |A∪B| of two sorted shingle sets; 0 when both are empty. */
export function jaccard(a: readonly number[], b: readonly number[]): number {
  let i = 0, j = 0, inter = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) { inter++; i++; j++; } else if (a[i] < b[j]) i++; else j++;
  }
  const union = a.length + b.length - inter;
  return union ? inter / union : 0;
}
