/**
 * The demo data of `npm run seed:demo` (src/cli/seed-demo.ts): one seeder per area, run in order.
 * A seeder must be idempotent (fixed ids, upserts, or delete-then-insert of its own rows) and write
 * through its area's code where one exists. Areas append theirs here.
 */
import type { DataSource } from 'typeorm';
import { compilationsSeeder } from './compilations.seed.js';
import { contentSeeder } from './content.seed.js';
import { inputStreamSeeder } from './input-stream.seed.js';
import { bannersSeeder } from './banners.seed.js';
import { askJokesSonnikSeeder } from './ask-jokes-sonnik.seed.js';

export interface Seeder {
  name: string;
  /** Writes the demo rows; answers a one-line summary. `log` reports progress. */
  run(ds: DataSource, log: (line: string) => void): Promise<string>;
}

export const SEEDERS: Seeder[] = [contentSeeder, inputStreamSeeder, compilationsSeeder, askJokesSonnikSeeder, bannersSeeder];
