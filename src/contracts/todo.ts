/**
 * Todo (001 §2 "Todo", §3 Todo, §4 Todo, §6, §7 todo.get/insert/update, §8 'Todo close!', 'Todo restore
 * OK!'; issue 21): shapes, labels, the alert_type grammar, time-zone helpers and the input schemas,
 * shared by the server and the UI. Decisions: docs/todo.md.
 */
import { Cron } from 'croner';
import { z } from 'zod';
import { choice, flag, id, int, INT_MAX, text } from './fields.js';

/** 001 §9 has no todo page size: 20 like the other lists. */
export const TODO_PAGE = 20;
export const TODO_LIMIT_MAX = 100;
export const TODO_TITLE_MAX = 255;
/**
 * The text is HTML kept in a TEXT column (65,535 bytes on MariaDB): at most this many characters typed,
 * and the sanitised HTML must fit in the column (checked in bytes by the server).
 */
export const TODO_TEXT_MAX = 30_000;
export const TODO_TEXT_MAX_BYTES = 65_535;
/** 001 §2: the alert time picker steps by 5 minutes. */
export const TODO_ALERT_STEP_MINUTES = 5;
/** History entries answered with a todo (newest first; 001 §9: the history list scrolls at 300 px). */
export const TODO_HISTORY_MAX = 100;
/** Alert deliveries answered with a todo (newest first). */
export const TODO_DELIVERIES_MAX = 20;

export const TODO_MSG = {
  insertOk: 'Insert ok!',
  updateOk: 'Update ok!',
  /** 001 §8: status 0 -> -1. */
  close: 'Todo close!',
  /** 001 §8: status -1 -> 0. */
  restore: 'Todo restore OK!',
  notFound: 'Todo not found',
  textTooLong: `text is too long once stored (at most ${TODO_TEXT_MAX_BYTES} bytes of HTML)`,
} as const;

/** 001 §3 statuses: 0 in progress, -1 finished. */
export const TODO_STATUS = { open: 0, finished: -1 } as const;
export const TODO_STATUSES = [0, -1] as const;
export const TODO_STATUS_LABELS: Record<number, string> = { 0: 'In progress', [-1]: 'Finished' };

/** 001 §3 task types; 0 is the placeholder (no type chosen). */
export const TODO_TYPES = [0, 1, 2, 3, 4, 5, 6] as const;
export const TODO_TYPE_LABELS: Record<number, string> = {
  0: 'Select type', 1: 'Direct', 2: 'RSYa', 3: 'Meta', 4: 'Algorithms', 5: 'Investments', 6: 'SEO',
};

/** 001 §3 alert methods: 1 once at ts_alert, 2 every day at a time, 3 every week at a time and weekday. */
export const ALERT_METHOD = { once: 1, daily: 2, weekly: 3 } as const;
export const ALERT_METHOD_LABELS: Record<number, string> = { 1: 'Once', 2: 'Every day', 3: 'Every week' };
/** 001 §3 weekdays: 1-6 Monday to Saturday, 0 Sunday (the order of the picker: Monday first). */
export const WEEKDAYS = [1, 2, 3, 4, 5, 6, 0] as const;
export const WEEKDAY_LABELS: Record<number, string> = { 0: 'Sunday', 1: 'Monday', 2: 'Tuesday', 3: 'Wednesday', 4: 'Thursday', 5: 'Friday', 6: 'Saturday' };

export interface AlertGroup {
  method: 1 | 2 | 3;
  /** 0-6 (0 Sunday); only a weekly group uses it (0 in the others). */
  weekday: number;
}

export const ALERT_TYPE_MAX = 190;
export const ALERT_TYPE_ERROR = 'alert_type must be a semicolon list of method,weekday groups (method 1 once, 2 daily, 3 weekly; weekday 1-6 Monday to Saturday, 0 Sunday), e.g. "1,0" or "3,1;3,5"';

/**
 * Reads alert_type (001 §3: a semicolon list of 'method,weekday' groups): '' is no alert; spaces around
 * the numbers and an empty group from a trailing ';' are allowed. Once and daily groups carry weekday 0
 * (any weekday given is read as 0: it means nothing there); duplicates are dropped; the order is the
 * canonical one (method, then Monday first). Null when the text is not such a list.
 */
export function parseAlertType(v: string): AlertGroup[] | null {
  const out: AlertGroup[] = [];
  for (const raw of v.split(';')) {
    const g = raw.trim();
    if (!g) continue;
    const m = /^([1-3])\s*,\s*([0-6])$/.exec(g);
    if (!m) return null;
    const method = Number(m[1]) as 1 | 2 | 3;
    const weekday = method === ALERT_METHOD.weekly ? Number(m[2]) : 0;
    if (!out.some((x) => x.method === method && x.weekday === weekday)) out.push({ method, weekday });
  }
  const rank = (w: number) => (w === 0 ? 7 : w);
  return out.sort((a, b) => a.method - b.method || rank(a.weekday) - rank(b.weekday));
}

/** The canonical alert_type of groups ('1,0;3,1'). */
export const formatAlertType = (groups: AlertGroup[]): string => groups.map((g) => `${g.method},${g.weekday}`).join(';');

/** The alert_type field: text of the grammar above, answered in its canonical form. */
export const alertTypeField = () =>
  text('alert_type', ALERT_TYPE_MAX).transform((v, ctx) => {
    const groups = parseAlertType(v);
    if (!groups) {
      ctx.addIssue({ code: 'custom', message: ALERT_TYPE_ERROR, input: v });
      return z.NEVER;
    }
    return formatAlertType(groups);
  });

// ---------------------------------------------------------------------------------------------
// Time zones: wall-clock parts of an instant in a zone, and the instant of a wall-clock time there.

export interface ZonedParts {
  /** 'YYYY-MM-DD' */
  date: string;
  /** 'HH:MM' */
  time: string;
  hour: number;
  minute: number;
  second: number;
  /** 0 Sunday .. 6 Saturday */
  weekday: number;
}

const partsFormat = new Map<string, Intl.DateTimeFormat>();
function formatter(tz: string): Intl.DateTimeFormat {
  let f = partsFormat.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', weekday: 'short',
    });
    partsFormat.set(tz, f);
  }
  return f;
}
const WD: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };
const pad2 = (n: number) => String(n).padStart(2, '0');

/** The wall-clock date, time and weekday of unix second `ts` in zone `tz`. */
export function zonedParts(ts: number, tz: string): ZonedParts {
  const p: Record<string, string> = {};
  for (const x of formatter(tz).formatToParts(new Date(ts * 1000))) p[x.type] = x.value;
  const hour = Number(p.hour) % 24;
  const minute = Number(p.minute);
  return {
    date: `${p.year}-${p.month}-${p.day}`,
    time: `${pad2(hour)}:${pad2(minute)}`,
    hour, minute, second: Number(p.second),
    weekday: WD[p.weekday] ?? 0,
  };
}

/** Seconds zone `tz` is ahead of UTC at unix second `ts`. */
function offsetAt(ts: number, tz: string): number {
  const z = zonedParts(ts, tz);
  const [y, m, d] = z.date.split('-').map(Number);
  return Date.UTC(y, m - 1, d, z.hour, z.minute, z.second) / 1000 - ts;
}

/**
 * The unix second of wall-clock `date` ('YYYY-MM-DD') and `time` ('HH:MM') in zone `tz`, or null when
 * they are not a date and time. A time that does not exist there (the hour skipped when clocks go
 * forward) is read with the offset before the change, i.e. one hour later on the clock.
 */
export function zonedToUnix(date: string, time: string, tz: string): number | null {
  const dm = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const tm = /^(\d{2}):(\d{2})$/.exec(time);
  if (!dm || !tm) return null;
  const [y, mo, d, h, mi] = [Number(dm[1]), Number(dm[2]), Number(dm[3]), Number(tm[1]), Number(tm[2])];
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59) return null;
  const wall = Date.UTC(y, mo - 1, d, h, mi) / 1000;
  if (new Date(wall * 1000).getUTCDate() !== d) return null; // 2026-02-30
  let ts = wall - offsetAt(wall, tz);
  ts = wall - offsetAt(ts, tz);
  return ts;
}

/** 'YYYY-MM-DD HH:MM' of unix second `ts` in zone `tz` ('' for 0). */
export function fmtZoned(ts: number, tz: string): string {
  if (!ts) return '';
  const z = zonedParts(ts, tz);
  return `${z.date} ${z.time}`;
}

// ---------------------------------------------------------------------------------------------
// The schedule: the next due time of an alert, in the console's zone (croner, seconds honoured).

/**
 * The first due time of `groups` strictly after unix second `after`, or 0 when there is none:
 * - once (1): ts_alert itself;
 * - daily (2): every day at ts_alert's wall-clock time (hour, minute and second in `tz`), from ts_alert on;
 * - weekly (3): every week on the group's weekday at that time, from ts_alert on.
 * ts_alert 0 means no alert (0).
 */
export function nextAlertAfter(groups: AlertGroup[], tsAlert: number, after: number, tz: string): number {
  if (!tsAlert || !groups.length) return 0;
  let best = 0;
  const z = zonedParts(tsAlert, tz);
  // A recurring alert starts at ts_alert: its first occurrence is at or after it.
  const from = Math.max(after, tsAlert - 1);
  for (const g of groups) {
    let due = 0;
    if (g.method === ALERT_METHOD.once) due = tsAlert > after ? tsAlert : 0;
    else {
      const dow = g.method === ALERT_METHOD.weekly ? String(g.weekday) : '*';
      const next = new Cron(`${z.second} ${z.minute} ${z.hour} * * ${dow}`, { timezone: tz, paused: true }).nextRun(new Date(from * 1000));
      due = next ? Math.floor(next.getTime() / 1000) : 0;
    }
    if (due && (!best || due < best)) best = due;
  }
  return best;
}

/** A readable alert: 'Once at 2026-12-01 09:00', 'Every day at 09:00', 'Every week on Monday at 09:00'. */
export function describeAlert(groups: AlertGroup[], tsAlert: number, tz: string): string {
  if (!tsAlert || !groups.length) return 'No alert';
  const z = zonedParts(tsAlert, tz);
  return groups
    .map((g) => g.method === ALERT_METHOD.once ? `Once at ${z.date} ${z.time}`
      : g.method === ALERT_METHOD.daily ? `Every day at ${z.time}`
        : `Every week on ${WEEKDAY_LABELS[g.weekday]} at ${z.time}`)
    .join('; ');
}

// ---------------------------------------------------------------------------------------------
// Wire shapes

export interface TodoRow {
  Id: number;
  uid: number;
  /** The owner's display name. */
  owner: string;
  title: string;
  type: number;
  status: number;
  ts_create: number;
  ts_update: number;
  ts_alert: number;
  alert_type: string;
  /** The next due time of the alert (unix seconds; 0: none, or finished). */
  alert_next: number;
}

export interface TodoHistoryEntry {
  Id: number;
  /** What the change was: 'update', 'finish' or 'restore'. */
  action: 'update' | 'finish' | 'restore';
  /** Who changed it and when (unix seconds). */
  uid: number;
  who: string;
  ts: number;
  /** The version before the change. */
  title: string;
  text: string;
  type: number;
  status: number;
  ts_alert: number;
  alert_type: string;
  ts_update: number;
}

/** One due time of a todo's alert and what became of it (docs/todo.md "Delivery"). */
export type MailState = 'none' | 'pending' | 'sending' | 'sent' | 'retry' | 'failed' | 'cancelled';
export interface TodoDelivery {
  Id: number;
  /** The due time (unix seconds). */
  due_at: number;
  /** Delivered past TODO_ALERT_LATE_SECONDS, or due while the console was down. */
  late: number;
  /** When the in-console notification was stored and sent (unix seconds; 0: not yet). */
  notified_at: number;
  mail_state: MailState;
  mail_to: string;
  mail_tries: number;
  /** When a failed e-mail is tried again (unix seconds; 0: not planned). */
  mail_next_at: number;
  mail_error: string;
  mail_sent_at: number;
}

export interface TodoView extends TodoRow {
  text: string;
  history: TodoHistoryEntry[];
  alerts: {
    /** The console's time zone (TZ) the alert is computed in. */
    tz: string;
    /** 'Every day at 09:00' */
    description: string;
    deliveries: TodoDelivery[];
  };
}

/** todo.get without Id: a page of the list, with the console's time zone the alert times are in. */
export interface TodoList {
  list: TodoRow[];
  count: number;
  page: number;
  limit: number;
  tz: string;
}

export interface TodoSaved {
  Id: number;
  message: string;
  todo: TodoView;
}

// ---------------------------------------------------------------------------------------------
// Input schemas

export const TODO_FIELDS = {
  title: text('title', TODO_TITLE_MAX, { min: 1 }),
  /** HTML: the server stores it through cleanHtml. */
  text: text('text', TODO_TEXT_MAX, { multiline: true, trim: false }),
  type: choice(TODO_TYPES, 'type'),
  status: choice(TODO_STATUSES, 'status'),
  alert_type: alertTypeField(),
  /** Unix seconds (0: none). */
  ts_alert: int(0, INT_MAX, 'ts_alert'),
};

/** todo.get: with Id one todo with its history; without, the list (filters status and type, 20 a page). */
export const TodoGetArgs = z.object({
  Id: id('Id').optional(),
  status: TODO_FIELDS.status.optional(),
  type: TODO_FIELDS.type.optional(),
  /** Admins: only their own todos (everyone else sees only theirs anyway). */
  mine: flag('mine').optional(),
  p_: int(1, INT_MAX, 'p_').optional(),
  limit: int(1, TODO_LIMIT_MAX, 'limit').optional(),
});

/** todo.insert {title, text, type, alert_type, ts_alert} -> {Id}. */
export const TodoInsertArgs = z.object({
  title: TODO_FIELDS.title,
  text: TODO_FIELDS.text.optional(),
  type: TODO_FIELDS.type.optional(),
  alert_type: TODO_FIELDS.alert_type.optional(),
  ts_alert: TODO_FIELDS.ts_alert.optional(),
});

/** todo.update {Id, ...fields}: `status: -1` finishes ('Todo close!'), `status: 0` restores ('Todo restore OK!'). */
export const TodoUpdateArgs = z.object({
  Id: id('Id'),
  title: TODO_FIELDS.title.optional(),
  text: TODO_FIELDS.text.optional(),
  type: TODO_FIELDS.type.optional(),
  status: TODO_FIELDS.status.optional(),
  alert_type: TODO_FIELDS.alert_type.optional(),
  ts_alert: TODO_FIELDS.ts_alert.optional(),
});
