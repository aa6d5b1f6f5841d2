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

/**
 * What says the database cannot be reached at all (as opposed to a query it refused). mysql2: a socket
 * error (only with its `fatal` mark: an SSH or agent ECONNREFUSED is not the database), its protocol
 * errors, the server shutting down or killing the connection, too many connections, its pool after
 * end() or a connection already closed. SQLite: the file cannot be opened or read, or stays locked
 * past the busy time-out.
 */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENOTFOUND', 'EAI_AGAIN']);
const SERVER_CODES = new Set(['ER_SERVER_SHUTDOWN', 'ER_NORMAL_SHUTDOWN', 'ER_CONNECTION_KILLED', 'ER_CON_COUNT_ERROR']);
const UNREACHABLE_SQLITE = /^SQLITE_(BUSY|CANTOPEN|IOERR)/;
const UNREACHABLE_MESSAGES = /^(Pool is closed|Can't add new command when connection is in closed state|Can't write in closed state)/;

/**
 * The database is unreachable (the one place that says so, for both drivers): the error of a pool
 * that cannot connect, or of a connection lost mid-query (TypeORM's QueryFailedError copies the
 * driver's code and `fatal`; its `driverError` is looked at too). Such failures answer 503 'db'
 * (errors.ts toFailure) and are logged once per outage (db-outage.ts), never as a stack per call.
 */
export function isDbUnreachable(err: unknown): boolean {
  for (const e of [err, (err as DriverErrorLike | null | undefined)?.driverError]) {
    if (!e || typeof e !== 'object') continue;
    const { code, fatal, message } = e as { code?: unknown; fatal?: unknown; message?: unknown };
    if (typeof code === 'string') {
      if (SERVER_CODES.has(code) || UNREACHABLE_SQLITE.test(code) || code.startsWith('PROTOCOL_')) return true;
      if (fatal === true && NETWORK_CODES.has(code)) return true;
    }
    if (typeof message === 'string' && UNREACHABLE_MESSAGES.test(message)) return true;
  }
  return false;
}

/** The answer's message when the database is unreachable (the driver's text stays in the log). */
export const DB_UNREACHABLE_MESSAGE = 'Database unreachable: try again in a moment';

/**
 * MariaDB rolled the statement's transaction back to break a deadlock (1213) or gave up waiting for a
 * lock (1205): running it again is the documented answer. The error itself or TypeORM's wrapper.
 * SQLite never answers this (one writer at a time).
 */
export function isDeadlock(err: unknown): boolean {
  for (const e of [err, (err as DriverErrorLike | null | undefined)?.driverError]) {
    if (!e || typeof e !== 'object') continue;
    const { code, errno } = e as DriverErrorLike;
    if (code === 'ER_LOCK_DEADLOCK' || code === 'ER_LOCK_WAIT_TIMEOUT' || errno === 1213 || errno === 1205) return true;
  }
  return false;
}
