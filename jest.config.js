/** Jest in ESM mode (NestJS 12 is ESM-only): ts-jest with useESM, `.js` suffixes mapped back to `.ts`. */
const base = {
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json', diagnostics: { warnOnly: false } }] },
  testEnvironment: 'node',
};

export default {
  // Global only (a per-project testTimeout is ignored): app starts on MariaDB on a loaded 2-core machine.
  testTimeout: 30_000,
  // Every test file in a fresh worker process (a limit any worker exceeds recycles it after each file):
  // in band, what a file leaves behind (module graphs of its app, timers, sockets) slowed every later
  // file's boot, up to 60 s for a 4 s file at the end of the API pass. This also keeps Jest out of
  // band with one worker (its default on 2 cores).
  workerIdleMemoryLimit: '1MB',
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.spec.ts'] },
    { ...base, displayName: 'api', testMatch: ['<rootDir>/test/api/**/*.e2e.ts'] },
    { ...base, displayName: 'browser', testMatch: ['<rootDir>/test/browser/**/*.e2e.ts'] },
  ],
};
