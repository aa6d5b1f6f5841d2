/**
 * `npm run content:import -- <books|pages|categories|authors> <file.jsonl|file.csv> [--all-or-none]`
 * Imports a JSON-lines or CSV file into the configured database (DATABASE_URL / DATA_DIR, as the
 * server) through the same validation and upsert as content.import (docs/content.md "Import"):
 * batches of IMPORT_MAX_ROWS rows, one transaction each. With --all-or-none every row of the file is
 * validated first and nothing is written when any is refused. Prints {inserted, updated, refused};
 * exit code 0, or 2 when rows were refused, 1 on an error.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { IMPORT_ENTITIES, IMPORT_MAX_ROWS, type ImportEntity, type ImportResult } from '../contracts/content.js';
import { importRows, parseImportFile, validateRows } from '../modules/content/content-import.js';
import { openDatabase } from './db.js';

async function main() {
  const args = process.argv.slice(2);
  const allOrNone = args.includes('--all-or-none');
  const [entity, file] = args.filter((a) => !a.startsWith('--'));
  if (!IMPORT_ENTITIES.includes(entity as ImportEntity) || !file) {
    console.error(`usage: npm run content:import -- <${IMPORT_ENTITIES.join('|')}> <file.jsonl|file.csv> [--all-or-none]`);
    process.exit(1);
  }
  const rows = parseImportFile(basename(file), readFileSync(file, 'utf8'));
  const total: ImportResult = { inserted: 0, updated: 0, refused: [] };
  if (allOrNone) {
    const { refused } = validateRows(entity as ImportEntity, rows);
    if (refused.length) {
      console.log(JSON.stringify({ ...total, refused, written: false }, null, 1));
      process.exit(2);
    }
  }
  const ds = await openDatabase();
  try {
    for (let i = 0; i < rows.length; i += IMPORT_MAX_ROWS) {
      const r = await importRows(ds, entity as ImportEntity, rows.slice(i, i + IMPORT_MAX_ROWS), false, i);
      total.inserted += r.inserted;
      total.updated += r.updated;
      total.refused.push(...r.refused);
      process.stderr.write(`${Math.min(rows.length, i + IMPORT_MAX_ROWS)} / ${rows.length} rows\n`);
    }
  } finally {
    await ds.destroy();
  }
  console.log(JSON.stringify(total, null, 1));
  process.exit(total.refused.length ? 2 : 0);
}

main().catch((e: unknown) => { console.error((e as Error).message ?? e); process.exit(1); });
