import { Logger } from '@nestjs/common';
import { EventSubscriber, type AfterQueryEvent, type EntitySubscriberInterface } from 'typeorm';
import { isDbUnreachable } from './db-errors.js';

const reason = (err: unknown) => {
  const e = err as { code?: unknown; message?: unknown } | null | undefined;
  const msg = typeof e?.message === 'string' && e.message ? e.message : String(err);
  return typeof e?.code === 'string' && !msg.includes(e.code) ? `${e.code}: ${msg}` : msg;
};

/**
 * Whether the database is reachable, as the calls see it: the first unreachable failure (db-errors.ts
 * isDbUnreachable) logs ONE warning line, the other failures of the outage log nothing, and the first query
 * that succeeds afterwards logs one info line. Every failure path notes here (errors.ts
 * toFailure, the TypeORM logger, the audit writer), so an outage is two log lines, not a stack per call.
 * One per process (toFailure has no injector); the app's TypeORM subscriber reports the successes.
 */
export class DbOutage {
  private downSince = 0;
  private readonly log = new Logger('Database');

  get down(): boolean {
    return this.downSince > 0;
  }

  /** A call failed because the database is unreachable. */
  noteUnreachable(err: unknown): void {
    if (this.downSince) return;
    this.downSince = Date.now();
    this.log.warn(`Database unreachable (${reason(err).replace(/\.+$/, '')}): calls answer 503 'db' until it is back (logged once per outage)`);
  }

  /** A query succeeded. */
  noteReachable(): void {
    if (!this.downSince) return;
    const s = ((Date.now() - this.downSince) / 1000).toFixed(1);
    this.downSince = 0;
    this.log.log(`Database reachable again after ${s} s`);
  }
}

export const dbOutage = new DbOutage();

/** Registered on the DataSource (database.module.ts): every query's outcome tells the outage tracker. */
@EventSubscriber()
export class DbOutageSubscriber implements EntitySubscriberInterface {
  afterQuery(e: AfterQueryEvent): void {
    if (e.success) dbOutage.noteReachable();
    else if (isDbUnreachable(e.error)) dbOutage.noteUnreachable(e.error);
  }
}
