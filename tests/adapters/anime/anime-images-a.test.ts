// anime/anime-images-a against a loopback nekos.best: random images of a category (checked against a
// memoised /endpoints list), search (type defaulting to 1), the category list, the User-Agent it demands,
// its 429 with x-rate-limit-reset, and no caching of random answers.
import type { FakeResponse } from '../../helpers/fake-upstream.js';
import { upstreamSuite, withUpstreams } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectNeverCached } from '../../helpers/cache-checks.js';
import { UPSTREAM_FAILURES, expectFailure } from '../../helpers/upstream-failures.js';
import { expectUpstreamTimeout } from '../../helpers/short-timeout.js';
import animeImagesA from '../../../adapters/anime/anime-images-a.js';

const PATH = '/api/v1/anime/anime-images-a';

/** When set, answers every image request; /endpoints keeps answering (so not the suite's failWith). */
let imageFailWith: FakeResponse | undefined;
const image = (name: string) => () => imageFailWith ?? { json: s.fixture(name) };
const s = upstreamSuite({
  endpoint: 'anime/anime-images-a',
  upstreams: {
    'nekos-best': {
      routes: {
        'GET /endpoints': () => ({ json: s.fixture('endpoints.json') }),
        'GET /search': image('search.json'),
        'GET /hug': image('hug.json'),
        'GET /neko': image('neko.json'),
      },
    },
  },
});
beforeEach(() => {
  imageFailWith = undefined;
});

const { get } = s;
const imageCalls = () => s.fake.calls.filter((c) => c.path !== '/endpoints');

describe('images of a category', () => {
  test('GIFs of a category, amount forwarded, with our User-Agent', async () => {
    const res = await get({ category: 'hug', amount: 2 });
    expectAnswer(res, 'nekos-best');
    expect(res.body.data).toEqual({ items: s.fixture('hug.json').results });
    expectMatchesSchema('anime/anime-images-a', res.body.data);
    const call = imageCalls()[0];
    expect(call.path).toBe('/hug');
    expect(call.query.get('amount')).toBe('2');
    expect(call.headers['user-agent']).toMatch(/^[A-Za-z0-9._-]+\/\d+\.\d+\.\d+ \(\+http/);
  });

  test('an image category carries artist fields; amount defaults to 1', async () => {
    const res = await get({ category: 'neko' });
    expect(res.status).toBe(200);
    expect(res.body.data.items[0]).toMatchObject({
      artist_name: 'Sample Artist',
      source_url: expect.any(String),
      url: expect.stringMatching(/\.png$/),
    });
    expect(imageCalls()[0].query.get('amount')).toBe('1');
  });

  test('the category list is fetched once and memoised', async () => {
    await get({ category: 'hug' });
    await get({ category: 'neko' });
    await get({ action: 'endpoints' });
    expect(s.fake.calls.filter((c) => c.path === '/endpoints').length).toBeLessThanOrEqual(1);
  });

  test('an unknown category is a 400 listing the valid ones, without an image call', async () => {
    const res = await get({ category: 'dragon' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Invalid value for category: must be one of hug, kiss, neko, pat, wink');
    expect(imageCalls()).toHaveLength(0);
  });

  test('no category and no action → 400 naming category', async () => {
    const res = await get({});
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Missing required parameter: category');
  });

  test('random answers are never cached', async () => {
    await expectNeverCached({ t: s.t, path: PATH, query: { category: 'hug' }, upstreamCalls: () => imageCalls().length });
  });
});

describe('search', () => {
  test('type defaults to 1 (images); query, category and amount forwarded', async () => {
    const res = await get({ action: 'search', query: 'Toradora', category: 'pat', amount: 3 });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ items: s.fixture('search.json').results });
    expectMatchesSchema('anime/anime-images-a', res.body.data);
    const call = imageCalls()[0];
    expect(call.path).toBe('/search');
    expect(Object.fromEntries(call.query)).toEqual({ query: 'Toradora', type: '1', category: 'pat', amount: '3' });
  });

  test('type=2 asks for GIFs', async () => {
    await get({ action: 'search', query: 'Toradora', type: 2 });
    expect(imageCalls()[0].query.get('type')).toBe('2');
  });

  test.each([
    [{ action: 'search' }, 'Missing required parameter: query'],
    [{ action: 'search', query: 'x', type: 3 }, 'Invalid value for type: must be one of 1, 2'],
    [{ category: 'hug', type: 2 }, 'Invalid value for type: is only used with action=search'],
    [{ category: 'hug', amount: 21 }, 'Invalid value for amount: must be between 1 and 20'],
    [{ category: 'hug', amount: 0 }, 'Invalid value for amount: must be between 1 and 20'],
    [{ category: 'Hug!' }, 'Invalid value for category: must be a category name such as neko or hug'],
    [{ action: 'random' }, 'Invalid value for action: must be one of endpoints, search'],
  ])('%j → 400', async (query, message) => {
    const res = await get(query);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(message);
  });
});

describe('category list', () => {
  test('action=endpoints lists the categories with their format', async () => {
    const res = await get({ action: 'endpoints' });
    expect(res.status).toBe(200);
    expect(res.body.data.categories).toEqual([
      { name: 'hug', format: 'gif' },
      { name: 'kiss', format: 'gif' },
      { name: 'neko', format: 'png' },
      { name: 'pat', format: 'gif' },
      { name: 'wink', format: 'gif' },
    ]);
    expectMatchesSchema('anime/anime-images-a', res.body.data);
  });
});

describe('upstream failures', () => {
  test.each(UPSTREAM_FAILURES)('$name → $status', async (f) => {
    imageFailWith = f.answer;
    expectFailure(await get({ category: 'hug' }), f);
  });

  test('429 with x-rate-limit-reset → 503 with Retry-After counted to the reset', async () => {
    imageFailWith = {
      status: 429,
      headers: { 'x-rate-limit-reset': new Date(Date.now() + 4000).toISOString(), 'x-rate-limit-remaining': '0' },
      json: { message: 'slow down' },
    };
    const res = await get({ action: 'search', query: 'x' });
    expectFailure(res, { status: 503, code: 'upstream_busy' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(3);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(5);
  });

  test('results that are not an array → 502', async () => {
    imageFailWith = { json: { results: 'none' } };
    expectFailure(await get({ category: 'hug' }), { status: 502, code: 'upstream_changed' });
  });

  test('a failing category list is a 502 and is not memoised', async () => {
    const down = { 'nekos-best': { fallback: () => ({ status: 500, json: { message: 'down' } }) } };
    await withUpstreams({ endpoint: 'anime/anime-images-a', upstreams: down }, async (t2) => {
      const broken = t2.fake;
      expectFailure(await t2.get({ category: 'hug' }), { status: 502, code: 'upstream_failed' });
      const calls = broken.calls.length;
      expectFailure(await t2.get({ action: 'endpoints' }), {
        status: 502,
        code: 'upstream_failed',
      });
      expect(broken.calls.length).toBeGreaterThan(calls);
    });
  });

  test('slower than the upstream timeout → 504', async () => {
    // The category list answers at once; the image call is the slow one.
    imageFailWith = { json: s.fixture('hug.json'), delayMs: 2000 };
    await expectUpstreamTimeout((ctx) => animeImagesA({ category: 'hug', amount: 1 }, ctx), 'nekos-best', s.fake.url);
  });
});
