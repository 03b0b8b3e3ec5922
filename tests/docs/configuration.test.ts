// docs/configuration.md is the reference of every environment variable the code reads: this compares the
// names read by the server, the engine, the portal, MCP, the adapters and the scripts with the names its
// tables document, both ways. A name built from a part (`UPSTREAM_${id}_URL`) is compared as a pattern
// (`UPSTREAM_<ID>_URL`).
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/paths.js';

const CODE_DIRS = ['server', 'engine', 'features', 'portal', 'mcp', 'adapters', 'scripts'];
/** Names that appear as `process.env.X` without being configuration, each with why. */
const NOT_CONFIGURATION: Record<string, string> = {
  WEBHOOK_SECRET: "the webhook page's sample code for receivers (portal/views/webhooks.ts), not read here",
};

function codeFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') out.push(...codeFiles(full));
    } else if (/\.(ts|mts|mjs|js|cjs)$/.test(entry.name) && !entry.name.endsWith('.d.mts')) out.push(full);
  }
  return out;
}

/** `A_${x}_B` and `A_<X>_B` both become `A_<>_B`. */
const pattern = (name: string) => name.replace(/\$\{[^}]*\}/g, '<>').replace(/<[^>]*>/g, '<>');

const code = CODE_DIRS.flatMap((d) => codeFiles(path.join(ROOT, d))).map((f) => ({
  file: path.relative(ROOT, f),
  text: fs.readFileSync(f, 'utf8'),
}));

/** Reads under a name held in a variable (`env[name]`), each with the documented names it stands for. */
const READ_BY_NAME: Record<string, string[]> = {
  'server/config.ts': ['STRIPE_PRICE_PREMIUM', 'STRIPE_PRICE_ENTERPRISE'],
};

function namesRead(): Map<string, string> {
  const found = new Map<string, string>();
  const add = (name: string, file: string) => {
    if (!(name in NOT_CONFIGURATION) && !found.has(name)) found.set(name, file);
  };
  const forms = [
    /\benv\.([A-Z][A-Z0-9_]*)\b/g, // process.env.X, env.X, config.env.X
    /\benv\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\]/g, // env['X']
    /\benv\[\s*`([A-Z][^`]*)`\s*\]/g, // env[`X_${id}_Y`]
  ];
  for (const { file, text } of code) {
    for (const form of forms) for (const m of text.matchAll(form)) add(pattern(m[1]), file);
    // const { X, Y: y } = process.env
    for (const m of text.matchAll(/\{([^{}]*)\}\s*=\s*(?:process\.)?env\b/g))
      for (const n of m[1].matchAll(/\b([A-Z][A-Z0-9_]*)\b\s*(?=[:,=]|$)/g)) add(n[1], file);
    if (/\benv\[\s*[a-z]/.test(text)) for (const name of READ_BY_NAME[file] ?? []) add(name, file);
  }
  return found;
}

/** Files that read a variable under a name held in a variable, so the forms above cannot see which. */
const readsByName = () => code.filter(({ text }) => /\benv\[\s*[a-z]/.test(text)).map(({ file }) => file);

function namesDocumented(): Set<string> {
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'configuration.md'), 'utf8');
  const names = new Set<string>();
  for (const line of doc.split('\n')) {
    if (!line.startsWith('| `')) continue;
    const first = line.split('|')[1];
    for (const m of first.matchAll(/`([A-Z][A-Z0-9_<>]*)`/g)) names.add(pattern(m[1]));
  }
  return names;
}

/** A documented name the regular forms do not find may still be read under a built name: every fixed
 * part of it must then appear in the code (STRIPE_PRICE_PREMIUM in `STRIPE_PRICE_${plan}`'s message,
 * PLAN_<PLAN>_LIMIT in its regular expression). */
function mentioned(name: string): boolean {
  const parts = name.split('<>').filter(Boolean);
  return parts.every((part) => code.some(({ text }) => text.includes(part)));
}

test('every environment variable the code reads is in docs/configuration.md', () => {
  const documented = namesDocumented();
  const missing = [...namesRead()].filter(([name]) => !documented.has(name)).map(([name, file]) => `${name} (read in ${file})`);
  expect(missing).toEqual([]);
});

test('every variable docs/configuration.md documents is read by the code', () => {
  const read = namesRead();
  const stale = [...namesDocumented()].filter((name) => !read.has(name) && !mentioned(name));
  expect(stale).toEqual([]);
});

test('every read under a name held in a variable is listed with the names it reads', () => {
  expect(readsByName().filter((file) => !(file in READ_BY_NAME))).toEqual([]);
});

test('every setting of the configuration is read from a documented variable', () => {
  // server/config.ts reads each setting once: a read there the reference lacks fails above; this checks the
  // file is among those compared, so a move of the configuration does not leave it unchecked.
  expect(code.some(({ file }) => file === path.join('server', 'config.ts'))).toBe(true);
  expect([...namesRead()].filter(([, file]) => file === path.join('server', 'config.ts')).length).toBeGreaterThan(40);
});

test('the README names the variable that lets webhooks reach a receiver on this machine', () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  expect(readme).toContain('ALLOW_PRIVATE_FETCH=true');
  expect(readme).toContain('docs/configuration.md');
});

test('the reference has the variables of the storage and of the SSRF guard', () => {
  const documented = namesDocumented();
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'DATA_DIR', 'ALLOW_PRIVATE_FETCH', 'UPSTREAM_<>_URL'])
    expect(documented).toContain(name);
});
