/**
 * Storage of the access logs the firewall worker reads (issue 8 "Storage", docs/firewall.md "Storage"):
 * the parsed lines of one batch go into `fw_access_log`, their hits into the per-(minute, host, ip)
 * counters of `fw_ip_minutes`, and the proxy's cursor moves past them, all in one transaction. The
 * cursor is moved by compare-and-set (`WHERE inode = ? AND pos = ?`), so two readers of the same log
 * (a run started by hand on another instance while the scheduled one reads) can never store a line
 * twice: the second finds the cursor moved and rolls back.
 *
 * SQLite (better-sqlite3) is synchronous: a transaction is one synchronous block on the raw handle
 * (prepared multi-row statements), which keeps it atomic whatever else the process does, and the
 * caller keeps batches small (PREFERRED_CHUNK_BYTES) so that the block stays short for the event loop.
 * MariaDB runs on a pooled connection of its own (QueryRunner), multi-row INSERTs of STORE_SLICE rows,
 * the event loop free while the server works; deadlocks and lock waits are retried.
 *
 * Counters are upserted with the dialect's SQL: SQLite `ON CONFLICT (...) DO UPDATE SET count = count
 * + excluded.count`, MariaDB `ON DUPLICATE KEY UPDATE count = count + VALUES(count)` (`count` and
 * `lines` in backquotes: LINES is reserved in MariaDB, and SQLite takes backquotes too).
 * `minute` is the epoch minute of the line (`floor(stime / 60)`).
 */
import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { isDeadlock } from '../../../core/database/db-errors.js';
import { InjectDataSource } from '@nestjs/typeorm';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { DataSource, QueryRunner } from 'typeorm';
import { LOG_BAD_SAMPLE_MAX, type LogBadLine } from '../../../contracts/access-log.js';
import type { LogBatch, LogSource } from './log-parser.js';

/** How often the SQLite checkpointer thread copies the write-ahead log into the database file. */
export const CHECKPOINT_EVERY_MS = 250;
/** WAL pages (4 KiB) past which the store lets the checkpointer catch up before its next commit (32 MiB). */
export const CHECKPOINT_SETTLE_PAGES = 8192;
/** SQLite's own default: a commit that finds this many pages in the WAL checkpoints (restored without the thread). */
const SQLITE_AUTOCHECKPOINT = 1000;

/**
 * The checkpointer thread (SQLite): a connection of its own that runs `PRAGMA wal_checkpoint(PASSIVE)`
 * every CHECKPOINT_EVERY_MS and when asked, and reports the WAL's length and what it has copied. A
 * passive checkpoint never blocks the writer; the copy and its fsync happen in this thread.
 */
const CHECKPOINTER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
const tick = (id) => {
  let r = null;
  try { r = db.pragma('wal_checkpoint(PASSIVE)')[0]; } catch { /* busy: the next tick */ }
  parentPort.postMessage({ id, log: r ? r.log : -1, done: r ? r.checkpointed : -1 });
};
const timer = setInterval(() => tick(0), workerData.everyMs);
parentPort.on('message', (m) => {
  if (m === 'stop') { clearInterval(timer); try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {} db.close(); parentPort.close(); }
  else tick(m);
});
`;

/** The epoch minute of a line's time: the `minute` key of fw_ip_minutes. */
export const minuteOf = (stime: number) => Math.floor(stime / 60);

/** Rows per multi-row INSERT. */
export const STORE_SLICE = 200;
/** Rows made from the parsed columns between two turns of the event loop. */
export const PREPARE_SLICE = 128;
/** Rows removed per DELETE by the retention job. */
export const RETENTION_BATCH = 5000;
/** Bytes of log the worker parses and stores per transaction, per dialect (see the file comment). */
export const PREFERRED_CHUNK_BYTES = { sqlite: 32 * 1024, mariadb: 1024 * 1024 } as const;

/** Text columns of fw_access_log are cut to these many characters (MariaDB refuses longer values). */
const CUT = { host: 190, addr: 64, ip: 64, forward: 190, method: 16, url: 4000, ref: 2000, agent: 1000, upstream: 64 } as const;

const cut = (s: string, n: number) => {
  if (s.length <= n) return s;
  const c = s.charCodeAt(n - 1);
  return s.slice(0, c >= 0xd800 && c <= 0xdbff ? n - 1 : n); // never half a surrogate pair
};

/** Where a proxy's log stands (fw_log_cursors) before a commit. */
export interface CursorAt {
  inode: string;
  pos: number;
}

/** Where it stands after. */
export interface CursorTo extends CursorAt {
  path: string;
}

/** What a batch came from: the proxy row and the fields its lines do not carry. */
export interface StoreSource extends LogSource {
  proxy_id: number;
}

/** The cursor moved under us: another reader stored these lines first. Nothing was written. */
export class CursorMovedError extends Error {
  constructor(proxyId: number) {
    super(`The log of proxy ${proxyId} was read by another run at the same time; nothing stored twice, the next run goes on`);
  }
}

const ENTRY_COLUMNS = ['proxy_id', 'proxy_host', 'proxy_addr', 'ip', 'forward', 'stime', 'method', 'url', 'code', 'ref', 'agent', 'upstream_response_time', 'request_time', 'tag'] as const;
const ENTRY_WIDTH = ENTRY_COLUMNS.length;
const placeholders = (rows: number, width: number) => {
  const one = `(${new Array(width).fill('?').join(', ')})`;
  return new Array(rows).fill(one).join(', ');
};

/** SQLite's datetime text, as TypeORM writes it (UTC, milliseconds). */
const sqliteTime = (d: Date) => d.toISOString().replace('T', ' ').replace('Z', '');

interface SqliteStatement {
  run(...params: unknown[]): { changes: number };
  all(...params: unknown[]): unknown[];
}
interface SqliteDb {
  prepare(sql: string): SqliteStatement;
  transaction<F extends (...a: never[]) => unknown>(fn: F): F;
}

/** One batch turned into SQL parameters: entry rows and aggregated counters. */
interface Prepared {
  rows: number;
  entries: unknown[];
  counters: unknown[];
  counterRows: number;
}

@Injectable()
export class AccessLogStore implements OnModuleInit, OnModuleDestroy {
  readonly dialect: 'sqlite' | 'mariadb';
  private readonly log = new Logger('AccessLogStore');
  private readonly stmts = new Map<string, SqliteStatement>();
  private checkpointer: Worker | null = null;
  /** The WAL's length in pages as the checkpointer last saw it. */
  private walPages = 0;
  private nextCheck = 1;
  private readonly checks = new Map<number, (r: { log: number; done: number }) => void>();

  constructor(@InjectDataSource() private readonly db: DataSource) {
    this.dialect = db.options.type === 'better-sqlite3' ? 'sqlite' : 'mariadb';
  }

  /**
   * SQLite: WAL checkpoints move to a thread of their own (CHECKPOINTER), and the main connection's
   * automatic checkpoint is off while it runs. Measured with the ingest bench: SQLite's automatic
   * checkpoint runs inside the commit that crosses 1000 pages, on the event loop; with the access log's
   * write rate that was every few commits, and it made most of the event loop's worst delays and half
   * the ingest time. The log restarts from its beginning only when a write begins with every page
   * copied, which a steady writer never meets: past CHECKPOINT_SETTLE_PAGES the store waits (without
   * blocking the event loop) for the checkpointer to catch up before its next commit. If the thread
   * stops, the main connection checkpoints by itself again.
   */
  onModuleInit() {
    if (this.dialect !== 'sqlite') return;
    const file = String((this.db.options as { database?: unknown }).database ?? '');
    if (!file || file === ':memory:') return;
    const w = new Worker(CHECKPOINTER, { eval: true, workerData: { file, module: createRequire(import.meta.url).resolve('better-sqlite3'), everyMs: CHECKPOINT_EVERY_MS } });
    w.unref();
    w.once('online', () => this.autoCheckpoint(0));
    w.on('message', (m: { id: number; log: number; done: number }) => {
      if (m.log >= 0) this.walPages = m.log;
      const resolve = this.checks.get(m.id);
      if (resolve) {
        this.checks.delete(m.id);
        resolve(m);
      }
    });
    w.once('error', (e) => this.log.warn(`SQLite checkpointer: ${e.message}; the main connection checkpoints again`));
    w.once('exit', () => {
      if (this.checkpointer === w) this.checkpointer = null;
      this.autoCheckpoint(SQLITE_AUTOCHECKPOINT);
      for (const resolve of this.checks.values()) resolve({ log: -1, done: -1 });
      this.checks.clear();
    });
    this.checkpointer = w;
  }

  async onModuleDestroy() {
    const w = this.checkpointer;
    if (!w) return;
    this.checkpointer = null;
    const exited = new Promise((r) => w.once('exit', r));
    w.postMessage('stop');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 2000).unref())]);
    await w.terminate();
    this.autoCheckpoint(SQLITE_AUTOCHECKPOINT);
  }

  /** A long WAL: lets the checkpointer copy everything (a few tries), so that the next commit restarts the log. */
  private async settleWal() {
    const w = this.checkpointer;
    if (!w || this.walPages < CHECKPOINT_SETTLE_PAGES) return;
    for (let i = 0; i < 3; i++) {
      const id = this.nextCheck++;
      const r = await new Promise<{ log: number; done: number }>((resolve) => {
        this.checks.set(id, resolve);
        w.postMessage(id);
      });
      if (r.log < 0 || r.done >= r.log) break;
    }
    this.walPages = 0;
  }

  private autoCheckpoint(pages: number) {
    try {
      const raw = this.raw as unknown as { open?: boolean; pragma(s: string): unknown };
      if (raw && raw.open !== false) raw.pragma(`wal_autocheckpoint = ${pages}`);
    } catch {
      // the connection is closing
    }
  }

  /** How many log bytes to parse and store per transaction on this database. */
  get chunkBytes(): number {
    return PREFERRED_CHUNK_BYTES[this.dialect];
  }

  // ------------------------------------------------------------------------------------------
  // Ingest

  /**
   * Stores the lines of `batch` (null: none, e.g. a rotation switch) and moves the proxy's cursor from
   * `from` to `to`, in one transaction. Throws CursorMovedError (nothing written) when the cursor is no
   * longer at `from`. `bad` adds to the proxy's bad-line count; `badSample`, when given, replaces the
   * stored sample.
   */
  async commit(src: StoreSource, batch: LogBatch | null, from: CursorAt, to: CursorTo, bad: number, badSample: LogBadLine[] | null): Promise<void> {
    const now = new Date();
    const lines = batch?.length ?? 0;
    const sample = badSample ? JSON.stringify(badSample.slice(-LOG_BAD_SAMPLE_MAX)) : null;
    if (this.dialect === 'sqlite') {
      // rows are made before the transaction, yielding between slices; the transaction itself is one
      // synchronous block of inserts
      const p = batch && lines ? await this.prepare(src, batch) : null;
      await this.settleWal();
      this.sqliteTx(() => {
        this.sqliteCursor(src.proxy_id, from, to, lines, bad, sample, sqliteTime(now));
        if (p) this.sqliteWrite(p);
      });
      return;
    }
    const p = batch && lines ? await this.prepare(src, batch) : null;
    await this.mariaTx(async (q) => {
      await this.mariaCursor(q, src.proxy_id, from, to, lines, bad, sample, now);
      if (p) await this.mariaWrite(q, p);
    });
  }

  /**
   * Entry rows and counters of a batch, PREPARE_SLICE rows at a time with a turn of the event loop
   * between slices (making a row from the parsed columns is most of the main thread's work).
   */
  private async prepare(src: StoreSource, batch: LogBatch): Promise<Prepared> {
    const to = batch.length;
    const entries: unknown[] = new Array(to * ENTRY_WIDTH);
    const counts = new Map<string, number>();
    const proxyAddr = cut(src.proxy_addr, CUT.addr);
    let k = 0;
    for (let from = 0; from < to; from += PREPARE_SLICE) {
      if (from > 0) await new Promise((r) => setImmediate(r));
      k = this.prepareRows(src, batch, from, Math.min(to, from + PREPARE_SLICE), proxyAddr, entries, k, counts);
    }
    // a stable order of counter keys: two transactions upserting the same rows lock them in one order
    const keys = [...counts.keys()].sort();
    const counters: unknown[] = new Array(keys.length * 4);
    let c = 0;
    for (const key of keys) {
      const [m, host, ip] = key.split('\t');
      counters[c++] = Number(m);
      counters[c++] = host;
      counters[c++] = ip;
      counters[c++] = counts.get(key)!;
    }
    return { rows: to, entries, counters, counterRows: keys.length };
  }

  private prepareRows(src: StoreSource, batch: LogBatch, from: number, to: number, proxyAddr: string, entries: unknown[], k: number, counts: Map<string, number>): number {
    for (let i = from; i < to; i++) {
      const e = batch.row(i, src);
      const host = cut(e.proxy_host.toLowerCase(), CUT.host);
      const ip = cut(e.ip, CUT.ip);
      entries[k++] = src.proxy_id;
      entries[k++] = host;
      entries[k++] = proxyAddr;
      entries[k++] = ip;
      entries[k++] = cut(e.forward, CUT.forward);
      entries[k++] = e.stime;
      entries[k++] = cut(e.method, CUT.method);
      entries[k++] = cut(e.url, CUT.url);
      entries[k++] = e.code;
      entries[k++] = cut(e.ref, CUT.ref);
      entries[k++] = cut(e.agent, CUT.agent);
      entries[k++] = cut(e.upstream_response_time, CUT.upstream);
      entries[k++] = e.request_time;
      entries[k++] = e.tag;
      const key = `${minuteOf(e.stime)}\t${host}\t${ip}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return k;
  }

  // ------------------------------------------------------------------------------------------
  // SQLite: synchronous, on the raw better-sqlite3 handle

  private get raw(): SqliteDb {
    return (this.db.driver as unknown as { databaseConnection: SqliteDb }).databaseConnection;
  }

  private stmt(sql: string): SqliteStatement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.raw.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  private sqliteTx(fn: () => void) {
    // better-sqlite3 nests as a savepoint when a transaction is already open on the connection
    this.raw.transaction(fn)();
  }

  private sqliteCursor(proxyId: number, from: CursorAt, to: CursorTo, lines: number, bad: number, sample: string | null, now: string) {
    const r = this.stmt(
      'UPDATE fw_log_cursors SET inode = ?, pos = ?, path = ?, `lines` = `lines` + ?, bad_lines = bad_lines + ?, bad_sample = COALESCE(?, bad_sample), last_read = ?, last_error = NULL ' +
        'WHERE proxy_id = ? AND inode = ? AND pos = ?',
    ).run(to.inode, to.pos, to.path, lines, bad, sample, now, proxyId, from.inode, from.pos);
    if (r.changes !== 1) throw new CursorMovedError(proxyId);
  }

  private sqliteWrite(p: Prepared) {
    const entrySql = (n: number) => `INSERT INTO fw_access_log (${ENTRY_COLUMNS.join(', ')}) VALUES ${placeholders(n, ENTRY_WIDTH)}`;
    const counterSql = (n: number) =>
      `INSERT INTO fw_ip_minutes (minute, proxy_host, ip, \`count\`) VALUES ${placeholders(n, 4)} ON CONFLICT (minute, proxy_host, ip) DO UPDATE SET \`count\` = \`count\` + excluded.\`count\``;
    this.sliced(p.rows, ENTRY_WIDTH, p.entries, (n, params) => this.stmt(entrySql(n)).run(...params));
    this.sliced(p.counterRows, 4, p.counters, (n, params) => this.stmt(counterSql(n)).run(...params));
  }

  /** Runs `fn` on full slices of STORE_SLICE rows, then once on the rest (two statement shapes per table). */
  private sliced(rows: number, width: number, params: unknown[], fn: (n: number, params: unknown[]) => void) {
    let i = 0;
    for (; i + STORE_SLICE <= rows; i += STORE_SLICE) fn(STORE_SLICE, params.slice(i * width, (i + STORE_SLICE) * width));
    if (i < rows) {
      // the rest one row at a time keeps the prepared statements to two shapes per table
      for (; i < rows; i++) fn(1, params.slice(i * width, (i + 1) * width));
    }
  }

  // ------------------------------------------------------------------------------------------
  // MariaDB: a connection of its own per transaction

  private async mariaTx(fn: (q: QueryRunner) => Promise<void>) {
    for (let attempt = 1; ; attempt++) {
      const q = this.db.createQueryRunner();
      try {
        await q.connect();
        await q.startTransaction();
        try {
          await fn(q);
          await q.commitTransaction();
          return;
        } catch (err) {
          await q.rollbackTransaction().catch(() => undefined);
          throw err;
        }
      } catch (err) {
        // 1213 deadlock, 1205 lock wait time-out: the transaction was rolled back whole; run it again
        if (isDeadlock(err) && attempt < 4) continue;
        throw err;
      } finally {
        await q.release();
      }
    }
  }

  private async mariaCursor(q: QueryRunner, proxyId: number, from: CursorAt, to: CursorTo, lines: number, bad: number, sample: string | null, now: Date) {
    const r = await q.query(
      'UPDATE fw_log_cursors SET inode = ?, pos = ?, path = ?, `lines` = `lines` + ?, bad_lines = bad_lines + ?, bad_sample = COALESCE(?, bad_sample), last_read = ?, last_error = NULL ' +
        'WHERE proxy_id = ? AND inode = ? AND pos = ?',
      [to.inode, to.pos, to.path, lines, bad, sample, now, proxyId, from.inode, from.pos],
      true,
    );
    // mysql2 connects with FOUND_ROWS: the rows matched, whatever changed
    if ((r.affected ?? 0) !== 1) throw new CursorMovedError(proxyId);
  }

  private async mariaWrite(q: QueryRunner, p: Prepared) {
    for (let i = 0; i < p.rows; i += STORE_SLICE) {
      const n = Math.min(STORE_SLICE, p.rows - i);
      await q.query(`INSERT INTO fw_access_log (${ENTRY_COLUMNS.join(', ')}) VALUES ${placeholders(n, ENTRY_WIDTH)}`, p.entries.slice(i * ENTRY_WIDTH, (i + n) * ENTRY_WIDTH));
    }
    for (let i = 0; i < p.counterRows; i += STORE_SLICE) {
      const n = Math.min(STORE_SLICE, p.counterRows - i);
      await q.query(
        `INSERT INTO fw_ip_minutes (minute, proxy_host, ip, \`count\`) VALUES ${placeholders(n, 4)} ON DUPLICATE KEY UPDATE \`count\` = \`count\` + VALUES(\`count\`)`,
        p.counters.slice(i * 4, (i + n) * 4),
      );
    }
  }

  // ------------------------------------------------------------------------------------------
  // Retention

  /**
   * Removes entries with `stime` before `beforeStime` and counters of minutes before it, RETENTION_BATCH
   * rows per statement, yielding between statements so that the event loop and other writers get their
   * turn. Answers the rows removed.
   */
  async removeBefore(beforeStime: number, opts: { signal?: AbortSignal } = {}): Promise<{ entries: number; counters: number }> {
    const minute = minuteOf(beforeStime);
    const sql =
      this.dialect === 'sqlite'
        ? {
            entries: 'DELETE FROM fw_access_log WHERE Id IN (SELECT Id FROM fw_access_log WHERE stime < ? LIMIT ' + RETENTION_BATCH + ')',
            counters: 'DELETE FROM fw_ip_minutes WHERE rowid IN (SELECT rowid FROM fw_ip_minutes WHERE minute < ? LIMIT ' + RETENTION_BATCH + ')',
          }
        : {
            entries: 'DELETE FROM fw_access_log WHERE stime < ? LIMIT ' + RETENTION_BATCH,
            counters: 'DELETE FROM fw_ip_minutes WHERE minute < ? LIMIT ' + RETENTION_BATCH,
          };
    const removed = { entries: 0, counters: 0 };
    for (const [what, value] of [['entries', beforeStime], ['counters', minute]] as const) {
      for (;;) {
        if (opts.signal?.aborted) return removed;
        const n = await this.exec(sql[what], [value]);
        removed[what] += n;
        if (n < RETENTION_BATCH) break;
        await new Promise((r) => setImmediate(r));
      }
    }
    return removed;
  }

  /** One statement; answers the rows it changed. */
  private async exec(sql: string, params: unknown[]): Promise<number> {
    if (this.dialect === 'sqlite') return this.stmt(sql).run(...params).changes;
    const q = this.db.createQueryRunner();
    try {
      const r = await q.query(sql, params, true);
      return r.affected ?? 0;
    } finally {
      await q.release();
    }
  }
}
