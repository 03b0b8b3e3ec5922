// npm start's prestart (scripts/build-if-stale.mjs) compiles when a source or a build setting is newer than the
// last build, and only then; without TypeScript installed it says why it cannot. Run on a scratch tree whose
// `tsc` is a stand-in that records each call, so what is tested is the decision, not TypeScript.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const script = path.resolve('scripts/build-if-stale.mjs');
let root: string;

const run = () => spawnSync(process.execPath, [path.join(root, 'scripts/build-if-stale.mjs')], { cwd: root, encoding: 'utf8' });
const calls = () =>
  fs.existsSync(path.join(root, 'tsc-calls')) ? fs.readFileSync(path.join(root, 'tsc-calls'), 'utf8').trim().split('\n').length : 0;
const later = (file: string, seconds: number) => {
  const t = new Date(Date.now() + seconds * 1000);
  fs.utimesSync(path.join(root, file), t, t);
};

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'build-if-stale-'));
  for (const d of ['server', 'engine', 'mcp', 'portal', 'adapters/tools', 'scripts', 'dist', 'node_modules/.bin'])
    fs.mkdirSync(path.join(root, d), { recursive: true });
  fs.copyFileSync(script, path.join(root, 'scripts/build-if-stale.mjs'));
  for (const f of ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json', 'server/main.ts', 'adapters/tools/ccgen.ts'])
    fs.writeFileSync(path.join(root, f), '');
  const tsc = path.join(root, 'node_modules/.bin/tsc');
  fs.writeFileSync(tsc, `#!/bin/sh\necho "$@" >> "${path.join(root, 'tsc-calls')}"\n`);
  fs.chmodSync(tsc, 0o755);
});

afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

test('builds when there is no build yet, then not again until a source changes', () => {
  expect(run().status).toBe(0);
  expect(calls()).toBe(1);
  expect(fs.readFileSync(path.join(root, 'tsc-calls'), 'utf8')).toContain('-p tsconfig.build.json');
  expect(run().status).toBe(0);
  expect(calls()).toBe(1);
  later('adapters/tools/ccgen.ts', 5); // a source edited after the build, deep in a folder
  expect(run().status).toBe(0);
  expect(calls()).toBe(2);
});

test('a changed build setting or lockfile rebuilds too; a file that is not TypeScript does not', () => {
  run();
  fs.writeFileSync(path.join(root, 'server/notes.md'), '');
  later('server/notes.md', 5);
  run();
  expect(calls()).toBe(1);
  later('tsconfig.build.json', 5);
  run();
  expect(calls()).toBe(2);
  later('package-lock.json', 10);
  run();
  expect(calls()).toBe(3);
});

test('without TypeScript installed and sources newer than dist/, it stops and says why', () => {
  fs.rmSync(path.join(root, 'node_modules/.bin/tsc'));
  const res = run();
  expect(res.status).toBe(1);
  expect(res.stderr).toMatch(/TypeScript is not installed/);
});
