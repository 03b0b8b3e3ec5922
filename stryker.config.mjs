// Mutation testing of the engine's core (npm run mutate; not part of npm test: it takes a long while).
// StrykerJS changes the code one small way at a time (a `>` for a `>=`, a string emptied, a branch
// dropped) and runs the tests that reach the change: a change no test notices is behaviour no test pins
// down. One scope of mutate.scopes.js per run (MUTATE_SCOPE; scripts/mutate.mjs runs them all).
import { currentScope } from './mutate.scopes.js';

const scope = currentScope();

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'jest',
  jest: {
    configFile: 'jest.mutate.config.js',
    // Every test file imports the whole app, so "related tests" would be all of them: the scope decides.
    enableFindRelatedTests: false,
  },
  // ESM under jest, as in npm test.
  testRunnerNodeArgs: ['--experimental-vm-modules'],
  // Only the tests that reached a mutant run for it.
  coverageAnalysis: 'perTest',
  mutate: scope.mutate,
  // The machine is shared: one test runner at a time.
  concurrency: 1,
  // A slow, busy machine must not turn a mutant into a timeout.
  timeoutMS: 10_000,
  timeoutFactor: 2,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${scope.name}.html` },
  jsonReporter: { fileName: `reports/mutation/${scope.name}.json` },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
