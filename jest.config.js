/** Jest in ESM mode (NestJS 12 is ESM-only): ts-jest with useESM, `.js` suffixes mapped back to `.ts`. */
const base = {
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json', diagnostics: { warnOnly: false } }] },
  testEnvironment: 'node',
};

export default {
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.spec.ts'] },
    { ...base, displayName: 'api', testMatch: ['<rootDir>/test/api/**/*.e2e.ts'], testTimeout: 30_000 },
    { ...base, displayName: 'browser', testMatch: ['<rootDir>/test/browser/**/*.e2e.ts'], testTimeout: 60_000 },
  ],
};
