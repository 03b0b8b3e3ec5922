// The build (scripts/build.mjs): `npm run build` always compiles the sources and the catalog and asks for the
// geoip data; npm start's prestart (--if-stale) compiles the sources when a source or a build setting is newer
// than the last build, the catalog when the build ran or a catalog file is newer than its compiled copy, the
// geoip data when the build ran or its folder is missing, and only then; without TypeScript installed it says
// why it cannot. Run on a scratch tree whose `tsc`, catalog compiler and geoip data maker are stand-ins that
// record each call, so what is tested is the decision, not TypeScript.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const script = path.resolve('scripts/build.mjs');
let root: string;

const node = (args: string[]) =>
  spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs'), ...args], { cwd: root, encoding: 'utf8' });
/** npm start's prestart. */
const run = () => node(['--if-stale']);
/** npm run build. */
const build = () => node([]);
const count = (file: string) =>
  fs.existsSync(path.join(root, file)) ? fs.readFileSync(path.join(root, file), 'utf8').trim().split('\n').length : 0;
const calls = () => count('tsc-calls');
const catalogCompiles = () => count('catalog-calls');
const geoipMade = () => count('geoip-calls');
const later = (file: string, seconds: number) => {
  const t = new Date(Date.now() + seconds * 1000);
  fs.utimesSync(path.join(root, file), t, t);
};

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'build-'));
  for (const d of [
    'server',
    'engine',
    'features',
    'mcp',
    'portal',
    'adapters/tools',
    'scripts',
    'catalog',
    'dist/scripts',
    'node_modules/.bin',
  ])
    fs.mkdirSync(path.join(root, d), { recursive: true });
  fs.copyFileSync(script, path.join(root, 'scripts/build.mjs'));
  for (const f of [
    'tsconfig.json',
    'tsconfig.build.json',
    'package-lock.json',
    'server/main.ts',
    'adapters/tools/ccgen.ts',
    'catalog/tools.yaml',
  ])
    fs.writeFileSync(path.join(root, f), '');
  // The catalog compiler's stand-in records its call and writes the compiled file, as the real one does.
  fs.writeFileSync(
    path.join(root, 'dist/scripts/compile-catalog.js'),
    `const fs = require('node:fs');\nfs.appendFileSync(${JSON.stringify(path.join(root, 'catalog-calls'))}, 'compiled\\n');\nfs.writeFileSync(${JSON.stringify(path.join(root, 'dist/catalog.compiled.json'))}, '{}');\n`,
  );
  // The geoip data maker's stand-in records its call and writes the folder's stamp, as the real one does.
  fs.writeFileSync(
    path.join(root, 'scripts/geoip-data.mjs'),
    `import fs from 'node:fs';\nfs.appendFileSync(${JSON.stringify(path.join(root, 'geoip-calls'))}, 'made\\n');\nfs.mkdirSync(${JSON.stringify(path.join(root, 'adapters/utilities/geoip-data'))}, { recursive: true });\nfs.writeFileSync(${JSON.stringify(path.join(root, 'adapters/utilities/geoip-data/source.json'))}, '{}');\n`,
  );
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

test('npm run build compiles the sources and the catalog every time', () => {
  expect(build().status).toBe(0);
  expect(build().status).toBe(0);
  expect([calls(), catalogCompiles()]).toEqual([2, 2]);
});

test('an edited catalog file compiles the catalog again, not the sources', () => {
  run();
  expect([calls(), catalogCompiles()]).toEqual([1, 1]);
  run();
  expect([calls(), catalogCompiles()]).toEqual([1, 1]);
  later('catalog/tools.yaml', 5);
  run();
  expect([calls(), catalogCompiles()]).toEqual([1, 2]);
});

test('the geoip data is asked for by every build, and by the prestart only when its folder is missing', () => {
  build();
  expect(geoipMade()).toBe(1);
  run();
  expect(geoipMade()).toBe(1);
  fs.rmSync(path.join(root, 'adapters/utilities/geoip-data'), { recursive: true });
  run();
  expect([calls(), geoipMade()]).toEqual([1, 2]);
  build();
  expect(geoipMade()).toBe(3);
});
