// scripts/check-catalog: the real catalog matches the real spec, and every kind of difference planted in a
// copy of the catalog (or of the spec) is reported by name.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { CLOSED_LISTS, EXTENSIONS, checkCatalog } from '../../scripts/check-catalog.js';
import { interpretNote, parseParamList, parseSpec } from '../../scripts/spec-tables.js';
import { ROOT } from '../helpers/paths.js';

const root = ROOT;
const specText = fs.readFileSync(path.join(root, 'docs', 'spec.md'), 'utf8');
const catalogDir = path.join(root, 'catalog');
const noAdapters = path.join(os.tmpdir(), 'no-adapters-here');

type Doc = { category: string; endpoints: Array<Record<string, any>> };

const tmpDirs: string[] = [];
afterAll(() => {
  for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A copy of the catalog with one file changed by `mutate`. */
function plant(file: string, mutate: (doc: any) => void): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalog-'));
  tmpDirs.push(dir);
  fs.cpSync(catalogDir, dir, { recursive: true });
  const target = path.join(dir, file);
  const doc = YAML.parse(fs.readFileSync(target, 'utf8'));
  mutate(doc);
  fs.writeFileSync(target, YAML.stringify(doc));
  return dir;
}

const endpoint = (doc: Doc, name: string) => doc.endpoints.find((e) => e.name === name)!;

function differencesOf(dir: string, spec = specText): string[] {
  return checkCatalog(spec, dir, noAdapters).differences;
}

describe('check-catalog on the real files', () => {
  test('the catalog matches the spec: 79 endpoints, no difference', () => {
    const result = checkCatalog(specText, catalogDir, noAdapters);
    expect(result.differences).toEqual([]);
    expect(result.endpoints).toBe(79);
    expect(result.params).toBeGreaterThan(150);
  });

  test('every departure from the spec is a listed exception, reported with its reason', () => {
    const { exceptions, unusedExceptions } = checkCatalog(specText, catalogDir, noAdapters);
    expect([...exceptions.map((e) => e.split(':')[0]), ...unusedExceptions].sort()).toEqual(
      [...Object.keys(EXTENSIONS), ...Object.keys(CLOSED_LISTS)].sort(),
    );
    for (const e of exceptions) expect(e).toMatch(/^\S+ \S+: .{20,}/);
  });

  test('docs/spec.md is the customer spec, verbatim', () => {
    const shared = '/work/shared/spec/unified-utility-api-spec.md';
    if (!fs.existsSync(shared)) return; // only where the original is at hand
    expect(specText).toBe(fs.readFileSync(shared, 'utf8'));
  });
});

describe('check-catalog catches planted differences', () => {
  test('a missing endpoint', () => {
    const dir = plant('finance.yaml', (doc: Doc) => {
      doc.endpoints.push({ ...endpoint(doc, 'p2p'), name: 'p2p-extra' });
      doc.endpoints = doc.endpoints.filter((e) => e.name !== 'p2p');
    });
    const diffs = differencesOf(dir);
    expect(diffs).toContain('missing endpoint finance/p2p');
    expect(diffs).toContain(
      'extra endpoint finance/p2p-extra (not in the spec): if it is meant to be outside the spec, mark it "extension: true"',
    );
  });

  test('an endpoint outside the spec marked as an extension is named, not a difference; one of the spec must not be marked', () => {
    const dir = plant('finance.yaml', (doc: Doc) => {
      doc.endpoints.push({ ...endpoint(doc, 'p2p'), name: 'p2p-extra', extension: true });
      endpoint(doc, 'p2p').extension = true;
    });
    const result = checkCatalog(specText, dir, noAdapters);
    expect(result.extensions).toEqual(['finance/p2p-extra']);
    expect(result.differences).toEqual(['finance/p2p: marked extension but the spec has it; remove "extension: true"']);
  });

  test('a wrong method', () => {
    const dir = plant('tts.yaml', (doc: Doc) => {
      endpoint(doc, 'generate').method = 'GET';
    });
    expect(differencesOf(dir)).toEqual(['tts/generate: method is GET, spec says POST']);
  });

  test('a missing parameter, and one the spec does not have', () => {
    const dir = plant('utilities.yaml', (doc: Doc) => {
      const tr = endpoint(doc, 'tr');
      delete tr.params.to;
      tr.params.apikey = { type: 'string', description: 'the key' };
      tr.params.engine = { type: 'string', description: 'which engine' };
    });
    expect(differencesOf(dir)).toEqual([
      'utilities/tr: missing parameter to',
      'utilities/tr: parameter apikey is implicit and must not be listed',
      'utilities/tr: parameter engine is not in the spec',
    ]);
  });

  test('a required flag flipped, both ways', () => {
    const dir = plant('tools.yaml', (doc: Doc) => {
      endpoint(doc, 'git-user').params.username.required = false;
      endpoint(doc, 'fake-address').params.country.required = true;
    });
    expect(differencesOf(dir)).toEqual([
      'tools/fake-address country: required is true, spec says O',
      'tools/git-user username: required is false, spec says R',
    ]);
  });

  test('a bound changed', () => {
    const dir = plant('anime.yaml', (doc: Doc) => {
      endpoint(doc, 'anime-images-a').params.amount.maximum = 50;
    });
    expect(differencesOf(dir)).toEqual(['anime/anime-images-a amount: maximum is 50, spec says 20']);
  });

  test('a bound of §8.4 removed', () => {
    const dir = plant('cloud-storage.yaml', (doc: Doc) => {
      delete endpoint(doc, 'image-host').params.expiration.minimum;
    });
    expect(differencesOf(dir)).toEqual(['cloud-storage/image-host expiration: minimum is absent, spec says 60']);
  });

  test('an exception the catalog no longer needs is only noted', () => {
    const dir = plant('anime.yaml', (doc: Doc) => {
      delete endpoint(doc, 'anime-images-c').params.id;
    });
    const result = checkCatalog(specText, dir, noAdapters);
    expect(result.differences).toEqual([]);
    expect(result.unusedExceptions).toEqual(['anime/anime-images-c id']);
  });

  test('a default changed', () => {
    const dir = plant('anime.yaml', (doc: Doc) => {
      endpoint(doc, 'creature-data').params.limit.default = 10;
    });
    expect(differencesOf(dir)).toEqual(['anime/creature-data limit: default is 10, spec says 20']);
  });

  test('a closed list changed, and an open list closed', () => {
    const dir = plant('cloud-storage.yaml', (doc: Doc) => {
      const paste = endpoint(doc, 'paste-host').params;
      paste.expire.enum = paste.expire.enum.filter((v: string) => v !== '1Y');
      paste.format.enum = ['bash', 'python', 'json', 'text'];
    });
    expect(differencesOf(dir)).toEqual([
      'cloud-storage/paste-host format: enum [bash, python, json, text] closes a list the spec gives as examples only',
      'cloud-storage/paste-host expire: enum is [N, 10M, 1H, 1D, 1W, 2W, 1M, 6M], spec closes the list [N, 10M, 1H, 1D, 1W, 2W, 1M, 6M, 1Y]',
    ]);
  });

  test('a flag that is not boolean, and a lost conditional requirement', () => {
    const dir = plant('anime.yaml', (doc: Doc) => {
      endpoint(doc, 'scene-finder').params.cutBorders.type = 'string';
      delete endpoint(doc, 'scene-finder').params.url.requiredWhen;
    });
    expect(differencesOf(dir)).toEqual([
      'anime/scene-finder url: requiredWhen is null, spec says required when {"action":"search"}',
      'anime/scene-finder cutBorders: type is string, spec says a true/false flag (boolean)',
    ]);
  });

  test('a templated list (house/{house}) still accepted by the pattern', () => {
    const dir = plant('quotes.yaml', (doc: Doc) => {
      endpoint(doc, 'wizard-series').params.resource.pattern = '^(characters|students|staff|spells)$';
    });
    expect(differencesOf(dir)).toEqual([
      'quotes/wizard-series resource: example "house/gryffindor" does not match the pattern',
      'quotes/wizard-series resource: pattern refuses house/abc, character/abc, which the spec lists',
    ]);
  });

  test('a file that breaks the schema', () => {
    const dir = plant('books.yaml', (doc: Doc) => {
      delete endpoint(doc, 'poetry').summary;
    });
    const diffs = differencesOf(dir);
    // Told with its place; the endpoint it refuses is not reported missing on top of it.
    expect(diffs).toEqual([expect.stringMatching(/books\.yaml:\d+:\d+ endpoint poetry: missing "summary"$/)]);
  });

  test('a junk key from an unquoted comma, in a response schema or a param, is named with file and endpoint', () => {
    const dir = plant('tools.yaml', () => {});
    const file = path.join(dir, 'tools.yaml');
    const text = fs.readFileSync(path.join(catalogDir, 'tools.yaml'), 'utf8'); // as written, not re-serialised
    const quoted = "brand: { type: string, description: 'Card network name, e.g. Visa' }";
    expect(text).toContain(quoted);
    fs.writeFileSync(file, text.replace(quoted, 'brand: { type: string, description: Card network name, e.g. Visa }'));
    expect(differencesOf(dir)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${file}:\\d+:\\d+ endpoint bin-lookup, field response.properties.brand: unknown field "e.g. Visa" \\(an unquoted comma`,
        ),
      ),
    ]);
    const param = plant('tools.yaml', (doc: Doc) => {
      endpoint(doc, 'bin-lookup').params.bin['e.g. 45717360'] = null;
    });
    expect(differencesOf(param)[0]).toMatch(/tools\.yaml:\d+:\d+ endpoint bin-lookup, field params\.bin: unknown field "e\.g\. 45717360"/);
  });

  test('a rule naming an unknown parameter', () => {
    const dir = plant('utilities.yaml', (doc: Doc) => {
      endpoint(doc, 'phish-check').rules = [{ anyOf: ['domain', 'link'] }];
    });
    expect(differencesOf(dir)).toEqual([
      expect.stringMatching(/utilities\.yaml:\d+:\d+ endpoint phish-check, field rules\.0: unknown param "link"$/),
    ]);
  });

  test("an example or default that breaks the param's own rules", () => {
    const dir = plant('art-design.yaml', (doc: Doc) => {
      endpoint(doc, 'color-scheme').params.hex.examples = ['0047AB', 'blue'];
      endpoint(doc, 'noise-image').params.tiles.default = 99;
    });
    expect(differencesOf(dir)).toEqual([
      'art-design/noise-image tiles: default 99 is out of bounds',
      'art-design/color-scheme hex: example "blue" does not match the pattern',
    ]);
  });

  test('an unknown upstream', () => {
    const dir = plant('books.yaml', (doc: Doc) => {
      endpoint(doc, 'gita').upstream = 'nowhere';
    });
    expect(differencesOf(dir)).toEqual([
      expect.stringMatching(/books\.yaml:\d+:\d+ endpoint gita, field upstream: unknown upstream "nowhere": not in upstreams\.yaml$/),
    ]);
  });

  test('a change of the spec itself', () => {
    const edited = specText
      .replace('amount O (1 to 20, default 1)', 'amount O (1 to 30, default 1)')
      .replace('| /anime/anime-images-a | amount | 1 to 20, default 1 |', '| /anime/anime-images-a | amount | 1 to 30, default 1 |');
    expect(edited).not.toBe(specText);
    expect(differencesOf(catalogDir, edited)).toEqual(['anime/anime-images-a amount: maximum is 20, spec says 30']);
  });

  test('a spec whose two tables disagree is reported', () => {
    const edited = specText.replace('| /anime/creature-data | limit | default 20 |', '| /anime/creature-data | limit | default 25 |');
    expect(differencesOf(catalogDir, edited)).toContain('spec: §8: anime/creature-data limit default "25" contradicts §4 "20"');
  });
});

describe('missing adapters', () => {
  test('endpoints whose adapter file is absent are listed; shared adapters count once per endpoint', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adapters-'));
    tmpDirs.push(dir);
    fs.mkdirSync(path.join(dir, 'gen-models'));
    fs.writeFileSync(path.join(dir, 'gen-models', 'chat.ts'), 'export default async () => ({});\n');
    fs.mkdirSync(path.join(dir, 'tools'));
    fs.writeFileSync(path.join(dir, 'tools', 'ccgen.js'), 'export default async () => ({});\n');
    const { missingAdapters } = checkCatalog(specText, catalogDir, dir);
    expect(missingAdapters).toHaveLength(79 - 17 - 1);
    expect(missingAdapters).not.toContain('gen-models/chat-05');
    expect(missingAdapters).not.toContain('tools/ccgen');
    expect(missingAdapters).toContain('gen-models/image-01');
  });
});

describe('reading the spec', () => {
  test('notes: closed lists, examples, bounds, defaults, flags, conditions', () => {
    expect(interpretNote('BUY or SELL')).toEqual({ enum: ['BUY', 'SELL'] });
    expect(interpretNote('one of N, 10M, 1H')).toEqual({ enum: ['N', '10M', '1H'] });
    expect(interpretNote('search only: 1 = images, 2 = GIFs')).toEqual({ enum: ['1', '2'] });
    expect(interpretNote('quotes default, characters, episodes')).toEqual({
      default: 'quotes',
      enum: ['quotes', 'characters', 'episodes'],
    });
    expect(interpretNote('random; omit for list')).toEqual({ enum: ['random'] });
    expect(interpretNote('ip or id, duplicate avoidance')).toEqual({ enum: ['ip', 'id'] });
    expect(interpretNote('for example Z Fighter, Villain')).toEqual({ examples: ['Z Fighter', 'Villain'] });
    expect(interpretNote('pokemon, ability, and 40+ more')).toEqual({ examples: ['pokemon', 'ability'] });
    expect(interpretNote('1 to 20, default 1')).toEqual({ minimum: 1, maximum: 20, default: '1' });
    expect(interpretNote('model id, default auto')).toEqual({ default: 'auto' });
    expect(interpretNote("default: requester's IP")).toEqual({});
    expect(interpretNote('planet filter, true or false')).toEqual({ flag: true });
    expect(interpretNote('flag, auto-remove black bars')).toEqual({ flag: true });
    expect(interpretNote('required with action=search')).toEqual({ requiredWhen: { action: 'search' } });
    expect(interpretNote('comma-separated, include')).toEqual({});
    expect(interpretNote('chat id or username')).toEqual({});
    expect(interpretNote('message or question')).toEqual({});
  });

  test('a parameter cell splits at semicolons outside parentheses', () => {
    const params = parseParamList('apikey R; action O (random; omit for list); char O (character name)');
    expect(params.map((p) => [p.name, p.required])).toEqual([
      ['action', false],
      ['char', false],
    ]);
  });

  test('every section of §4 is read, with nothing left over', () => {
    const spec = parseSpec(specText);
    expect(spec.problems).toEqual([]);
    expect(new Set(spec.endpoints.map((e) => e.category)).size).toBe(13);
    expect(spec.endpoints.find((e) => e.name === 'audio-01')?.params.map((p) => p.name)).toEqual(['upstream_key', 'q', 'voice']);
    expect(spec.endpoints.find((e) => e.name === 'dl-c')?.params.map((p) => [p.name, p.required])).toEqual([['url', true]]);
  });
});
