/**
 * `npm run seed:demo`: fills the configured database with plausible demo data so that a new user
 * sees a working console. Runs every seeder of src/seed/seeders.ts in order; each is idempotent
 * (a second run leaves the same data). Later areas append their seeder to that list.
 */
import { SEEDERS } from '../seed/seeders.js';
import { openDatabase } from './db.js';

async function main() {
  const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const ds = await openDatabase();
  try {
    for (const s of SEEDERS) {
      if (only.length && !only.includes(s.name)) continue;
      const t0 = Date.now();
      const summary = await s.run(ds, (line) => process.stderr.write(`[${s.name}] ${line}\n`));
      console.log(`${s.name}: ${summary} (${Date.now() - t0} ms)`);
    }
  } finally {
    await ds.destroy();
  }
}

main().catch((e: unknown) => { console.error((e as Error).message ?? e); process.exit(1); });
