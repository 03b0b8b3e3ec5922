// anime/ninja-series-data against a loopback Dattebayo: lists keyed by collection name, ids in the path
// (one → bare object, several → array), `total` unusable with `name`, error mapping, cache and coalescing.
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { expectUpstreamTimeout } from '../../helpers/short-timeout.js';
import ninjaSeriesData from '../../../adapters/anime/ninja-series-data.js';

const s = upstreamSuite({
  endpoint: 'anime/ninja-series-data',
  upstreams: {
    dattebayo: {
      routes: {
        'GET /clans': (r) =>
          r.query.get('page') === '7' ? { json: s.fixture('clans-page.json'), delayMs: 200 } : { json: s.fixture('clans-page.json') },
        'GET /kekkei-genkai': () => ({ json: s.fixture('kekkei-genkai-filtered.json') }),
        'GET /characters/1': () => ({ json: s.fixture('character-1.json') }),
        'GET /characters/1,2': () => ({ json: s.fixture('characters-1-2.json') }),
        'GET /characters/:id': () => ({ status: 404, text: 'Character not found' }),
        'GET /teams/5,6': () => ({ json: [] }),
      },
    },
  },
});
const { get } = s;

describe('lists', () => {
  test('a page of a collection, with the upstream defaults page 1 and limit 20 sent', async () => {
    const res = await get({ resource: 'clans' });
    expectAnswer(res, 'dattebayo');
    expect(res.body.data).toEqual({ items: s.fixture('clans-page.json').clans, page: 1, limit: 20, total: 58 });
    expectMatchesSchema('anime/ninja-series-data', res.body.data);
    expect(s.fake.calls[0].path).toBe('/clans');
    expect(Object.fromEntries(s.fake.calls[0].query)).toEqual({ page: '1', limit: '20' });
  });

  test('a hyphenated collection is read from its own key; with name the total is unknown (null)', async () => {
    const res = await get({ resource: 'kekkei-genkai', name: 'byaku', page: 1, limit: 5 });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ items: [{ id: 3, name: 'Byakugan', characters: [1304, 1305, 1322] }], page: 1, limit: 5, total: null });
    expectMatchesSchema('anime/ninja-series-data', res.body.data);
    expect(Object.fromEntries(s.fake.calls[0].query)).toEqual({ page: '1', limit: '5', name: 'byaku' });
  });

  test.each(['characters', 'clans', 'villages', 'kekkei-genkai', 'tailed-beasts', 'teams', 'akatsuki', 'kara'])(
    'resource %s reaches its own path',
    async (resource) => {
      s.failWith = { json: { [resource]: [{ id: 1, name: 'Sample' }], currentPage: 2, pageSize: 1, total: 9 } };
      const res = await get({ resource, page: 2, limit: 1 });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ items: [{ id: 1, name: 'Sample' }], page: 2, limit: 1, total: 9 });
      expectMatchesSchema('anime/ninja-series-data', res.body.data);
      expect(s.fake.calls[0].path).toBe(`/${resource}`);
    },
  );
});

describe('ids', () => {
  test('one id: the bare object becomes one item', async () => {
    const res = await get({ resource: 'characters', ids: '1' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ items: [s.fixture('character-1.json')] });
    expectMatchesSchema('anime/ninja-series-data', res.body.data);
  });

  test('several ids go in the path, comma-separated', async () => {
    const res = await get({ resource: 'characters', ids: '1,2' });
    expect(res.status).toBe(200);
    expect(res.body.data.items.map((c: { name: string }) => c.name)).toEqual(['Naruto Uzumaki', 'Sasuke Uchiha']);
    expectMatchesSchema('anime/ninja-series-data', res.body.data);
    expect(s.fake.calls[0].path).toBe('/characters/1,2');
  });

  test('an unknown id (plain-text 404 upstream) is a 404; no match among several ids too', async () => {
    const one = await get({ resource: 'characters', ids: '99999' });
    expectFailure(one, { status: 404, code: 'not_found' });
    expect(one.body.error).toBe('No characters found with id 99999');
    expectFailure(await get({ resource: 'teams', ids: '5,6' }), { status: 404, code: 'not_found' });
  });
});

describe('bad input', () => {
  test.each([
    [{ resource: 'hokages' }, /^Invalid value for resource: must be one of characters, clans/],
    [{ resource: 'clans', ids: '1;2' }, /^Invalid value for ids: must be up to 50 comma-separated numeric ids/],
    [{ resource: 'clans', limit: 101 }, /^Invalid value for limit: must be between 1 and 100/],
    [{ resource: 'clans', page: 0 }, /^Invalid value for page: must be between 1 and 100000/],
    [{ ids: '1' }, /^Missing required parameter: resource$/],
  ])('%j → 400', async (query, message) => {
    const res = await get(query);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
    expect(s.fake.calls).toHaveLength(0);
  });
});

describe('upstream failures', () => {
  s.failureTests({ resource: 'villages', page: 3 });

  test('a list without its collection key is malformed → 502', async () => {
    s.failWith = { json: { message: 'ok', currentPage: 1 } };
    expectFailure(await get({ resource: 'villages', page: 4 }), { status: 502, code: 'upstream_changed' });
  });

  test('slower than the upstream timeout → 504', async () => {
    s.failWith = { json: s.fixture('clans-page.json'), delayMs: 2000 };
    await expectUpstreamTimeout((ctx) => ninjaSeriesData({ resource: 'clans', page: 1, limit: 20 }, ctx), 'dattebayo', s.fake.url);
  });
});

s.cacheTests({ hit: { resource: 'clans', page: 5 }, coalesced: { resource: 'clans', page: 7 } });
