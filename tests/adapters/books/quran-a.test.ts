// books/quran-a: AlQuran Cloud's shapes. quran-uthmani answers offline from quran-json + quran-meta (text,
// surah, juz, page, ruku, hizb quarter, manzil, sajda); other editions go to a loopback AlQuran Cloud.
import fs from 'node:fs';
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectCacheHit, expectCoalesced } from '../../helpers/cache-checks.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { shortTimeoutCtx } from '../../helpers/short-timeout.js';
import quranA from '../../../adapters/books/quran-a.js';

const PATH = '/api/v1/books/quran-a';
const quranJson = JSON.parse(
  fs.readFileSync(new URL('../../../node_modules/quran-json/dist/quran.json', import.meta.url), 'utf8'),
) as Array<{ verses: Array<{ text: string }> }>;

const s = upstreamSuite({
  endpoint: 'books/quran-a',
  upstreams: {
    alquran: {
      routes: {
        'GET /edition': () => ({ json: s.fixture('edition.json') }),
        'GET /ayah/262/en.asad': () => ({ json: s.fixture('ayah-262-en.asad.json') }),
        'GET /ayah/:n/en.asad': (_r, p) => ({
          json: { ...s.fixture('ayah-262-en.asad.json'), data: { ...s.fixture('ayah-262-en.asad.json').data, number: Number(p.n) } },
          delayMs: p.n === '300' ? 200 : 0,
        }),
        'GET /surah/112/en.asad': () => ({ json: s.fixture('surah-112-en.asad.json') }),
        'GET /search/abraham/all/en.asad': () => ({ json: s.fixture('search-abraham-en.asad.json') }),
        'GET /search/:q/all/en.asad': () => ({ status: 404, json: s.fixture('not-found.json') }),
      },
    },
  },
});
const { get } = s;

describe('embedded quran-uthmani (no network)', () => {
  test('ayah 262 is 2:255 with its position from quran-meta', async () => {
    const res = await get({ mode: 'ayah', number: 262 });
    expectAnswer(res, 'embedded');
    const d = res.body.data;
    expectMatchesSchema('books/quran-a', d);
    expect(d).toMatchObject({ number: 262, numberInSurah: 255, juz: 3, manzil: 1, page: 42, ruku: 35, hizbQuarter: 17, sajda: false });
    expect(d.text).toBe(quranJson[1].verses[254].text);
    expect(d.surah).toMatchObject({
      number: 2,
      name: 'البقرة',
      englishName: 'Al-Baqarah',
      englishNameTranslation: 'The Cow',
      numberOfAyahs: 286,
      revelationType: 'Medinan',
    });
    expect(d.edition).toMatchObject({ identifier: 'quran-uthmani', language: 'ar', format: 'text', type: 'quran', direction: 'rtl' });
    expect(s.fake.calls).toHaveLength(0);
  });

  test('sajda ayahs carry the sajda object; 32:15 is obligatory, 7:206 recommended', async () => {
    const a = (await get({ number: 3518 })).body.data; // 32:15
    expect(a).toMatchObject({ surah: { number: 32 }, numberInSurah: 15, sajda: { obligatory: true, recommended: false } });
    const b = (await get({ number: 1160 })).body.data; // 7:206
    expect(b).toMatchObject({ surah: { number: 7 }, numberInSurah: 206, sajda: { id: 1, obligatory: false, recommended: true } });
  });

  test('the last ayah, 6236, is 114:6', async () => {
    const d = (await get({ mode: 'ayah', number: 6236 })).body.data;
    expect(d).toMatchObject({ numberInSurah: 6, surah: { number: 114 }, juz: 30, page: 604, manzil: 7 });
  });

  test('a surah with all its ayahs (mode inferred from surah)', async () => {
    const res = await get({ surah: 1 });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expectMatchesSchema('books/quran-a', d);
    expect(d).toMatchObject({ number: 1, englishName: 'Al-Fatihah', revelationType: 'Meccan', numberOfAyahs: 7 });
    expect(d.ayahs).toHaveLength(7);
    expect(d.ayahs.map((a: { number: number }) => a.number)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(d.ayahs[0].text).toBe(quranJson[0].verses[0].text);
  });

  test('random (the default mode) gives a valid ayah each time and is never cached', async () => {
    const seen = new Set<number>();
    for (let i = 0; i < 5; i++) {
      const res = await get({});
      expect(res.status).toBe(200);
      expect(res.body.metadata.cached).toBe(false);
      expectMatchesSchema('books/quran-a', res.body.data);
      seen.add(res.body.data.number);
    }
    expect(seen.size).toBeGreaterThan(1);
  });

  test('search ignores diacritics and matches both plain spellings of the dagger alef', async () => {
    const rahman = (await get({ mode: 'search', q: 'الرحمن' })).body.data;
    expectMatchesSchema('books/quran-a', rahman);
    expect(rahman.count).toBe(rahman.matches.length);
    const numbers = rahman.matches.map((m: { number: number }) => m.number);
    expect(numbers).toEqual(expect.arrayContaining([1, 3]));
    const heavens = (await get({ q: 'السماوات والأرض' })).body.data;
    expect(heavens.count).toBeGreaterThan(10);
    expect(heavens.matches[0]).toMatchObject({ edition: { identifier: 'quran-uthmani' }, surah: { number: expect.any(Number) } });
    const none = (await get({ q: 'xyzzy' })).body.data;
    expect(none).toEqual({ count: 0, matches: [] });
  });
});

describe('other editions through AlQuran Cloud', () => {
  test('ayah, surah and search in en.asad', async () => {
    const ayah = await get({ mode: 'ayah', number: 262, edition: 'en.asad' });
    expectAnswer(ayah, 'alquran', 'books/quran-a');
    expect(ayah.body.data).toEqual(s.fixture('ayah-262-en.asad.json').data);

    const surah = await get({ surah: 112, edition: 'en.asad' });
    expectMatchesSchema('books/quran-a', surah.body.data);
    expect(surah.body.data.ayahs).toHaveLength(4);

    const found = await get({ q: 'abraham', edition: 'en.asad' });
    expectMatchesSchema('books/quran-a', found.body.data);
    expect(found.body.data.count).toBe(2);
    expect(s.fake.calls.map((c) => c.path)).toEqual(['/ayah/262/en.asad', '/surah/112/en.asad', '/search/abraham/all/en.asad']);
  });

  test('a search AlQuran Cloud finds nothing for (404) is an empty result', async () => {
    const res = await get({ q: 'no such words', edition: 'en.asad' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ count: 0, matches: [] });
    expect(s.fake.calls[0].path).toBe('/search/no%20such%20words/all/en.asad');
  });

  test('random in another edition draws 1..6236 itself', async () => {
    const res = await get({ mode: 'random', edition: 'en.asad' });
    expect(res.status).toBe(200);
    const n = Number(s.fake.calls[0].path.split('/')[2]);
    expect(n).toBeGreaterThanOrEqual(1);
    expect(n).toBeLessThanOrEqual(6236);
  });

  test('editions come from AlQuran Cloud as {items}', async () => {
    const res = await get({ mode: 'editions' });
    expectAnswer(res, 'alquran', 'books/quran-a');
    expect(res.body.data.items.map((e: { identifier: string }) => e.identifier)).toEqual(['quran-uthmani', 'en.asad', 'ar.alafasy']);
  });

  test.each([
    ['answers 503', (url: string) => url],
    ['is unreachable', () => 'http://127.0.0.1:9'],
  ])('editions fall back to the embedded ones when AlQuran Cloud %s (and the fallback is not cached)', async (_what, base) => {
    s.failWith = { status: 503, json: { code: 503, status: 'Service Unavailable', data: 'down' } };
    await s.withApp({ env: { UPSTREAM_ALQURAN_URL: base(s.fake.url) } }, async (down) => {
      for (let i = 0; i < 2; i++) {
        const res = await down.get({ mode: 'editions' });
        expectAnswer(res, 'embedded');
        expect(res.body.metadata.cached).toBe(false);
        expectMatchesSchema('books/quran-a', res.body.data);
        expect(res.body.data.items).toEqual([expect.objectContaining({ identifier: 'quran-uthmani', type: 'quran' })]);
      }
    });
  });

  s.failureTests({ number: 5, edition: 'en.asad' });

  test('an envelope without ayah data → 502', async () => {
    s.failWith = { json: { code: 200, status: 'OK', data: 'Please specify an edition' } };
    expectFailure(await get({ number: 6, edition: 'en.asad' }), { status: 502, code: 'upstream_changed' });
  });

  test('slower than the upstream timeout → 504', async () => {
    s.failWith = { json: s.fixture('ayah-262-en.asad.json'), delayMs: 2000 };
    await expect(quranA({ mode: 'ayah', number: 262, edition: 'en.asad' }, shortTimeoutCtx('alquran', s.fake.url))).rejects.toMatchObject({
      status: 504,
    });
  });

  test('an identical second call is served from the cache', async () => {
    await expectCacheHit({ t: s.t, path: PATH, query: { number: 299, edition: 'en.asad' }, upstreamCalls: () => s.fake.calls.length });
  });

  test('concurrent identical calls share one upstream call', async () => {
    await expectCoalesced({ t: s.t, path: PATH, query: { number: 300, edition: 'en.asad' }, upstreamCalls: () => s.fake.calls.length });
  });
});

test.each([
  [{ number: 0 }, 'Invalid value for number: must be between 1 and 6236'],
  [{ number: 6237 }, 'Invalid value for number: must be between 1 and 6236'],
  [{ surah: 115 }, 'Invalid value for surah: must be between 1 and 114'],
  [{ surah: 0 }, 'Invalid value for surah: must be between 1 and 114'],
  [{ mode: 'ayah' }, 'Missing required parameter: number'],
  [{ mode: 'surah' }, 'Missing required parameter: surah'],
  [{ mode: 'search' }, 'Missing required parameter: q'],
  [{ mode: 'juz' }, 'Invalid value for mode: must be one of random, surah, ayah, editions, search'],
  [{ edition: 'en asad/../x' }, 'Invalid value for edition: must be an edition identifier such as quran-uthmani'],
  [{ q: 'x'.repeat(101) }, 'Invalid value for q: must be at most 100 characters'],
])('%j → 400', async (query, message) => {
  const res = await get(query);
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ success: false, error: message });
  expect(s.fake.calls).toHaveLength(0);
});
