// quotes/wizard-series against a loopback HP-API: list routes, houses checked locally (the upstream
// answers [] for an unknown house), /character/{id} unwrapped from its array, errors, cache, coalescing.
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { expectUpstreamTimeout } from '../../helpers/short-timeout.js';
import wizardSeries from '../../../adapters/quotes/wizard-series.js';

const HARRY = '9e3f7ce4-b9a7-4244-b709-dae5c1f1d4a8';

const s = upstreamSuite({
  endpoint: 'quotes/wizard-series',
  upstreams: {
    'hp-api': {
      routes: {
        'GET /characters': () => ({ json: s.fixture('characters.json'), delayMs: 150 }),
        'GET /characters/students': () => ({ json: s.fixture('characters.json') }),
        'GET /characters/staff': () => ({ json: [] }),
        'GET /spells': () => ({ json: s.fixture('spells.json') }),
        'GET /characters/house/:house': (_r, p) => ({ json: p.house === 'gryffindor' ? s.fixture('house-gryffindor.json') : [] }),
        [`GET /character/${HARRY}`]: () => ({ json: s.fixture('character.json') }),
        'GET /character/:id': () => ({ json: [] }),
      },
      fallback: () => ({ status: 404, text: 'Cannot GET' }),
    },
  },
});
const { get } = s;

describe('resources', () => {
  test.each([
    ['characters', '/characters', 2],
    ['students', '/characters/students', 2],
    ['staff', '/characters/staff', 0],
    ['spells', '/spells', 2],
  ])('%s → %s as {resource, items, count}', async (resource, path, count) => {
    const res = await get({ resource });
    expectAnswer(res, 'hp-api');
    expect(res.body.data).toMatchObject({ resource, count });
    expect(res.body.data.items).toHaveLength(count);
    expectMatchesSchema('quotes/wizard-series', res.body.data);
    expect(s.fake.calls[0].path).toBe(path);
  });

  test.each([[{ resource: 'house/Gryffindor' }], [{ resource: 'house', id: 'gryffindor' }]])(
    'a house, inline or in id: %j',
    async (query) => {
      const res = await get(query);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ house: 'gryffindor', items: s.fixture('house-gryffindor.json'), count: 1 });
      expectMatchesSchema('quotes/wizard-series', res.body.data);
      expect(s.fake.calls[0].path).toBe('/characters/house/gryffindor');
    },
  );

  test.each([[{ resource: `character/${HARRY}` }], [{ resource: 'character', id: HARRY }], [{ resource: 'characters', id: HARRY }]])(
    'one character is unwrapped from the upstream array: %j',
    async (query) => {
      const res = await get(query);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(s.fixture('character.json')[0]);
      expectMatchesSchema('quotes/wizard-series', res.body.data);
    },
  );

  test('an unknown character (upstream [] ) is a 404', async () => {
    const res = await get({ resource: 'character', id: '00000000-0000-4000-8000-000000000000' });
    expectFailure(res, { status: 404, code: 'not_found' });
    expect(res.body.error).toBe('No character with id 00000000-0000-4000-8000-000000000000');
  });
});

describe('bad input, refused before any upstream call', () => {
  test.each([
    [{ resource: 'house', id: 'durmstrang' }, 'Invalid value for id: must be a house: gryffindor, slytherin, hufflepuff, ravenclaw'],
    [{ resource: 'house/hogwarts' }, 'Invalid value for id: must be a house: gryffindor, slytherin, hufflepuff, ravenclaw'],
    [{ resource: 'house' }, 'Missing required parameter: id'],
    [{ resource: 'character', id: 'harry' }, 'Invalid value for id: must be a character UUID such as 9e3f7ce4-b9a7-4244-b709-dae5c1f1d4a8'],
    [{ resource: 'house/gryffindor', id: 'slytherin' }, 'Invalid value for id: does not match the house named in resource (gryffindor)'],
    [{ resource: 'spells', id: 'gryffindor' }, 'Invalid value for id: is used only with resource house or character, not spells'],
    [
      { resource: 'wands' },
      'Invalid value for resource: must be one of characters, students, staff, spells, house/{house}, character/{id}',
    ],
    [{ resource: 'spells', id: 'a b' }, 'Invalid value for id: must be a character UUID or a house name such as gryffindor'],
  ])('%j → 400', async (query, message) => {
    const res = await get(query);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: message, code: 'bad_input' });
    expect(s.fake.calls).toHaveLength(0);
  });
});

describe('upstream failures', () => {
  beforeEach(() => s.freshApp());
  s.failureTests({ resource: 'students' });

  test('an object where a list belongs is malformed → 502', async () => {
    s.failWith = { json: { message: 'oops' } };
    expectFailure(await get({ resource: 'staff' }), { status: 502, code: 'upstream_changed' });
  });

  test('slower than the upstream timeout → 504', async () => {
    s.failWith = { json: [], delayMs: 2000 };
    await expectUpstreamTimeout((ctx) => wizardSeries({ resource: 'spells' }, ctx), 'hp-api', s.fake.url);
  });
});

s.cacheTests({ hit: { resource: 'spells' }, coalesced: { resource: 'characters' } });
