// ESLint for the whole tree: typescript-eslint's type-checked recommended rules over the TypeScript (typed by
// tsconfig.json through the project service), the plain recommended rules over the JavaScript (the portal's
// browser scripts, the config files, the jest reporter). Every rule turned off or down is here, with its reason.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  // Generated, vendored or recorded: never linted (as in .prettierignore). The SDK's generated client is
  // @hey-api/openapi-ts's code; the SDK's own files are linted, typed by sdks/typescript/tsconfig.json.
  globalIgnores([
    'dist/',
    'data/',
    'coverage/',
    'reports/',
    '.stryker-tmp/',
    'tests/fixtures/',
    'sdks/typescript/dist/',
    'sdks/typescript/src/gen/',
    'sdks/typescript/src/*.gen.ts',
  ]),
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // An async function without await is how a synchronous implementation meets an async contract (Adapter,
      // Store, route handlers) and turns its throws into rejections: dropping `async` would change that.
      '@typescript-eslint/require-await': 'off',
      // A leading underscore marks a parameter a signature needs but the body does not (Express knows an error
      // handler by its four arguments); rest siblings are how an object is copied without some of its keys.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Passing on a caught error (unknown) or an abort signal's reason (any) as a rejection keeps whatever was
      // thrown, as `throw err` does.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true, allowThrowingAny: true }],
      // The counters answer `Hit | Promise<Hit>` (memory at once, Redis later): Promise.all awaits either kind.
      '@typescript-eslint/await-thenable': ['error', { allowMixedPromiseArrays: true }],
      // String(x) on a value narrowed from unknown (typed `{}`) reads a scalar the catalog's schema or an
      // upstream's JSON gives; the rule still catches objects and class instances without a toString.
      '@typescript-eslint/no-base-to-string': ['error', { ignoredTypeNames: ['Error', 'RegExp', 'URL', 'URLSearchParams', '{}'] }],
      // A character class of combining marks, each written as an escape, is deliberate (Quran search folds them).
      'no-misleading-character-class': ['error', { allowEscape: true }],
    },
  },
  {
    // The server's code (scripts and tests may import it: they do not run in the server). An ES import of
    // node:http reads all its exports, and its WebSocket, CloseEvent and MessageEvent getters load Node's
    // bundled undici (a few MB resident): types are imported, the module is taken with
    // process.getBuiltinModule (server/main.ts).
    files: ['{server,engine,features,portal,mcp,adapters}/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: ['node:http', 'http'].map((name) => ({
            name,
            allowTypeImports: true,
            message: "Import only its types; take the module with process.getBuiltinModule('node:http').",
          })),
        },
      ],
    },
  },
  {
    // An adapter's params come typed from the catalog (adapters/<category>/_catalog.ts): String(), Number() or
    // Boolean() of a value that has its type already would hide the catalog change the compiler should report.
    files: ['adapters/**/*.ts'],
    rules: { '@typescript-eslint/no-unnecessary-type-conversion': 'error' },
  },
  {
    // Matching control characters is this file's purpose: it strips them from names callers give.
    files: ['adapters/cloud-storage/_names.ts'],
    rules: { 'no-control-regex': 'off' },
  },
  {
    files: ['tests/**/*.ts'],
    rules: {
      // Response bodies (supertest's res.body) and fixtures parsed from JSON are `any`: the tests assert their
      // shape value by value, which is what typing them first would do again.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Tests plant broken catalog YAML and hand-made JSON fixtures, typed `any` on purpose.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // The JavaScript files are outside tsconfig.json: no type information, so no type-checked rules.
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // The config files, scripts and the jest reporter run in Node.
    files: ['*.{js,cjs,mjs}', 'scripts/**/*.{js,cjs,mjs}', 'tests/**/*.{js,cjs,mjs}'],
    languageOptions: { globals: globals.node },
  },
  {
    // The portal's static files are classic browser scripts (served as <script defer>, each one IIFE).
    files: ['portal/static/**/*.js'],
    languageOptions: { sourceType: 'script', globals: globals.browser },
  },
);
