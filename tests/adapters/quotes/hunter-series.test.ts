// quotes/hunter-series against a loopback Supernatural API: quote blocks (line_0…line_N) become lines[],
// `char` is lower-cased, the next page is known from the page length (the upstream's `next` is always
// set), random quotes come from /quotes/random and random characters or episodes from a random page of
// one; errors, cache and coalescing.
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectNeverCached } from '../../helpers/cache-checks.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { shortTimeoutCtx } from '../../helpers/short-timeout.js';
import hunterSeries from '../../../adapters/quotes/hunter-series.js';

const PATH = '/api/v1/quotes/hunter-series';
/** What a test changes in the random quote the fake answers. */
let randomQuoteChange: Record<string, unknown> = {};
beforeEach(() => {
  randomQuoteChange = {};
});

const s = upstreamSuite({
  endpoint: 'quotes/hunter-series',
  upstreams: {
    supernatural: {
      routes: {
        'GET /quotes/random': () => ({ json: { ...s.fixture('quote-random.json'), ...randomQuoteChange } }),
        'GET /quotes': (r) => {
          if (r.query.get('page') === '9')
            return {
              json: { ...s.fixture('quotes-page.json'), data: Array(10).fill(s.fixture('quotes-page.json').data[0]), resultCount: 10 },
            };
          return { json: s.fixture('quotes-page.json'), delayMs: r.query.get('page') === '7' ? 150 : 0 };
        },
        'GET /characters': () => ({ json: s.fixture('characters-page.json') }),
        'GET /episodes/:id': (_r, p) => (p.id === EPISODE.id ? { json: EPISODE } : { status: 404 }),
        'GET /episodes': (r) => {
          const page = s.fixture('episodes-page.json');
          return { json: r.query.get('size') === '1' ? { ...page, count: 3 } : page };
        },
      },
    },
  },
});
const { get } = s;
const EPISODE = s.fixture('episode-by-id.json');

describe('lists', () => {
  test('quotes by default: blocks become lines[], with the episode; a short page has no next page', async () => {
    const res = await get({ char: 'Dean Winchester', season: 1 });
    expectAnswer(res, 'supernatural');
    expect(res.body.data).toEqual({
      resource: 'quotes',
      items: [
        {
          episodeId: 'e1',
          episode: { id: 'e1', title: 'Pilot', season: '1', episode: '1' },
          lines: [
            { character: 'Dean Winchester', quote: "Dad's on a hunting trip." },
            { character: 'Sam Winchester', quote: "And he hasn't been home in a few days." },
          ],
        },
      ],
      page: 1,
      page_size: 10,
      next_page: null,
    });
    expectMatchesSchema('quotes/hunter-series', res.body.data);
    expect(s.fake.calls[0].path).toBe('/quotes');
    expect(Object.fromEntries(s.fake.calls[0].query)).toEqual({ char: 'dean winchester', season: '1', page: '1', size: '10' });
  });

  test('a full page points to the next one', async () => {
    const res = await get({ page: 9 });
    expect(res.body.data).toMatchObject({ page: 9, next_page: 10 });
    expect(res.body.data.items).toHaveLength(10);
  });

  test('characters, filtered by name with char', async () => {
    const res = await get({ resource: 'characters', char: 'dean' });
    expect(res.status).toBe(200);
    expect(res.body.data.items).toEqual(s.fixture('characters-page.json').data);
    expectMatchesSchema('quotes/hunter-series', res.body.data);
    expect(Object.fromEntries(s.fake.calls[0].query)).toEqual({ name: 'dean', page: '1', size: '10' });
  });

  test('episodes of a season (season sent as the string the upstream compares)', async () => {
    const res = await get({ resource: 'episodes', season: 1, page: 2 });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ resource: 'episodes', page: 2, next_page: null });
    expectMatchesSchema('quotes/hunter-series', res.body.data);
    expect(Object.fromEntries(s.fake.calls[0].query)).toEqual({ season: '1', page: '2', size: '10' });
  });
});

describe('random', () => {
  test('a random quote block, lines in order, with its episode read by its episodeId (never cached)', async () => {
    const res = await get({ action: 'random' });
    expect(res.status).toBe(200);
    const q = s.fixture('quote-random.json');
    expect(q.episode).toBeUndefined();
    expect(res.body.data).toEqual({
      episodeId: '5441xkfs0li0rdo01',
      episode: { id: '5441xkfs0li0rdo01', title: 'Pilot', season: '1', episode: '01' },
      lines: [
        { character: 'Dean Winchester', quote: q.line_0.quote },
        { character: 'Sam Winchester', quote: 'Who is that?' },
        { character: 'Dean Winchester', quote: 'One of us.' },
      ],
    });
    expectMatchesSchema('quotes/hunter-series', res.body.data);
    expect(s.fake.calls.map((c) => c.path)).toEqual(['/quotes/random', '/episodes/5441xkfs0li0rdo01']);
    await expectNeverCached({
      t: s.t,
      path: PATH,
      query: { action: 'random' },
      upstreamCalls: () => s.fake.calls.filter((c) => c.path === '/quotes/random').length,
    });
  });

  test('an episodeId the upstream does not know (404, empty body): the quote with a null episode', async () => {
    randomQuoteChange = { episodeId: 'gone' };
    const res = await get({ action: 'random' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ episodeId: 'gone', episode: null });
    expect(s.fake.calls[1].path).toBe('/episodes/gone');
  });

  test('a random episode: the count from a page of one, then a random page of one', async () => {
    const res = await get({ resource: 'episodes', action: 'random' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(s.fixture('episodes-page.json').data[0]);
    expectMatchesSchema('quotes/hunter-series', res.body.data);
    expect(Object.fromEntries(s.fake.calls[0].query)).toEqual({ page: '1', size: '1' });
    expect(s.fake.calls.length).toBeLessThanOrEqual(2);
    if (s.fake.calls[1]) expect(Number(s.fake.calls[1].query.get('page'))).toBeGreaterThanOrEqual(2);
  });

  test('a random character', async () => {
    const res = await get({ resource: 'characters', action: 'random' });
    expect(res.body.data.name).toBe('Dean Winchester');
    expectMatchesSchema('quotes/hunter-series', res.body.data);
  });
});

describe('bad input', () => {
  s.badInputTests([
    [{ action: 'random', char: 'dean' }, 'Invalid value for action: random takes no char or season; omit action to list with filters'],
    [{ resource: 'characters', season: 2 }, 'Invalid value for season: applies to resources quotes and episodes only'],
    [{ resource: 'episodes', char: 'sam' }, 'Invalid value for char: applies to resources quotes and characters only'],
    [{ season: 16 }, 'Invalid value for season: must be between 1 and 15'],
    [{ page: 0 }, 'Invalid value for page: must be between 1 and 100000'],
    [{ action: 'all' }, 'Invalid value for action: must be one of random'],
  ]);
});

describe('upstream failures', () => {
  beforeEach(() => s.freshApp());
  s.failureTests({ page: 3 });

  test('an unknown route answers 404 with an empty body → 404', async () => {
    s.failWith = { status: 404 };
    expectFailure(await get({ resource: 'episodes' }), { status: 404, code: 'not_found' });
  });

  test('a list without data → 502', async () => {
    s.failWith = { json: { next: null } };
    expectFailure(await get({ page: 4 }), { status: 502, code: 'upstream_changed' });
  });

  test('slower than the upstream timeout → 504', async () => {
    s.failWith = { json: s.fixture('quotes-page.json'), delayMs: 2000 };
    await expect(hunterSeries({ resource: 'quotes', page: 1 }, shortTimeoutCtx('supernatural', s.fake.url))).rejects.toMatchObject({
      status: 504,
    });
  });
});

s.cacheTests({ hit: { page: 5 }, coalesced: { page: 7 } });
