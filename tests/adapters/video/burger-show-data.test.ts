// video/burger-show-data against a loopback Bob's Burgers API: only known query keys forwarded, the
// capital-O OrderBy (with a local sort when the upstream treats it as a filter), ids in the path, every
// error a 500 (→ 404 with ids, else 502), cache and coalescing.
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { expectUpstreamTimeout } from '../../helpers/short-timeout.js';
import burgerShowData from '../../../adapters/video/burger-show-data.js';

const names = (items: Array<{ name: string }>) => items.map((i) => i.name);

/** Whether the fake treats OrderBy as an exact-match filter (the quirk to absorb). */
let orderByFilters = false;
const s = upstreamSuite({
  endpoint: 'video/burger-show-data',
  upstreams: {
    bobsburgers: {
      routes: {
        'GET /characters': (r) => {
          if (orderByFilters && r.query.has('OrderBy')) return { json: [] };
          let all = s.fixture('characters.json') as Array<Record<string, unknown>>;
          const by = r.query.get('sortBy');
          if (by) all = [...all].sort((a, b) => String(a[by]).localeCompare(String(b[by])));
          if (r.query.get('OrderBy') === 'desc') all.reverse();
          const skip = Number(r.query.get('skip') ?? 0);
          const limit = Number(r.query.get('limit') ?? 600);
          return { json: all.slice(skip, skip + limit), delayMs: skip === 2 ? 200 : 0 };
        },
        'GET /burgerOfTheDay/1,2': () => ({ json: s.fixture('burgers-1-2.json') }),
        'GET /characters/1': () => ({ json: s.fixture('characters.json')[0] }),
        'GET /:resource/:id': (_r, p) => ({
          status: 500,
          json: { error: `Error while retreiving data with id ${p.id} in route ${p.resource}.` },
        }),
      },
    },
  },
});
beforeEach(() => {
  orderByFilters = false;
});
const { get } = s;

describe('lists', () => {
  test('everything by default; skip 0 and limit null reported', async () => {
    const res = await get({ resource: 'characters' });
    expectAnswer(res, 'bobsburgers');
    expect(res.body.data).toEqual({ items: s.fixture('characters.json'), skip: 0, limit: null });
    expectMatchesSchema('video/burger-show-data', res.body.data);
    expect([...s.fake.calls[0].query.keys()]).toEqual([]);
  });

  test('sortBy, OrderBy (capital O), limit and skip forwarded; other keys never are', async () => {
    const res = await get({
      resource: 'characters',
      sortBy: 'name',
      orderBy: 'desc',
      limit: 2,
      skip: 1,
      name: 'Bob',
      occupation: 'Student',
    });
    expect(res.status).toBe(200);
    expect(Object.fromEntries(s.fake.calls[0].query)).toEqual({ sortBy: 'name', OrderBy: 'desc', limit: '2', skip: '1' });
    expect(names(res.body.data.items)).toEqual(['Linda Belcher', 'Bob Belcher']);
    expect(res.body.data).toMatchObject({ skip: 1, limit: 2 });
    expectMatchesSchema('video/burger-show-data', res.body.data);
  });

  test('when OrderBy acts as a filter and empties the answer, all items are sorted and sliced here', async () => {
    orderByFilters = true;
    const res = await get({ resource: 'characters', sortBy: 'name', orderBy: 'desc', limit: 2 });
    expect(res.status).toBe(200);
    expect(names(res.body.data.items)).toEqual(['Tina Belcher', 'Linda Belcher']);
    expect(s.fake.calls).toHaveLength(2);
    expect([...s.fake.calls[1].query.keys()]).toEqual([]);
    expectMatchesSchema('video/burger-show-data', res.body.data);
  });

  test('the local sort defaults to id and honours skip', async () => {
    orderByFilters = true;
    const res = await get({ resource: 'characters', orderBy: 'desc', skip: 1 });
    expect(res.body.data.items.map((c: { id: number }) => c.id)).toEqual([2, 1]);
  });
});

describe('ids', () => {
  test('one id: the item itself', async () => {
    const res = await get({ resource: 'characters', id: '1' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(s.fixture('characters.json')[0]);
    expectMatchesSchema('video/burger-show-data', res.body.data);
  });

  test('several ids: {items}, in the path with the case-sensitive resource', async () => {
    const res = await get({ resource: 'burgerOfTheDay', id: '1,2' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ items: s.fixture('burgers-1-2.json') });
    expectMatchesSchema('video/burger-show-data', res.body.data);
    expect(s.fake.calls[0].path).toBe('/burgerOfTheDay/1,2');
  });

  test('its 500 for an unknown id → 404', async () => {
    const res = await get({ resource: 'episodes', id: '9999' });
    expectFailure(res, { status: 404, code: 'not_found' });
    expect(res.body.error).toBe('No episodes with id 9999');
  });
});

describe('bad input', () => {
  s.badInputTests([
    [
      { resource: 'Characters' },
      'Invalid value for resource: must be one of characters, episodes, storeNextDoor, pestControlTruck, endCreditsSequence, burgerOfTheDay',
    ],
    [{ resource: 'characters', id: '1, 2' }, 'Invalid value for id: must be a numeric id, or up to 50 comma-separated ids such as 1,2,3'],
    [{ resource: 'characters', sortBy: 'name;drop' }, 'Invalid value for sortBy: must be a property name such as name or id'],
    [{ resource: 'characters', orderBy: 'up' }, 'Invalid value for orderBy: must be one of asc, desc'],
    [{ resource: 'characters', limit: 601 }, 'Invalid value for limit: must be between 1 and 600'],
    [{ resource: 'characters', skip: -1 }, 'Invalid value for skip: must be between 0 and 100000'],
  ]);
});

describe('upstream failures', () => {
  s.failureTests({ resource: 'episodes', skip: 5 });

  test('its 500 for a list → 502', async () => {
    s.failWith = { status: 500, json: { error: 'Error while retreiving data in route episodes.' } };
    expectFailure(await get({ resource: 'episodes', skip: 6 }), { status: 502, code: 'upstream_failed' });
  });

  test('a list that is not an array → 502; one id that is not an object → 502', async () => {
    s.failWith = { json: { characters: [] } };
    expectFailure(await get({ resource: 'characters', skip: 7 }), { status: 502, code: 'upstream_changed' });
    s.failWith = { json: [1, 2] };
    expectFailure(await get({ resource: 'characters', id: '3' }), { status: 502, code: 'upstream_changed' });
  });

  test('slower than the upstream timeout → 504', async () => {
    s.failWith = { json: s.fixture('characters.json'), delayMs: 2000 };
    await expectUpstreamTimeout((ctx) => burgerShowData({ resource: 'characters' }, ctx), 'bobsburgers', s.fake.url);
  });
});

s.cacheTests({ hit: { resource: 'characters', skip: 1 }, coalesced: { resource: 'characters', skip: 2 } });
