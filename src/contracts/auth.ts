import { z } from 'zod';
import { LOGIN_MAX, NAME_MAX, PASSWORD_MAX, PASSWORD_MIN } from './constants.js';
import { choice, flag, id, int, INT_MAX, text } from './fields.js';
import { Role } from './roles.js';

/** Session values of 000 §3 as the server answers them on login. */
export interface SessionValues {
  uid: number;
  name: string;
  role: number;
  hash: string;
  atime: number;
}

/** A user as the API shows it: never any password material. */
export interface UserView {
  uid: number;
  login: string;
  name: string;
  role: number;
  active: number;
  created_at: string;
  last_login: string | null;
}

export const loginField = z
  .string()
  .trim()
  .min(1, 'Login is required')
  .max(LOGIN_MAX, `Login is at most ${LOGIN_MAX} characters`)
  .regex(/^[A-Za-z0-9._@-]+$/, 'Login may hold letters, digits and . _ @ -');
export const passwordField = z
  .string({ error: (iss) => (iss.input === undefined ? 'Password is required' : 'Password must be text') })
  .min(PASSWORD_MIN, `Password is at least ${PASSWORD_MIN} characters`)
  .max(PASSWORD_MAX, `Password is at most ${PASSWORD_MAX} characters`)
  .refine((v) => v.trim() !== '', 'Password cannot be only spaces');
/** A person's name: 1-128 characters, no control or zero-width characters. */
export const nameField = text('Name', NAME_MAX, { min: 1 });
/** The roles a user can have (000 §6): 1 admin, 10 content, 100 user. */
export const ROLE_VALUES = [Role.admin, Role.content, Role.user] as const;

export const AuthBody = z.object({ key: z.string().min(1, 'key is required').max(1024) });
export const RegisterBody = z.object({ login: loginField, name: nameField, password: passwordField });
export const UserSaveArgs = z.object({
  uid: id('uid'),
  active: flag('active').optional(),
  role: choice(ROLE_VALUES, 'Role').optional(),
  name: nameField.optional(),
  password: passwordField.optional(),
});
export type UserSaveArgs = z.infer<typeof UserSaveArgs>;
export const UserRemoveArgs = z.object({ uid: id('uid') });

export const ListArgs = z
  .object({
    page: int(1, INT_MAX, 'page').default(1),
    limit: int(1, 500, 'limit').default(50),
  })
  .default({ page: 1, limit: 50 });

/**
 * A bound of the audit's date range: an ISO 8601 date (`2025-03-01`, a whole UTC day: `from` its
 * start, `to` its end, so both days are included) or a date-time with a zone (`2025-03-01T00:00:00+02:00`,
 * `...Z`; the UI sends the operator's local day bounds this way). Both bounds are inclusive; '' is no bound.
 */
const auditInstant = (side: 'start' | 'end') =>
  z
    .string()
    .trim()
    .max(40)
    .refine((v) => v === '' || (/^\d{4}-\d{2}-\d{2}$/.test(v) ? z.iso.date().safeParse(v).success : z.iso.datetime({ offset: true }).safeParse(v).success), {
      message: 'not a date (YYYY-MM-DD) or an ISO date-time with a zone',
    })
    .transform((v) => (v === '' ? undefined : /^\d{4}-\d{2}-\d{2}$/.test(v) ? new Date(`${v}T${side === 'start' ? '00:00:00.000' : '23:59:59.999'}Z`) : new Date(v)));

export const AuditListArgs = z
  .object({
    page: int(1, INT_MAX, 'page').default(1),
    limit: int(1, 500, 'limit').default(50),
    method: text('method', 190).optional(),
    login: text('login', 64).optional(),
    outcome: z.enum(['ok', 'error']).optional(),
    from: auditInstant('start').optional(),
    to: auditInstant('end').optional(),
  })
  .refine((a) => !a.from || !a.to || a.from <= a.to, { path: ['to'], message: 'the end of the range is before its start' })
  .default({ page: 1, limit: 50 });

export const AuditGetArgs = z.object({ Id: id() });

export interface AuditRow {
  Id: number;
  ts: string;
  uid: number | null;
  login: string | null;
  method: string;
  args: string;
  /** The object acted on ("server web-1 (#3)"), when its service named it. */
  target: string | null;
  outcome: 'ok' | 'error';
  message: string | null;
  ip: string | null;
  duration_ms: number;
}

export interface Paged<T> {
  list: T[];
  count: number;
  page: number;
  limit: number;
}

/** Encodes login and password into the combined key of 000 §5 (its own module: the sign-in page loads no zod). */
export { encodeAuthKey } from './auth-key.js';
