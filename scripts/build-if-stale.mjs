// `npm start`'s prestart: compiles only when a source file changed since the last build, and then only what
// changed (tsc's incremental build, its state in dist/.tsbuildinfo). Checking ~500 files' times takes a few
// milliseconds, where even a no-op `tsc` takes seconds: see docs/decisions.md, "npm start on an installed tree".
// The build's other step, scripts/geoip-data.mjs, runs when a build does or when its folder is missing.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = path.join(root, 'dist/.build-stamp');
const SOURCES = ['server', 'engine', 'mcp', 'portal', 'adapters', 'scripts'];
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

const built = fs.existsSync(stamp) ? fs.statSync(stamp).mtimeMs : 0;
const changed = Math.max(...SOURCES.map((d) => newest(path.join(root, d))), ...CONFIGS.map((f) => fs.statSync(path.join(root, f)).mtimeMs));
if (changed > built) {
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
if (changed > built || !fs.existsSync(path.join(root, 'adapters/utilities/geoip-data/source.json'))) {
  const result = spawnSync(process.execPath, [path.join(root, 'scripts/geoip-data.mjs')], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
