// art-design/museum-b against a loopback Met collection API (under /public/collection/v1 like the real
// one): search answers ids, the first objects are fetched one at a time and spaced out (the Met's WAF
// blocks bursts), vanished objects skipped, `q` last in the query, 410 → /v1.1/search, departments
// embedded; errors, cache and coalescing.
import type { FakeResponse } from '../../helpers/fake-upstream.js';
import { upstreamSuite, withUpstreams } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectCacheHit, expectCoalesced } from '../../helpers/cache-checks.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { shortTimeoutCtx } from '../../helpers/short-timeout.js';
import museumB from '../../../adapters/art-design/museum-b.js';

const PATH = '/api/v1/art-design/museum-b';
const V1 = '/public/collection/v1';
const notFoundObject: FakeResponse = { status: 404, json: { message: 'ObjectID not found' } };

const s = upstreamSuite({
  endpoint: 'art-design/museum-b',
  // The spacing of calls is the met upstream's policy.
  env: { UPSTREAM_POLICIES: 'on' },
  upstreams: {
    met: {
      basePath: V1,
      routes: {
        [`GET ${V1}/search`]: (r) => ({ json: r.query.get('q') === 'nothing' ? fixture('search-empty.json') : fixture('search.json') }),
        [`GET ${V1}/objects/45734`]: (r) => ({ json: fixture('object-45734.json'), delayMs: r.headers['x-slow'] ? 150 : 0 }),
        [`GET ${V1}/objects/436535`]: () => ({ json: fixture('object-436535.json'), delayMs: 150 }),
        [`GET ${V1}/objects/:id`]: () => notFoundObject,
      },
    },
  },
});
const { fake, fixture, get, freshApp } = s;
/** When each call arrived, to check the spacing. */
const arrivals = () => fake.calls.map((c) => c.at);

describe('search', () => {
  test('ids first, then each object one at a time, spaced out; a vanished object is skipped', async () => {
    const res = await get({ q: 'quail' });
    expectAnswer(res, 'met');
    expect(res.body.data.query).toBe('quail');
    expect(res.body.data.total).toBe(3);
    expect(res.body.data.items.map((o: { objectID: number }) => o.objectID)).toEqual([45734, 436535]);
    expectMatchesSchema('art-design/museum-b', res.body.data);
    const [search, ...objects] = fake.calls;
    expect(search.path).toBe(`${V1}/search`);
    expect([...search.query.keys()]).toEqual(['hasImages', 'q']); // q last: order changes the results
    expect(search.query.get('hasImages')).toBe('true');
    expect(objects.map((c) => c.path)).toEqual([`${V1}/objects/45734`, `${V1}/objects/999999`, `${V1}/objects/436535`]);
    // Calls depart at least the policy's minInterval (500 ms) apart, one after the other. Only arrivals are seen
    // here, and a call may take any time to arrive on a busy machine, so only what follows from those two
    // rules whatever the delays is checked: call i departs after call i-1 was answered (so after it
    // arrived), and 500 ms after call i-1 departed; hence call i+1 arrives 500 ms or more after call i-1
    // arrived, and the last of the 4 calls 1000 ms or more after the first (a few ms allowed for timer
    // rounding). Without the spacing the four calls arrive within a few milliseconds.
    const at = arrivals();
    expect(at).toHaveLength(4);
    for (let i = 2; i < at.length; i++) expect(at[i] - at[i - 2]).toBeGreaterThanOrEqual(495);
    expect(at[3] - at[0]).toBeGreaterThanOrEqual(995);
  });

  test('empty text fields become null, tag objects become their terms, null tags an empty list', async () => {
    const res = await get({ q: 'wheat' });
    const [quail, wheat] = res.body.data.items;
    expect(quail).toMatchObject({
      title: 'Quail and Millet',
      artistDisplayBio: null,
      dimensions: null,
      tags: ['Birds'],
      isPublicDomain: true,
    });
    expect(wheat.tags).toEqual([]);
  });

  test('objectIDs null → an empty list, no object calls', async () => {
    const res = await get({ q: 'nothing' });
    expect(res.body.data).toEqual({ query: 'nothing', total: 0, items: [] });
    expectMatchesSchema('art-design/museum-b', res.body.data);
    expect(fake.calls).toHaveLength(1);
  });

  test('a 410 on /v1/search moves to /v1.1/search with offset and limit, and stays there', async () => {
    const movedMet = {
      basePath: V1,
      routes: {
        [`GET ${V1}/search`]: () => ({ status: 410, json: { message: 'Gone: use /v1.1/search' } }),
        'GET /public/collection/v1.1/search': () => ({ json: { total: 1, objectIDs: [45734] } }),
        [`GET ${V1}/objects/:id`]: () => ({ json: fixture('object-45734.json') }),
      },
    };
    await withUpstreams({ endpoint: 'art-design/museum-b', upstreams: { met: movedMet } }, async (app) => {
      const moved = app.fake;
      const ask = (q: string) => app.get({ q });
      const res = await ask('quail');
      expect(res.status).toBe(200);
      expect(res.body.data.items.map((o: { objectID: number }) => o.objectID)).toEqual([45734]);
      const v11 = moved.calls[1];
      expect(v11.path).toBe('/public/collection/v1.1/search');
      expect([...v11.query.keys()]).toEqual(['hasImages', 'offset', 'limit', 'q']);
      expect(v11.query.get('limit')).toBe('10');
      moved.calls.length = 0;
      await ask('millet');
      expect(moved.calls[0].path).toBe('/public/collection/v1.1/search');
    });
  });
});

describe('id and departments', () => {
  test('id → /objects/{id}', async () => {
    const res = await get({ id: 45734 });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ objectID: 45734, title: 'Quail and Millet', department: 'Asian Art' });
    expectMatchesSchema('art-design/museum-b', res.body.data);
  });

  test('an unknown id → 404', async () => {
    const res = await get({ id: 12 });
    expectFailure(res, { status: 404, code: 'not_found' });
    expect(res.body.error).toBe('No object with id 12');
  });

  test('mode=departments is embedded: no upstream call, source embedded', async () => {
    const res = await get({ mode: 'departments' });
    expectAnswer(res, 'embedded');
    expect(res.body.data.total).toBe(19);
    expect(res.body.data.items[0]).toEqual({ departmentId: 1, displayName: 'American Decorative Arts' });
    expectMatchesSchema('art-design/museum-b', res.body.data);
    expect(fake.calls).toHaveLength(0);
  });
});

describe('bad input', () => {
  s.badInputTests([
    [{}, 'Missing required parameter: q or id or mode'],
    [{ q: 'x', id: 1 }, 'Invalid value for id: cannot be combined with q; give one of mode, q or id'],
    [{ mode: 'departments', q: 'x' }, 'Invalid value for q: cannot be combined with mode; give one of mode, q or id'],
    [{ mode: 'highlights' }, 'Invalid value for mode: must be one of departments'],
    [{ id: -3 }, 'Invalid value for id: must be between 1 and 100000000'],
  ]);
});

describe('upstream failures', () => {
  beforeEach(freshApp);
  s.failureTests({ id: 436535 });

  test('the WAF: an HTML 403 → 502, never its body', async () => {
    s.failWith = { status: 403, headers: { 'content-type': 'text/html' }, text: '<html>Access Denied</html>' };
    const res = await get({ q: 'blocked' });
    expectFailure(res, { status: 502, code: 'upstream_failed' });
    expect(res.body.error).not.toMatch(/Access Denied/);
  });

  test('an object without objectID → 502', async () => {
    s.failWith = { json: { message: 'hello' } };
    expectFailure(await get({ id: 45734 }), { status: 502, code: 'upstream_changed' });
  });

  test('slower than the upstream timeout → 504', async () => {
    s.failWith = { json: fixture('object-45734.json'), delayMs: 2000 };
    await expect(museumB({ id: 45734 }, shortTimeoutCtx('met', fake.url + V1))).rejects.toMatchObject({ status: 504 });
  });
});

describe('cache', () => {
  beforeEach(freshApp);
  test('an identical second call is served from the cache', async () => {
    await expectCacheHit({ t: s.t, path: PATH, query: { id: 45734 }, upstreamCalls: () => fake.calls.length });
  });

  test('concurrent identical calls share one upstream call', async () => {
    await expectCoalesced({ t: s.t, path: PATH, query: { id: 436535 }, upstreamCalls: () => fake.calls.length });
  });

  test('a repeated search is served from the cache without a single call', async () => {
    const first = await get({ q: 'cypress' });
    expect(first.body.metadata.cached).toBe(false);
    const calls = fake.calls.length;
    const second = await get({ q: 'cypress' });
    expect(second.body.metadata.cached).toBe(true);
    expect(fake.calls.length).toBe(calls);
  });
});
