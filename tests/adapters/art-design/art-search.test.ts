// art-design/art-search: ColorMagic (a loopback fake speaking GET /palette/search?q=) answers first; every
// way it fails, or an empty answer, falls back to palettes generated offline, with `source` saying which.
// A failed upstream is skipped for a minute (its breaker), so each failure case gets its own world.
import type { FakeResponse } from '../../helpers/fake-upstream.js';
import { readFixture, upstreamSuite, withUpstreams, type Caller, type WorldOptions } from '../../helpers/upstream-suite.js';
import { expectAnswer } from '../../helpers/schema.js';
import { embeddedPalettes } from '../../../adapters/art-design/_palettes.js';

/** A ColorMagic answering each search with `answer(q)`. */
const colormagic = (answer: (q: string) => FakeResponse): WorldOptions => ({
  endpoint: 'art-design/art-search',
  // A failed ColorMagic is skipped for a minute by its policy (catalog/upstreams.yaml).
  env: { UPSTREAM_POLICIES: 'on' },
  upstreams: { colormagic: { routes: { 'GET /palette/search': (req) => answer(req.query.get('q') ?? '') } } },
});
const fixture = (name: string) => readFixture('colormagic', name);
const search = (app: Caller, q: string) => app.get({ q });

describe('with ColorMagic answering', () => {
  const env = upstreamSuite(
    colormagic((q) =>
      q === 'sunset'
        ? { json: fixture('search-sunset.json') }
        : q === 'slow'
          ? { json: fixture('search-sunset.json'), delayMs: 300 }
          : { json: [] },
    ),
  );

  test('its palettes, reduced to {id, text, colors, tags}, source colormagic', async () => {
    const res = await search(env, 'sunset');
    expectAnswer(res, 'colormagic', 'art-design/art-search');
    expect(res.body.data.items).toEqual([
      {
        id: '66a1f0c2e4b0a1d2c3f40101',
        text: 'Sunset over the bay',
        colors: ['#ff6b35', '#f7c59f', '#efefd0', '#004e89', '#1a659e'],
        tags: ['sunset', 'orange', 'blue', 'warm'],
      },
      {
        id: '66a1f0c2e4b0a1d2c3f40102',
        text: 'Pink sunset',
        colors: ['#f72585', '#b5179e', '#7209b7', '#560bad'],
        tags: ['sunset', 'pink', 'purple'],
      },
    ]);
    expect(env.fake.calls[0].path).toBe('/palette/search');
    expect(env.fake.calls[0].query.get('q')).toBe('sunset');
  });

  test('the second identical search is served from the cache', async () => {
    const again = await search(env, 'sunset');
    expect(again.status).toBe(200);
    expect(again.body.metadata.cached).toBe(true);
    expect(again.body.source).toBe('colormagic');
    expect(env.fake.calls).toHaveLength(0);
  });

  test('concurrent identical searches share one upstream call', async () => {
    const all = await Promise.all(Array.from({ length: 5 }, () => search(env, 'slow')));
    expect(all.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(env.fake.calls).toHaveLength(1);
  });

  test('an empty answer falls back to embedded palettes, not cached', async () => {
    const res = await search(env, 'ocean');
    expectAnswer(res, 'embedded', 'art-design/art-search');
    expect(res.body.data.items[0]).toMatchObject({ id: 'emb-ocean', text: 'Ocean' });
    const again = await search(env, 'ocean');
    expect(again.body.metadata.cached).toBe(false);
    expect(env.fake.calls).toHaveLength(2);
  });
});

test.each([
  ['500', { status: 500, json: { message: 'boom' } }],
  ['429', { status: 429, headers: { 'retry-after': '60' }, json: { message: 'slow down' } }],
  ['404', { status: 404, json: { message: 'not found' } }],
  ['malformed JSON', { text: '<html>oops</html>', headers: { 'content-type': 'application/json' } }],
  ['a body that is not a list of palettes', { json: { palettes: 'none' } }],
  ['colours that are not hex', { json: [{ id: 'x', text: 'x', colors: ['red'], tags: [] }] }],
] as Array<[string, FakeResponse]>)('ColorMagic %s → embedded palettes, 200', async (_name, answer) => {
  await withUpstreams(
    colormagic(() => answer),
    async (env) => {
      const res = await search(env, 'forest');
      expectAnswer(res, 'embedded', 'art-design/art-search');
      expect(res.body.data.items[0].id).toBe('emb-forest');
    },
  );
});

test('ColorMagic slower than 3 s → embedded palettes; then it is skipped for a while', async () => {
  await withUpstreams(
    colormagic(() => ({ json: fixture('search-sunset.json'), delayMs: 5000 })),
    async (env) => {
      const started = Date.now();
      const res = await search(env, 'sunset');
      expectAnswer(res, 'embedded');
      expect(Date.now() - started).toBeLessThan(4500);
      const calls = env.fake.calls.length;
      const next = await search(env, 'forest');
      expect(next.body.source).toBe('embedded');
      expect(env.fake.calls.length).toBe(calls);
    },
  );
}, 15000);

test('ColorMagic unreachable → embedded palettes', async () => {
  await withUpstreams(
    colormagic(() => ({ status: 200 })),
    async (env) => {
      await env.fake.close();
      const res = await search(env, 'cobalt');
      expectAnswer(res, 'embedded');
      expect(res.body.data.items[0]).toMatchObject({ text: 'Cobalt analogic', tags: ['cobalt', 'analogic'] });
    },
  );
});

describe('embedded palettes', () => {
  test('a lexicon word: its own palette first, then harmonies of it', () => {
    const items = embeddedPalettes('Sunset');
    expect(items[0]).toEqual({
      id: 'emb-sunset',
      text: 'Sunset',
      colors: ['#FF5E3A', '#FF9A3C', '#FFD166', '#C2185B', '#5C2A6B'],
      tags: ['sunset'],
    });
    expect(items.length).toBeGreaterThan(3);
    expect(items.every((p) => p.colors.length === 5 && p.colors.every((c) => /^#[0-9A-F]{6}$/.test(c)))).toBe(true);
  });

  test('aliases and plurals reach the lexicon', () => {
    expect(embeddedPalettes('sea')[0].id).toBe('emb-ocean');
    expect(embeddedPalettes('forests')[0].id).toBe('emb-forest');
  });

  test("colour names: an exact name first, expanded with The Color API's harmonies", () => {
    const items = embeddedPalettes('cobalt');
    expect(items[0]).toMatchObject({ id: 'emb-0047ab-analogic', text: 'Cobalt analogic' });
    const mono = items.find((p) => p.id === 'emb-0047ab-monochrome');
    expect(mono?.colors).toEqual(['#01122A', '#02285D', '#023D8F', '#0252C3', '#0167F6']);
    expect(embeddedPalettes('blue').length).toBeGreaterThan(5);
  });

  test('several words combine lexicon and names; at most 12 palettes, no duplicates', () => {
    const items = embeddedPalettes('blue ocean');
    expect(items[0].id).toBe('emb-ocean');
    expect(items.length).toBeLessThanOrEqual(12);
    expect(new Set(items.map((p) => p.colors.join())).size).toBe(items.length);
  });

  test('nothing known → []', () => {
    expect(embeddedPalettes('qwxzz')).toEqual([]);
  });
});

test('missing or blank q → 400 Missing required parameter: q', async () => {
  await withUpstreams(
    colormagic(() => ({ json: [] })),
    async (env) => {
      for (const q of [undefined, '   ']) {
        const res = await env.get(q === undefined ? {} : { q });
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('Missing required parameter: q');
      }
      expect(env.fake.calls).toHaveLength(0);
    },
  );
});
