// ESM TypeScript under jest: ts-jest's ESM preset, transpile-only (tsc --noEmit checks types separately).
/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, diagnostics: false }],
  },
  testMatch: ['<rootDir>/tests/**/*.test.ts'],
  testTimeout: 30000,
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/tests/helpers/summary-reporter.js'],
};
