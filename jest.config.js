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
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.spec.ts'] },
    { ...base, displayName: 'api', testMatch: ['<rootDir>/test/api/**/*.e2e.ts'] },
    { ...base, displayName: 'browser', testMatch: ['<rootDir>/test/browser/**/*.e2e.ts'] },
  ],
};
