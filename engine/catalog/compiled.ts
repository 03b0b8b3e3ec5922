// The catalog as the boot uses it: its entries and one request check per endpoint. `npm run build` writes
// them compiled (dist/catalog.compiled.json: the hash of catalog/*.yaml, the entries as checked, the
// checks as ajv's standalone code); a boot whose catalog has that hash reads them in milliseconds, where
// parsing the YAML and compiling every schema takes about a second of CPU. Any other catalog (edited since
// the build, or no build) is read, checked and compiled at boot as before, so a bad catalog still stops it.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import vm from 'node:vm';
import { fileURLToPath } from 'node:url';
import type { Catalog } from './load.js';
import type { Check } from './validate.js';
import { formats, onHosts } from './formats.js';

export interface OpenedCatalog {
  catalog: Catalog;
  /** Each endpoint's request check, by endpoint id. */
  checks: Map<string, Check>;
  /** Read from the compiled catalog (else compiled at boot). */
  compiled: boolean;
}

interface CompiledCatalog {
  hash: string;
  catalog: Catalog;
  /** A CommonJS module's body exporting each check under its endpoint id (engine/catalog/checks.ts). */
  checks: string;
}

/** Beside the built engine: dist/catalog.compiled.json. */
export const COMPILED_FILE = fileURLToPath(new URL('../../catalog.compiled.json', import.meta.url));
// The ajv runtime helpers the standalone checks require (ucs2length, equal), resolved from here.
const requireHere = createRequire(import.meta.url);

/** What the catalog's YAML files say, as one hash: any edit, added or removed file changes it. */
export function catalogHash(dir: string): string {
  const hash = crypto.createHash('sha256');
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort())
    hash
      .update(`${file}\0`)
      .update(fs.readFileSync(path.join(dir, file)))
      .update('\0');
  return hash.digest('hex');
}

function readCompiled(file: string, hash: string): OpenedCatalog | undefined {
  let saved: CompiledCatalog;
  try {
    saved = JSON.parse(fs.readFileSync(file, 'utf8')) as CompiledCatalog;
  } catch {
    return undefined;
  }
  if (saved.hash !== hash) return undefined;
  // The checks' module is evaluated with the names it uses bound here (the same functions checks.ts gives
  // ajv), so it does not depend on where the tree is installed.
  const module = { exports: {} as Record<string, Check> };
  const body = vm.compileFunction(saved.checks, ['require', 'module', 'exports', 'formats', 'onHosts'], {
    filename: file,
  }) as (...scope: unknown[]) => void;
  body(requireHere, module, module.exports, formats, onHosts);
  return { catalog: saved.catalog, checks: new Map(Object.entries(module.exports)), compiled: true };
}

/** What reading and compiling a catalog takes (the YAML parser, ajv's compiler): loaded only when needed. */
const compiler = () => Promise.all([import('./load.js'), import('./checks.js')]);

/** The catalog in `dir`, from the compiled file when it was compiled from exactly these files. */
export async function openCatalog(dir: string, file = COMPILED_FILE): Promise<OpenedCatalog> {
  const compiled = readCompiled(file, catalogHash(dir));
  if (compiled) return compiled;
  const [{ loadCatalog }, { compileChecks }] = await compiler();
  const catalog = loadCatalog(dir);
  return { catalog, checks: compileChecks(catalog.endpoints).checks, compiled: false };
}

/** Compiles the catalog in `dir` into `file` (scripts/compile-catalog.ts, after every build). */
export async function writeCompiled(dir: string, file = COMPILED_FILE): Promise<void> {
  const [{ loadCatalog }, { compileChecks }] = await compiler();
  const hash = catalogHash(dir);
  const catalog = loadCatalog(dir);
  const saved: CompiledCatalog = { hash, catalog, checks: compileChecks(catalog.endpoints).source() };
  fs.writeFileSync(file, JSON.stringify(saved));
}
