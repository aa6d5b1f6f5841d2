// Drops optional dependencies that have no entry of their own in package-lock.json (platform builds the
// registry mirror does not serve), so that `npm ci` accepts the lock. Run after `npm install` changed it.
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const present = new Set(Object.keys(lock.packages).filter(Boolean).map((k) => k.split('node_modules/').pop()));
let dropped = 0;
for (const entry of Object.values(lock.packages)) {
  for (const name of Object.keys(entry.optionalDependencies ?? {})) {
    if (!present.has(name)) { delete entry.optionalDependencies[name]; dropped++; }
  }
}
writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
console.log(`package-lock.json: ${dropped} optional dependencies without a lock entry dropped`);
