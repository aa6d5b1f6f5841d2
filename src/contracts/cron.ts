/**
 * Cron (000 §2 "Cron", §3 Cron task, §4, §5, §7, §8, §9): the task shape, its six schedule fields, the
 * pipe-separated `cmd` string (parsed and serialised here, in one place), run history and live status,
 * shared by the server and the UI.
 */
import { Cron, CronPattern } from 'croner';
import { z } from 'zod';
import { API_TIMEOUT_MS } from './constants.js';
import { isMaskedUserinfo, isSecretName, joinQuery, maskQuery, maskUserinfo, SECRET_MASK, splitQuery, userinfoEnd } from './secrets.js';
import { flag as flagField, id as idField, int, isHttpUrl, optionalId as optionalIdField, requiredOnCreate, text as textField } from './fields.js';

// ---------------------------------------------------------------------------------------------
// Constants

/** The six schedule fields of a task, in cron order (second first). */
export const CRON_FIELDS = ['second', 'minute', 'hour', 'day', 'month', 'week'] as const;
export type CronField = (typeof CRON_FIELDS)[number];
/** Defaults of a new task (000 §3): second 0, every other field '*'. */
export const CRON_DEFAULTS: Record<CronField, string> = { second: '0', minute: '*', hour: '*', day: '*', month: '*', week: '*' };
/** What each field accepts, for messages and the form's help text. */
export const CRON_FIELD_HELP: Record<CronField, string> = {
  second: '0-59',
  minute: '0-59',
  hour: '0-23',
  day: '1-31, L, W',
  month: '1-12 or JAN-DEC',
  week: '0-7 (0 and 7 are Sunday) or SUN-SAT, #n, L',
};
export const CRON_FIELD_MAX = 64;
export const CRON_NAME_MAX = 190;
export const CRON_CMD_MAX = 4000;
/** A `curl=` task's request is aborted after this (the API time-out of 000 §9) and recorded as 'Time wait end'. */
export const CRON_HTTP_TIMEOUT_MS = API_TIMEOUT_MS;
/** How much of a run's output (HTTP body, action result) is kept in the history: its tail. */
export const CRON_OUTPUT_TAIL = 4096;
/** Runs kept per task in the history (older ones are pruned). */
export const CRON_HISTORY_KEEP = 100;
export const CRON_RUNS_PAGE_SIZE = 20;
/** HTTP methods a `curl=` task may use. */
export const CRON_HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Labels and messages (000 §2, §8 verbatim; the rest are the console's own). */
export const CRON_LABELS = {
  addNew: 'Add new job',
  saveOk: 'Save is ok!',
  deleteOk: 'Delete is ok!',
  nameRequired: 'Name is required',
  cmdRequired: 'CMD is required',
} as const;

// ---------------------------------------------------------------------------------------------
// cmd: `path=srv/action|method=syncIptableRules|arg=a&&b` or `curl=https://...|method=POST|arg=k=v&&k2=v2`

export const CMD_KEYS = ['path', 'curl', 'method', 'arg'] as const;
export const ARG_SEPARATOR = '&&';

/** An action of this console (`path=` + `method=`), run in-process through the RPC registry as `{path}.{method}`. */
export interface CronActionCmd {
  kind: 'action';
  path: string;
  method: string;
  /** `arg=` split by '&&'; undefined when there is no `arg=` part. */
  args?: string[];
}
/** An HTTP request (`curl=` + optional `method=`, `arg=` as parameters). */
export interface CronHttpCmd {
  kind: 'http';
  url: string;
  /** As written; undefined means GET. */
  method?: string;
  args?: string[];
}
export type CronCmd = CronActionCmd | CronHttpCmd;

export class CronCmdError extends Error {}

/**
 * Parses a cmd string. Parts are separated by '|', each `key=value` (the first '=' splits); keys,
 * `path`, `curl` and `method` values are trimmed, `arg` values are kept as written. Throws
 * CronCmdError with a message for the user.
 */
export function parseCronCmd(text: string): CronCmd {
  const seen: Partial<Record<(typeof CMD_KEYS)[number], string>> = {};
  for (const raw of text.split('|')) {
    if (raw.trim() === '') continue;
    const eq = raw.indexOf('=');
    if (eq < 0) throw new CronCmdError(`'${raw.trim()}' is not key=value (use path=, curl=, method=, arg=)`);
    const key = raw.slice(0, eq).trim().toLowerCase() as (typeof CMD_KEYS)[number];
    if (!CMD_KEYS.includes(key)) throw new CronCmdError(`unknown key '${raw.slice(0, eq).trim()}' (use path=, curl=, method=, arg=)`);
    if (seen[key] !== undefined) throw new CronCmdError(`'${key}=' is given twice`);
    seen[key] = key === 'arg' ? raw.slice(eq + 1) : raw.slice(eq + 1).trim();
  }
  const args = seen.arg === undefined ? undefined : seen.arg.split(ARG_SEPARATOR);
  if (seen.path !== undefined && seen.curl !== undefined) throw new CronCmdError('give either path= (an action of the console) or curl= (an HTTP request), not both');
  if (seen.path !== undefined) {
    if (!seen.path) throw new CronCmdError('path= is empty');
    if (!seen.method) throw new CronCmdError('an action needs method= (path=srv/action|method=syncIptableRules)');
    return { kind: 'action', path: seen.path, method: seen.method, ...(args ? { args } : {}) };
  }
  if (seen.curl !== undefined) {
    if (!seen.curl) throw new CronCmdError('curl= is empty');
    return { kind: 'http', url: seen.curl, ...(seen.method !== undefined ? { method: seen.method } : {}), ...(args ? { args } : {}) };
  }
  throw new CronCmdError('needs path= and method= (an action of the console) or curl= (an HTTP request)');
}

/** The canonical cmd string: `path=..|method=..[|arg=..]` or `curl=..[|method=..][|arg=..]`. Throws when a value cannot be written. */
export function serializeCronCmd(cmd: CronCmd): string {
  const check = (what: string, v: string) => {
    if (v.includes('|')) throw new CronCmdError(`${what} cannot contain '|'`);
    return v;
  };
  const parts = cmd.kind === 'action'
    ? [`path=${check('path', cmd.path)}`, `method=${check('method', cmd.method)}`]
    : [`curl=${check('curl', cmd.url)}`, ...(cmd.method !== undefined ? [`method=${check('method', cmd.method)}`] : [])];
  if (cmd.args && cmd.args.length) {
    for (const a of cmd.args) if (a.includes(ARG_SEPARATOR)) throw new CronCmdError(`an argument cannot contain '${ARG_SEPARATOR}'`);
    parts.push(`arg=${check('arg', cmd.args.join(ARG_SEPARATOR))}`);
  }
  return parts.join('|');
}

/** The RPC method an action task runs: `path=srv/action|method=syncIptableRules` -> `srv/action.syncIptableRules`. */
export const actionName = (cmd: CronActionCmd) => `${cmd.path}.${cmd.method}`;

/** The action part of a cmd for an RPC method name (`srv.sslCheckAll` -> `path=srv|method=sslCheckAll`): the path is the name up to its last dot. */
export function actionCmdOf(methodName: string): string | null {
  const dot = methodName.lastIndexOf('.');
  if (dot <= 0 || dot === methodName.length - 1 || methodName.includes('|')) return null;
  return `path=${methodName.slice(0, dot)}|method=${methodName.slice(dot + 1)}`;
}

/** One entry of `cron.getActions`: a registered method a cron task can run, with the cmd that names it. */
export interface CronAction {
  /** The RPC method (`srv.sslCheckAll`). */
  name: string;
  /** `path=srv|method=sslCheckAll`: saves as it is when `args` is empty. */
  cmd: string;
  /** The method's one-line summary (docs/api.md). */
  summary: string;
  /** Arguments the method requires (`Id`): add them as `|arg=Id=5`; empty when it runs without any. */
  args: string[];
}

const KV = /^([A-Za-z_][\w.-]*)=([\s\S]*)$/;
/** A literal read as JSON when it is one (5, true, null, "x", [..], {..}), else the text itself. */
function literal(v: string): unknown {
  const s = v.trim();
  if (/^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null|"[\s\S]*"|\[[\s\S]*\]|\{[\s\S]*\})$/.test(s)) {
    try { return JSON.parse(s); } catch { /* not JSON after all */ }
  }
  return v;
}

/**
 * The argument an action receives, from its `arg=` list:
 * - none -> undefined (the method's defaults);
 * - every argument `key=value` -> an object {key: value} (values read as JSON literals when they are: `Id=5` gives 5);
 * - one argument -> that value (a JSON object, array or literal, else the text): `arg={"Id":5}`, `arg=5`, `arg=example.com`;
 * - several positional arguments -> an array of values.
 */
export function actionArgument(args?: string[]): unknown {
  if (!args || args.length === 0) return undefined;
  if (args.every((a) => KV.test(a))) {
    return Object.fromEntries(args.map((a) => { const m = KV.exec(a)!; return [m[1], literal(m[2])]; }));
  }
  if (args.length === 1) return literal(args[0]);
  return args.map(literal);
}

export interface CronHttpRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** The URL's user part as written (it is not in `url`: the runner sends it as `Authorization: Basic`). */
  userinfo?: string;
}

/**
 * The HTTP request of a `curl=` task: `key=value` arguments become query parameters (GET, HEAD) or a
 * form body (POST, PUT, PATCH, DELETE, like `curl -d`); one JSON object or array argument is sent as a
 * JSON body. The URL's user part is split off first (splitUrlUserinfo) and returned apart; the rest
 * must be an absolute http(s) URL. Throws CronCmdError for what cannot be sent; its messages show the
 * URL masked (maskedCronUrl), never a secret.
 */
export function httpRequestOf(cmd: CronHttpCmd): CronHttpRequest {
  const method = (cmd.method || 'GET').toUpperCase();
  if (!(CRON_HTTP_METHODS as readonly string[]).includes(method)) throw new CronCmdError(`method=${cmd.method} is not one of ${CRON_HTTP_METHODS.join(', ')}`);
  const u = splitUrlUserinfo(cmd.url);
  const written = u ? u.bare : cmd.url;
  const who = u ? { userinfo: u.userinfo } : {};
  let url: URL;
  try {
    url = new URL(written);
  } catch {
    throw new CronCmdError(`curl=${maskedCronUrl(cmd.url)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CronCmdError('curl= must be an http:// or https:// URL');
  // new URL() forgives 'http:/x' and 'http:x' (read as http://x/): only an absolute URL as written is accepted.
  if (!isHttpUrl(written)) throw new CronCmdError(`curl=${maskedCronUrl(cmd.url)} is not an absolute http(s) URL (curl=https://host/path)`);
  const args = cmd.args ?? [];
  const headers: Record<string, string> = {};
  if (args.length === 0) return { url: url.toString(), method, headers, ...who };
  if (args.length === 1 && /^\s*[[{]/.test(args[0])) {
    if (!BODY_METHODS.has(method)) throw new CronCmdError(`a JSON argument is sent as the body: use method=POST (not ${method})`);
    try { JSON.parse(args[0]); } catch { throw new CronCmdError('arg= is not valid JSON'); }
    headers['content-type'] = 'application/json';
    return { url: url.toString(), method, headers, body: args[0], ...who };
  }
  const params = new URLSearchParams();
  for (const a of args) {
    const m = KV.exec(a);
    if (!m) throw new CronCmdError(`arg '${a}' is not key=value (HTTP parameters are key=value, or one JSON body)`);
    params.append(m[1], m[2]);
  }
  if (BODY_METHODS.has(method)) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    return { url: url.toString(), method, headers, body: params.toString(), ...who };
  }
  for (const [k, v] of params) url.searchParams.append(k, v);
  return { url: url.toString(), method, headers, ...who };
}

// ---------------------------------------------------------------------------------------------
// Credentials in a curl= URL (docs/cron.md): stored sealed, shown masked, kept when the mask is saved back

/** What stands for stored credentials in a `curl=` URL: `https://user:***@host/`, or `https://***@host/` for a user part only. */
export const CRON_URL_MASK = SECRET_MASK;

export interface UrlUserinfo {
  /** The user part as written (percent-encoded), e.g. `user:pass`, `token`. */
  userinfo: string;
  /** The URL without it. */
  bare: string;
  /** The URL with it masked. */
  masked: string;
  /** The user part is the mask itself (`user:***`, `***`): "keep what is stored". */
  isMask: boolean;
}

const SCHEME_AT_START = /^\s*[a-z][a-z0-9+.-]*:\/\//i;

/** Splits the user part (credentials) off a URL; null when it has none. Where it ends is userinfoEnd's rule (contracts/secrets.ts), the masker's too. */
export function splitUrlUserinfo(url: string): UrlUserinfo | null {
  const m = SCHEME_AT_START.exec(url);
  if (!m) return null;
  const from = m[0].length;
  const at = userinfoEnd(url, from);
  if (at < 0) return null;
  const userinfo = url.slice(from, at);
  const scheme = url.slice(0, from);
  const rest = url.slice(at + 1);
  return { userinfo, bare: scheme + rest, masked: `${scheme}${maskUserinfo(userinfo)}@${rest}`, isMask: isMaskedUserinfo(userinfo) };
}

/** A curl= URL as answers and messages show it: its user part and secret query parameters masked. */
export function maskedCronUrl(url: string): string {
  // The user part ends before any '?' (userinfoEnd), so the first '?' of the masked URL starts its query.
  return maskQuery(splitUrlUserinfo(url)?.masked ?? url);
}

// ---------------------------------------------------------------------------------------------
// Secret query parameters and arguments (docs/cron.md): sealed with the URL's user part, shown `name=***`

/** A task's secrets as written: the curl= URL's user part, and secret query parameters and `name=value` arguments by name, in order. */
export interface CronSecrets {
  userinfo?: string;
  query?: Record<string, Array<string | null>>;
  args?: Record<string, Array<string | null>>;
}

/** A secret of a cmd the masked form shows as `***` ("keep what is stored"): where, its name and which occurrence of that name. */
export interface CronSecretRef {
  where: 'userinfo' | 'query' | 'args';
  name: string;
  index: number;
}

export interface CronSecretSplit {
  /** The cmd as stored and answered: every secret `***`. */
  masked: CronCmd;
  /** The secrets written in clear (not `***`). */
  secrets: CronSecrets;
  /** The secrets written as `***`. */
  kept: CronSecretRef[];
}

const argKv = (a: string) => KV.exec(a);
/** Secret values by name, one slot per occurrence of the name (null: that occurrence is not stored). */
type Slots = Record<string, Array<string | null>>;
const slot = (into: Slots, name: string, index: number, value: string) => {
  const list = (into[name] ??= []);
  while (list.length < index) list.push(null);
  list[index] = value;
};

/**
 * Every secret of a cmd: the user part of a curl= URL, secret query parameters of it (isSecretName,
 * contracts/secrets.ts) and secret `name=value` arguments (both kinds of task). Each is masked in
 * `masked`; those written in clear are in `secrets`, those written as `***` in `kept`.
 */
export function splitCronSecrets(cmd: CronCmd): CronSecretSplit {
  const secrets: CronSecrets = {};
  const kept: CronSecretRef[] = [];
  const seen = { query: {} as Record<string, number>, args: {} as Record<string, number> };
  const take = (where: 'query' | 'args', name: string, value: string) => {
    const index = seen[where][name] ?? 0;
    seen[where][name] = index + 1;
    if (value === SECRET_MASK) kept.push({ where, name, index });
    else slot((secrets[where] ??= {}), name, index, value);
    return `${name}=${SECRET_MASK}`;
  };
  let args = cmd.args;
  if (args) {
    args = args.map((a) => {
      const m = argKv(a);
      return m && m[2] !== '' && isSecretName(m[1]) ? take('args', m[1], m[2]) : a;
    });
  }
  if (cmd.kind === 'action') return { masked: { ...cmd, ...(args ? { args } : {}) }, secrets, kept };
  const u = splitUrlUserinfo(cmd.url);
  if (u) {
    if (u.isMask) kept.push({ where: 'userinfo', name: '', index: 0 });
    else secrets.userinfo = u.userinfo;
  }
  // The user part ends before any '?' (userinfoEnd), so the first '?' of the masked URL starts its query.
  const q = splitQuery(u ? u.masked : cmd.url);
  const url = joinQuery({ ...q, parts: q.parts.map((p) => (p.secret ? { ...p, text: take('query', p.name, p.value!) } : p)) });
  return { masked: { ...cmd, url, ...(args ? { args } : {}) }, secrets, kept };
}

/** The secret stored for a reference, or undefined. */
export function secretAt(s: CronSecrets, ref: CronSecretRef): string | undefined {
  return (ref.where === 'userinfo' ? s.userinfo : s[ref.where]?.[ref.name]?.[ref.index]) ?? undefined;
}

/**
 * The cmd with its secrets (what the runner sends): each `***` of the masked cmd is replaced by the
 * stored value for its name and occurrence. Throws CronCmdError naming one that is not stored.
 */
export function fillCronSecrets(masked: CronCmd, secrets: CronSecrets): CronCmd {
  const count = { query: {} as Record<string, number>, args: {} as Record<string, number> };
  const fill = (where: 'query' | 'args', name: string, value: string) => {
    const index = count[where][name] ?? 0;
    count[where][name] = index + 1;
    if (value !== SECRET_MASK) return value;
    const v = secrets[where]?.[name]?.[index];
    if (v === undefined || v === null) throw new CronCmdError(`the ${where === 'query' ? 'query parameter' : 'argument'} '${name}' shows ${SECRET_MASK} but no value is stored for it: type it`);
    return v;
  };
  let args = masked.args;
  if (args) {
    args = args.map((a) => {
      const m = argKv(a);
      return m && m[2] !== '' && isSecretName(m[1]) ? `${m[1]}=${fill('args', m[1], m[2])}` : a;
    });
  }
  if (masked.kind === 'action') return { ...masked, ...(args ? { args } : {}) };
  const u = splitUrlUserinfo(masked.url);
  let userinfo = u?.userinfo;
  if (u?.isMask) {
    if (secrets.userinfo === undefined) throw new CronCmdError(`the URL shows masked credentials (${SECRET_MASK}) but none are stored: type them`);
    userinfo = keepUserName(u.userinfo, secrets.userinfo);
  }
  // The query of the URL without its user part, then the user part back in.
  const q = splitQuery(u ? u.bare : masked.url);
  let url = joinQuery({ ...q, parts: q.parts.map((p) => (p.secret ? { ...p, text: `${p.name}=${fill('query', p.name, p.value!)}` } : p)) });
  if (u) {
    const m = SCHEME_AT_START.exec(url)!;
    url = url.slice(0, m[0].length) + userinfo + '@' + url.slice(m[0].length);
  }
  return { ...masked, url, ...(args ? { args } : {}) };
}

/**
 * The user part to use when `given` is masked (`user:***`, `***`) and `stored` is the one sealed: the
 * stored password under the user name given (a changed user name is taken); a stored user part
 * without a password is kept as it is.
 */
export function keepUserName(given: string, stored: string): string {
  const g = given.indexOf(':');
  const s = stored.indexOf(':');
  if (g >= 0 && s >= 0) return `${given.slice(0, g)}:${stored.slice(s + 1)}`;
  return stored;
}

// ---------------------------------------------------------------------------------------------
// Schedule fields

/** Checks one field on its own (the others '*'): null when fine, else the message. */
export function cronFieldError(field: CronField, value: string): string | null {
  const v = value.trim();
  if (v === '') return `${field} is empty (use * for every ${field})`;
  if (/\s/.test(v)) return `${field} '${v}' must not contain spaces`;
  if (v.length > CRON_FIELD_MAX) return `${field} is longer than ${CRON_FIELD_MAX} characters`;
  const parts = CRON_FIELDS.map((f) => (f === field ? v : '*'));
  try {
    new CronPattern(parts.join(' '), undefined, { mode: '6-part' });
    return null;
  } catch {
    return `${field} '${v}' is not valid (${CRON_FIELD_HELP[field]}, *, lists a,b, ranges a-b, steps */n)`;
  }
}

/** The six fields as one croner pattern: `second minute hour day month week`. */
export const cronPattern = (t: Record<CronField, string>) => CRON_FIELDS.map((f) => String(t[f]).trim()).join(' ');

/** The schedule as people read it, six fields separated by spaces (second first). */
export const scheduleText = cronPattern;

/** The next run after `from` (null: never; undefined: not a valid schedule). */
export function nextRunOf(t: Record<CronField, string>, from = new Date()): Date | null | undefined {
  try {
    return new Cron(cronPattern(t), { mode: '6-part' }).nextRun(from);
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Task shapes

export type CronRunStatus = 'ok' | 'error' | 'killed' | 'skipped' | 'interrupted';
export type CronRunTrigger = 'tick' | 'manual';

/** A task as stored (000 §3) plus when it was added and by whom (its actions run with that admin's role). */
export interface CronTask {
  Id: number;
  name: string;
  second: string;
  minute: string;
  hour: string;
  day: string;
  month: string;
  week: string;
  cmd: string;
  suspended: 0 | 1;
  added: string;
  uid: number | null;
}

/** Live state of a task (the status of `cron.getStatus` and `cron.status` events). */
export interface CronTaskState {
  Id: number;
  running: boolean;
  /** Start of the current run while running. */
  started: string | null;
  last_start: string | null;
  last_end: string | null;
  last_status: CronRunStatus | null;
  last_message: string | null;
  last_duration_ms: number | null;
  next_run: string | null;
}

export interface CronTaskView extends CronTask, Omit<CronTaskState, 'Id'> {
  /** Who saved it (login), for the card. */
  saved_by: string | null;
}

export interface CronRunView {
  Id: number;
  task_id: number;
  /** What started it: the schedule ('tick') or run-now ('manual'). */
  source: CronRunTrigger;
  scheduled: string | null;
  started: string;
  ended: string;
  status: CronRunStatus;
  message: string | null;
  output: string | null;
  duration_ms: number;
  instance: string;
  uid: number | null;
}

export interface CronServiceStatus {
  /** The service switch (persisted, shared by every instance): 1 on, 0 off (no schedule fires). */
  service: 0 | 1;
  /** Whether this instance runs schedules at all (CRON_ENABLED). */
  scheduling: boolean;
}

export interface CronStatus extends CronServiceStatus {
  tasks: CronTaskState[];
}

/** Payload of the `cron.status` socket event: changed task states, the service switch, or a reload notice. */
export interface CronStatusEvent {
  tasks?: CronTaskState[];
  service?: 0 | 1;
  /** The task list changed (saved, deleted, reloaded): clients re-read it. */
  reload?: true;
}

declare module './events.js' {
  interface ServerEvents {
    /** Cron task states as runs start and end; the service switch; list reloads. Admins only. */
    'cron.status': CronStatusEvent;
  }
}

// ---------------------------------------------------------------------------------------------
// Input schemas

// Input fields from ./fields.ts: numbers as JSON numbers or decimal digits only; text without control
// or zero-width characters.
/** A schedule field: text, or a number (`second: 0`) read as its digits. */
const scheduleField = (f: CronField) =>
  z.preprocess((v) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? String(v) : v), textField(f, CRON_FIELD_MAX));
const flag = flagField('suspended');
const id = idField();
/** An Id that may be absent: '', 0 and '0' (what a form sends for a new task) mean none; null is refused. */
const optionalId = optionalIdField();

/** Save (`POST /cfg/save_app_cron`, `saveAppCron`): without Id creates (name and cmd required), with Id updates the fields given. */
export const CronSaveArgs = z.object({
  Id: optionalId,
  name: textField('Name', CRON_NAME_MAX).optional(),
  second: scheduleField('second').optional(),
  minute: scheduleField('minute').optional(),
  hour: scheduleField('hour').optional(),
  day: scheduleField('day').optional(),
  month: scheduleField('month').optional(),
  week: scheduleField('week').optional(),
  cmd: textField('CMD', CRON_CMD_MAX, { multiline: true }).optional(),
  suspended: flag.optional(),
}).superRefine(requiredOnCreate('Id', { name: CRON_LABELS.nameRequired, cmd: CRON_LABELS.cmdRequired }));
export type CronSaveArgs = z.output<typeof CronSaveArgs>;

/** `{Id}`, or the Id itself (`deleteAppCron(Id)`). */
export const CronIdArgs = z.preprocess((v) => (typeof v === 'number' || typeof v === 'string' ? { Id: v } : v), z.object({ Id: id }));
export const CronGetArgs = z.preprocess((v) => (v === undefined || v === null ? {} : typeof v === 'number' || typeof v === 'string' ? { Id: v } : v), z.object({ Id: optionalId }));
export const CronRunsArgs = z.object({
  Id: id,
  page: int(1, 1_000_000, 'page').default(1),
  limit: int(1, CRON_HISTORY_KEEP, 'limit').default(CRON_RUNS_PAGE_SIZE),
});
/** `{service: 0|1}`, `{status: 0|1}` or the value itself (`setServiceStatus(1)`). */
export const CronServiceArgs = z.preprocess(
  (v) => (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string' ? { service: v } : v),
  z
    .object({ service: flagField('service').optional(), status: flagField('status').optional() })
    .superRefine((o, ctx) => {
      if (o.service === undefined && o.status === undefined) ctx.addIssue({ code: 'custom', path: ['service'], message: 'service is required (0 or 1)' });
    })
    .transform((o) => ({ service: (o.service ?? o.status)! })),
);

/** The fields a task is checked with (the stored task merged with the changes). */
export type CronTaskInput = Pick<CronTask, 'name' | 'cmd' | CronField>;

/**
 * Checks a whole task: name and CMD required (000 §5), each schedule field, the schedule as a whole
 * (it must match some date), and the cmd's shape. Null when fine, else {field: message}. The server
 * also checks that an action exists and accepts its arguments.
 */
export function validateCronTask(t: CronTaskInput): Record<string, string> | null {
  const errors: Record<string, string> = {};
  if (!t.name?.trim()) errors.name = CRON_LABELS.nameRequired;
  for (const f of CRON_FIELDS) {
    const e = cronFieldError(f, String(t[f] ?? ''));
    if (e) errors[f] = e;
  }
  if (!CRON_FIELDS.some((f) => errors[f])) {
    const next = nextRunOf(t);
    if (next === undefined) errors.second = `schedule '${cronPattern(t)}' is not valid`;
    else if (next === null) errors.day = `schedule '${cronPattern(t)}' never runs (no such date)`;
  }
  if (!t.cmd?.trim()) errors.cmd = CRON_LABELS.cmdRequired;
  else {
    try {
      const c = parseCronCmd(t.cmd);
      if (c.kind === 'http') httpRequestOf(c);
      serializeCronCmd(c);
    } catch (err) {
      errors.cmd = `cmd: ${(err as Error).message}`;
    }
  }
  return Object.keys(errors).length ? errors : null;
}
