// quotes/devil-series, quotes/cartoon-series and quotes/teen-scifi-series: three upstreams answering
// arrays of random quotes. Random draws are never cached; cartoon-series searches are (lower-cased
// term, every match returned as the collection writes it). Each upstream has its own loopback fake.
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectCacheHit, expectCoalesced, expectNeverCached } from '../../helpers/cache-checks.js';
import { UPSTREAM_FAILURES, expectFailure } from '../../helpers/upstream-failures.js';
import { shortTimeoutCtx } from '../../helpers/short-timeout.js';
import devilSeries from '../../../adapters/quotes/devil-series.js';
import cartoonSeries from '../../../adapters/quotes/cartoon-series.js';
import teenScifiSeries from '../../../adapters/quotes/teen-scifi-series.js';

/** One more match the fake search answers, that the collection does not hold. */
let southparkExtraMatch: { quote: string; character: string } | undefined;
/** How the fake answers the whole collection: as the upstream, with a 500, or after 2 s. */
let southparkCollection: 'ok' | 'fails' | 'slow' = 'ok';
beforeEach(() => {
  southparkExtraMatch = undefined;
  southparkCollection = 'ok';
});

const s = upstreamSuite({
  upstreams: {
    'lucifer-quotes': {
      routes: {
        'GET /quotes/:n': () => ({ json: s.fixture('lucifer-quotes', 'quotes.json') }),
        'GET /fr/quotes/:n': () => ({ json: s.fixture('lucifer-quotes', 'quotes-fr.json') }),
      },
    },
    'southpark-quotes': {
      routes: {
        'GET /quotes/search/:term': (_r, p) => ({
          json:
            p.term === 'cartman'
              ? [...s.fixture('southpark-quotes', 'search-cartman.json'), ...(southparkExtraMatch ? [southparkExtraMatch] : [])]
              : [],
          delayMs: 150,
        }),
        // As the upstream: n quotes as written (it answers all it holds when asked for more).
        'GET /quotes/:n': (_r, p) =>
          southparkCollection === 'fails'
            ? { status: 500, json: { error: 'Internal Server Error' } }
            : { json: SOUTHPARK_ALL.slice(0, Number(p.n)), delayMs: southparkCollection === 'slow' ? 2000 : 0 },
      },
    },
    'strangerthings-quotes': { routes: { 'GET /quotes/:n': () => ({ json: s.fixture('strangerthings-quotes', 'quotes.json') }) } },
  },
});
const { 'lucifer-quotes': lucifer, 'southpark-quotes': southpark, 'strangerthings-quotes': stranger } = s.fakes;
const SOUTHPARK_ALL: Array<{ quote: string; character: string }> = s.fixture('southpark-quotes', 'all.json');
const southparkSearches = () => southpark.calls.filter((c) => c.path.startsWith('/quotes/search/')).length;

const get = (endpoint: string, query: Record<string, string | number> = {}) => s.get(query, `quotes/${endpoint}`);

describe('devil-series', () => {
  test('count and English by default: /quotes/1', async () => {
    const res = await get('devil-series');
    expectAnswer(res, 'lucifer-quotes');
    expect(res.body.data).toEqual({ items: s.fixture('lucifer-quotes', 'quotes.json'), count: 2, lang: 'en' });
    expectMatchesSchema('quotes/devil-series', res.body.data);
    expect(lucifer.calls[0].path).toBe('/quotes/1');
  });

  test('lang=fr → /fr/quotes/{count}', async () => {
    const res = await get('devil-series', { lang: 'fr', count: 3 });
    expect(res.status).toBe(200);
    expect(res.body.data.items[0].quote).toBe('Je suis le Diable. Je ne mens pas.');
    expectMatchesSchema('quotes/devil-series', res.body.data);
    expect(lucifer.calls[0].path).toBe('/fr/quotes/3');
  });

  test.each([
    [{ lang: 'de' }, 'Invalid value for lang: must be one of en, fr'],
    [{ count: 0 }, 'Invalid value for count: must be between 1 and 100'],
    [{ count: 'abc' }, 'Invalid value for count: must be an integer'],
  ])('%j → 400 (the upstream would silently fall back)', async (query, message) => {
    const res = await get('devil-series', query);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(message);
    expect(lucifer.calls).toHaveLength(0);
  });

  test('random quotes are never cached', async () => {
    await expectNeverCached({
      t: s.t,
      path: '/api/v1/quotes/devil-series',
      query: { count: 2 },
      upstreamCalls: () => lucifer.calls.length,
    });
  });

  test.each(UPSTREAM_FAILURES)('$name → $status', async (f) => {
    s.failWith = f.answer;
    expectFailure(await get('devil-series'), f);
  });

  test('slower than the upstream timeout → 504', async () => {
    s.failWith = { json: [], delayMs: 2000 };
    await expect(devilSeries({ count: 1 }, shortTimeoutCtx('lucifer-quotes', lucifer.url))).rejects.toMatchObject({ status: 504 });
  });
});

describe('cartoon-series', () => {
  test('random quotes, as written: the character becomes the author', async () => {
    const res = await get('cartoon-series', { count: 2 });
    expectAnswer(res, 'southpark-quotes');
    expect(res.body.data).toEqual({
      items: SOUTHPARK_ALL.slice(0, 2).map((q) => ({ quote: q.quote, author: q.character })),
      count: 2,
    });
    expectMatchesSchema('quotes/cartoon-series', res.body.data);
    expect(southpark.calls[0].path).toBe('/quotes/2');
  });

  test('search: the term lower-cased for the upstream, every match given back as written (not its lower-cased copies)', async () => {
    const res = await get('cartoon-series', { search: 'Cartman' });
    expect(res.status).toBe(200);
    const answered: Array<{ quote: string; character: string }> = s.fixture('southpark-quotes', 'search-cartman.json');
    expect(answered[0]).toEqual({ quote: "i'm not fat, i'm big-boned!", character: 'cartman' });
    expect(res.body.data.count).toBe(answered.length);
    expect(res.body.data.search).toBe('cartman');
    expect(res.body.data.items[0]).toEqual({ quote: "I'm not fat, I'm big-boned!", author: 'Cartman' });
    expect(res.body.data.items).toContainEqual({ quote: "No, Kitty! That's a bad kitty!", author: 'Cartman' });
    expect(res.body.data.items).toContainEqual({ quote: "I'm not fat, I'm festively plump.", author: 'Cartman' });
    // in the upstream's order, each one as the collection writes it
    const written = (a: { quote: string; character: string }) =>
      SOUTHPARK_ALL.find((q) => q.quote.toLowerCase() === a.quote && q.character.toLowerCase() === a.character)!;
    expect(res.body.data.items).toEqual(answered.map(written).map((q) => ({ quote: q.quote, author: q.character })));
    expectMatchesSchema('quotes/cartoon-series', res.body.data);
    expect(southpark.calls.map((c) => c.path).sort()).toEqual(['/quotes/1000', '/quotes/search/cartman']);
  });

  test('a match the collection does not hold stays as the search answered it', async () => {
    southparkExtraMatch = { quote: 'a brand new quote.', character: 'towelie' };
    const res = await get('cartoon-series', { search: 'cartman' });
    expect(res.status).toBe(200);
    expect(res.body.data.items.at(-1)).toEqual({ quote: 'a brand new quote.', author: 'towelie' });
    expect(res.body.data.items[0]).toEqual({ quote: "I'm not fat, I'm big-boned!", author: 'Cartman' });
  });

  test('the collection call failing: the search answers its matches as the search gave them, not an error', async () => {
    southparkCollection = 'fails';
    // The adapter itself: through the API the same search may come from the response cache.
    const data = (await cartoonSeries({ search: 'cartman', count: 1 }, shortTimeoutCtx('southpark-quotes', southpark.url))) as {
      items: unknown[];
      count: number;
    };
    const answered: Array<{ quote: string; character: string }> = s.fixture('southpark-quotes', 'search-cartman.json');
    expect(data.items).toEqual(answered.map((q) => ({ quote: q.quote, author: q.character })));
    expect(data.count).toBe(answered.length);
  });

  test('the collection call timing out: the search still answers its matches', async () => {
    southparkCollection = 'slow';
    const data = (await cartoonSeries({ search: 'cartman', count: 1 }, shortTimeoutCtx('southpark-quotes', southpark.url))) as {
      items: unknown[];
      count: number;
    };
    expect(data.count).toBe((s.fixture('southpark-quotes', 'search-cartman.json') as unknown[]).length);
  });

  test('a search without matches is an empty list, not an error', async () => {
    const res = await get('cartoon-series', { search: 'nobody here' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ items: [], count: 0, search: 'nobody here' });
    expect(southpark.calls.map((c) => c.path)).toContain('/quotes/search/nobody%20here');
  });

  test('search is too long → 400', async () => {
    const res = await get('cartoon-series', { search: 'x'.repeat(101) });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Invalid value for search: must be at most 100 characters');
  });

  test('random quotes are never cached; searches are, and concurrent ones share a search', async () => {
    await expectNeverCached({
      t: s.t,
      path: '/api/v1/quotes/cartoon-series',
      query: { count: 4 },
      upstreamCalls: () => southpark.calls.length,
    });
    await expectCacheHit({
      t: s.t,
      path: '/api/v1/quotes/cartoon-series',
      query: { search: 'kyle' },
      upstreamCalls: southparkSearches,
    });
    await expectCoalesced({
      t: s.t,
      path: '/api/v1/quotes/cartoon-series',
      query: { search: 'stan' },
      upstreamCalls: southparkSearches,
    });
  });

  test.each(UPSTREAM_FAILURES)('$name → $status', async (f) => {
    s.failWith = f.answer;
    expectFailure(await get('cartoon-series', { count: 5 }), f);
  });

  test('slower than the upstream timeout → 504', async () => {
    s.failWith = { json: [], delayMs: 2000 };
    await expect(cartoonSeries({ count: 1 }, shortTimeoutCtx('southpark-quotes', southpark.url))).rejects.toMatchObject({ status: 504 });
  });
});

describe('teen-scifi-series', () => {
  test('random quotes with the validated count in the path', async () => {
    const res = await get('teen-scifi-series', { count: 2 });
    expectAnswer(res, 'strangerthings-quotes');
    expect(res.body.data).toEqual({ items: s.fixture('strangerthings-quotes', 'quotes.json'), count: 2 });
    expectMatchesSchema('quotes/teen-scifi-series', res.body.data);
    expect(stranger.calls[0].path).toBe('/quotes/2');
  });

  test('a count the upstream would not parse never reaches it', async () => {
    const res = await get('teen-scifi-series', { count: '2abc' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Invalid value for count: must be an integer');
    expect(stranger.calls).toHaveLength(0);
  });

  test('random quotes are never cached', async () => {
    await expectNeverCached({ t: s.t, path: '/api/v1/quotes/teen-scifi-series', query: {}, upstreamCalls: () => stranger.calls.length });
  });

  test.each(UPSTREAM_FAILURES)('$name → $status', async (f) => {
    s.failWith = f.answer;
    expectFailure(await get('teen-scifi-series'), f);
  });

  test('an error object instead of a list → 502', async () => {
    s.failWith = { json: { error: 'nope' } };
    expectFailure(await get('teen-scifi-series'), { status: 502, code: 'upstream_changed' });
  });

  test('slower than the upstream timeout → 504', async () => {
    s.failWith = { json: [], delayMs: 2000 };
    await expect(teenScifiSeries({ count: 1 }, shortTimeoutCtx('strangerthings-quotes', stranger.url))).rejects.toMatchObject({
      status: 504,
    });
  });
});
