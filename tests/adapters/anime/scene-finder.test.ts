// anime/scene-finder against a loopback trace.moe: the caller's image URL passed as url= after a public-host
// check, presence flags sent only when true, the key header, `me` without our address, 402/503 → 503 with
// Retry-After, one search in flight per process with a bounded queue (the tracemoe upstream's policy),
// and nothing cached.
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectNeverCached } from '../../helpers/cache-checks.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { expectUpstreamTimeout } from '../../helpers/short-timeout.js';
import sceneFinder from '../../../adapters/anime/scene-finder.js';

const PATH = '/api/v1/anime/scene-finder';
const IMAGE = 'https://images.example.com/shots/nekopara.jpg';

let searchDelayMs = 0;
let inFlight = 0;
let maxInFlight = 0;
/** When set, every search waits at the upstream until the test opens this gate (instead of searchDelayMs). */
let gate: Promise<void> | undefined;
let openGate: () => void = () => {};
const closeGate = () => {
  gate = new Promise<void>((ok) => (openGate = ok));
};
const s = upstreamSuite({
  endpoint: 'anime/scene-finder',
  upstreams: {
    tracemoe: {
      routes: {
        'GET /search': async (r) => {
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          await (gate ?? new Promise((ok) => setTimeout(ok, searchDelayMs)));
          inFlight--;
          return { json: s.fixture(r.query.has('anilistInfo') ? 'search-info.json' : 'search.json') };
        },
        'GET /me': () => ({ json: s.fixture('me.json') }),
      },
    },
  },
});
beforeEach(() => {
  searchDelayMs = 0;
  maxInFlight = 0;
  gate = undefined;
});
afterEach(() => openGate()); // never leave a search hanging at the fake

/** Polls `check` until it holds, for at most `ms` (a generous bound for a busy machine). */
async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((ok) => setTimeout(ok, 10));
  }
}
const { get } = s;
// One search at a time is the tracemoe upstream's policy (catalog/upstreams.yaml): on for this app.
const guarded = s.app({ env: { UPSTREAM_POLICIES: 'on' } });

describe('search', () => {
  test('the image URL goes to the upstream as url=, no flags unless asked; scenes use neutral names', async () => {
    const before = Date.now();
    const res = await get({ url: IMAGE });
    expectAnswer(res, 'tracemoe');
    expect(Object.fromEntries(s.fake.calls[0].query)).toEqual({ url: IMAGE });
    const { frameCount, items, previewsExpireAt } = res.body.data;
    expect(frameCount).toBe(745506);
    expect(items).toHaveLength(2);
    expect(items[0]).toMatchObject({
      animedb: 99939,
      filename: expect.stringContaining('Nekopara'),
      episode: null,
      from: 97.75,
      to: 98.92,
      similarity: expect.any(Number),
    });
    expect(items[0]).not.toHaveProperty('anilist');
    expect(items[1].episode).toBe(2);
    expect(Date.parse(previewsExpireAt) - before).toBeGreaterThanOrEqual(299_000);
    expect(Date.parse(previewsExpireAt) - Date.now()).toBeLessThanOrEqual(300_000);
    expectMatchesSchema('anime/scene-finder', res.body.data);
  });

  test('cutBorders, animedbID and animedbInfo become the upstream flags; the anime metadata comes back', async () => {
    const res = await get({ action: 'search', url: IMAGE, cutBorders: true, animedbID: 99939, animedbInfo: true });
    expect(res.status).toBe(200);
    const q = s.fake.calls[0].query;
    expect(q.has('cutBorders')).toBe(true);
    expect(q.has('anilistInfo')).toBe(true);
    expect(q.get('anilistID')).toBe('99939');
    expect(res.body.data.items[0].animedb).toMatchObject({ id: 99939, idMal: 34658, title: { romaji: 'Nekopara OVA' } });
    expect(res.body.data.items[0].episode).toBe('OVA');
    expectMatchesSchema('anime/scene-finder', res.body.data);
  });

  test('flags set to false are not sent at all', async () => {
    await get({ url: IMAGE, cutBorders: false, animedbInfo: false });
    expect([...s.fake.calls[0].query.keys()]).toEqual(['url']);
  });

  test('a configured key goes in the x-trace-key header, never in the query', async () => {
    await s.withApp({ env: { UPSTREAM_TRACEMOE_KEYS: 'trace-key-1' } }, async (t2) => {
      const res = await t2.get({ url: IMAGE });
      expect(res.status).toBe(200);
      expect(s.fake.calls[0].headers['x-trace-key']).toBe('trace-key-1');
      expect(s.fake.calls[0].query.has('key')).toBe(false);
    });
  });

  test('searches are never cached', async () => {
    await expectNeverCached({ t: s.t, path: PATH, query: { url: IMAGE }, upstreamCalls: () => s.fake.calls.length });
  });
});

describe('me', () => {
  test('quota, use and what is left; the upstream id (our address) is left out', async () => {
    const res = await get({ action: 'me' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ quota: 100, quotaUsed: 43, quotaRemaining: 57, concurrency: 1, priority: 0 });
    expect(JSON.stringify(res.body)).not.toContain('198.51.100.23');
    expectMatchesSchema('anime/scene-finder', res.body.data);
    expect(s.fake.calls[0].path).toBe('/me');
  });

  test('is never cached', async () => {
    await expectNeverCached({ t: s.t, path: PATH, query: { action: 'me' }, upstreamCalls: () => s.fake.calls.length });
  });
});

describe('bad input', () => {
  s.badInputTests([
    [{}, 'Missing required parameter: url'],
    [{ action: 'search' }, 'Missing required parameter: url'],
    [{ url: 'ftp://example.com/a.jpg' }, 'Invalid value for url: must be an http(s) URL'],
    [{ url: 'not a url' }, 'Invalid value for url: must be an http(s) URL'],
    [{ url: 'http://127.0.0.1/a.jpg' }, 'Invalid value for url: must be a public http(s) URL (not a private, loopback or local address)'],
    [
      { url: 'http://localhost:8080/a.jpg' },
      'Invalid value for url: must be a public http(s) URL (not a private, loopback or local address)',
    ],
    [{ url: 'http://10.1.2.3/a.jpg' }, 'Invalid value for url: must be a public http(s) URL (not a private, loopback or local address)'],
    [
      { url: 'http://192.168.0.10/a.jpg' },
      'Invalid value for url: must be a public http(s) URL (not a private, loopback or local address)',
    ],
    [
      { url: 'http://169.254.169.254/latest/meta-data' },
      'Invalid value for url: must be a public http(s) URL (not a private, loopback or local address)',
    ],
    [{ url: 'http://[::1]/a.jpg' }, 'Invalid value for url: must be a public http(s) URL (not a private, loopback or local address)'],
    [
      { url: 'http://[::ffff:10.0.0.1]/a.jpg' },
      'Invalid value for url: must be a public http(s) URL (not a private, loopback or local address)',
    ],
    [{ url: 'http://2130706433/a.jpg' }, 'Invalid value for url: must be a public http(s) URL (not a private, loopback or local address)'],
    [{ url: 'http://nas.local/a.jpg' }, 'Invalid value for url: must be a public http(s) URL (not a private, loopback or local address)'],
    [{ url: 'http://intranet/a.jpg' }, 'Invalid value for url: must be a public http(s) URL (not a private, loopback or local address)'],
    [{ url: 'https://user:pw@example.com/a.jpg' }, 'Invalid value for url: must not carry credentials'],
    [{ url: IMAGE, animedbID: 0 }, 'Invalid value for animedbID: must be between 1 and 100000000'],
    [{ url: IMAGE, cutBorders: 'yes' }, 'Invalid value for cutBorders: must be true or false'],
    [{ action: 'find', url: IMAGE }, 'Invalid value for action: must be one of search, me'],
  ]);
});

describe('upstream failures', () => {
  s.failureTests({ url: IMAGE });

  test('402 quota depleted → 503 with a long Retry-After; concurrency exceeded → a short one', async () => {
    s.failWith = { status: 402, json: { error: 'Search quota depleted' } };
    const quota = await get({ url: IMAGE });
    expectFailure(quota, { status: 503, code: 'upstream_busy' });
    expect(quota.headers['retry-after']).toBe('3600');
    s.failWith = { status: 402, json: { error: 'Concurrency limit exceeded' } };
    const busy = await get({ url: IMAGE });
    expectFailure(busy, { status: 503, code: 'upstream_busy' });
    expect(busy.headers['retry-after']).toBe('10');
  });

  test('503 (its queue is full) → 503 with Retry-After', async () => {
    s.failWith = { status: 503, json: { error: 'Error: Search queue is full' } };
    expectFailure(await get({ url: IMAGE }), { status: 503, code: 'upstream_busy' });
  });

  test('400 (the image could not be read) → 400 in our words', async () => {
    s.failWith = { status: 400, json: { error: 'Failed to fetch image https://images.example.com/x.jpg' } };
    const res = await get({ url: IMAGE });
    expectFailure(res, { status: 400, code: 'bad_input' });
    expect(res.body.error).toBe('Invalid value for url: the image could not be fetched or read by the search service');
  });

  test('an error string inside a 200 → 502; a result that is not a list → 502', async () => {
    s.failWith = { json: { frameCount: 0, error: 'Something broke', result: [] } };
    expectFailure(await get({ url: IMAGE }), { status: 502, code: 'upstream_failed' });
    s.failWith = { json: { frameCount: 0, error: '', result: 'none' } };
    expectFailure(await get({ url: IMAGE }), { status: 502, code: 'upstream_changed' });
  });

  test('slower than the upstream timeout → 504, and the search lock is released', async () => {
    s.failWith = { json: s.fixture('search.json'), delayMs: 2000 };
    await expectUpstreamTimeout((ctx) => sceneFinder({ action: 'search', url: IMAGE }, ctx), 'tracemoe', s.fake.url);
    s.failWith = undefined;
    expect((await get({ url: IMAGE })).status).toBe(200);
  });
});

describe('one search at a time', () => {
  test('concurrent searches reach the upstream one after the other; all succeed', async () => {
    searchDelayMs = 150;
    const answers = await Promise.all([0, 1, 2].map(() => guarded.get({ url: IMAGE })));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(s.fake.calls.filter((c) => c.path === '/search')).toHaveLength(3);
    expect(maxInFlight).toBe(1);
  });

  test('me does not wait behind searches', async () => {
    // The search holds the lock, at the upstream, until me has answered: no timing involved. (Were me
    // queued behind the search, it would never answer while the gate is shut: the race below says so.)
    closeGate();
    const search = guarded.get({ url: IMAGE }).then((r) => r);
    await until(() => inFlight === 1);
    let timer: NodeJS.Timeout | undefined;
    const me = await Promise.race([
      guarded.get({ action: 'me' }).then((r) => r),
      new Promise<never>((_, fail) => (timer = setTimeout(() => fail(new Error('me waited behind the search')), 10_000))),
    ]).finally(() => clearTimeout(timer));
    expect(me.status).toBe(200);
    expect(inFlight).toBe(1); // the search was still in flight all along
    openGate();
    expect((await search).status).toBe(200);
  });

  test('past the queue bound (8 waiting) a search is refused at once with 503 and Retry-After', async () => {
    // The first search holds the lock at the upstream until the two refusals are back, so the other ten
    // all meet a held lock whatever the pace at which they arrive: 8 wait, 2 are refused.
    closeGate();
    const settled: number[] = [];
    const pending = Array.from({ length: 11 }, () =>
      guarded.get({ url: IMAGE }).then((r) => {
        settled.push(r.status);
        return r;
      }),
    );
    await until(() => settled.length >= 2);
    expect(settled).toEqual([503, 503]);
    openGate();
    const answers = await Promise.all(pending);
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(9);
    const refused = answers.filter((r) => r.status === 503);
    expect(refused).toHaveLength(2);
    for (const r of refused) expectFailure(r, { status: 503, code: 'upstream_busy' });
    expect(maxInFlight).toBe(1);
  });
});
