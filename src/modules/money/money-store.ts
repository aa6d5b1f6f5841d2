/**
 * Every write of the money area, as step functions run in ONE database transaction (docs/money.md
 * "Writes"): the transaction rows, the box's balance and count, and the derived tables (tag relay,
 * box tags, sums per day, sums per tag and day) change together or not at all.
 *
 * - The box row is the lock: each write first reads it `FOR UPDATE` (MariaDB), so writers of one box
 *   queue on it and every later statement of the write touches rows keyed by that box only (no
 *   deadlocks between writers of one box); the balance moves by an atomic
 *   `UPDATE money_boxes SET balance = balance + ?`. A deadlock between boxes (gap locks) is retried.
 * - SQLite: the steps run synchronously inside better-sqlite3's `transaction()` on the raw handle
 *   (BEGIN IMMEDIATE), so no other statement of this process can interleave with them (TypeORM shares
 *   one connection between concurrent `transaction()` calls on SQLite and nests them as savepoints).
 * - The same step functions run on both (yield a statement, receive its rows or its write result),
 *   like the firewall's rollups (src/modules/firewall/train/ip-features.ts `Steps`).
 */
import type { DataSource } from 'typeorm';
import { isDeadlock } from '../../core/database/db-errors.js';
import { MONEY_BALANCE_MAX_KOPECKS, MONEY_MSG, type MoneyType } from '../../contracts/money.js';
import { invalid, notFound } from '../../core/errors.js';

export type Dialect = 'sqlite' | 'mariadb';
export type Row = Record<string, unknown>;
export interface Step { sql: string; params: unknown[]; write?: boolean }
export interface WriteResult { changes: number; insertId: number }
export type Steps<T> = Generator<Step, T, unknown>;

export function* read(sql: string, params: unknown[] = []): Steps<Row[]> {
  return (yield { sql, params }) as Row[];
}
export function* write(sql: string, params: unknown[] = []): Steps<WriteResult> {
  return (yield { sql, params, write: true }) as WriteResult;
}

/** An integer of kopecks (or a count) as read from either database (MariaDB answers BIGINT and SUM as strings). */
export function kop(v: unknown): number {
  if (v === null || v === undefined || v === '') return 0;
  const n = typeof v === 'bigint' ? Number(v) : Number(v);
  if (!Number.isSafeInteger(n)) throw new Error(`money: not an exact integer: ${String(v)}`);
  return n;
}

/** A datetime column's value as the databases store it from TypeORM: 'YYYY-MM-DD HH:MM:SS.SSS' UTC. */
export const dbTime = (d = new Date()) => d.toISOString().replace('T', ' ').replace('Z', '');
/** A datetime as read by a raw query (SQLite: that string; MariaDB: a Date) -> ISO, or null. */
export function isoOf(v: unknown): string | null {
  if (v === null || v === undefined || v === '') return null;
  if (v instanceof Date) return v.toISOString();
  const s = String(v);
  return /Z$|[+-]\d\d:?\d\d$/.test(s) ? new Date(s).toISOString() : new Date(`${s.replace(' ', 'T')}Z`).toISOString();
}

/** What a transaction contributes to the derived tables. */
export interface TxFacts {
  type: MoneyType;
  /** Kopecks, positive. */
  val: number;
  tags: string[];
  time_set: string;
}
export const factsOf = (r: Row): TxFacts => ({
  type: Number(r.type) === 1 ? 1 : 0,
  val: kop(r.val),
  tags: String(r.tags ?? '') === '' ? [] : String(r.tags).split(','),
  time_set: String(r.time_set),
});

type Sums = [income: number, expense: number, nIncome: number, nExpense: number];
const addTo = (m: Map<string, Sums>, key: string, s: Sums) => {
  const cur = m.get(key) ?? [0, 0, 0, 0];
  m.set(key, [cur[0] + s[0], cur[1] + s[1], cur[2] + s[2], cur[3] + s[3]]);
};

/** The changes a write makes to a box's derived rows, gathered, then applied in a few statements. */
export class Deltas {
  balance = 0;
  count = 0;
  readonly days = new Map<string, Sums>();
  /** key: tag + '\u0000' + day ('' tag: no tags). */
  readonly tagDays = new Map<string, Sums>();
  readonly boxTags = new Map<string, number>();
  /** A row may have dropped to zero: look for empty rows afterwards. */
  shrinks = false;

  add(sign: 1 | -1, t: TxFacts) {
    const s: Sums = t.type === 1 ? [sign * t.val, 0, sign, 0] : [0, sign * t.val, 0, sign];
    this.balance += sign * (t.type === 1 ? t.val : -t.val);
    this.count += sign;
    addTo(this.days, t.time_set, s);
    for (const tag of t.tags.length ? t.tags : ['']) addTo(this.tagDays, `${tag}\u0000${t.time_set}`, s);
    for (const tag of t.tags) this.boxTags.set(tag, (this.boxTags.get(tag) ?? 0) + sign);
    if (sign < 0) this.shrinks = true;
  }
}

const CHUNK = 200;
const marks = (n: number, width: number) => Array.from({ length: n }, () => `(${Array(width).fill('?').join(', ')})`).join(', ');
const nonZero = (s: Sums) => s.some((x) => x !== 0);

function* upsertSums(dialect: Dialect, table: 'money_days' | 'money_tag_days', keyCols: string[], rows: Array<[unknown[], Sums]>): Steps<void> {
  const cols = [...keyCols, 'income', 'expense', 'n_income', 'n_expense'];
  const tail = dialect === 'sqlite'
    ? ` ON CONFLICT (${keyCols.join(', ')}) DO UPDATE SET income = income + excluded.income, expense = expense + excluded.expense, n_income = n_income + excluded.n_income, n_expense = n_expense + excluded.n_expense`
    : ' ON DUPLICATE KEY UPDATE income = income + VALUES(income), expense = expense + VALUES(expense), n_income = n_income + VALUES(n_income), n_expense = n_expense + VALUES(n_expense)';
  for (let i = 0; i < rows.length; i += CHUNK) {
    const part = rows.slice(i, i + CHUNK);
    yield* write(`INSERT INTO ${table} (${cols.join(', ')}) VALUES ${marks(part.length, cols.length)}${tail}`, part.flatMap(([k, s]) => [...k, ...s]));
  }
}

/** Applies gathered deltas to one box (locked by the caller); answers the box's new balance in kopecks. */
export function* applyDeltas(dialect: Dialect, bid: number, d: Deltas, now: string): Steps<number> {
  yield* write('UPDATE money_boxes SET balance = balance + ?, tx_count = tx_count + ?, time_update = ? WHERE bid = ?', [d.balance, d.count, now, bid]);
  const [b] = yield* read('SELECT balance FROM money_boxes WHERE bid = ?', [bid]);
  const balance = kop(b?.balance);
  if (Math.abs(balance) > MONEY_BALANCE_MAX_KOPECKS) throw invalid(MONEY_MSG.balanceTooLarge, { val: MONEY_MSG.balanceTooLarge });

  const days = [...d.days].filter(([, s]) => nonZero(s)).map(([day, s]): [unknown[], Sums] => [[bid, day], s]);
  yield* upsertSums(dialect, 'money_days', ['bid', 'day'], days);
  const tagDays = [...d.tagDays].filter(([, s]) => nonZero(s)).map(([k, s]): [unknown[], Sums] => {
    const [tag, day] = k.split('\u0000');
    return [[bid, tag, day], s];
  });
  yield* upsertSums(dialect, 'money_tag_days', ['bid', 'tag', 'day'], tagDays);
  const boxTags = [...d.boxTags].filter(([, n]) => n !== 0);
  const tagTail = dialect === 'sqlite' ? ' ON CONFLICT (bid, tag) DO UPDATE SET n = n + excluded.n' : ' ON DUPLICATE KEY UPDATE n = n + VALUES(n)';
  for (let i = 0; i < boxTags.length; i += CHUNK) {
    const part = boxTags.slice(i, i + CHUNK);
    yield* write(`INSERT INTO money_box_tags (bid, tag, n) VALUES ${marks(part.length, 3)}${tagTail}`, part.flatMap(([tag, n]) => [bid, tag, n]));
  }

  if (d.shrinks) {
    // rows whose transactions are all gone are removed (no empty days, no tag without a transaction)
    const dayKeys = [...d.days.keys()];
    for (let i = 0; i < dayKeys.length; i += CHUNK) {
      const part = dayKeys.slice(i, i + CHUNK);
      yield* write(`DELETE FROM money_days WHERE bid = ? AND day IN (${part.map(() => '?').join(', ')}) AND n_income = 0 AND n_expense = 0`, [bid, ...part]);
    }
    for (const k of d.tagDays.keys()) {
      const [tag, day] = k.split('\u0000');
      yield* write('DELETE FROM money_tag_days WHERE bid = ? AND tag = ? AND day = ? AND n_income = 0 AND n_expense = 0', [bid, tag, day]);
    }
    const tags = [...d.boxTags.keys()];
    for (let i = 0; i < tags.length; i += CHUNK) {
      const part = tags.slice(i, i + CHUNK);
      yield* write(`DELETE FROM money_box_tags WHERE bid = ? AND tag IN (${part.map(() => '?').join(', ')}) AND n <= 0`, [bid, ...part]);
    }
  }
  return balance;
}

/** Locks the box for this write (MariaDB: the row lock every writer of the box queues on); 404 when it is gone. */
export function* lockBox(dialect: Dialect, bid: number): Steps<Row> {
  const [b] = yield* read(`SELECT bid, uid, title FROM money_boxes WHERE bid = ?${dialect === 'mariadb' ? ' FOR UPDATE' : ''}`, [bid]);
  if (!b) throw notFound(MONEY_MSG.boxNotFound);
  return b;
}

/** A transaction as written: facts plus who and what. */
export interface NewTx extends TxFacts { uid: number; description: string }

function* insertRelay(bid: number, rows: Array<{ trid: number } & TxFacts>): Steps<void> {
  const relay = rows.flatMap((r) => r.tags.map((tag) => [r.trid, tag, bid, r.time_set, r.type, r.val]));
  for (let i = 0; i < relay.length; i += CHUNK) {
    const part = relay.slice(i, i + CHUNK);
    yield* write(`INSERT INTO money_tag_relay (trid, tag, bid, time_set, type, val) VALUES ${marks(part.length, 6)}`, part.flat());
  }
}

const TX_COLS = ['bid', 'uid', 'type', 'val', 'tags', 'time_set', 'description', 'time_create', 'time_update'];
const txParams = (bid: number, t: NewTx, now: string) => [bid, t.uid, t.type, t.val, t.tags.join(','), t.time_set, t.description, now, now];

/**
 * Adds transactions to a box: multi-row INSERTs (their ids are consecutive within one statement and read
 * back by range, the box being locked), the relay rows, then the sums. Answers the new ids in order and
 * the balance.
 */
export function* insertSteps(dialect: Dialect, bid: number, txs: NewTx[], now: string): Steps<{ trids: number[]; balance: number }> {
  yield* lockBox(dialect, bid);
  const trids: number[] = [];
  const d = new Deltas();
  for (let i = 0; i < txs.length; i += CHUNK) {
    const part = txs.slice(i, i + CHUNK);
    const r = yield* write(`INSERT INTO money_transactions (${TX_COLS.join(', ')}) VALUES ${marks(part.length, TX_COLS.length)}`, part.flatMap((t) => txParams(bid, t, now)));
    // MariaDB answers the first id of the statement, SQLite the last
    const first = dialect === 'mariadb' ? r.insertId : r.insertId - part.length + 1;
    const ids = part.length === 1 ? [first] : (yield* read('SELECT trid FROM money_transactions WHERE bid = ? AND trid >= ? ORDER BY trid LIMIT ?', [bid, first, part.length])).map((x) => Number(x.trid));
    if (ids.length !== part.length) throw new Error(`money: ${ids.length} ids read back for ${part.length} rows`);
    yield* insertRelay(bid, part.map((t, j) => ({ ...t, trid: ids[j] })));
    part.forEach((t) => d.add(1, t));
    trids.push(...ids);
  }
  const balance = yield* applyDeltas(dialect, bid, d, now);
  return { trids, balance };
}

/** Changes one transaction of the box (its old contribution out, the new one in). */
export function* updateSteps(dialect: Dialect, bid: number, trid: number, next: NewTx, now: string): Steps<{ balance: number; old: Row }> {
  yield* lockBox(dialect, bid);
  const [old] = yield* read('SELECT * FROM money_transactions WHERE trid = ? AND bid = ?', [trid, bid]);
  if (!old) throw notFound(MONEY_MSG.transactionNotFound);
  const d = new Deltas();
  d.add(-1, factsOf(old));
  d.add(1, next);
  yield* write('UPDATE money_transactions SET type = ?, val = ?, tags = ?, time_set = ?, description = ?, time_update = ? WHERE trid = ?',
    [next.type, next.val, next.tags.join(','), next.time_set, next.description, now, trid]);
  yield* write('DELETE FROM money_tag_relay WHERE trid = ?', [trid]);
  yield* insertRelay(bid, [{ ...next, trid }]);
  return { balance: yield* applyDeltas(dialect, bid, d, now), old };
}

/** Removes one transaction of the box. */
export function* deleteSteps(dialect: Dialect, bid: number, trid: number, now: string): Steps<{ balance: number; old: Row }> {
  yield* lockBox(dialect, bid);
  const [old] = yield* read('SELECT * FROM money_transactions WHERE trid = ? AND bid = ?', [trid, bid]);
  if (!old) throw notFound(MONEY_MSG.transactionNotFound);
  const d = new Deltas();
  d.add(-1, factsOf(old));
  yield* write('DELETE FROM money_tag_relay WHERE trid = ?', [trid]);
  yield* write('DELETE FROM money_transactions WHERE trid = ?', [trid]);
  return { balance: yield* applyDeltas(dialect, bid, d, now), old };
}

/** Removes a box with everything of it. */
export function* deleteBoxSteps(dialect: Dialect, bid: number): Steps<number> {
  yield* lockBox(dialect, bid);
  for (const t of ['money_tag_relay', 'money_tag_days', 'money_days', 'money_box_tags', 'money_rules', 'money_box_users']) yield* write(`DELETE FROM ${t} WHERE bid = ?`, [bid]);
  const r = yield* write('DELETE FROM money_transactions WHERE bid = ?', [bid]);
  yield* write('DELETE FROM money_boxes WHERE bid = ?', [bid]);
  return r.changes;
}

interface SqliteStatement {
  run(...p: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  all(...p: unknown[]): Row[];
}
interface SqliteHandle {
  prepare(sql: string): SqliteStatement;
  transaction<F extends () => unknown>(fn: F): { immediate: () => ReturnType<F> } & (() => ReturnType<F>);
}

/** Runs step functions in one transaction on either database. */
export class MoneyTx {
  private readonly stmts = new Map<string, SqliteStatement>();
  readonly dialect: Dialect;

  constructor(private readonly db: DataSource) {
    this.dialect = db.options.type === 'better-sqlite3' ? 'sqlite' : 'mariadb';
  }

  async run<T>(make: () => Steps<T>): Promise<T> {
    if (this.dialect === 'sqlite') {
      const raw = (this.db.driver as unknown as { databaseConnection: SqliteHandle }).databaseConnection;
      return raw.transaction(() => {
        const g = make();
        let r = g.next();
        while (!r.done) {
          const s = r.value;
          const st = this.stmt(raw, s.sql);
          if (s.write) {
            const w = st.run(...s.params);
            r = g.next({ changes: w.changes, insertId: Number(w.lastInsertRowid) } satisfies WriteResult);
          } else r = g.next(st.all(...s.params));
        }
        return r.value;
      }).immediate();
    }
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db.transaction(async (m) => {
          const g = make();
          let r = g.next();
          while (!r.done) {
            const s = r.value;
            const out = await m.query(s.sql, s.params);
            if (s.write) {
              const h = out as { affectedRows?: number; insertId?: number };
              r = g.next({ changes: Number(h.affectedRows ?? 0), insertId: Number(h.insertId ?? 0) } satisfies WriteResult);
            } else r = g.next(out as Row[]);
          }
          return r.value;
        });
      } catch (e) {
        const inner = (e as { driverError?: unknown }).driverError ?? e;
        if (attempt < 4 && isDeadlock(inner)) continue;
        throw e;
      }
    }
  }

  private stmt(raw: SqliteHandle, sql: string): SqliteStatement {
    let st = this.stmts.get(sql);
    if (!st) {
      st = raw.prepare(sql);
      this.stmts.set(sql, st);
      if (this.stmts.size > 200) this.stmts.delete(this.stmts.keys().next().value!);
    }
    return st;
  }
}
