// scripts/new-endpoint, run on a copy of the project: the entry, adapter and test it writes load, pass
// check-catalog as an extension, and, once the adapter's one line is written, the test it wrote passes.
// The copy is the whole project (node_modules linked), since the generated test boots the app from it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ANSWER_LINE, newEndpoint } from '../../scripts/new-endpoint.js';
import { checkCatalog } from '../../scripts/check-catalog.js';
import { loadCatalog } from '../../engine/catalog/load.js';
import { ROOT } from '../helpers/paths.js';

const LEFT_OUT = new Set(['node_modules', '.git', 'dist', 'data', 'coverage', 'reports', '.stryker-tmp']);
const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-new-endpoint-'));
fs.cpSync(ROOT, copy, { recursive: true, filter: (src) => !LEFT_OUT.has(path.relative(ROOT, src).split(path.sep)[0]) });
fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));
afterAll(() => fs.rmSync(copy, { recursive: true, force: true }));

const spec = fs.readFileSync(path.join(ROOT, 'docs', 'spec.md'), 'utf8');

test('writes the entry, the types, the adapter and its test, and refuses a name that is taken', async () => {
  const made = await newEndpoint(copy, 'tools/shout');
  expect(made.wrote).toEqual([
    'catalog/tools.yaml',
    'adapters/tools/_catalog.ts',
    'adapters/tools/shout.ts',
    'tests/adapters/tools/shout.test.ts',
  ]);
  expect(made.todo).toMatch(/^adapters\/tools\/shout\.ts:\d+: replace the throw/);
  // The adapter is typed by its entry: `text` is a required string.
  expect(fs.readFileSync(path.join(copy, 'adapters', 'tools', '_catalog.ts'), 'utf8')).toMatch(
    /export interface ShoutParams \{\n {2}text: string;\n\}[\s\S]*'tools\/shout': AdapterOf<ShoutParams, never>;/,
  );
  expect(fs.readFileSync(path.join(copy, 'adapters', 'tools', 'shout.ts'), 'utf8')).toContain(
    "const shout: Adapter<'tools/shout'> = async (params) => {",
  );
  await expect(newEndpoint(copy, 'tools/shout')).rejects.toThrow('tools/shout exists already (catalog/tools.yaml)');
  await expect(newEndpoint(copy, 'tools/git-user')).rejects.toThrow('exists already');
  await expect(newEndpoint(copy, 'Tools/x')).rejects.toThrow('is not <category>/<name>');
  // A new category gets a file of its own, naming its schema.
  await newEndpoint(copy, 'misc/echo');
  expect(fs.readFileSync(path.join(copy, 'catalog', 'misc.yaml'), 'utf8')).toMatch(
    /^# yaml-language-server: \$schema=\.\/schema\/category\.schema\.json\ncategory: misc\n/,
  );
});

test('the catalog loads, and check-catalog names the new endpoints as extensions', () => {
  const ids = loadCatalog(path.join(copy, 'catalog')).endpoints.map((e) => e.id);
  expect(ids).toEqual(expect.arrayContaining(['tools/shout', 'misc/echo']));
  const result = checkCatalog(spec, path.join(copy, 'catalog'), path.join(copy, 'adapters'));
  expect(result.differences).toEqual([]);
  expect(result.extensions).toEqual(['misc/echo', 'tools/shout']);
  expect(result.missingAdapters).toEqual([]);
});

test('an endpoint outside the spec and not marked fails check-catalog, saying how to mark it', () => {
  const file = path.join(copy, 'catalog', 'misc.yaml');
  const text = fs.readFileSync(file, 'utf8');
  fs.writeFileSync(file, text.replace('    extension: true\n', ''));
  try {
    expect(checkCatalog(spec, path.join(copy, 'catalog'), path.join(copy, 'adapters')).differences).toEqual([
      'extra endpoint misc/echo (not in the spec): if it is meant to be outside the spec, mark it "extension: true"',
    ]);
  } finally {
    fs.writeFileSync(file, text);
  }
});

test('with its one line written, the generated test passes', () => {
  const adapter = path.join(copy, 'adapters', 'tools', 'shout.ts');
  fs.writeFileSync(adapter, fs.readFileSync(adapter, 'utf8').replace(ANSWER_LINE, '  return { result: text };'));
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '--experimental-vm-modules' };
  delete env.JEST_WORKER_ID;
  const run = spawnSync(
    process.execPath,
    [path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), 'tests/adapters/tools/shout.test.ts'],
    {
      cwd: copy,
      env,
      encoding: 'utf8',
    },
  );
  expect(`${run.stdout}${run.stderr}`).toMatch(/Tests:\s+2 passed, 2 total/);
  expect(run.status).toBe(0);
}, 180_000);

test('the adapter is typed by its catalog entry: text is a string, and no upstream may be asked', () => {
  const adapter = path.join(copy, 'adapters', 'tools', 'shout.ts');
  const written = fs.readFileSync(adapter, 'utf8');
  // The project's compiler options, on the one file and what it imports.
  const tsc = () =>
    spawnSync(
      process.execPath,
      [
        path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
        ...['--noEmit', '--strict', '--skipLibCheck', '--esModuleInterop', '--resolveJsonModule'],
        ...['--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--target', 'ES2023', '--lib', 'ES2023', '--types', 'node'],
        adapter,
      ],
      { cwd: copy, encoding: 'utf8' },
    );
  try {
    fs.writeFileSync(adapter, written.replace(/^.*return \{ result: text \};$/m, '  return { result: text.toUpperCase() };'));
    expect(tsc().stdout).toBe('');
    fs.writeFileSync(adapter, written.replace(/^.*return \{ result: text \};$/m, '  return { result: text.toFixed(2) };'));
    expect(tsc().stdout).toMatch(/error TS2551: Property 'toFixed' does not exist on type 'string'/);
    fs.writeFileSync(
      adapter,
      written
        .replace(/^.*return \{ result: text \};$/m, "  return { result: text, via: ctx.upstream('github').id };")
        .replace('async (params)', 'async (params, ctx)'),
    );
    expect(tsc().stdout).toMatch(/error TS2345: Argument of type '"github"' is not assignable to parameter of type 'never'/);
  } finally {
    fs.writeFileSync(adapter, written);
  }
}, 60_000);
