/** What `npm run sdks` writes, relative to sdks/ (a folder: every file under it): the in-step test compares these. */
export const GENERATED = [
  'typescript/src/gen',
  'typescript/src/endpoints.gen.ts',
  'typescript/src/version.gen.ts',
  'python/src/unified_utility_api/_endpoints.py',
  'python/src/unified_utility_api/_version.py',
];
