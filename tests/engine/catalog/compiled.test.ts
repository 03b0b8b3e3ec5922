// The compiled catalog (engine/catalog/compiled.ts): a boot reads it only when it was compiled from exactly
// the catalog's files, and its checks (ajv's standalone code) answer every request as the checks compiled at
// boot do, word for word.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { catalogHash, openCatalog, writeCompiled } from '../../../engine/catalog/compiled.js';
import { CatalogError, type EndpointSpec } from '../../../engine/catalog/load.js';
import { validatorOf, type Check } from '../../../engine/catalog/validate.js';
import { loadConfig } from '../../../server/config.js';

const realDir = loadConfig({}).catalogDir;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-compiled-'));
const file = path.join(tmp, 'catalog.compiled.json');

/** A copy of the catalog, with `edit` applied to one file's text. */
function copy(name: string, edit: (text: string) => string = (t) => t): string {
  const dir = fs.mkdtempSync(path.join(tmp, 'catalog-'));
  for (const f of fs.readdirSync(realDir).filter((f) => f.endsWith('.yaml'))) fs.copyFileSync(path.join(realDir, f), path.join(dir, f));
  fs.writeFileSync(path.join(dir, name), edit(fs.readFileSync(path.join(dir, name), 'utf8')));
  return dir;
}

beforeAll(() => writeCompiled(realDir, file));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('the compiled file is read for the catalog it was compiled from, and holds the same entries', async () => {
  const compiled = await openCatalog(realDir, file);
  const atBoot = await openCatalog(realDir, path.join(tmp, 'absent.json'));
  expect(compiled.compiled).toBe(true);
  expect(atBoot.compiled).toBe(false);
  expect(compiled.catalog).toEqual(atBoot.catalog);
  expect([...compiled.checks.keys()].sort()).toEqual(atBoot.catalog.endpoints.map((e) => e.id).sort());
});

test('an edited, added or removed catalog file is compiled at boot, and a broken one still stops the boot', async () => {
  const edited = copy('tools.yaml', (t) => t.replace('summary:', 'summary: Edited.'));
  expect(catalogHash(edited)).not.toBe(catalogHash(realDir));
  expect((await openCatalog(edited, file)).compiled).toBe(false);
  const added = copy('tools.yaml');
  fs.copyFileSync(path.join(added, 'anime.yaml'), path.join(added, 'zz.yaml'));
  await expect(openCatalog(added, file)).rejects.toThrow(/zz\.yaml:\d+:\d+ endpoint .*: defined twice \(first at .*anime\.yaml:\d+:\d+\)/);
  const removed = copy('tools.yaml');
  fs.rmSync(path.join(removed, 'anime.yaml'));
  expect((await openCatalog(removed, file)).compiled).toBe(false);
  const broken = copy('tools.yaml', (t) => t.replace('method: GET', 'method: FETCH'));
  await expect(openCatalog(broken, file)).rejects.toThrow(CatalogError);
  // The same bytes in another folder are the same catalog.
  expect((await openCatalog(copy('tools.yaml'), file)).compiled).toBe(true);
});

test('a compiled file that is not one (truncated, or not JSON) is ignored, not trusted', async () => {
  const bad = path.join(tmp, 'bad.json');
  fs.writeFileSync(bad, fs.readFileSync(file, 'utf8').slice(0, 1000));
  expect((await openCatalog(realDir, bad)).compiled).toBe(false);
});

/** Values that reach every kind of rule: types, bounds, lengths, patterns, enums, formats, hosts. */
const PROBES = [
  '0',
  '-1',
  '1',
  '7',
  '101',
  '99999999',
  '1.5',
  'abc',
  'ABC_def',
  'true',
  'false',
  'x'.repeat(3000),
  '8.8.8.8',
  '::1',
  '999.1.1.1',
  'example.com',
  'https://www.example.com/a',
  'ftp://example.com',
  'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
  'https://evil.example/youtube.com',
  'en',
  'random',
  '0047AB',
];

function outcome(spec: EndpointSpec, check: Check, raw: Record<string, string>): string {
  try {
    return JSON.stringify(validatorOf(spec, check)(raw, {}));
  } catch (err) {
    return `${(err as { code?: string }).code}: ${(err as Error).message}`;
  }
}

test('every endpoint: the compiled checks give the answer and the words of the checks compiled at boot', async () => {
  const compiled = await openCatalog(realDir, file);
  const atBoot = await openCatalog(realDir, path.join(tmp, 'absent.json'));
  let compared = 0;
  const differences: string[] = [];
  for (const spec of atBoot.catalog.endpoints) {
    const examples = Object.fromEntries(
      Object.entries(spec.params)
        .filter(([, p]) => p.type !== 'file' && p.examples?.length)
        .map(([name, p]) => [name, String(p.examples![0])]),
    );
    const requests = [{}, examples];
    for (const name of Object.keys(spec.params)) for (const value of PROBES) requests.push({ ...examples, [name]: value });
    for (const raw of requests) {
      const a = outcome(spec, compiled.checks.get(spec.id)!, raw);
      const b = outcome(spec, atBoot.checks.get(spec.id)!, raw);
      if (a !== b) differences.push(`${spec.id} ${JSON.stringify(raw)}: ${a} / ${b}`);
      compared++;
    }
  }
  expect(differences).toEqual([]);
  expect(compared).toBeGreaterThan(4000);
});
