/**
 * What the two rollups from fw_access_log by watermark Id share (the traffic summary of
 * firewall-traffic.service.ts and the feature counters of feature-rollup.service.ts): chunk size, the
 * MariaDB settle rule, one-at-a-time runs per process, and the raw SQLite handle's types.
 */

/** Ids rolled up per transaction (SQLite runs it as one synchronous step: keep it short). */
export const ROLLUP_CHUNK_IDS = 20_000;
/**
 * MariaDB: rows are rolled up only once the highest Id has been seen this long ago. Two store
 * transactions may commit out of Id order (parallel proxies); a row with a lower Id that commits after
 * the rollup passed it would be lost. SQLite has one writer: no wait.
 */
export const ROLLUP_SETTLE_MS = 60_000;

/** The highest Ids seen, with when: `settled` answers the highest one seen at least `settleMs` ago. */
export class SettleWindow {
  private seen: Array<{ at: number; maxId: number }> = [];

  settled(maxId: number, settleMs: number, now = Date.now()): number {
    if (settleMs <= 0) return maxId;
    this.seen.push({ at: now, maxId });
    let best = 0;
    for (const s of this.seen) if (s.at <= now - settleMs) best = Math.max(best, s.maxId);
    this.seen = this.seen.filter((s) => s.at > now - settleMs || s.maxId === best);
    return best;
  }
}

/** Runs calls one after another (a call waits for the one before it, whatever its outcome). */
export class Serial {
  private last: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.last.catch(() => undefined).then(fn);
    this.last = next;
    return next;
  }
}

/** better-sqlite3's statement and connection, as the rollups use them on the raw handle. */
export interface SqliteStatement {
  run(...params: unknown[]): { changes: number };
  all(...params: unknown[]): unknown[];
}
export interface SqliteHandle {
  prepare(sql: string): SqliteStatement;
  transaction<F extends (...a: never[]) => unknown>(fn: F): F;
}
