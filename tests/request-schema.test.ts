// requestSchema(spec): the JSON Schema of an endpoint's parameters, rules included, is what the validator
// enforces: a standard 2020-12 validator given the exported schema agrees with compileValidator on
// requests built for each rule, and each broken rule is told in its own words.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { ApiError } from '../engine/errors.js';
import { loadCatalog, type EndpointSpec } from '../engine/catalog.js';
import { loadConfig } from '../engine/config.js';
import { requestSchema } from '../engine/request-schema.js';
import { compileValidator } from '../engine/validate.js';

const catalog = loadCatalog(loadConfig({}).catalogDir);
const spec = (id: string) => catalog.endpoints.find((e) => e.id === id)!;

// A plain validator that knows only the documented custom keywords, to prove the schema stands alone.
const plain = new Ajv2020({ strict: false });
plain.addKeyword({ keyword: 'hosts', type: 'string' });
for (const f of ['url', 'domain', 'ip']) plain.addFormat(f, true);

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
  expect(requestSchema(spec('anime/scene-finder')).allOf).toEqual([{ if: { properties: { action: { const: 'search' } } }, then: { required: ['url'] } }]);
});

test('every endpoint has a schema a standard validator compiles', () => {
  for (const e of catalog.endpoints) expect(() => plain.compile(requestSchema(e))).not.toThrow();
});
