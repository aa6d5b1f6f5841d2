import type { DataSource } from 'typeorm';

/**
 * Deletes the rows of `table` whose numeric column `col` (an epoch minute, hour or day, say) is below
 * `before`, oldest first, one window of `window` units per statement, so that a long backlog never runs
 * as one long delete that holds the table. Answers how many rows were removed.
 */
export async function deleteBelow(db: DataSource, table: string, col: string, before: number, window: number): Promise<number> {
  const [row] = (await db.query(`SELECT MIN(${col}) AS m FROM ${table}`)) as Array<{ m: unknown }>;
  if (row?.m === null || row?.m === undefined) return 0;
  let removed = 0;
  for (let from = Number(row.m); from < before; from += window) {
    removed += await execAffected(db, `DELETE FROM ${table} WHERE ${col} >= ? AND ${col} < ?`, [from, Math.min(before, from + window)]);
  }
  return removed;
}

/** Runs a statement and answers the rows it changed (on both drivers). */
export async function execAffected(db: DataSource, sql: string, params: unknown[]): Promise<number> {
  const runner = db.createQueryRunner();
  try {
    const r = await runner.query(sql, params, true);
    return Number((r as { affected?: number }).affected ?? 0);
  } finally {
    await runner.release();
  }
}
