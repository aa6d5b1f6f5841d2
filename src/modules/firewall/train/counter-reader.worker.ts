/**
 * Worker thread of CounterReader (counter-reader.thread.ts): reads a host's feature counters from the
 * app's SQLite file on a read-only connection of its own, so that better-sqlite3's synchronous statements
 * hold this thread, not the main event loop. The read is readCounterPages itself (ip-features.ts: the same
 * statements, the same rollup-state check before and after, the same retries); each page it makes goes to
 * the main thread as it is made, its Float64Array transferred. Also plain reads (`rows`) for the
 * statements around scoring that may walk many rows. One connection per database file, kept.
 */
import Database from 'better-sqlite3';
import { parentPort } from 'node:worker_threads';
import { readCounterPages, type LoadOptions, type Query, type RawQuery } from './ip-features.js';

/** LoadOptions as they cross threads: the book pattern by source and flags (no RegExp, no functions). */
export type ReaderLoadOptions = Omit<LoadOptions, 'bookPattern' | 'raw'> & { book: { source: string; flags: string } };

export type ReaderRequest =
  | { id: number; file: string; op: 'pages'; host: string; opts: ReaderLoadOptions }
  | { id: number; file: string; op: 'rows'; sql: string; params: unknown[] };

export type ReaderReply =
  | { id: number; kind: 'page'; attempt: number; ips: string[]; counters: Float64Array }
  | { id: number; kind: 'done'; rows?: unknown[] }
  | { id: number; kind: 'error'; error: string };

const port = parentPort;
if (!port) throw new Error('counter-reader.worker must run in a worker thread');

/** Prepared statements kept per connection (as TypeORM keeps the main connection's), oldest dropped first. */
const STATEMENT_CACHE = 100;

interface Conn {
  q: Query;
  raw: RawQuery;
}

const conns = new Map<string, Conn>();

function connect(file: string): Conn {
  let c = conns.get(file);
  if (c) return c;
  // read-only: this connection never writes (the app's own connection does); WAL lets it read beside the writer
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  type Stmt = Database.Statement<unknown[]>;
  const cache = new Map<string, Stmt>();
  const stmt = (sql: string, raw: boolean): Stmt => {
    const key = `${raw ? 'r' : 'o'}${sql}`;
    let s = cache.get(key);
    if (!s) {
      s = db.prepare<unknown[]>(sql);
      if (raw) s.raw(true);
      cache.set(key, s);
      if (cache.size > STATEMENT_CACHE) cache.delete(cache.keys().next().value!);
    }
    return s;
  };
  c = {
    q: async <R,>(sql: string, params: unknown[] = []) => stmt(sql, false).all(...params) as R[],
    raw: async (sql, params = []) => stmt(sql, true).all(...params) as unknown[][],
  };
  conns.set(file, c);
  return c;
}

port.on('message', (m: ReaderRequest) => {
  void (async () => {
    try {
      const c = connect(m.file);
      if (m.op === 'rows') {
        port.postMessage({ id: m.id, kind: 'done', rows: await c.q(m.sql, m.params) } satisfies ReaderReply);
        return;
      }
      const { book, ...rest } = m.opts;
      await readCounterPages(c.q, 'sqlite', m.host, { ...rest, bookPattern: new RegExp(book.source, book.flags), raw: c.raw }, (t, attempt) => {
        port.postMessage({ id: m.id, kind: 'page', attempt, ips: t.ips, counters: t.counters } satisfies ReaderReply, [t.counters.buffer as ArrayBuffer]);
      });
      port.postMessage({ id: m.id, kind: 'done' } satisfies ReaderReply);
    } catch (e) {
      port.postMessage({ id: m.id, kind: 'error', error: e instanceof Error ? e.message : String(e) } satisfies ReaderReply);
    }
  })();
});
