// What `npm run mutate` mutates, and against which tests: one scope per part of the engine's core. Stryker
// loads every listed test file for every mutant and runs every test that reached it (jest cannot stop at
// the first failure), so each scope lists the unit tests of its files and at most one app-level test of
// the feature; one run per scope keeps a mutant of the counter from paying for the validator's tests.
// Read by stryker.config.mjs and jest.mutate.config.js, which take the scope from MUTATE_SCOPE.

/** @type {Record<string, { mutate: string[]; tests: string[] }>} */
export const scopes = {
  validation: {
    mutate: ['engine/catalog/validate.ts', 'engine/catalog/request-schema.ts'],
    tests: [
      'tests/engine/catalog/validate.test.ts',
      'tests/engine/catalog/request-schema.test.ts',
      // The HTTP contract: the 400s of real endpoints.
      'tests/engine/pipeline/http-contract.test.ts',
    ],
  },
  counters: {
    mutate: ['engine/access/counter.ts', 'engine/access/redis-counter.ts'],
    tests: ['tests/engine/access/counter.test.ts', 'tests/engine/access/redis-counter.test.ts'],
  },
  meter: {
    mutate: ['engine/pipeline/steps/meter.ts'],
    // Plans and allowances through the app: limits, headers, per-key and per-address counting.
    tests: ['tests/engine/pipeline/steps/meter.test.ts', 'tests/engine/pipeline/steps/metering.test.ts'],
  },
  identify: {
    mutate: ['engine/access/identify.ts'],
    // Personal keys through the app: look-ups, revocation and rotation seen at once.
    tests: ['tests/engine/access/identify.test.ts', 'tests/engine/access/keys.test.ts'],
  },
};

/** The scope named by MUTATE_SCOPE; every scope at once when it is unset (slow: every test for every mutant). */
export function currentScope() {
  const name = process.env.MUTATE_SCOPE;
  if (name === undefined || name === '') {
    const all = Object.values(scopes);
    return { name: 'all', mutate: all.flatMap((s) => s.mutate), tests: [...new Set(all.flatMap((s) => s.tests))] };
  }
  const scope = scopes[name];
  if (scope === undefined) throw new Error(`MUTATE_SCOPE=${name}: expected one of ${Object.keys(scopes).join(', ')}`);
  return { name, ...scope };
}
