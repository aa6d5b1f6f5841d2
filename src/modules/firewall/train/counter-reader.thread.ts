/**
 * The feature counters of scoring read off the event loop, on SQLite (issue 25). better-sqlite3 answers
 * synchronously, so every page of readCounterPages read on the app's connection holds the main thread
 * for its statement (pages of 500 sums rows: event-loop p99 near 60 ms while a host of 45,000 addresses is
 * scored). Here the read runs in a worker thread (counter-reader.worker.ts) on a read-only connection of
 * its own to the same database file: WAL lets it read while the app's connection writes, and a statement
 * there sees what was committed when it started, as on the app's connection. The pages come back as they
 * are made (each Float64Array transferred, not copied) and the main thread only passes them on (to the
 * scoring thread). One thread, started on first use and kept (unref'd while idle); calls may overlap.
 * A thread that dies fails its pending calls; the next call starts another.
 *
 * Only for a database another connection can open beside the app's: a file (an in-memory or temporary
 * database is the connection's own) in WAL mode (in the rollback-journal modes a reader's lock would make
 * the app's writes wait): `sharedSqliteFile` tells. Elsewhere, and on MariaDB (whose driver does not hold
 * the event loop while the server reads), the read stays on the app's connection.
 */
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { DataSource } from 'typeorm';
import { messageOf, resolveWorkerScript } from '../../../core/worker-script.js';
import type { CounterPageSink, LoadOptions } from './ip-features.js';
import type { ReaderReply, ReaderRequest } from './counter-reader.worker.js';

/**
 * The file of the app's SQLite database when a second connection can read it beside the app's (a file on
 * disk, journal mode WAL), else null (MariaDB, in-memory or temporary databases, other journal modes).
 */
export function sharedSqliteFile(ds: DataSource): string | null {
  if (ds.options.type !== 'better-sqlite3' || !ds.isInitialized) return null;
  const db = (ds.driver as unknown as { databaseConnection?: { pragma(s: string, o?: { simple: boolean }): unknown } }).databaseConnection;
  if (!db) return null;
  // the main database's file as SQLite opened it (absolute); '' for ':memory:' and temporary databases
  const list = db.pragma('database_list') as Array<{ name: string; file: string }>;
  const file = list.find((d) => d.name === 'main')?.file ?? '';
  if (!file || !existsSync(file)) return null;
  return String(db.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal' ? file : null;
}

/** A failure of the thread's read (not of the caller's page sink): `attempt` the highest handed on, -1 none. */
export class CounterReaderError extends Error {
  constructor(message: string, readonly attempt: number) {
    super(message);
  }
}

interface Pending {
  worker: Worker;
  onPage?: CounterPageSink;
  /** The highest attempt handed on (for a caller that reads again elsewhere after a failure). */
  attempt: number;
  resolve: (rows: unknown[] | undefined) => void;
  reject: (e: unknown) => void;
}

export class CounterReader {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private readonly workerUrl: URL;

  constructor(private readonly file: string, workerUrl?: URL) {
    this.workerUrl = workerUrl ?? resolveWorkerScript('counter-reader.worker', import.meta.url);
  }

  /**
   * readCounterPages of `host` (sqlite dialect) in the thread: `onPage` gets the same pages in the same
   * order, with the same attempts. A failure of the read rejects with a CounterReaderError (its `attempt`
   * the highest handed on), so that a caller reading again elsewhere can number its pages above it; an
   * error thrown by `onPage` rejects as it is.
   */
  async pages(host: string, opts: LoadOptions, onPage: CounterPageSink): Promise<void> {
    const { bookPattern, raw: _raw, ...rest } = opts;
    await this.send({ op: 'pages', host, opts: { ...rest, book: { source: bookPattern.source, flags: bookPattern.flags } } }, onPage);
  }

  /** The rows of one read statement (objects, as DataSource.query answers them), read in the thread. */
  async rows<R = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<R[]> {
    return ((await this.send({ op: 'rows', sql, params })) ?? []) as R[];
  }

  /** Stops the thread (pending calls fail). */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }

  private send(req: DistributiveOmit<ReaderRequest, 'id' | 'file'>, onPage?: CounterPageSink): Promise<unknown[] | undefined> {
    const worker = this.worker ?? this.spawn();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { worker, onPage, attempt: -1, resolve, reject });
      worker.ref();
      worker.postMessage({ ...req, id, file: this.file } as ReaderRequest);
    });
  }

  private spawn(): Worker {
    const worker = new Worker(this.workerUrl, { name: 'counter-reader' });
    this.worker = worker;
    worker.unref();
    worker.on('message', (m: ReaderReply) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      if (m.kind === 'page') {
        p.attempt = m.attempt;
        try {
          p.onPage?.({ ips: m.ips, counters: m.counters }, m.attempt);
        } catch (e) {
          // the caller's own failure: the call fails with it (the rest of the thread's read goes unheard)
          this.settle(m.id, p);
          p.reject(e);
        }
        return;
      }
      this.settle(m.id, p);
      if (m.kind === 'done') p.resolve(m.rows);
      else p.reject(new CounterReaderError(m.error, p.attempt));
    });
    const fail = (message: string) => {
      if (this.worker === worker) this.worker = null;
      for (const [id, p] of this.pending) {
        if (p.worker !== worker) continue;
        this.pending.delete(id);
        p.reject(new CounterReaderError(message, p.attempt));
      }
    };
    worker.on('error', (e) => fail(`counter reader thread failed: ${messageOf(e)}`));
    worker.on('exit', (code) => fail(`counter reader thread exited (code ${code})`));
    return worker;
  }

  private settle(id: number, p: Pending) {
    this.pending.delete(id);
    if (![...this.pending.values()].some((q) => q.worker === p.worker)) p.worker.unref();
  }
}

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;
