/** Roles (000 §6, 001 §6): an integer, lower is stronger; 100 when unset. */
export const Role = {
  admin: 1,
  content: 10,
  user: 100,
} as const;
export type RoleValue = number;

export const DEFAULT_ROLE = Role.user;

/** True when a session with role `have` may use something that needs `need`. */
export const roleAllows = (have: number | undefined | null, need: number) => (have ?? DEFAULT_ROLE) <= need;

export const ROLE_NAMES: Record<number, string> = {
  [Role.admin]: 'Admin',
  [Role.content]: 'Content',
  [Role.user]: 'User',
};
