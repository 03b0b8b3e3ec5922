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

function namesRead(): Map<string, string> {
  const found = new Map<string, string>();
  const forms = [
    /\benv\.([A-Z][A-Z0-9_]*)\b/g, // process.env.X, env.X, config.env.X
    /\benv\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\]/g, // env['X']
    /\benv\[\s*`([A-Z][^`]*)`\s*\]/g, // env[`X_${id}_Y`]
  ];
  for (const { file, text } of code)
    for (const form of forms)
      for (const m of text.matchAll(form)) {
        const name = pattern(m[1]);
        if (!(name in NOT_CONFIGURATION) && !found.has(name)) found.set(name, file);
      }
  return found;
}

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

test('the reference has the variables of the storage and of the SSRF guard', () => {
  const documented = namesDocumented();
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'DATA_DIR', 'ALLOW_PRIVATE_FETCH', 'UPSTREAM_<>_URL'])
    expect(documented).toContain(name);
});
