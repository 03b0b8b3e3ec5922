// The jest configuration Stryker runs (npm run mutate): the project's own, restricted to the tests of one
// scope of mutate.scopes.js (MUTATE_SCOPE), since Stryker loads every listed test file for every mutant.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import base from './jest.config.js';
import { currentScope } from './mutate.scopes.js';

// Stryker runs the tests in a copy of the tree under .stryker-tmp/, which gets a node_modules link only when
// the project's node_modules is a real folder (a worktree's may itself be a link). Node then finds the
// packages by walking up; the mapped paths of jest.config.js, written from <rootDir>, are pointed there too.
const nodeModules = (dir) => {
  const candidate = path.join(dir, 'node_modules');
  if (fs.existsSync(candidate)) return candidate;
  const parent = path.dirname(dir);
  return parent === dir ? candidate : nodeModules(parent);
};
const modules = nodeModules(path.dirname(fileURLToPath(import.meta.url)));

/** @type {import('jest').Config} */
export default {
  ...base,
  moduleNameMapper: Object.fromEntries(
    Object.entries(base.moduleNameMapper).map(([from, to]) => [from, to.replace('<rootDir>/node_modules', modules)]),
  ),
  testMatch: currentScope().tests.map((t) => `<rootDir>/${t}`),
};
