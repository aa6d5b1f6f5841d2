/** Database errors, recognised the same way on SQLite (better-sqlite3) and MySQL/MariaDB (mysql2). */

interface DriverErrorLike {
  code?: unknown;
  errno?: unknown;
  driverError?: DriverErrorLike;
}

/** A unique key refused the row (SQLITE_CONSTRAINT_UNIQUE / SQLITE_CONSTRAINT_PRIMARYKEY, ER_DUP_ENTRY). */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as DriverErrorLike | null | undefined;
  if (!e || typeof e !== 'object') return false;
  const code = typeof e.code === 'string' ? e.code : typeof e.driverError?.code === 'string' ? e.driverError.code : '';
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
