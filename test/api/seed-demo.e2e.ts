/**
 * `npm run seed:demo` as a new user runs it: the command-line tools' database (src/cli/db.ts, the
 * configured database with its migrations) and every seeder of src/seed/seeders.ts in order, twice; the
 * second run leaves the same rows. A seeder whose tables the CLI's DataSource does not know fails here
 * (it once failed on a first start with "No metadata for BannerEntity").
 */
import { jest } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { openDatabase } from '../../src/cli/db.js';
import { SEEDERS } from '../../src/seed/seeders.js';
import { freshMysql } from '../helpers/mysql.js';

jest.setTimeout(180_000);

const TABLES = ['books', 'book_cats', 'authors', 'compilations', 'asks', 'joke_cats', 'sonnik_cats', 'sonnik_posts', 'banners'];

async function counts(ds: DataSource): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of TABLES) out[t] = Number(((await ds.query(`SELECT COUNT(*) AS c FROM ${t}`)) as Array<{ c: unknown }>)[0].c);
  return out;
}

test('every seeder runs on a fresh database, and again with the same result', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'seed-demo-'));
  const mysql = process.env.TEST_DATABASE_URL ? await freshMysql(process.env.TEST_DATABASE_URL) : null;
  const env = { DATA_DIR: dir, LOG_LEVEL: 'error', ...(mysql ? { DATABASE_URL: mysql.url } : {}) };
  try {
    const ds = await openDatabase(env);
    try {
      const runAll = async () => {
        for (const s of SEEDERS) expect([s.name, typeof (await s.run(ds, () => undefined))]).toEqual([s.name, 'string']);
      };
      await runAll();
      const first = await counts(ds);
      for (const t of TABLES) expect([t, first[t] > 0]).toEqual([t, true]);
      await runAll();
      expect(await counts(ds)).toEqual(first);
    } finally {
      await ds.destroy();
    }
  } finally {
    await mysql?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
});
