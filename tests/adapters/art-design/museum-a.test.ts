// art-design/museum-a against a loopback Art Institute of Chicago API: search, one artwork, the first
// page of the collection, `fields` always sent, IIIF image URLs built from the answer's config; errors,
// cache and coalescing.
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { shortTimeoutCtx } from '../../helpers/short-timeout.js';
import museumA from '../../../adapters/art-design/museum-a.js';

const FIELDS = 'id,title,artist_display,date_display,image_id';
const JATTE = {
  id: 27992,
  title: 'A Sunday on La Grande Jatte — 1884',
  artist_display: 'Georges Seurat\nFrench, 1859-1891',
  date_display: '1884-86',
  image_id: '2d484387-2509-5e8e-2c43-22f9981972eb',
  image_url: 'https://www.artic.edu/iiif/2/2d484387-2509-5e8e-2c43-22f9981972eb/full/843,/0/default.jpg',
};

const s = upstreamSuite({
  endpoint: 'art-design/museum-a',
  upstreams: {
    artic: {
      routes: {
        'GET /artworks/search': (r) => ({ json: s.fixture('search.json'), delayMs: r.query.get('q') === 'slow' ? 150 : 0 }),
        'GET /artworks/27992': () => ({ json: s.fixture('artwork.json') }),
        'GET /artworks/:id': () => ({
          status: 404,
          json: { status: 404, error: 'Not found', detail: 'The item you requested cannot be found.' },
        }),
        'GET /artworks': () => ({ json: s.fixture('list.json') }),
      },
    },
  },
});
const { get } = s;

describe('modes', () => {
  test('q → /artworks/search with limit and fields; image URLs from the IIIF base', async () => {
    const res = await get({ q: 'seurat' });
    expectAnswer(res, 'artic');
    expect(res.body.data).toEqual({
      query: 'seurat',
      total: 1184,
      page: 1,
      items: [
        JATTE,
        { id: 111628, title: 'Nighthawks', artist_display: 'Edward Hopper', date_display: '1942', image_id: null, image_url: null },
      ],
    });
    expectMatchesSchema('art-design/museum-a', res.body.data);
    expect(s.fake.calls[0].path).toBe('/artworks/search');
    expect(Object.fromEntries(s.fake.calls[0].query)).toEqual({ q: 'seurat', limit: '12', fields: FIELDS });
    expect(s.fake.calls[0].headers['aic-user-agent']).toMatch(/unified-utility-api/);
  });

  test('id → /artworks/{id} with fields, the artwork itself', async () => {
    const res = await get({ id: 27992 });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(JATTE);
    expectMatchesSchema('art-design/museum-a', res.body.data);
    expect(Object.fromEntries(s.fake.calls[0].query)).toEqual({ fields: FIELDS });
  });

  test('neither → the first page of /artworks', async () => {
    const res = await get({});
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ total: 130000, page: 1, items: [JATTE] });
    expectMatchesSchema('art-design/museum-a', res.body.data);
    expect(s.fake.calls[0].path).toBe('/artworks');
    expect(Object.fromEntries(s.fake.calls[0].query)).toEqual({ limit: '12', fields: FIELDS });
  });

  test('an unknown id → 404', async () => {
    const res = await get({ id: 5 });
    expectFailure(res, { status: 404, code: 'not_found' });
    expect(res.body.error).toBe('No artwork with id 5');
  });
});

describe('bad input', () => {
  s.badInputTests([
    [{ q: 'x', id: 1 }, 'Invalid value for id: give either q (search) or id (one artwork), not both'],
    [{ id: 0 }, 'Invalid value for id: must be between 1 and 100000000'],
    [{ id: 'abc' }, 'Invalid value for id: must be an integer'],
    [{ q: 'x'.repeat(201) }, 'Invalid value for q: must be at most 200 characters'],
  ]);
});

describe('upstream failures', () => {
  beforeEach(() => s.freshApp());
  s.failureTests({ q: 'monet' });

  test('an answer without a data list → 502', async () => {
    s.failWith = { json: { pagination: {}, data: null } };
    expectFailure(await get({ q: 'monet' }), { status: 502, code: 'upstream_changed' });
  });

  test('slower than the upstream timeout → 504', async () => {
    s.failWith = { json: s.fixture('search.json'), delayMs: 2000 };
    await expect(museumA({ q: 'monet' }, shortTimeoutCtx('artic', s.fake.url))).rejects.toMatchObject({ status: 504 });
  });
});

s.cacheTests({ hit: { q: 'hopper' }, coalesced: { q: 'slow' } });
