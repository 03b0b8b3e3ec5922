// The build: TypeScript into dist/ (tsc's incremental build, its state in dist/.tsbuildinfo), then the catalog
// into dist/catalog.compiled.json (scripts/compile-catalog.ts), then adapters/utilities/geoip-data/ from
// geoip-lite (scripts/geoip-data.mjs, which does nothing when the folder was made from the installed version).
// `npm run build` always runs it; `npm start`'s prestart runs it with --if-stale: tsc only when a source or a
// build setting is newer than the last build, the catalog only when the build ran or a catalog file is newer
// than its compiled copy, the geoip data only when the build ran or the folder is missing.
// Checking ~600 files' times takes a few milliseconds, where even a no-op `tsc` takes seconds: see
// docs/decisions/boot.md, "npm start on an installed tree".
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = path.join(root, 'dist/.build-stamp');
const SOURCES = ['server', 'engine', 'features', 'mcp', 'portal', 'adapters', 'scripts'];
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

function newest(dir) {
  let latest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newest(file));
    else if (entry.name.endsWith('.ts')) latest = Math.max(latest, fs.statSync(file).mtimeMs);
  }
  return latest;
}

const always = !process.argv.includes('--if-stale');
const mtime = (file) => (fs.existsSync(file) ? fs.statSync(file).mtimeMs : 0);
const built = mtime(stamp);
const changed = Math.max(...SOURCES.map((d) => newest(path.join(root, d))), ...CONFIGS.map((f) => fs.statSync(path.join(root, f)).mtimeMs));
const stale = always || changed > built;
if (stale) {
  const tsc = path.join(root, 'node_modules/.bin/tsc');
  if (!fs.existsSync(tsc)) {
    console.error(
      'The sources changed since dist/ was built, and TypeScript is not installed (a production install?): run `npm ci && npm run build`.',
    );
    process.exit(1);
  }
  const started = Date.now();
  const result = spawnSync(tsc, ['-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
  fs.writeFileSync(stamp, `${new Date().toISOString()} built in ${Date.now() - started} ms\n`);
}
const catalogDir = path.join(root, 'catalog');
const catalogChanged = Math.max(...fs.readdirSync(catalogDir).map((f) => mtime(path.join(catalogDir, f))));
if (stale || catalogChanged >= mtime(path.join(root, 'dist/catalog.compiled.json'))) {
  const result = spawnSync(process.execPath, [path.join(root, 'dist/scripts/compile-catalog.js')], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
if (stale || !fs.existsSync(path.join(root, 'adapters/utilities/geoip-data/source.json'))) {
  const result = spawnSync(process.execPath, [path.join(root, 'scripts/geoip-data.mjs')], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
