// video/fantasy-saga-data against a loopback An API of Ice and Fire: bare-array pages with paging only in
// the Link header, pageSize capped at 50, "" and [""] normalised, items by id, the daily-limit 403 that
// makes us stop calling, error mapping, cache and coalescing.
import { upstreamSuite, withUpstreams } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { expectUpstreamTimeout } from '../../helpers/short-timeout.js';
import fantasySagaData from '../../../adapters/video/fantasy-saga-data.js';

const link = (base: string, resource: string, size: number, rels: Record<string, number>) =>
  Object.entries(rels)
    .map(([rel, page]) => `<${base}/${resource}?page=${page}&pageSize=${size}>; rel="${rel}"`)
    .join(', ');

const s = upstreamSuite({
  endpoint: 'video/fantasy-saga-data',
  upstreams: {
    iceandfire: {
      routes: {
        'GET /characters': (r) => {
          const page = Number(r.query.get('page'));
          const size = Number(r.query.get('pageSize'));
          const rels: Record<string, number> =
            page >= 214 ? { prev: page - 1, first: 1, last: 214 } : { next: page + 1, first: 1, last: 214 };
          return {
            json: s.fixture('characters-page.json'),
            headers: { link: link('https://www.anapioficeandfire.com/api', 'characters', size, rels) },
            delayMs: page === 9 ? 200 : 0,
          };
        },
        'GET /books': () => ({
          json: [
            {
              url: 'https://www.anapioficeandfire.com/api/books/1',
              name: 'A Game of Thrones',
              isbn: '978-0553103540',
              mediaType: 'Hardcover',
            },
          ],
        }),
        'GET /houses/362': () => ({ json: s.fixture('house-362.json') }),
        'GET /:resource/:id': () => ({ status: 404, body: Buffer.alloc(0) }),
      },
    },
  },
});
const { get } = s;

describe('lists', () => {
  test('paging comes from the Link header; empty values become null and []', async () => {
    const res = await get({ resource: 'characters', page: 2, pageSize: 2 });
    expectAnswer(res, 'iceandfire');
    expect(Object.fromEntries(s.fake.calls[0].query)).toEqual({ page: '2', pageSize: '2' });
    const { items, ...paging } = res.body.data;
    expect(paging).toEqual({ page: 2, pageSize: 2, next_page: 3, last_page: 214 });
    expect(items[0]).toMatchObject({ id: 583, name: 'Jon Snow', died: null, father: null, aliases: ['Lord Snow', "Ned Stark's Bastard"] });
    expect(items[1]).toMatchObject({ id: 584, name: null, culture: null, titles: [], tvSeries: [], playedBy: [], aliases: ['The Widow'] });
    expectMatchesSchema('video/fantasy-saga-data', res.body.data);
  });

  test('defaults page 1 and pageSize 10; on the last page next_page is null', async () => {
    const first = await get({ resource: 'characters' });
    expect(Object.fromEntries(s.fake.calls[0].query)).toEqual({ page: '1', pageSize: '10' });
    expect(first.body.data).toMatchObject({ page: 1, pageSize: 10, next_page: 2 });
    const last = await get({ resource: 'characters', page: 214 });
    expect(last.body.data).toMatchObject({ page: 214, next_page: null, last_page: 214 });
  });

  test('no Link header: next_page and last_page are null', async () => {
    const res = await get({ resource: 'books' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      items: [
        {
          id: 1,
          url: 'https://www.anapioficeandfire.com/api/books/1',
          name: 'A Game of Thrones',
          isbn: '978-0553103540',
          mediaType: 'Hardcover',
        },
      ],
      page: 1,
      pageSize: 10,
      next_page: null,
      last_page: null,
    });
    expectMatchesSchema('video/fantasy-saga-data', res.body.data);
  });
});

describe('by id', () => {
  test('the item itself, normalised, with its id', async () => {
    const res = await get({ resource: 'houses', id: 362 });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: 362,
      name: 'House Stark of Winterfell',
      heir: null,
      diedOut: null,
      cadetBranches: [],
      words: 'Winter is Coming',
    });
    expectMatchesSchema('video/fantasy-saga-data', res.body.data);
    expect(s.fake.calls[0].path).toBe('/houses/362');
    expect([...s.fake.calls[0].query.keys()]).toEqual([]);
  });

  test('an unknown id (empty 404) → 404', async () => {
    const res = await get({ resource: 'houses', id: 99999 });
    expectFailure(res, { status: 404, code: 'not_found' });
    expect(res.body.error).toBe('No house with id 99999');
  });
});

describe('bad input', () => {
  s.badInputTests([
    [{ resource: 'dragons' }, 'Invalid value for resource: must be one of books, characters, houses'],
    [{ resource: 'books', pageSize: 51 }, 'Invalid value for pageSize: must be between 1 and 50'],
    [{ resource: 'books', page: 0 }, 'Invalid value for page: must be between 1 and 100000'],
    [{ resource: 'books', id: 'one' }, 'Invalid value for id: must be an integer'],
    [{ page: 2 }, 'Missing required parameter: resource'],
  ]);
});

describe('upstream failures', () => {
  s.failureTests({ resource: 'houses', page: 3 });

  test('its 500 body (a JSON string) → 502', async () => {
    s.failWith = { status: 500, json: 'Something went terribly wrong! Please try again later.' };
    expectFailure(await get({ resource: 'houses', page: 4 }), { status: 502, code: 'upstream_failed' });
  });

  test('a list that is not an array → 502', async () => {
    s.failWith = { json: { characters: [] } };
    expectFailure(await get({ resource: 'characters', page: 5 }), { status: 502, code: 'upstream_changed' });
  });

  test('the daily-limit 403 → 503 with Retry-After, and no more calls for a while', async () => {
    const limited = { iceandfire: { fallback: () => ({ status: 403, text: '' }) } };
    // The pause is the upstream's policy (catalog/upstreams.yaml), on for this world.
    await withUpstreams({ endpoint: 'video/fantasy-saga-data', upstreams: limited, env: { UPSTREAM_POLICIES: 'on' } }, async (t2) => {
      const blocked = t2.fake;
      const first = await t2.get({ resource: 'books' });
      expectFailure(first, { status: 503, code: 'upstream_busy' });
      expect(Number(first.headers['retry-after'])).toBe(3600);
      const second = await t2.get({ resource: 'houses', id: 1 });
      expectFailure(second, { status: 503, code: 'upstream_busy' });
      expect(blocked.calls).toHaveLength(1);
    });
  });

  test('slower than the upstream timeout → 504', async () => {
    s.failWith = { json: s.fixture('characters-page.json'), delayMs: 2000 };
    await expectUpstreamTimeout((ctx) => fantasySagaData({ resource: 'characters', page: 1, pageSize: 10 }, ctx), 'iceandfire', s.fake.url);
  });
});

s.cacheTests({ hit: { resource: 'characters', page: 8 }, coalesced: { resource: 'characters', page: 9 } });
