// A broken catalog or a stray adapter stops the boot with a message naming the file, endpoint and field.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { loadCatalog, CatalogError } from '../../engine/catalog/load.js';
import { loadConfig } from '../../server/config.js';
import { adapterRegistry } from '../../engine/catalog/registry.js';

const realDir = loadConfig({}).catalogDir;

/** A copy of the catalog with one file changed. */
function plant(file: string, change: (doc: any) => void): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-cat-'));
  for (const f of fs.readdirSync(realDir)) fs.copyFileSync(path.join(realDir, f), path.join(dir, f));
  const doc = YAML.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  change(doc);
  fs.writeFileSync(path.join(dir, file), YAML.stringify(doc));
  return dir;
}

const bootError = (dir: string) => {
  try {
    loadCatalog(dir);
  } catch (e) {
    expect(e).toBeInstanceOf(CatalogError);
    return (e as Error).message;
  }
  throw new Error('the catalog loaded');
};

test('a bound of the wrong type names file, endpoint and field', () => {
  const dir = plant('anime.yaml', (d) => {
    d.endpoints.find((e: any) => e.name === 'anime-images-a').params.amount.maximum = 'twenty';
  });
  expect(bootError(dir)).toBe(`${path.join(dir, 'anime.yaml')}: endpoint anime-images-a, field params.amount.maximum: must be number`);
});

test('a missing summary, an unknown upstream, a bad requiredWhen and an unknown field are refused', () => {
  expect(
    bootError(
      plant('tools.yaml', (d) => {
        delete d.endpoints[0].summary;
      }),
    ),
  ).toMatch(/tools\.yaml: endpoint fake-address, field summary: must have required property 'summary'/);
  expect(
    bootError(
      plant('tools.yaml', (d) => {
        d.endpoints[0].upstream = 'nowhere';
      }),
    ),
  ).toMatch(/endpoint fake-address, field upstream: unknown upstream "nowhere"/);
  expect(
    bootError(
      plant('anime.yaml', (d) => {
        d.endpoints.find((e: any) => e.name === 'anime-images-a').params.query.requiredWhen = { mode: 'x' };
      }),
    ),
  ).toMatch(/endpoint anime-images-a, field params\.query\.requiredWhen: unknown param "mode"/);
  expect(
    bootError(
      plant('tools.yaml', (d) => {
        d.endpoints[0].params.country.colour = 'red';
      }),
    ),
  ).toMatch(/endpoint fake-address, field params\.country\.colour: must NOT have additional properties/);
});

test('the comma bug: an unquoted comma in a flow-map description plants a junk key, which is refused', () => {
  const dir = plant('tools.yaml', () => {});
  const file = path.join(dir, 'tools.yaml');
  const text = fs.readFileSync(path.join(realDir, 'tools.yaml'), 'utf8'); // as written, not re-serialised
  const quoted = "scheme: { type: string, description: 'Card network id, e.g. visa, mastercard, american-express' }";
  expect(text).toContain(quoted);
  fs.writeFileSync(file, text.replace(quoted, 'scheme: { type: string, description: Card network id, e.g. visa, mastercard }'));
  expect(bootError(dir)).toBe(
    `${file}: endpoint bin-lookup, field response.properties.scheme.e.g. visa: must NOT have additional properties`,
  );
});

test('a response schema holds JSON Schema keywords only, at any depth', () => {
  const dir = plant('utilities.yaml', (d) => {
    d.endpoints.find((e: any) => e.name === 'phish-check').response.properties.signals.items.colour = 'red';
  });
  expect(bootError(dir)).toMatch(
    /utilities\.yaml: endpoint phish-check, field response\.properties\.signals\.items\.colour: must NOT have additional properties/,
  );
  const typo = plant('utilities.yaml', (d) => {
    d.endpoints.find((e: any) => e.name === 'phish-check').response.properties.score.type = 'int';
  });
  expect(bootError(typo)).toMatch(/endpoint phish-check, field response\.properties\.score\.type/);
});

test('a rule naming an unknown param, or of no known shape, is refused', () => {
  const phish = (d: any) => d.endpoints.find((e: any) => e.name === 'phish-check');
  expect(
    bootError(
      plant('utilities.yaml', (d) => {
        phish(d).rules = [{ anyOf: ['domain', 'link'] }];
      }),
    ),
  ).toMatch(/endpoint phish-check, field rules\.0: unknown param "link"/);
  expect(
    bootError(
      plant('utilities.yaml', (d) => {
        phish(d).rules = [{ when: { domain: 'x' }, require: ['url'], colour: 'red' }];
      }),
    ),
  ).toMatch(/endpoint phish-check, field rules\.0/);
});

test('not YAML at all', () => {
  const dir = plant('video.yaml', () => {});
  fs.writeFileSync(path.join(dir, 'video.yaml'), 'category: video\nendpoints: [\n');
  expect(bootError(dir)).toMatch(/video\.yaml: not valid YAML/);
});

test('an adapter file without a catalog entry stops the boot', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-ad-'));
  fs.mkdirSync(path.join(dir, 'tools'));
  fs.writeFileSync(path.join(dir, 'tools', 'stray.js'), 'export default async () => ({});\n');
  expect(() => adapterRegistry(dir, loadCatalog(realDir).endpoints)).toThrow(
    'adapters/tools/stray.js has no catalog entry (no endpoint says adapter: tools/stray)',
  );
});
