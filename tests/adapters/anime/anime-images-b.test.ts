// anime/anime-images-b against a loopback Nekosia: random images (one image or the older images:[…]
// shape), tags, image-by-id, the two meanings of `id`, sessions (session=ip becomes a per-caller hashed
// session id), errors inside a 200, and caching only of the non-random actions.
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectCacheHit, expectCoalesced, expectNeverCached } from '../../helpers/cache-checks.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { expectUpstreamTimeout } from '../../helpers/short-timeout.js';
import animeImagesB from '../../../adapters/anime/anime-images-b.js';

const PATH = '/api/v1/anime/anime-images-b';
const IMAGE_ID = '66bc6b7481a59a1cf2c79db5';

const s = upstreamSuite({
  endpoint: 'anime/anime-images-b',
  upstreams: {
    nekosia: {
      routes: {
        'GET /images/:category': (r) =>
          r.query.get('count') === '2' ? { json: s.fixture('catgirl-multi.json') } : { json: s.fixture('catgirl.json') },
        'GET /tags': () => ({ json: s.fixture('tags.json'), delayMs: 150 }),
        'GET /getImageById/:id': (_r, p) =>
          p.id === IMAGE_ID
            ? { json: s.fixture('catgirl.json'), delayMs: 150 }
            : { status: 404, json: { success: false, status: 404, message: 'Image not found' } },
      },
    },
  },
});

const get = (query: Record<string, string | number>, ip?: string) => {
  const r = s.get(query);
  return ip ? r.set('X-Forwarded-For', ip) : r;
};

describe('random images', () => {
  test('one image: id and url (the original) beside the upstream fields; count is the number of matches', async () => {
    const res = await get({ category: 'catgirl' });
    expectAnswer(res, 'nekosia');
    expect(res.body.data.count).toBe(152);
    expect(res.body.data.items).toHaveLength(1);
    expect(res.body.data.items[0]).toMatchObject({
      id: IMAGE_ID,
      url: 'https://cdn.nekosia.cat/images/catgirl/66bc6b7481a59a1cf2c79db5.png',
      category: 'catgirl',
      rating: 'safe',
      attribution: { artist: { username: 'artist' } },
    });
    expect(res.body.data.items[0]).not.toHaveProperty('success');
    expectMatchesSchema('anime/anime-images-b', res.body.data);
    expect(s.fake.calls[0].path).toBe('/images/catgirl');
    expect(Object.fromEntries(s.fake.calls[0].query)).toEqual({ count: '1' });
  });

  test('the images:[…] shape is read too', async () => {
    const res = await get({ category: 'catgirl', count: 2 });
    expect(res.status).toBe(200);
    expect(res.body.data.items.map((i: { id: string }) => i.id)).toEqual([IMAGE_ID, '66bc6b7481a59a1cf2c79db6']);
    expectMatchesSchema('anime/anime-images-b', res.body.data);
  });

  test('tags and rating forwarded, comma lists tidied; category defaults to random', async () => {
    await get({ additionalTags: ' cute, maid ,', blacklistedTags: 'tail', rating: 'suggestive' });
    expect(s.fake.calls[0].path).toBe('/images/random');
    expect(Object.fromEntries(s.fake.calls[0].query)).toEqual({
      count: '1',
      additionalTags: 'cute,maid',
      blacklistedTags: 'tail',
      rating: 'suggestive',
    });
  });

  test('session=id sends the caller id', async () => {
    await get({ category: 'catgirl', session: 'id', id: 'user-1234' });
    expect(s.fake.calls[0].query.get('session')).toBe('id');
    expect(s.fake.calls[0].query.get('id')).toBe('user-1234');
  });

  test('an id alone implies session=id', async () => {
    await get({ category: 'catgirl', id: 'user-5678' });
    expect(s.fake.calls[0].query.get('session')).toBe('id');
    expect(s.fake.calls[0].query.get('id')).toBe('user-5678');
  });

  test('session=ip becomes a hashed per-caller session id (the upstream would only see our address)', async () => {
    await s.withApp({ env: { TRUST_PROXY: 'true' } }, async (t2) => {
      const ask = (ip: string) => t2.get({ category: 'catgirl', session: 'ip' }).set('X-Forwarded-For', ip);
      await ask('198.51.100.1');
      await ask('198.51.100.1');
      await ask('198.51.100.2');
      const ids = s.fake.calls.map((c) => c.query.get('id'));
      expect(s.fake.calls.every((c) => c.query.get('session') === 'id')).toBe(true);
      expect(ids[0]).toMatch(/^[0-9a-f]{32}$/);
      expect(ids[1]).toBe(ids[0]);
      expect(ids[2]).not.toBe(ids[0]);
      expect(ids.join()).not.toContain('198.51.100');
    });
  });

  test('random answers are never cached', async () => {
    await expectNeverCached({ t: s.t, path: PATH, query: { category: 'catgirl' }, upstreamCalls: () => s.fake.calls.length });
  });
});

describe('tags and image-by-id', () => {
  test('tags: the tag names, plus anime and characters', async () => {
    const res = await get({ action: 'tags' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      items: ['animal-ears', 'catgirl', 'cute', 'foxgirl', 'maid'],
      anime: ['blue-archive'],
      characters: ['shiroko'],
    });
    expectMatchesSchema('anime/anime-images-b', res.body.data);
  });

  test('image-by-id: the image itself', async () => {
    const res = await get({ action: 'image-by-id', id: IMAGE_ID.toUpperCase() });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: IMAGE_ID, url: expect.stringContaining(IMAGE_ID), tags: ['catgirl', 'cute', 'white-hair'] });
    expectMatchesSchema('anime/anime-images-b', res.body.data);
    expect(s.fake.calls[0].path).toBe(`/getImageById/${IMAGE_ID}`);
  });

  test('image-by-id of an unknown image → 404', async () => {
    const res = await get({ action: 'image-by-id', id: '0123456789abcdef01234567' });
    expectFailure(res, { status: 404, code: 'not_found' });
    expect(res.body.error).toBe('No image with id 0123456789abcdef01234567');
  });

  // `count` plays no part in these actions: it only gives each check a fresh cache key.
  test('tags are cached, and concurrent identical calls share one upstream call', async () => {
    await expectCoalesced({ t: s.t, path: PATH, query: { action: 'tags', count: 3 }, upstreamCalls: () => s.fake.calls.length });
    await expectCacheHit({ t: s.t, path: PATH, query: { action: 'tags', count: 4 }, upstreamCalls: () => s.fake.calls.length });
  });

  test('image-by-id is cached and coalesced', async () => {
    await expectCoalesced({
      t: s.t,
      path: PATH,
      query: { action: 'image-by-id', id: IMAGE_ID, count: 5 },
      upstreamCalls: () => s.fake.calls.length,
    });
    await expectCacheHit({
      t: s.t,
      path: PATH,
      query: { action: 'image-by-id', id: IMAGE_ID, count: 6 },
      upstreamCalls: () => s.fake.calls.length,
    });
  });
});

describe('bad input', () => {
  test.each([
    [{ rating: 'questionable' }, 'Invalid value for rating: must be one of safe, suggestive'],
    [{ count: 21 }, 'Invalid value for count: must be between 1 and 20'],
    [{ count: 48 }, 'Invalid value for count: must be between 1 and 20'],
    [{ session: 'id' }, 'Missing required parameter: id'],
    [{ session: 'ip', id: 'user-1234' }, 'Invalid value for id: is only used with session=id'],
    [{ session: 'cookie' }, 'Invalid value for session: must be one of ip, id'],
    [{ id: 'abc' }, 'Invalid value for id: must be 4 to 128 letters, digits, _ or -'],
    [{ category: 'nothing' }, 'Missing required parameter: additionalTags'],
    [{ action: 'image-by-id' }, 'Missing required parameter: id'],
    [
      { action: 'image-by-id', id: 'user-1234' },
      'Invalid value for id: must be a 24-character hexadecimal image id for action=image-by-id',
    ],
    [{ action: 'search' }, 'Invalid value for action: must be one of random, tags, image-by-id'],
  ])('%j → 400', async (query, message) => {
    const res = await get(query);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(message);
    expect(s.fake.calls).toHaveLength(0);
  });

  test('category nothing with additionalTags is accepted', async () => {
    const res = await get({ category: 'nothing', additionalTags: 'maid' });
    expect(res.status).toBe(200);
    expect(s.fake.calls[0].path).toBe('/images/nothing');
  });
});

describe('upstream failures', () => {
  s.failureTests({ category: 'catgirl' });

  test('a 400 with the error body → 400 with our own words', async () => {
    s.failWith = { status: 400, json: s.fixture('error-400.json') };
    const res = await get({ category: 'catgirl' });
    expectFailure(res, { status: 400, code: 'bad_input' });
    expect(res.body.error).toBe('The image service rejected the request: check the category and tags');
  });

  test('an error inside a 200 is mapped by its status field', async () => {
    s.failWith = { json: { success: false, status: 404, message: 'Category not found' } };
    expectFailure(await get({ category: 'unicorns' }), { status: 404, code: 'not_found' });
    s.failWith = { json: { success: false, status: 500, message: 'Oops' } };
    expectFailure(await get({ category: 'catgirl' }), { status: 502, code: 'upstream_failed' });
  });

  test('an image without its url → 502', async () => {
    s.failWith = { json: { success: true, count: 1, id: IMAGE_ID, image: {} } };
    expectFailure(await get({ category: 'catgirl' }), { status: 502, code: 'upstream_changed' });
  });

  test('slower than the upstream timeout → 504', async () => {
    s.failWith = { json: s.fixture('catgirl.json'), delayMs: 2000 };
    await expectUpstreamTimeout((ctx) => animeImagesB({ category: 'catgirl', count: 1 }, ctx), 'nekosia', s.fake.url);
  });
});
