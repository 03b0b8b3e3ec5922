// quotes/office-series against a loopback Office API. Direct routes (random and id quotes, a season,
// one episode) map the upstream's "400 for not found" to 404; the derived modes (quote search,
// characters, random and searched episodes) come from an index built from /quote/1…N and /season/1…S,
// answering 503 + Retry-After until it is ready.
import { upstreamSuite, withUpstreams } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectCacheHit, expectCoalesced, expectNeverCached } from '../../helpers/cache-checks.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { shortTimeoutCtx } from '../../helpers/short-timeout.js';
import { loadCatalog } from '../../../engine/catalog/load.js';
import { loadConfig } from '../../../server/config.js';
import officeSeries from '../../../adapters/quotes/office-series.js';

const PATH = '/api/v1/quotes/office-series';
const missingId = { status: 400, json: { ok: false, message: 'ID does not exists... yet!' } };

const s = upstreamSuite({
  endpoint: 'quotes/office-series',
  upstreams: {
    'office-api': {
      routes: {
        'GET /quote/random': () => ({ json: QUOTES[0] }),
        'GET /quote/:id': (_r, p) => {
          const q = QUOTES.find((x) => x.id === Number(p.id));
          return q ? { json: q, delayMs: p.id === '3' ? 150 : 0 } : missingId;
        },
        'GET /season/:s': (_r, p) => {
          const eps = EPISODES.filter((e) => e.season === Number(p.s));
          return eps.length ? { json: eps } : { status: 400, json: { ok: false, message: 'No episodes found for this season' } };
        },
        'GET /season/:s/episode/:e': (_r, p) => {
          const ep = EPISODES.find((e) => e.season === Number(p.s) && e.episode === Number(p.e));
          return ep ? { json: ep } : { status: 400, json: { ok: false, message: 'No episode found for this season id and episode id' } };
        },
      },
    },
  },
});
const QUOTES: Array<{ id: number; character: string }> = s.fixture('quotes.json');
const EPISODES: Array<{ season: number; episode: number; title: string }> = s.fixture('episodes.json');
const { get } = s;

describe('the index behind the derived modes', () => {
  test('503 with Retry-After while it is being built, then answers from it', async () => {
    const first = await get({ resource: 'characters' });
    expectFailure(first, { status: 503, code: 'upstream_busy' });
    expect(first.body.error).toMatch(/being built/);
    // The build makes some 80 rounds of calls: poll until it is done, bounded by time (not by a count of
    // polls, which a busy machine slows down).
    let res = first;
    for (const end = Date.now() + 20_000; res.status === 503 && Date.now() < end;) {
      await new Promise((r) => setTimeout(r, 50));
      res = await get({ resource: 'characters' });
    }
    expect(res.status).toBe(200);
    expect(res.body.data.items).toEqual([
      { name: 'Michael Scott', avatar_url: 'https://example.org/michael.png', quote_count: 2 },
      { name: 'Dwight Schrute', avatar_url: 'https://example.org/dwight.png', quote_count: 1 },
      { name: 'Jim Halpert', avatar_url: 'https://example.org/jim.png', quote_count: 1 },
    ]);
    expectMatchesSchema('quotes/office-series', res.body.data);
    // Every quote id up to the configured count was asked for, at most 4 at a time, and seasons too.
    const paths = s.fake.calls.map((c) => c.path);
    expect(paths).toContain('/quote/298');
    expect(paths).toContain('/season/9');
  });

  test.each([
    [{ action: 'search', value: 'JIM' }, [2, 5]],
    [{ resource: 'quotes', action: 'search', value: 'michael' }, [1, 3]],
  ])('quote search %j matches quote text or speaker, case-insensitively', async (query, ids) => {
    const res = await get(query);
    expect(res.status).toBe(200);
    expect(res.body.data.items.map((q: { id: number }) => q.id)).toEqual(ids);
    expectMatchesSchema('quotes/office-series', res.body.data);
    expect(s.fake.calls).toHaveLength(0);
  });

  test('episodes: the list, a search on title or description, a random one (never cached)', async () => {
    const all = await get({ resource: 'episodes' });
    expect(all.body.data.count).toBe(3);
    expectMatchesSchema('quotes/office-series', all.body.data);
    const found = await get({ resource: 'episodes', action: 'search', value: 'awards' });
    expect(found.body.data.items.map((e: { title: string }) => e.title)).toEqual(['The Dundies']);
    const one = await get({ resource: 'episodes', action: 'random' });
    expect(one.status).toBe(200);
    expect(EPISODES.map((e) => e.title)).toContain(one.body.data.title);
    expectMatchesSchema('quotes/office-series', one.body.data);
    expect((await get({ resource: 'episodes', action: 'random' })).body.metadata.cached).toBe(false);
  });

  test('characters: random, search, and id (a name) with their quotes', async () => {
    const one = await get({ resource: 'characters', action: 'random' });
    expect(['Michael Scott', 'Dwight Schrute', 'Jim Halpert']).toContain(one.body.data.name);
    expectMatchesSchema('quotes/office-series', one.body.data);
    const found = await get({ resource: 'characters', action: 'search', value: 'schr' });
    expect(found.body.data.items.map((c: { name: string }) => c.name)).toEqual(['Dwight Schrute']);
    const michael = await get({ resource: 'characters', action: 'id', value: 'michael scott' });
    expect(michael.body.data).toMatchObject({ name: 'Michael Scott', quote_count: 2 });
    expect(michael.body.data.quotes.map((q: { id: number }) => q.id)).toEqual([1, 3]);
    expectMatchesSchema('quotes/office-series', michael.body.data);
    expectFailure(await get({ resource: 'characters', action: 'id', value: 'Creed' }), { status: 404, code: 'not_found' });
  });

  test('a failing upstream leaves the index unbuilt: 503, and the build is not retried at once', async () => {
    const down = { 'office-api': { fallback: () => ({ status: 500, json: { message: 'down' } }) } };
    await withUpstreams({ endpoint: 'quotes/office-series', upstreams: down }, async (app) => {
      const broken = app.fake;
      const ask = () => app.get({ resource: 'characters' });
      expectFailure(await ask(), { status: 503, code: 'upstream_busy' });
      // The failing build is over once its first round of calls has been made and retried: `concurrency`
      // quote ids at once, each asked 1 + `retries` times (GET on a 5xx). Wait for exactly those calls,
      // however long a busy machine takes, instead of a fixed time that its retries may outlast.
      const cfg = loadCatalog(loadConfig({}).catalogDir).upstreams['office-api'];
      const round = Math.min(4, Math.max(1, Number(cfg.settings?.concurrency) || 4)) * (1 + (cfg.retries ?? 1)); // 1: the engine's default
      for (const end = Date.now() + 10_000; broken.calls.length < round && Date.now() < end;) await new Promise((r) => setTimeout(r, 20));
      expect(broken.calls.length).toBe(round);
      await new Promise((r) => setTimeout(r, 100)); // let the last answer reach the build
      const calls = broken.calls.length;
      expectFailure(await ask(), { status: 503, code: 'upstream_busy' });
      await new Promise((r) => setTimeout(r, 300)); // room for calls of a new build, were one (wrongly) started
      expect(broken.calls.length).toBe(calls);
    });
  });
});

describe('direct routes', () => {
  test('quotes default to a random quote (never cached)', async () => {
    const res = await get({});
    expectAnswer(res, 'office-api');
    expect(res.body.data).toEqual(QUOTES[0]);
    expectMatchesSchema('quotes/office-series', res.body.data);
    expect(s.fake.calls[0].path).toBe('/quote/random');
    await expectNeverCached({ t: s.t, path: PATH, query: { action: 'random' }, upstreamCalls: () => s.fake.calls.length });
  });

  test('a quote by id; an unknown id (upstream 400 "does not exists") → 404', async () => {
    const res = await get({ action: 'id', value: '2' });
    expect(res.body.data).toEqual(QUOTES[1]);
    expectMatchesSchema('quotes/office-series', res.body.data);
    const missing = await get({ action: 'id', value: '4' });
    expectFailure(missing, { status: 404, code: 'not_found' });
    expect(missing.body.error).toBe('No quote with id 4');
  });

  test('a season, and one episode as season/episode; unknown ones → 404', async () => {
    const season = await get({ resource: 'episodes', action: 'season', value: '1' });
    expect(season.body.data).toEqual({ season: 1, items: EPISODES.slice(0, 2), count: 2 });
    expectMatchesSchema('quotes/office-series', season.body.data);
    expect(s.fake.calls[0].path).toBe('/season/1');
    const ep = await get({ resource: 'episodes', action: 'id', value: '2/1' });
    expect(ep.body.data).toEqual(EPISODES[2]);
    expectMatchesSchema('quotes/office-series', ep.body.data);
    expect(s.fake.calls[1].path).toBe('/season/2/episode/1');
    expectFailure(await get({ resource: 'episodes', action: 'season', value: '12' }), { status: 404, code: 'not_found' });
    expectFailure(await get({ resource: 'episodes', action: 'id', value: '1x9' }), { status: 404, code: 'not_found' });
  });
});

describe('bad input', () => {
  s.badInputTests([
    [{ action: 'season', value: '1' }, 'Invalid value for action: season applies to resource episodes only'],
    [{ resource: 'characters', action: 'season', value: '1' }, 'Invalid value for action: season applies to resource episodes only'],
    [{ action: 'id' }, 'Missing required parameter: value'],
    [{ action: 'search' }, 'Missing required parameter: value'],
    [{ action: 'id', value: 'twelve' }, 'Invalid value for value: must be a quote id (a whole number) with action=id'],
    [{ resource: 'episodes', action: 'id', value: '3' }, 'Invalid value for value: must be season/episode, such as 2/1, with action=id'],
    [{ resource: 'episodes', action: 'season', value: 'one' }, 'Invalid value for value: must be a season number with action=season'],
    [{ resource: 'bosses' }, 'Invalid value for resource: must be one of quotes, characters, episodes'],
    [{ action: 'latest' }, 'Invalid value for action: must be one of random, search, season, id'],
  ]);
});

describe('upstream failures', () => {
  beforeEach(() => s.freshApp());
  s.failureTests({ action: 'id', value: '1' });

  test('an upstream 400 that is not a not-found → 400', async () => {
    s.failWith = { status: 400, json: { ok: false, message: 'Invalid ID' } };
    expectFailure(await get({ action: 'id', value: '1' }), { status: 400, code: 'bad_input' });
  });

  test.each([
    'ID does not exists... yet!',
    'ID does not exist... yet!',
    '  id does not exists  ',
    'No episodes found for this season',
    'No episode found for this season id and episode id',
  ])('the upstream not-found message %j, whole → 404', async (message) => {
    s.failWith = { status: 400, json: { ok: false, message } };
    expectFailure(await get({ action: 'id', value: '1' }), { status: 404, code: 'not_found' });
  });

  test.each([
    'Quote ID does not exists in this format',
    'ID does not existing',
    'Request rejected: no episodes found for this season were expected',
    'does not exist',
  ])('a 400 that only contains the words of a not-found (%j) stays a 400', async (message) => {
    s.failWith = { status: 400, json: { ok: false, message } };
    expectFailure(await get({ action: 'id', value: '1' }), { status: 400, code: 'bad_input' });
  });

  test('slower than the upstream timeout → 504', async () => {
    s.failWith = { json: QUOTES[0], delayMs: 2000 };
    await expect(
      officeSeries({ resource: 'quotes', action: 'id', value: '1' }, shortTimeoutCtx('office-api', s.fake.url)),
    ).rejects.toMatchObject({ status: 504 });
  });
});

describe('cache', () => {
  beforeEach(() => s.freshApp());
  test('an identical second lookup is served from the cache', async () => {
    await expectCacheHit({ t: s.t, path: PATH, query: { action: 'id', value: '5' }, upstreamCalls: () => s.fake.calls.length });
  });

  test('concurrent identical lookups share one upstream call', async () => {
    await expectCoalesced({ t: s.t, path: PATH, query: { action: 'id', value: '3' }, upstreamCalls: () => s.fake.calls.length });
  });
});
