// scripts/catalog-types: the committed adapters/<category>/_catalog.ts are what the catalog makes today, every
// adapter declares itself by its own name, and the types say what engine/catalog/validate.ts really hands over.
import fs from 'node:fs';
import path from 'node:path';
import { catalogTypes, valueType } from '../../scripts/catalog-types.js';
import { loadCatalog, type EndpointSpec, type ParamSpec } from '../../engine/catalog/load.js';
import { validatorOf } from '../../engine/catalog/validate.js';
import type { UploadedFile } from '../../engine/types.js';
import { ROOT } from '../helpers/paths.js';

const catalog = loadCatalog(path.join(ROOT, 'catalog'));

test('adapters/<category>/_catalog.ts are what npm run catalog-types writes now', async () => {
  const made = await catalogTypes(ROOT);
  const committed = fs
    .readdirSync(path.join(ROOT, 'adapters'))
    .filter((c) => fs.existsSync(path.join(ROOT, 'adapters', c, '_catalog.ts')))
    .map((c) => path.join('adapters', c, '_catalog.ts'));
  expect([...made.keys()].sort()).toEqual(committed.sort());
  for (const [file, text] of made) {
    // On a difference: run `npm run catalog-types` and commit what it writes.
    expect(`${file}:\n${fs.readFileSync(path.join(ROOT, file), 'utf8')}`).toBe(`${file}:\n${text}`);
  }
});

const adapterNames = [...new Set(catalog.endpoints.flatMap((e) => [e.adapter, ...(e.fallback ?? []).map((f) => f.adapter)]))].sort();

test.each(adapterNames)('adapters/%s.ts is typed by its own catalog name', (name) => {
  const text = fs.readFileSync(path.join(ROOT, 'adapters', `${name}.ts`), 'utf8');
  expect(text).toContain('import type { Adapter');
  expect(text).toMatch(/from '\.\/_catalog\.js';/);
  expect([...text.matchAll(/: Adapter<'([^']+)'>/g)].map((m) => m[1])).toEqual([name]);
});

test('an adapter named by several endpoints, or as a fallback, gets what any of them sends', async () => {
  const text = (await catalogTypes(ROOT)).get(path.join('adapters', 'utilities', '_catalog.ts'))!;
  // tr's fallbacks receive tr's params, and may ask for their own upstream only.
  expect(text).toMatch(/export interface TrGtxParams \{\n {2}text: string;\n {2}from\?: string;\n {2}to: string;\n\}/);
  expect(text).toContain("'utilities/tr-gtx': AdapterOf<TrGtxParams, 'gtx'>;");
  // wth asks the geocoder it names under uses:, its fallback only wttr.
  expect(text).toContain("'utilities/wth': AdapterOf<WthParams, 'open-meteo' | 'open-meteo-geo'>;");
  expect(text).toContain("'utilities/wth-wttr': AdapterOf<WthWttrParams, 'wttr'>;");
  const gen = (await catalogTypes(ROOT)).get(path.join('adapters', 'gen-models', '_catalog.ts'))!;
  expect(gen).toContain("'gen-models/chat': AdapterOf<ChatParams, 'pollinations'>;");
});

/** A raw value (as a query string carries it) for a param, and the runtime kind its type promises. */
function sample(p: ParamSpec): string {
  const v = p.enum?.[0] ?? p.examples?.[0] ?? p.default;
  if (v !== undefined) return String(v);
  return { string: 'x', integer: '3', number: '2.5', boolean: 'true', file: 'x' }[p.type];
}

function holds(type: string, value: unknown): boolean {
  if (type === 'string') return typeof value === 'string';
  if (type === 'number') return typeof value === 'number';
  if (type === 'boolean') return typeof value === 'boolean';
  if (type === 'UploadedFile') return typeof value === 'object' && value !== null && 'path' in value;
  if (type === 'UploadedFile | string') return typeof value === 'string' || holds('UploadedFile', value);
  // An enum: one of its listed values.
  return type.split(' | ').includes(JSON.stringify(value));
}

const upload: UploadedFile = { field: 'file', path: '/tmp/x', originalName: 'x.txt', size: 1, claimedType: 'text/plain' };

test.each(catalog.endpoints.map((e): [string, EndpointSpec] => [e.id, e]))(
  '%s: each value reaches the adapter with the type its params interface gives it',
  (_id, spec) => {
    // The coercion and the defaults alone (the check passes everything): what the adapter's type rests on.
    const valid = validatorOf(spec, () => true);
    const raw = Object.fromEntries(Object.entries(spec.params).map(([name, p]) => [name, sample(p)]));
    const files = Object.fromEntries(
      Object.entries(spec.params).flatMap(([name, p]) => (p.type === 'file' && !p.orText ? [[name, upload]] : [])),
    );
    const given = valid(raw, files);
    for (const [name, p] of Object.entries(spec.params)) expect([name, holds(valueType(p), given[name])]).toEqual([name, true]);
    // Given nothing, a param with a default is there all the same (its interface has it non-optional).
    const bare = valid({}, {});
    for (const [name, p] of Object.entries(spec.params))
      if (p.default !== undefined) expect([name, holds(valueType(p), bare[name])]).toEqual([name, true]);
  },
);
