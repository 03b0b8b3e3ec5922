// The README is a map: what the product is, the two commands, the request pattern, one example, and links.
// Everything else lives in docs/, by subject; a README that grows past a screenful or two has become a manual.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/paths.js';

const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

test('the README is under 200 lines and links the architecture on its first screen', () => {
  const lines = readme.split('\n');
  expect(lines.length).toBeLessThan(200);
  expect(lines.slice(0, 25).join('\n')).toContain('(docs/architecture.md)');
});

test('the README gives the two commands of a fresh machine', () => {
  expect(readme).toContain('    npm install && npm start\n');
  expect(readme).toContain('    npm ci && npm test\n');
});

test('every file the README links exists', () => {
  const links = [...readme.matchAll(/\]\(([^)#]+)(#[^)]*)?\)/g)].map((m) => m[1]).filter((l) => !/^[a-z]+:/.test(l));
  expect(links.length).toBeGreaterThan(10);
  const missing = links.filter((l) => !fs.existsSync(path.join(ROOT, l)));
  expect(missing).toEqual([]);
});
