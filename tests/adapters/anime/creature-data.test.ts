// anime/creature-data against a loopback PokéAPI: resources checked against its real list, ids and names
// lower-cased with the trailing slash, limit/offset paging with the offsets of next/previous passed on,
// error mapping, cache and coalescing.
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { expectUpstreamTimeout } from '../../helpers/short-timeout.js';
import creatureData from '../../../adapters/anime/creature-data.js';

const s = upstreamSuite({
  endpoint: 'anime/creature-data',
  upstreams: {
    pokeapi: {
      routes: {
        'GET /pokemon/': (r) => ({ json: s.fixture('pokemon-list.json'), delayMs: r.query.get('offset') === '90' ? 200 : 0 }),
        'GET /machine/': () => ({ json: s.fixture('machine-list.json') }),
        'GET /pokemon/pikachu/': () => ({ json: s.fixture('pokemon-pikachu.json') }),
        'GET /:resource/:id/': () => ({ status: 404, text: 'Not Found' }),
      },
    },
  },
});
const { get } = s;

describe('lists', () => {
  test('a page with count and the offsets of next and previous', async () => {
    const res = await get({ resource: 'pokemon', limit: 2, offset: 20 });
    expectAnswer(res, 'pokeapi');
    expect(res.body.data).toEqual({
      items: s.fixture('pokemon-list.json').results,
      count: 1302,
      limit: 2,
      offset: 20,
      next_offset: 22,
      previous_offset: 18,
    });
    expectMatchesSchema('anime/creature-data', res.body.data);
    expect(s.fake.calls[0].path).toBe('/pokemon/');
    expect(Object.fromEntries(s.fake.calls[0].query)).toEqual({ limit: '2', offset: '20' });
  });

  test('limit defaults to 20 and offset to 0; unnamed resources list only urls; no previous → null', async () => {
    const res = await get({ resource: 'machine' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ count: 2102, limit: 20, offset: 0, next_offset: 20, previous_offset: null });
    expect(res.body.data.items[0]).toEqual({ url: 'https://pokeapi.co/api/v2/machine/1/' });
    expectMatchesSchema('anime/creature-data', res.body.data);
    expect(Object.fromEntries(s.fake.calls[0].query)).toEqual({ limit: '20', offset: '0' });
  });
});

describe('by id or name', () => {
  test('a name is lower-cased and the path ends with a slash', async () => {
    const res = await get({ resource: 'pokemon', id: 'Pikachu' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(s.fixture('pokemon-pikachu.json'));
    expectMatchesSchema('anime/creature-data', res.body.data);
    expect(s.fake.calls[0].path).toBe('/pokemon/pikachu/');
  });

  test('an unknown name (plain-text 404 upstream) → 404 naming it', async () => {
    const res = await get({ resource: 'ability', id: 'teleport-everything' });
    expectFailure(res, { status: 404, code: 'not_found' });
    expect(res.body.error).toBe('No ability with id or name "teleport-everything"');
  });
});

describe('bad input', () => {
  test('a resource outside the real list → 400 listing the valid values, without an upstream call', async () => {
    const res = await get({ resource: 'digimon' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(
      /^Invalid value for resource: must be one of ability, berry, berry-firmness, .*, pokemon, .*, version, version-group$/,
    );
    expect(res.body.error.split(', ')).toHaveLength(48);
    expect(s.fake.calls).toHaveLength(0);
  });

  s.badInputTests([
    [{ resource: 'Pokemon!' }, 'Invalid value for resource: must be a resource name such as pokemon or move'],
    [{ resource: 'pokemon', id: 'pika chu' }, 'Invalid value for id: must be a numeric id or a name such as pikachu'],
    [{ resource: 'pokemon', id: '../berry' }, 'Invalid value for id: must be a numeric id or a name such as pikachu'],
    [{ resource: 'pokemon', limit: 0 }, 'Invalid value for limit: must be between 1 and 1000'],
    [{ resource: 'pokemon', offset: -1 }, 'Invalid value for offset: must be between 0 and 100000'],
    [{ id: '25' }, 'Missing required parameter: resource'],
  ]);
});

describe('upstream failures', () => {
  s.failureTests({ resource: 'type', offset: 40 });

  test('a list without results → 502', async () => {
    s.failWith = { json: { count: 3 } };
    expectFailure(await get({ resource: 'type', offset: 60 }), { status: 502, code: 'upstream_changed' });
  });

  test('slower than the upstream timeout → 504', async () => {
    s.failWith = { json: s.fixture('pokemon-list.json'), delayMs: 2000 };
    await expectUpstreamTimeout((ctx) => creatureData({ resource: 'pokemon', limit: 20 }, ctx), 'pokeapi', s.fake.url);
  });
});

s.cacheTests({ hit: { resource: 'pokemon', offset: 80 }, coalesced: { resource: 'pokemon', offset: 90 } });
