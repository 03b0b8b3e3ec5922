// A broken catalog or a stray adapter stops the boot with a message naming the file, line, column,
// endpoint and field of each problem.
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
  for (const f of fs.readdirSync(realDir).filter((f) => f.endsWith('.yaml'))) fs.copyFileSync(path.join(realDir, f), path.join(dir, f));
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
  expect(bootError(dir)).toMatch(
    new RegExp(
      `^${path.join(dir, 'anime.yaml')}:\\d+:\\d+ endpoint anime-images-a, field params.amount.maximum: must be a number, not "twenty"$`,
    ),
  );
});

test('a missing summary, an unknown upstream, a bad requiredWhen and an unknown field are refused', () => {
  expect(
    bootError(
      plant('tools.yaml', (d) => {
        delete d.endpoints[0].summary;
      }),
    ),
  ).toMatch(/tools\.yaml:\d+:\d+ endpoint fake-address: missing "summary"$/);
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
  ).toMatch(/endpoint fake-address, field params\.country: unknown field "colour"$/);
});

test('the comma bug: an unquoted comma in a flow-map description plants a junk key, which is refused', () => {
  const dir = plant('tools.yaml', () => {});
  const file = path.join(dir, 'tools.yaml');
  const text = fs.readFileSync(path.join(realDir, 'tools.yaml'), 'utf8'); // as written, not re-serialised
  const quoted = "scheme: { type: string, description: 'Card network id, e.g. visa, mastercard, american-express' }";
  expect(text).toContain(quoted);
  const broken = 'scheme: { type: string, description: Card network id, e.g. visa, mastercard }';
  fs.writeFileSync(file, text.replace(quoted, broken));
  const lines = text.replace(quoted, broken).split('\n');
  const line = lines.findIndex((l) => l.includes(broken)) + 1;
  const column = (word: string) => lines[line - 1].indexOf(word) + 1;
  expect(bootError(dir)).toBe(
    [
      '2 problems in the catalog:',
      `${file}:${line}:${column('e.g. visa')} endpoint bin-lookup, field response.properties.scheme: unknown field "e.g. visa" (an unquoted comma in a { } map? quote the text)`,
      `${file}:${line}:${column('mastercard')} endpoint bin-lookup, field response.properties.scheme: unknown field "mastercard"`,
    ].join('\n'),
  );
});

test('a response schema holds JSON Schema keywords only, at any depth', () => {
  const dir = plant('utilities.yaml', (d) => {
    d.endpoints.find((e: any) => e.name === 'phish-check').response.properties.signals.items.colour = 'red';
  });
  expect(bootError(dir)).toMatch(
    /utilities\.yaml:\d+:\d+ endpoint phish-check, field response\.properties\.signals\.items: unknown field "colour"/,
  );
  const typo = plant('utilities.yaml', (d) => {
    d.endpoints.find((e: any) => e.name === 'phish-check').response.properties.score.type = 'int';
  });
  expect(bootError(typo)).toMatch(
    /endpoint phish-check, field response\.properties\.score\.type: "int" is not one of .* \(did you mean "integer"\?\)$/,
  );
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
  expect(bootError(dir)).toMatch(/video\.yaml:3:1 not valid YAML: /);
});

test('an adapter file without a catalog entry stops the boot', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-ad-'));
  fs.mkdirSync(path.join(dir, 'tools'));
  fs.writeFileSync(path.join(dir, 'tools', 'stray.js'), 'export default async () => ({});\n');
  expect(() => adapterRegistry(dir, loadCatalog(realDir).endpoints)).toThrow(
    'adapters/tools/stray.js has no catalog entry (no endpoint says adapter: tools/stray)',
  );
});
