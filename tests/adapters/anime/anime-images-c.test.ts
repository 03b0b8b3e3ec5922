// anime/anime-images-c against a loopback waifu.im (rewritten API): PascalCase parameters, tags repeated
// once per tag, IsNsfw True|False|All, PageSize from limit, tags, image-by-id through the added `id`
// parameter, error mapping, and caching of everything but search.
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectCacheHit, expectCoalesced, expectNeverCached } from '../../helpers/cache-checks.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { expectUpstreamTimeout } from '../../helpers/short-timeout.js';
import animeImagesC from '../../../adapters/anime/anime-images-c.js';

const PATH = '/api/v1/anime/anime-images-c';

const s = upstreamSuite({
  endpoint: 'anime/anime-images-c',
  upstreams: {
    'waifu-im': {
      routes: {
        'GET /images': () => ({ json: s.fixture('images.json') }),
        'GET /tags': () => ({ json: s.fixture('tags.json'), delayMs: 150 }),
        'GET /images/6758': () => ({ json: s.fixture('image-6758.json'), delayMs: 150 }),
        'GET /images/:id': () => ({ status: 404, json: { detail: 'Image not found' } }),
      },
    },
  },
});
const { get } = s;
const pairs = (q: URLSearchParams) => [...q.entries()];

describe('search', () => {
  test('defaults: one image (PageSize=1), nothing else sent; a tidy image with tag and artist names', async () => {
    const res = await get({});
    expectAnswer(res, 'waifu-im');
    expect(pairs(s.fake.calls[0].query)).toEqual([['PageSize', '1']]);
    expect(res.body.data.total).toBe(180);
    expect(res.body.data.items).toEqual([
      {
        id: 6758,
        url: 'https://cdn.waifu.im/6758.png',
        source: 'https://www.pixiv.net/en/artworks/81300646',
        width: 1600,
        height: 2088,
        byteSize: 1778623,
        extension: '.png',
        dominantColor: '#eee6eb',
        isNsfw: false,
        isAnimated: false,
        uploadedAt: '2021-11-02T11:16:19.048684Z',
        favorites: 20,
        tags: ['Waifu', 'Maid'],
        artists: ['Sample Artist'],
      },
    ]);
    expectMatchesSchema('anime/anime-images-c', res.body.data);
  });

  test('PascalCase parameters, each tag repeated, booleans and IsNsfw spelled as the upstream wants', async () => {
    await get({
      action: 'search',
      includedTags: 'waifu, maid',
      excludedTags: 'oppai,,',
      isNsfw: 'false',
      isAnimated: true,
      orientation: 'Portrait',
      limit: 5,
    });
    expect(pairs(s.fake.calls[0].query)).toEqual([
      ['IncludedTags', 'waifu'],
      ['IncludedTags', 'maid'],
      ['ExcludedTags', 'oppai'],
      ['IsNsfw', 'False'],
      ['IsAnimated', 'True'],
      ['Orientation', 'Portrait'],
      ['PageSize', '5'],
    ]);
  });

  test.each([
    ['true', 'True'],
    ['All', 'All'],
  ])('isNsfw=%s → IsNsfw=%s', async (given, sent) => {
    await get({ isNsfw: given });
    expect(s.fake.calls[0].query.get('IsNsfw')).toBe(sent);
  });

  test('search answers random images: never cached', async () => {
    await expectNeverCached({ t: s.t, path: PATH, query: { includedTags: 'waifu' }, upstreamCalls: () => s.fake.calls.length });
  });
});

describe('tags and image-by-id', () => {
  test('tags', async () => {
    const res = await get({ action: 'tags' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      items: [
        { name: 'Waifu', slug: 'waifu', description: 'A female anime/manga character.', imageCount: 3120 },
        {
          name: 'Maid',
          slug: 'maid',
          description: 'Cute womans or girl employed to do domestic work in their working uniform.',
          imageCount: 210,
        },
      ],
    });
    expectMatchesSchema('anime/anime-images-c', res.body.data);
  });

  test('image-by-id reads the added id parameter', async () => {
    const res = await get({ action: 'image-by-id', id: 6758 });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: 6758, url: 'https://cdn.waifu.im/6758.png', tags: ['Waifu'], artists: ['Sample Artist'] });
    expectMatchesSchema('anime/anime-images-c', res.body.data);
    expect(s.fake.calls[0].path).toBe('/images/6758');
  });

  test('image-by-id also accepts a one-item page', async () => {
    s.failWith = { json: s.fixture('images.json') };
    const res = await get({ action: 'image-by-id', id: 6758, limit: 2 });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(6758);
  });

  test('an unknown image → 404', async () => {
    const res = await get({ action: 'image-by-id', id: 1 });
    expectFailure(res, { status: 404, code: 'not_found' });
    expect(res.body.error).toBe('No image with id 1');
  });

  // `limit` plays no part in these actions: it only gives each check a fresh cache key.
  test('tags are cached and coalesced', async () => {
    await expectCoalesced({ t: s.t, path: PATH, query: { action: 'tags', limit: 3 }, upstreamCalls: () => s.fake.calls.length });
    await expectCacheHit({ t: s.t, path: PATH, query: { action: 'tags', limit: 4 }, upstreamCalls: () => s.fake.calls.length });
  });

  test('image-by-id is cached and coalesced', async () => {
    await expectCoalesced({
      t: s.t,
      path: PATH,
      query: { action: 'image-by-id', id: 6758, limit: 5 },
      upstreamCalls: () => s.fake.calls.length,
    });
    await expectCacheHit({
      t: s.t,
      path: PATH,
      query: { action: 'image-by-id', id: 6758, limit: 6 },
      upstreamCalls: () => s.fake.calls.length,
    });
  });
});

describe('bad input', () => {
  s.badInputTests([
    [{ action: 'image-by-id' }, 'Missing required parameter: id'],
    [{ action: 'image-by-id', id: 'abc' }, 'Invalid value for id: must be an integer'],
    [{ isNsfw: 'maybe' }, 'Invalid value for isNsfw: must be one of true, false, All'],
    [{ isAnimated: 'gif' }, 'Invalid value for isAnimated: must be true or false'],
    [{ orientation: 'portrait' }, 'Invalid value for orientation: must be one of Landscape, Portrait, Square'],
    [{ limit: 0 }, 'Invalid value for limit: must be between 1 and 100'],
    [{ action: 'random' }, 'Invalid value for action: must be one of search, tags, image-by-id'],
  ]);
});

describe('upstream failures', () => {
  s.failureTests({ includedTags: 'maid' });

  test('a search 404 (nothing matches) says so', async () => {
    s.failWith = { status: 404, json: { detail: 'No image found matching the criteria given.' } };
    const res = await get({ includedTags: 'nonexistent' });
    expectFailure(res, { status: 404, code: 'not_found' });
    expect(res.body.error).toBe('No image matches these filters');
  });

  test('an image without a url → 502', async () => {
    s.failWith = { json: { items: [{ id: 1 }] } };
    expectFailure(await get({ includedTags: 'maid' }), { status: 502, code: 'upstream_changed' });
  });

  test('slower than the upstream timeout → 504', async () => {
    s.failWith = { json: s.fixture('images.json'), delayMs: 2000 };
    await expectUpstreamTimeout((ctx) => animeImagesC({ limit: 1 }, ctx), 'waifu-im', s.fake.url);
  });
});
