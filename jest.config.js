// ESM TypeScript under jest: ts-jest's ESM preset, transpile-only (tsc --noEmit checks types separately).
/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    // jest 29's ESM loader hands JSON imports over wrapped, which libphonenumber-js's ESM build cannot read:
    // its CommonJS build is the same code with require()d metadata.
    '^libphonenumber-js/max$': '<rootDir>/node_modules/libphonenumber-js/max/index.cjs',
  },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, diagnostics: false }],
  },
  testMatch: ['<rootDir>/tests/**/*.test.ts'],
  testTimeout: 30000,
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/tests/helpers/summary-reporter.js'],
};
