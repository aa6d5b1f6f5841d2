import { z } from 'zod';
import { LOGIN_MAX, NAME_MAX, PASSWORD_MAX, PASSWORD_MIN } from './constants.js';

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
  .string()
  .min(PASSWORD_MIN, `Password is at least ${PASSWORD_MIN} characters`)
  .max(PASSWORD_MAX, `Password is at most ${PASSWORD_MAX} characters`);
export const nameField = z.string().trim().min(1, 'Name is required').max(NAME_MAX);

export const AuthBody = z.object({ key: z.string().min(1, 'key is required').max(1024) });
export const RegisterBody = z.object({ login: loginField, name: nameField, password: passwordField });
export const UserSaveArgs = z.object({
  uid: z.coerce.number().int().positive(),
  active: z.union([z.literal(0), z.literal(1), z.boolean()]).transform((v) => (v === true || v === 1 ? 1 : 0)).optional(),
  role: z.coerce.number().int().min(1).max(1000).optional(),
  name: nameField.optional(),
  password: passwordField.optional(),
});
export type UserSaveArgs = z.infer<typeof UserSaveArgs>;

export const ListArgs = z
  .object({
    page: z.coerce.number().int().min(1).default(1),
    limit: z.coerce.number().int().min(1).max(500).default(50),
  })
  .default({ page: 1, limit: 50 });

export const AuditListArgs = z
  .object({
    page: z.coerce.number().int().min(1).default(1),
    limit: z.coerce.number().int().min(1).max(500).default(50),
    method: z.string().max(190).optional(),
    login: z.string().max(64).optional(),
    outcome: z.enum(['ok', 'error']).optional(),
  })
  .default({ page: 1, limit: 50 });

export interface AuditRow {
  Id: number;
  ts: string;
  uid: number | null;
  login: string | null;
  method: string;
  args: string;
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

/** Encodes login and password into the combined key of 000 §5 (base64 of login:password, UTF-8). */
export function encodeAuthKey(login: string, password: string): string {
  const bytes = new TextEncoder().encode(`${login}:${password}`);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}
