// Compares the catalog with the customer's spec (docs/spec.md): every endpoint (and no other), its
// method, each parameter (and no other), the required flag, conditional requirements, flags, the lists
// the spec closes, the examples it leaves open, and the bounds and defaults it gives. Bounds the spec
// does not give are ours and are not compared. Also reports every problem the loader finds in the YAML
// files (engine/catalog/load.ts), each with its file:line:column. An endpoint marked `extension: true` is
// outside the spec on purpose: it is named, not compared. Prints one line per difference and exits 1 if
// there is any.
//
//   npm run check-catalog        (builds, then runs dist/scripts/check-catalog.js from the project root)
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseSpec, type SpecEndpoint, type SpecParam } from './spec-tables.js';
import { readCatalog, type EndpointSpec, type ParamSpec } from '../engine/catalog/load.js';
import { shownPath } from '../engine/catalog/yaml-source.js';

export interface CheckResult {
  differences: string[];
  /** Endpoints of the spec. */
  endpoints: number;
  /** Parameters of the spec's endpoints, apikey left out. */
  params: number;
  /** `category/name` of catalog endpoints whose adapter file does not exist yet. */
  missingAdapters: string[];
  /** The listed exceptions the catalog uses, with their reasons. */
  exceptions: string[];
  /** Listed exceptions the catalog no longer needs (harmless: it then follows the spec's letter). */
  unusedExceptions: string[];
  /** `category/name` of the endpoints marked `extension: true`: outside the spec on purpose. */
  extensions: string[];
}

// The only three ways the catalog may depart from the letter of the spec, each listed here with its reason
// and printed on every run, as is a listed exception the catalog no longer needs.

/** Parameters added where the spec leaves a gap (`category/name param`). Nothing else may be added. */
export const EXTENSIONS: Record<string, string> = {
  'anime/anime-images-c id': 'the spec names action image-by-id but gives no parameter to carry the id',
  // Optional caps on the media a downloader offers, for bots that send them on (features/media/fit.ts).
  ...Object.fromEntries(
    ['dl-a', 'dl-b', 'dl-c', 'dl-d', 'dl-e'].flatMap((dl) => [
      [`downloaders/${dl} maxBytes`, 'optional: the largest file wanted, so a bot gets a media its messenger takes'],
      [`downloaders/${dl} for`, 'optional: a messenger whose cap applies (telegram, whatsapp)'],
    ]),
  ),
};

/** Lists the spec gives as examples but the upstream closes (`category/name param`): an enum is allowed. */
export const CLOSED_LISTS: Record<string, string> = {
  'anime/creature-data resource': 'the spec names 9 and "40+ more"; PokéAPI v2 has exactly these 48 resources, so the catalog lists them',
  'art-design/color-scheme scheme': 'the spec names 4 and "others"; the embedded scheme algorithm has exactly these 8',
};

const show = (v: unknown) => (Array.isArray(v) ? v.join(', ') : String(v));
const sameSet = (a: unknown[], b: unknown[]) =>
  a.length === b.length && a.map(String).sort().join('\n') === b.map(String).sort().join('\n');

/** Differences between one spec parameter and its catalog entry. */
function compareParam(id: string, s: SpecParam, c: ParamSpec, used: Set<string>): string[] {
  const out: string[] = [];
  const at = `${id} ${s.name}`;
  if (s.required !== (c.required === true)) out.push(`${at}: required is ${c.required === true}, spec says ${s.required ? 'R' : 'O'}`);
  if (
    s.requiredWhen &&
    JSON.stringify(Object.entries(c.requiredWhen ?? {}).map(([k, v]) => [k, String(v)])) !== JSON.stringify(Object.entries(s.requiredWhen))
  ) {
    out.push(`${at}: requiredWhen is ${JSON.stringify(c.requiredWhen ?? null)}, spec says required when ${JSON.stringify(s.requiredWhen)}`);
  }
  if (s.flag && c.type !== 'boolean') out.push(`${at}: type is ${c.type}, spec says a true/false flag (boolean)`);
  if (s.enum) {
    const templated = s.enum.some((v) => v.includes('{'));
    if (c.enum) {
      if (!sameSet(c.enum, s.enum)) out.push(`${at}: enum is [${show(c.enum)}], spec closes the list [${show(s.enum)}]`);
    } else if (templated && c.pattern) {
      // "house/{house}": a closed list with a free part, so a pattern, not an enum.
      const re = new RegExp(c.pattern, 'u');
      const samples = s.enum.map((v) => v.replace(/\{[^}]+\}/g, 'abc'));
      const refused = samples.filter((v) => !re.test(v));
      if (refused.length) out.push(`${at}: pattern refuses ${show(refused)}, which the spec lists`);
      if (re.test('zz-not-listed')) out.push(`${at}: pattern accepts values the spec does not list`);
    } else {
      out.push(`${at}: no enum, spec closes the list [${show(s.enum)}]`);
    }
  }
  if (s.examples) {
    if (c.enum && at in CLOSED_LISTS) used.add(at);
    else if (c.enum) out.push(`${at}: enum [${show(c.enum)}] closes a list the spec gives as examples only`);
    const missing = s.examples.filter((v) => !(c.examples ?? []).map(String).includes(v));
    if (missing.length) out.push(`${at}: examples lack ${show(missing)}, which the spec names`);
  }
  if (s.default !== undefined && String(c.default) !== s.default) {
    out.push(`${at}: default is ${c.default ?? 'absent'}, spec says ${s.default}`);
  }
  for (const k of ['minimum', 'maximum'] as const) {
    if (s[k] !== undefined && c[k] !== s[k]) out.push(`${at}: ${k} is ${c[k] ?? 'absent'}, spec says ${s[k]}`);
  }
  if ((s.minimum !== undefined || s.maximum !== undefined) && c.type !== 'integer' && c.type !== 'number') {
    out.push(`${at}: type is ${c.type}, spec gives a numeric range`);
  }
  return out;
}

function compareEndpoint(s: SpecEndpoint, c: EndpointSpec, used: Set<string>): string[] {
  const id = `${s.category}/${s.name}`;
  const out: string[] = [];
  if (c.method !== s.method) out.push(`${id}: method is ${c.method}, spec says ${s.method}`);
  for (const p of s.params) {
    const cp = c.params[p.name];
    if (!cp) out.push(`${id}: missing parameter ${p.name}`);
    else out.push(...compareParam(id, p, cp, used));
  }
  for (const name of Object.keys(c.params)) {
    if (!s.params.some((p) => p.name === name)) {
      if (`${id} ${name}` in EXTENSIONS) used.add(`${id} ${name}`);
      else
        out.push(
          name === 'apikey' ? `${id}: parameter apikey is implicit and must not be listed` : `${id}: parameter ${name} is not in the spec`,
        );
    }
  }
  return out;
}

/** A param's own examples and default must pass its own rules, or the docs would show refused values. */
function selfCheck(at: string, p: ParamSpec): string[] {
  const out: string[] = [];
  const values: Array<[string, unknown]> = (p.examples ?? []).map((v) => ['example', v]);
  if (p.default !== undefined) values.push(['default', p.default]);
  let re: RegExp | undefined;
  try {
    re = p.pattern ? new RegExp(p.pattern, 'u') : undefined;
  } catch {
    return [`${at}: pattern is not a valid regular expression`];
  }
  for (const [kind, v] of values) {
    const problem =
      (p.type === 'integer' && !Number.isInteger(v)) || (p.type === 'number' && typeof v !== 'number')
        ? `is not of type ${p.type}`
        : p.type === 'boolean' && typeof v !== 'boolean'
          ? 'is not a boolean'
          : re && !re.test(String(v))
            ? 'does not match the pattern'
            : kind === 'default' && p.enum && !p.enum.map(String).includes(String(v))
              ? 'is not in the enum'
              : typeof v === 'number' && ((p.minimum !== undefined && v < p.minimum) || (p.maximum !== undefined && v > p.maximum))
                ? 'is out of bounds'
                : typeof v === 'string' && p.maxLength !== undefined && v.length > p.maxLength
                  ? 'is longer than maxLength'
                  : undefined;
    if (problem) out.push(`${at}: ${kind} ${JSON.stringify(v)} ${problem}`);
  }
  return out;
}

function hasAdapter(adapter: string, adaptersDirs: string[]): boolean {
  return adaptersDirs.some((dir) => fs.existsSync(path.join(dir, `${adapter}.ts`)) || fs.existsSync(path.join(dir, `${adapter}.js`)));
}

export function checkCatalog(specText: string, catalogDir: string, adaptersDir: string | string[]): CheckResult {
  const differences: string[] = [];
  const spec = parseSpec(specText);
  differences.push(...spec.problems.map((p) => `spec: ${p}`));

  // The loader's own checks, every problem with its place; then what only the spec comparison needs.
  const reading = readCatalog(catalogDir);
  differences.push(...reading.problems);
  for (const { file, category } of reading.categories) {
    if (typeof category === 'string' && `${category}.yaml` !== path.basename(file))
      differences.push(`${shownPath(file)}: holds category ${category}; the file should be named ${category}.yaml`);
  }
  const catalog = new Map(reading.catalog.endpoints.map((ep) => [ep.id, ep]));
  for (const ep of reading.catalog.endpoints) {
    for (const [name, p] of Object.entries(ep.params)) differences.push(...selfCheck(`${ep.id} ${name}`, p));
  }

  let params = 0;
  const used = new Set<string>();
  for (const s of spec.endpoints) {
    const id = `${s.category}/${s.name}`;
    params += s.params.length;
    const c = catalog.get(id);
    // An endpoint refused for a problem of its own is already reported with its place.
    if (!c) {
      if (!reading.refused.includes(id)) differences.push(`missing endpoint ${id}`);
    } else if (c.extension) differences.push(`${id}: marked extension but the spec has it; remove "extension: true"`);
    else differences.push(...compareEndpoint(s, c, used));
  }
  const extensions: string[] = [];
  for (const [id, ep] of catalog) {
    if (spec.endpoints.some((s) => `${s.category}/${s.name}` === id)) continue;
    if (ep.extension) extensions.push(id);
    else differences.push(`extra endpoint ${id} (not in the spec): if it is meant to be outside the spec, mark it "extension: true"`);
  }

  const listed: Record<string, string> = { ...EXTENSIONS, ...CLOSED_LISTS };
  const unusedExceptions = Object.keys(listed).filter((at) => !used.has(at));
  const exceptions = [...used].map((at) => `${at}: ${listed[at]}`);

  const dirs = Array.isArray(adaptersDir) ? adaptersDir : [adaptersDir];
  const missingAdapters = [...catalog].filter(([, ep]) => !hasAdapter(ep.adapter, dirs)).map(([id]) => id);
  return { differences, endpoints: spec.endpoints.length, params, missingAdapters, exceptions, unusedExceptions, extensions };
}

function main(): void {
  const root = process.cwd();
  const result = checkCatalog(fs.readFileSync(path.join(root, 'docs', 'spec.md'), 'utf8'), path.join(root, 'catalog'), [
    path.join(root, 'adapters'),
    path.join(root, 'dist', 'adapters'),
  ]);
  if (result.differences.length) {
    for (const d of result.differences) console.log(d);
    console.log(`catalog differs from spec: ${result.differences.length} difference(s)`);
    process.exitCode = 1;
    return;
  }
  console.log(`catalog matches spec: ${result.endpoints} endpoints, ${result.params} parameters`);
  for (const e of result.exceptions) console.log(`  exception: ${e}`);
  for (const e of result.extensions) console.log(`  extension: ${e} (outside the spec)`);
  for (const e of result.unusedExceptions) console.log(`  unused exception (remove it from scripts/check-catalog.ts): ${e}`);
  const k = result.missingAdapters.length;
  console.log(`endpoints without an adapter: ${k}${k ? ` (${result.missingAdapters.join(', ')})` : ''}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) main();
