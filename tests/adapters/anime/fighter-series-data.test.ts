// anime/fighter-series-data against a loopback Dragon Ball API: upstream paging without filters, a bare
// array of all matches with any filter (paged here), items by id, per-resource filters, error mapping,
// cache and coalescing.
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { expectUpstreamTimeout } from '../../helpers/short-timeout.js';
import fighterSeriesData from '../../../adapters/anime/fighter-series-data.js';

const s = upstreamSuite({
  endpoint: 'anime/fighter-series-data',
  upstreams: {
    dragonball: {
      routes: {
        'GET /characters': (r) => {
          if (r.query.get('race') === 'Saiyan') return { json: s.fixture('characters-saiyan.json') };
          if (r.query.get('name') === 'Nobody') return { json: [] };
          return { json: s.fixture('characters-page.json'), delayMs: r.query.get('page') === '9' ? 200 : 0 };
        },
        'GET /planets': () => ({ json: s.fixture('planets-destroyed.json') }),
        'GET /characters/3': () => ({ json: s.fixture('character-3.json') }),
        'GET /characters/:id': () => ({ status: 404, json: { message: 'Character not found', error: 'Not Found', statusCode: 404 } }),
      },
    },
  },
});
const { get } = s;

describe('lists', () => {
  test('without a filter the upstream pages: page and limit are sent, meta is passed on', async () => {
    const res = await get({ resource: 'characters', limit: 2 });
    expectAnswer(res, 'dragonball');
    expect(res.body.data).toEqual({ items: s.fixture('characters-page.json').items, page: 1, limit: 2, total: 58, totalPages: 29 });
    expectMatchesSchema('anime/fighter-series-data', res.body.data);
    expect(Object.fromEntries(s.fake.calls[0].query)).toEqual({ page: '1', limit: '2' });
  });

  test('with a filter the bare array of all matches is paged here', async () => {
    const res = await get({ resource: 'characters', race: 'Saiyan', page: 2, limit: 2 });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ items: [s.fixture('characters-saiyan.json')[2]], page: 2, limit: 2, total: 3, totalPages: 2 });
    expectMatchesSchema('anime/fighter-series-data', res.body.data);
    // page and limit are not sent: the upstream ignores them once a filter is given.
    expect(Object.fromEntries(s.fake.calls[0].query)).toEqual({ race: 'Saiyan' });
  });

  test('every character filter is forwarded; no match is an empty page', async () => {
    const res = await get({ resource: 'characters', name: 'Nobody', gender: 'Female', affiliation: 'Z Fighter' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ items: [], page: 1, limit: 10, total: 0, totalPages: 0 });
    expectMatchesSchema('anime/fighter-series-data', res.body.data);
    expect(Object.fromEntries(s.fake.calls[0].query)).toEqual({ name: 'Nobody', gender: 'Female', affiliation: 'Z Fighter' });
  });

  test('planets with isDestroyed', async () => {
    const res = await get({ resource: 'planets', isDestroyed: true });
    expect(res.status).toBe(200);
    expect(res.body.data.items.map((p: { name: string }) => p.name)).toEqual(['Vegeta', 'Namek']);
    expect(res.body.data.total).toBe(2);
    expectMatchesSchema('anime/fighter-series-data', res.body.data);
    expect(s.fake.calls[0].path).toBe('/planets');
    expect(s.fake.calls[0].query.get('isDestroyed')).toBe('true');
  });
});

describe('by id', () => {
  test('the item itself, with origin planet and transformations', async () => {
    const res = await get({ resource: 'characters', id: 3 });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(s.fixture('character-3.json'));
    expectMatchesSchema('anime/fighter-series-data', res.body.data);
    expect(s.fake.calls[0].path).toBe('/characters/3');
  });

  test('an unknown id is a 404', async () => {
    const res = await get({ resource: 'characters', id: 9999 });
    expectFailure(res, { status: 404, code: 'not_found' });
    expect(res.body.error).toBe('No characters with id 9999');
  });

  test('an empty object for an id is a 404 too', async () => {
    s.failWith = { json: {} };
    expectFailure(await get({ resource: 'planets', id: 77 }), { status: 404, code: 'not_found' });
  });
});

describe('bad input', () => {
  s.badInputTests([
    [{ resource: 'sagas' }, 'Invalid value for resource: must be one of characters, planets'],
    [{ resource: 'planets', gender: 'Male' }, 'Invalid value for gender: is a filter of resource=characters only'],
    [{ resource: 'characters', isDestroyed: true }, 'Invalid value for isDestroyed: is a filter of resource=planets only'],
    [{ resource: 'characters', gender: 'Robot' }, 'Invalid value for gender: must be one of Male, Female, Unknown'],
    [{ resource: 'planets', isDestroyed: 'maybe' }, 'Invalid value for isDestroyed: must be true or false'],
    [{ resource: 'characters', id: 'goku' }, 'Invalid value for id: must be an integer'],
    [{ resource: 'characters', limit: 0 }, 'Invalid value for limit: must be between 1 and 100'],
  ]);
});

describe('upstream failures', () => {
  s.failureTests({ resource: 'characters', page: 3 });

  test('neither an array nor a page object → 502', async () => {
    s.failWith = { json: { data: 'nope' } };
    expectFailure(await get({ resource: 'characters', page: 4 }), { status: 502, code: 'upstream_changed' });
  });

  test('slower than the upstream timeout → 504', async () => {
    s.failWith = { json: s.fixture('characters-page.json'), delayMs: 2000 };
    await expectUpstreamTimeout((ctx) => fighterSeriesData({ resource: 'characters', page: 1, limit: 10 }, ctx), 'dragonball', s.fake.url);
  });
});

s.cacheTests({ hit: { resource: 'characters', page: 8 }, coalesced: { resource: 'characters', page: 9 } });
