/**
 * "Database unreachable" recognised in one place (issue 18): mysql2's connection-loss errors and
 * SQLite's busy/cannot-open/I-O errors answer 503 'db' everywhere, other database errors do not; the
 * outage is logged once; a batch where nothing succeeded because of it answers 503.
 */
import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import type { Envelope } from '../../src/contracts/envelope.js';
import { isDbUnreachable } from '../../src/core/database/db-errors.js';
import { DbOutage } from '../../src/core/database/db-outage.js';
import { toFailure } from '../../src/core/errors.js';
import { batchStatus } from '../../src/core/rpc/rpc.controller.js';

const err = (message: string, props: Record<string, unknown> = {}) => Object.assign(new Error(message), props);
const wrapped = (driverError: Error) => new QueryFailedError('SELECT 1', [], driverError);

const unreachable: Array<[string, unknown]> = [
  ['mysql2 pool cannot connect', err('connect ECONNREFUSED 127.0.0.1:3306', { code: 'ECONNREFUSED', errno: -111, fatal: true })],
  ['mysql2 connection lost mid-query', wrapped(err('Connection lost: The server closed the connection.', { code: 'PROTOCOL_CONNECTION_LOST', fatal: true }))],
  ['mysql2 reset', err('read ECONNRESET', { code: 'ECONNRESET', fatal: true })],
  ['mysql2 connect time-out', err('connect ETIMEDOUT', { code: 'ETIMEDOUT', fatal: true })],
  ['mysql2 pool ended', err('Pool is closed.')],
  ['mysql2 closed connection', err("Can't add new command when connection is in closed state", { fatal: true })],
  ['server shutting down', wrapped(err('Server shutdown in progress', { code: 'ER_SERVER_SHUTDOWN', errno: 1053 }))],
  ['connection killed', err('Connection was killed', { code: 'ER_CONNECTION_KILLED', errno: 1927 })],
  ['too many connections', err('Too many connections', { code: 'ER_CON_COUNT_ERROR', errno: 1040, fatal: true })],
  ['SQLite locked past the busy time-out', wrapped(err('database is locked', { code: 'SQLITE_BUSY' }))],
  ['SQLite file cannot be opened', err('unable to open database file', { code: 'SQLITE_CANTOPEN' })],
  ['SQLite I/O error', wrapped(err('disk I/O error', { code: 'SQLITE_IOERR_SHORT_READ' }))],
];
const reachable: Array<[string, unknown]> = [
  ['a duplicate key', wrapped(err("Duplicate entry 'a' for key 'name'", { code: 'ER_DUP_ENTRY', errno: 1062 }))],
  ['a syntax error', wrapped(err('You have an error in your SQL syntax', { code: 'ER_PARSE_ERROR', errno: 1064 }))],
  ['a SQLite constraint', wrapped(err('UNIQUE constraint failed', { code: 'SQLITE_CONSTRAINT_UNIQUE' }))],
  // Not the database: an SSH or agent peer refusing a connection has the code but not mysql2's fatal mark.
  ['an SSH peer refusing', err('connect ECONNREFUSED 10.0.0.5:22', { code: 'ECONNREFUSED', level: 'client-socket' })],
  ['a plain error', new Error('boom')],
];

describe('isDbUnreachable', () => {
  test.each(unreachable)('%s: unreachable, answered 503 db without a stack', (_what, e) => {
    expect(isDbUnreachable(e)).toBe(true);
    expect(toFailure(e)).toEqual({ httpStatus: 503, envelope: { status: 'db', message: 'Database unreachable: try again in a moment', code: 503 }, unexpected: false });
  });
  test.each(reachable)('%s: not unreachable', (_what, e) => {
    expect(isDbUnreachable(e)).toBe(false);
    expect(toFailure(e).httpStatus).not.toBe(503);
  });
});

describe('the outage log', () => {
  test('one warning per outage, one info line when it is back', () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const info = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    try {
      const o = new DbOutage();
      o.noteReachable();
      expect(info).not.toHaveBeenCalled();
      for (let i = 0; i < 50; i++) o.noteUnreachable(unreachable[0][1]);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toMatch(/^Database unreachable \(connect ECONNREFUSED 127\.0\.0\.1:3306\): calls answer 503/);
      expect(o.down).toBe(true);
      o.noteReachable();
      o.noteReachable();
      expect(info).toHaveBeenCalledTimes(1);
      expect(String(info.mock.calls[0][0])).toMatch(/^Database reachable again after \d+\.\d s$/);
      o.noteUnreachable(unreachable[1][1]);
      expect(warn).toHaveBeenCalledTimes(2);
    } finally {
      warn.mockRestore();
      info.mockRestore();
    }
  });
});

describe('the batch status', () => {
  const db: Envelope = { status: 'db', message: 'Database unreachable: try again in a moment', code: 503 };
  const ok: Envelope = { status: 'ok', result: 1 };
  const forbidden: Envelope = { status: 'error', message: 'Forbidden', code: 403 };
  const rules: Envelope = { status: 'rules', message: 'name: required', code: 422 };
  test('503 when nothing succeeded and the database was unreachable; 403 when all were refused; else 200', () => {
    expect(batchStatus([db])).toBe(503);
    expect(batchStatus([db, db])).toBe(503);
    expect(batchStatus([rules, db])).toBe(503);
    expect(batchStatus([ok, db])).toBe(200);
    expect(batchStatus([forbidden, forbidden])).toBe(403);
    expect(batchStatus([forbidden, ok])).toBe(200);
    expect(batchStatus([rules])).toBe(200);
  });
});
