// requestSchema(spec): the JSON Schema of an endpoint's parameters, rules included, is what the validator
// enforces: a standard 2020-12 validator given the exported schema agrees with compileValidator on
// requests built for each rule, and each broken rule is told in its own words. On small endpoints of the
// tests' own, the schema of every kind of parameter and rule is shown whole.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { ApiError } from '../../../engine/errors.js';
import { loadCatalog, type EndpointSpec, type ParamSpec, type Rule } from '../../../engine/catalog/load.js';
import { loadConfig } from '../../../server/config.js';
import { patternWords, requestSchema, rulesOf } from '../../../engine/catalog/request-schema.js';
import { compileValidator } from '../../../engine/catalog/checks.js';

const catalog = loadCatalog(loadConfig({}).catalogDir);
const spec = (id: string) => catalog.endpoints.find((e) => e.id === id)!;

// A plain validator that knows only the documented custom keywords, to prove the schema stands alone.
const plain = new Ajv2020({ strict: false });
plain.addKeyword({ keyword: 'hosts', type: 'string' });
for (const f of ['url', 'domain', 'ip', 'binary']) plain.addFormat(f, true);

function engineSays(e: EndpointSpec, params: Record<string, string>): string {
  try {
    compileValidator(e)(params, {});
    return 'ok';
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return (err as Error).message;
  }
}

/** Typed as the coerced params the schema sees. */
const typed = (e: EndpointSpec, params: Record<string, string>) =>
  Object.fromEntries(Object.entries(params).map(([k, v]) => [k, e.params[k].type === 'integer' ? Number(v) : v]));

test.each([
  ['books/gita', {}, 'Missing required parameter: chapter'],
  ['books/gita', { chapter: '2' }, 'Missing required parameter: verse'],
  ['books/gita', { chapter: '2', verse: '47' }, 'ok'],
  ['books/gita', { serial: '48' }, 'ok'],
  ['books/gita', { serial: '48', chapter: '2' }, 'Invalid value for mode: serial takes serial, not chapter and verse'],
  ['books/gita', { mode: 'verse', serial: '48' }, 'Invalid value for serial: is used with mode=serial only'],
  ['books/gita', { mode: 'serial' }, 'Missing required parameter: serial'],
  ['art-design/museum-b', {}, 'Missing required parameter: q or id or mode'],
  ['art-design/museum-b', { q: 'cat', id: '3' }, 'Invalid value for id: cannot be combined with q; give one of mode, q or id'],
  ['art-design/museum-b', { mode: 'departments' }, 'ok'],
  ['anime/anime-images-a', { category: 'hug', type: '2' }, 'Invalid value for type: is only used with action=search'],
  ['anime/anime-images-a', {}, 'Missing required parameter: category'],
  ['anime/anime-images-a', { action: 'endpoints' }, 'ok'],
  ['books/bible-a', { mode: 'versions' }, 'ok'],
  ['books/bible-a', { book: 'john' }, 'Missing required parameter: chapter'],
  ['books/library', { mode: 'work' }, 'Missing required parameter: id'],
  ['books/library', {}, 'Missing required parameter: q'],
  ['utilities/phish-check', {}, 'Missing required parameter: domain or url'],
  ['anime/scene-finder', {}, 'Missing required parameter: url'],
  ['anime/scene-finder', { action: 'me' }, 'ok'],
  ['quotes/office-series', { action: 'season', value: '1' }, 'Invalid value for action: season applies to resource episodes only'],
  ['quotes/office-series', { resource: 'episodes', action: 'season' }, 'Missing required parameter: value'],
  ['quotes/office-series', { resource: 'episodes', action: 'season', value: '2' }, 'ok'],
  ['quotes/wizard-series', { resource: 'character' }, 'Missing required parameter: id'],
  [
    'quotes/wizard-series',
    { resource: 'staff', id: 'gryffindor' },
    'Invalid value for id: is used only with resource house or character, not staff',
  ],
  ['quotes/wizard-series', { resource: 'characters', id: '9e3f7ce4-b9a7-4244-b709-dae5c1f1d4a8' }, 'ok'],
  ['anime/fighter-series-data', { resource: 'planets', race: 'Saiyan' }, 'Invalid value for race: is a filter of resource=characters only'],
  ['anime/fighter-series-data', { resource: 'planets', name: 'Namek' }, 'ok'],
  ['anime/anime-images-b', { category: 'nothing' }, 'Missing required parameter: additionalTags'],
  ['books/quran-b', { verse: '3' }, 'Missing required parameter: chapter'],
  ['books/quran-b', { segment: 'juz' }, 'Missing required parameter: segment_no'],
  ['books/quran-b', { chapter: '2', verse: '3' }, 'ok'],
  [
    'downloaders/dl-c',
    { url: 'https://www.instagram.com/natgeo/' },
    'Invalid value for url: must link to an Instagram post, reel or IGTV video (/p/, /reel/ or /tv/)',
  ],
  ['downloaders/dl-c', { url: 'https://www.instagram.com/natgeo/p/C0abcDEFghi/?igsh=1' }, 'ok'],
  ['quotes/office-series', { action: 'id', value: '12a' }, 'Invalid value for value: must be a quote id (a whole number) with action=id'],
  [
    'quotes/office-series',
    { resource: 'episodes', action: 'season', value: '0' },
    'Invalid value for value: must be a season number with action=season',
  ],
  ['quotes/office-series', { resource: 'episodes', action: 'id', value: '2 x 1' }, 'ok'],
  ['quotes/office-series', { resource: 'characters', action: 'id', value: 'Dwight Schrute' }, 'ok'],
  [
    'anime/anime-images-b',
    { action: 'image-by-id', id: 'user-1234' },
    'Invalid value for id: must be a 24-character hexadecimal image id for action=image-by-id',
  ],
  ['anime/anime-images-b', { session: 'id', id: 'user-1234' }, 'ok'],
  ['downloaders/dl-e', { url: 'https://x.com/NASA' }, 'Invalid value for url: must link to a post (…/status/<id>)'],
  ['downloaders/dl-e', { url: 'https://x.com/NASA?next=/status/1' }, 'Invalid value for url: must link to a post (…/status/<id>)'],
])('%s %j → %s, and the exported schema agrees', (id, params, message) => {
  const e = spec(id);
  expect(engineSays(e, params)).toBe(message);
  expect(plain.validate(requestSchema(e), typed(e, params))).toBe(message === 'ok');
});

test('the rules are standard JSON Schema: anyOf of required, not required, if/then, dependentRequired', () => {
  expect(requestSchema(spec('utilities/phish-check')).allOf).toEqual([{ anyOf: [{ required: ['domain'] }, { required: ['url'] }] }]);
  const museum = requestSchema(spec('art-design/museum-b')).allOf as object[];
  expect(museum[1]).toEqual({ not: { anyOf: [{ required: ['mode', 'q'] }, { required: ['mode', 'id'] }, { required: ['q', 'id'] }] } });
  const gita = requestSchema(spec('books/gita')).allOf as object[];
  expect(gita).toContainEqual({ dependentRequired: { chapter: ['verse'] } });
  expect(gita).toContainEqual({ if: { properties: { mode: { const: 'serial' } }, required: ['mode'] }, then: { required: ['serial'] } });
  // A condition its default satisfies holds when the param is absent: scene-finder's action defaults to search.
  expect(requestSchema(spec('anime/scene-finder')).allOf).toEqual([
    { if: { properties: { action: { const: 'search' } } }, then: { required: ['url'] } },
  ]);
});

test('a url with a pattern is told by its hosts first: a link to another site is not "a post without an id"', () => {
  expect(engineSays(spec('downloaders/dl-e'), { url: 'https://example.com/NASA' })).toBe(
    'Invalid value for url: must be an http(s) URL on twitter.com, www.twitter.com, mobile.twitter.com, x.com, www.x.com, mobile.x.com',
  );
  expect(engineSays(spec('finance/p2p'), { asset: 'US DT' })).toBe('Invalid value for asset: must be 2 to 10 letters, such as USDT or BTC');
});

test("a match rule is a pattern under the rule's condition, told in default words without a message", () => {
  const e = { ...spec('anime/anime-images-b'), rules: [{ when: { action: 'image-by-id' }, match: { id: '^[0-9a-f]{24}$' } }] };
  expect(requestSchema(e).allOf).toEqual([
    {
      if: { properties: { action: { const: 'image-by-id' } }, required: ['action'] },
      then: { properties: { id: { pattern: '^[0-9a-f]{24}$' } } },
    },
  ]);
  expect(engineSays(e, { action: 'image-by-id', id: 'user-1234' })).toBe(
    'Invalid value for id: must be in the form ^[0-9a-f]{24}$ with action=image-by-id',
  );
  expect(engineSays(e, { id: 'user-1234' })).toBe('ok');
});

test('every endpoint has a schema a standard validator compiles', () => {
  for (const e of catalog.endpoints) expect(() => plain.compile(requestSchema(e))).not.toThrow();
});

// Small endpoints of the tests' own, so that every keyword and every form of rule is shown whole.
const own = (params: Record<string, Omit<ParamSpec, 'description'>>, rules?: Rule[]): EndpointSpec => ({
  ...spec('books/gita'),
  params: Object.fromEntries(Object.entries(params).map(([n, p]) => [n, { description: n, ...p }])),
  rules,
});

describe('the schema of each kind of parameter', () => {
  test('every keyword a param declares is carried; text gets its maxLength, 2048 by default; other types none', () => {
    const e = own({
      s: { type: 'string', required: true, enum: ['ab', 'cd'], minLength: 2, pattern: '^[a-z]+$', default: 'ab' },
      u: { type: 'string', format: 'url', hosts: ['example.com'], maxLength: 300 },
      n: { type: 'integer', minimum: 1, maximum: 9 },
      x: { type: 'number' },
      b: { type: 'boolean', default: false },
      f: { type: 'file' },
      t: { type: 'file', orText: true },
      l: { type: 'file', orText: true, maxLength: 10 },
    });
    expect(requestSchema(e)).toEqual({
      type: 'object',
      properties: {
        s: { type: 'string', enum: ['ab', 'cd'], minLength: 2, pattern: '^[a-z]+$', default: 'ab', maxLength: 2048 },
        u: { type: 'string', format: 'url', hosts: ['example.com'], maxLength: 300 },
        n: { type: 'integer', minimum: 1, maximum: 9 },
        x: { type: 'number' },
        b: { type: 'boolean', default: false },
        f: { type: 'string', format: 'binary' },
        t: { type: 'string', maxLength: 2048 },
        l: { type: 'string', maxLength: 10 },
      },
      required: ['s'],
    });
  });

  test('patternWords: the hint after "must be", a hint that starts with "must" as it is, or the pattern', () => {
    expect(patternWords({ type: 'string', description: '', pattern: '^a$', patternHint: 'an a' })).toBe('must be an a');
    expect(patternWords({ type: 'string', description: '', pattern: '^a$', patternHint: 'must say a' })).toBe('must say a');
    expect(patternWords({ type: 'string', description: '', pattern: '^a$', patternHint: 'mustard' })).toBe('must be mustard');
    expect(patternWords({ type: 'string', description: '', pattern: '^a$' })).toBe('must be in the form ^a$');
  });
});

describe('the schema of each kind of rule', () => {
  const p = { type: 'string' } as const;

  test('anyOf: one name is required outright, several are an anyOf', () => {
    const e = own({ a: p, b: p }, [{ anyOf: ['a'] }, { anyOf: ['a', 'b'] }]);
    expect(requestSchema(e).allOf).toEqual([{ required: ['a'] }, { anyOf: [{ required: ['a'] }, { required: ['b'] }] }]);
  });

  test('exclusive: two names are one pair, more are an anyOf of every pair', () => {
    expect(requestSchema(own({ a: p, b: p }, [{ exclusive: ['a', 'b'] }])).allOf).toEqual([{ not: { required: ['a', 'b'] } }]);
    expect(requestSchema(own({ a: p, b: p, c: p }, [{ exclusive: ['a', 'b', 'c'] }])).allOf).toEqual([
      { not: { anyOf: [{ required: ['a', 'b'] }, { required: ['a', 'c'] }, { required: ['b', 'c'] }] } },
    ]);
  });

  test('given: a plain requirement of one param is dependentRequired; anything more is if/then', () => {
    const e = own({ g: p, h: p, a: p, b: p }, [
      { given: ['g'], require: ['a', 'b'] },
      { given: ['g', 'h'], require: ['a'] },
      { given: ['g'], forbid: ['a'] },
      { given: ['g'], forbid: ['a', 'b'] },
      { given: ['g'], match: { a: '^x$' } },
      { given: ['g'], require: ['a'], forbid: ['b'] },
    ]);
    expect(requestSchema(e).allOf).toEqual([
      { dependentRequired: { g: ['a', 'b'] } },
      { if: { required: ['g', 'h'] }, then: { required: ['a'] } },
      { if: { required: ['g'] }, then: { not: { required: ['a'] } } },
      { if: { required: ['g'] }, then: { not: { anyOf: [{ required: ['a'] }, { required: ['b'] }] } } },
      { if: { required: ['g'] }, then: { properties: { a: { pattern: '^x$' } } } },
      { if: { required: ['g'] }, then: { allOf: [{ required: ['a'] }, { not: { required: ['b'] } }] } },
    ]);
  });

  test('when and unless: the condition is an if, its effect a then or an else; a list of values is an enum', () => {
    const e = own({ m: p, n: { type: 'integer' }, a: p }, [
      { when: { m: 'x' }, require: ['a'] },
      { when: { m: ['x', 'y'], n: 2 }, forbid: ['a'] },
      { unless: { m: 'x' }, forbid: ['a'] },
    ]);
    expect(requestSchema(e).allOf).toEqual([
      { if: { properties: { m: { const: 'x' } }, required: ['m'] }, then: { required: ['a'] } },
      { if: { properties: { m: { enum: ['x', 'y'] }, n: { const: 2 } }, required: ['m', 'n'] }, then: { not: { required: ['a'] } } },
      { if: { properties: { m: { const: 'x' } }, required: ['m'] }, else: { not: { required: ['a'] } } },
    ]);
  });

  test('a condition its default satisfies holds when the param is absent; one its default fails does not', () => {
    const e = own({ m: { type: 'string', default: 'x' }, a: p }, [
      { when: { m: ['x', 'y'] }, require: ['a'] },
      { when: { m: 'y' }, require: ['a'] },
    ]);
    expect(requestSchema(e).allOf).toEqual([
      { if: { properties: { m: { enum: ['x', 'y'] } } }, then: { required: ['a'] } },
      { if: { properties: { m: { const: 'y' } }, required: ['m'] }, then: { required: ['a'] } },
    ]);
  });

  test("requiredWhen comes first, as a require rule, then the endpoint's rules in order", () => {
    const e = own({ m: p, a: { type: 'string', requiredWhen: { m: 'x' } }, b: p }, [{ anyOf: ['a', 'b'] }]);
    expect(rulesOf(e)).toEqual([{ when: { m: 'x' }, require: ['a'] }, { anyOf: ['a', 'b'] }]);
    expect(requestSchema(e).allOf).toEqual([
      { if: { properties: { m: { const: 'x' } }, required: ['m'] }, then: { required: ['a'] } },
      { anyOf: [{ required: ['a'] }, { required: ['b'] }] },
    ]);
  });

  test('an endpoint without rules has no allOf', () => {
    expect(requestSchema(own({ a: p }))).toEqual({ type: 'object', properties: { a: { type: 'string', maxLength: 2048 } }, required: [] });
    expect(requestSchema(own({ a: p }, []))).not.toHaveProperty('allOf');
  });
});
