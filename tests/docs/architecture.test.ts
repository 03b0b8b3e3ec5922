// docs/architecture.md is the map of the code: every repository path it names in backticks must exist.
// Paths are read from the repository's root (`engine/db/open.ts`, `portal/`, `.dependency-cruiser.cjs`);
// inside the two folder tables a bare name (`launch.ts`, `tables/`) is read from its row's folder. A path
// with a placeholder (`adapters/<category>/`, `portal/…`) is checked up to the placeholder.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/paths.js';

const DOC = path.join(ROOT, 'docs', 'architecture.md');
const TOP = new Set(fs.readdirSync(ROOT).filter((name) => name !== 'node_modules' && name !== '.git'));

/** The part of a path before any placeholder, or undefined when nothing of it is left. */
function fixedPart(token: string): string | undefined {
  const cut = token.split(/[<*…{]/)[0];
  return cut.replace(/\/+$/, '') || undefined;
}

const looksLikePath = (t: string) => /^[\w.@-]+(\/[\w.@<>*…{}-]*)*\/?$/.test(t) && !/^\d/.test(t);
const isBareName = (t: string) => /^[\w.-]+(\.(ts|mjs|js|cjs|json|yaml|md)|\/)$/.test(t);

/** [line number, path to check] for every backticked path of the document. */
function namedPaths(): [number, string][] {
  const lines = fs.readFileSync(DOC, 'utf8').split('\n');
  const out: [number, string][] = [];
  let engineTable = false;
  lines.forEach((line, i) => {
    if (line.startsWith('Inside `engine/`')) engineTable = true;
    else if (line.startsWith('#')) engineTable = false;
    const tokens = [...line.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]);
    const row = line.startsWith('| `') ? tokens[0] : undefined;
    let base: string | undefined;
    if (row !== undefined)
      base = engineTable ? path.join('engine', fixedPart(row) ?? '').replace(/^engine\/engine$/, 'engine') : fixedPart(row);
    if (base !== undefined) out.push([i + 1, base]);
    for (const token of row === undefined ? tokens : tokens.slice(1)) {
      if (!looksLikePath(token)) continue;
      const first = token.split('/')[0];
      if (TOP.has(first) || (token.startsWith('.') && token.length > 1 && !token.includes('/'))) {
        const fixed = fixedPart(token);
        if (fixed) out.push([i + 1, fixed]);
      } else if (base !== undefined && isBareName(token)) {
        const fixed = fixedPart(token);
        if (fixed && fixed !== 'engine') out.push([i + 1, path.join(base, fixed)]);
      }
    }
  });
  return out;
}

test('docs/architecture.md names paths', () => {
  const named = namedPaths().map(([, p]) => p);
  for (const p of ['server/launch.ts', 'server/web.ts', 'server/health-route.ts', 'server/probe-routes.ts', 'engine/db', 'engine/store'])
    expect(named).toContain(p);
});

test('every path docs/architecture.md names exists', () => {
  const missing = namedPaths()
    .filter(([, p]) => !fs.existsSync(path.join(ROOT, p)))
    .map(([line, p]) => `docs/architecture.md:${line}: ${p}`);
  expect(missing).toEqual([]);
});
