import { Logger } from '@nestjs/common';
import type { Logger as OrmLogger } from 'typeorm';
import { isDbUnreachable, isUniqueViolation } from './db-errors.js';
import { dbOutage } from './db-outage.js';

const MAX_QUERY = 500;
/** The query text on one line, bounded. Parameters are never part of it (TypeORM binds them separately). */
const queryText = (q: string) => {
  const s = q.replace(/\s+/g, ' ').trim();
  return s.length > MAX_QUERY ? s.slice(0, MAX_QUERY) + '…' : s;
};

/**
 * TypeORM's logger, through the console's one JSON logger (Nest's Logger -> JsonLogger, masked).
 * Query parameters are never logged: they hold password hashes, sealed secrets and personal data.
 * Queries themselves are not logged; a failed query logs its error and its text (placeholders only);
 * a unique-key conflict is a normal outcome that callers answer (409), so it is logged at debug level;
 * so is a query that failed because the database is unreachable (db-outage.ts logs the outage once).
 */
export class TypeOrmJsonLogger implements OrmLogger {
  private readonly out = new Logger('Database');

  logQuery(): void {
    // Not logged: one line per query would drown the log, and parameters must never be written.
  }

  logQueryError(error: string | Error, query: string): void {
    const message = typeof error === 'string' ? error : error.message;
    const line = `Query failed: ${message} (query: ${queryText(query)})`;
    if (isUniqueViolation(error)) this.out.debug(line);
    else if (isDbUnreachable(error)) {
      dbOutage.noteUnreachable(error);
      this.out.debug(line);
    } else this.out.error(line);
  }

  logQuerySlow(time: number, query: string): void {
    this.out.warn(`Slow query (${time} ms): ${queryText(query)}`);
  }

  logSchemaBuild(message: string): void {
    this.out.debug(message);
  }

  logMigration(message: string): void {
    this.out.log(message);
  }

  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    const text = typeof message === 'string' ? message : JSON.stringify(message);
    if (level === 'warn') this.out.warn(text);
    else this.out.debug(text);
  }
}
