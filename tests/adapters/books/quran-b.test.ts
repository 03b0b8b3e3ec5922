// books/quran-b: fawazahmed0/quran-api's shapes (lists keyed `quran`, `chapter`, or the PLURAL segment name).
// ara-quranuthmanienc answers offline from quran-json with segment bounds from quran-meta; other editions
// go to a loopback quran-api. Every segment's range is checked with a clear 400.
import fs from 'node:fs';
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectCacheHit, expectCoalesced } from '../../helpers/cache-checks.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { shortTimeoutCtx } from '../../helpers/short-timeout.js';
import quranB from '../../../adapters/books/quran-b.js';

const PATH = '/api/v1/books/quran-b';
const quranJson = JSON.parse(
  fs.readFileSync(new URL('../../../node_modules/quran-json/dist/quran.json', import.meta.url), 'utf8'),
) as Array<{ verses: Array<{ text: string }> }>;

const s = upstreamSuite({
  endpoint: 'books/quran-b',
  upstreams: {
    'quran-api': {
      routes: {
        'GET /editions.min.json': () => ({ json: s.fixture('editions.json') }),
        'GET /editions/eng-ummmuhammad/112.min.json': () => ({ json: s.fixture('eng-ummmuhammad-112.json') }),
        'GET /editions/eng-ummmuhammad/113.min.json': () => ({ json: s.fixture('eng-ummmuhammad-112.json'), delayMs: 200 }),
        'GET /editions/eng-ummmuhammad/2/255.min.json': () => ({ json: s.fixture('eng-ummmuhammad-2-255.json') }),
        'GET /editions/eng-ummmuhammad/manzils/7.min.json': () => ({ json: s.fixture('eng-ummmuhammad-manzils-7.json') }),
      },
      // quran-api (jsDelivr) answers a plain-text 404 for anything it does not hold.
      fallback: () => ({ status: 404, text: "Couldn't find the requested file." }),
    },
  },
});
const { get } = s;

describe('embedded ara-quranuthmanienc (the default edition, no network)', () => {
  test('a chapter as {chapter: [...]}', async () => {
    const res = await get({ mode: 'chapter', chapter: 1 });
    expectAnswer(res, 'embedded', 'books/quran-b');
    expect(res.body.data.chapter).toHaveLength(7);
    expect(res.body.data.chapter[0]).toEqual({ chapter: 1, verse: 1, text: quranJson[0].verses[0].text });
    expect(s.fake.calls).toHaveLength(0);
  });

  test('a verse is {chapter, verse, text} (mode inferred from verse)', async () => {
    const res = await get({ chapter: 2, verse: 255 });
    expect(res.status).toBe(200);
    expectMatchesSchema('books/quran-b', res.body.data);
    expect(res.body.data).toEqual({ chapter: 2, verse: 255, text: quranJson[1].verses[254].text });
  });

  test('the whole edition is {quran: [6236 verses]}', async () => {
    const res = await get({ mode: 'edition', edition: 'ara_quranuthmanienc' });
    expect(res.status).toBe(200);
    expectMatchesSchema('books/quran-b', res.body.data);
    expect(res.body.data.quran).toHaveLength(6236);
    expect(res.body.data.quran[6235]).toMatchObject({ chapter: 114, verse: 6 });
  });

  test.each([
    ['juz', 30, 'juzs', [78, 1], [114, 6], 564],
    ['juz', 1, 'juzs', [1, 1], [2, 141], 148],
    ['page', 1, 'pages', [1, 1], [1, 7], 7],
    ['page', 604, 'pages', [112, 1], [114, 6], 15],
    ['ruku', 556, 'rukus', [114, 1], [114, 6], 6],
    ['manzil', 7, 'manzils', [50, 1], [114, 6], 1606],
    ['maqra', 240, 'maqras', [100, 9], [114, 6], 82],
  ])('segment %s %i is {%s: [...]} from %j to %j', async (segment, n, key, first, last, count) => {
    const res = await get({ segment, segment_no: n });
    expect(res.status).toBe(200);
    expectMatchesSchema('books/quran-b', res.body.data);
    const list = res.body.data[key] as Array<{ chapter: number; verse: number }>;
    expect(Object.keys(res.body.data)).toEqual([key]);
    expect(list).toHaveLength(count);
    expect([list[0].chapter, list[0].verse]).toEqual(first);
    expect([list.at(-1)!.chapter, list.at(-1)!.verse]).toEqual(last);
  });
});

describe('other editions through quran-api', () => {
  test('chapter, verse and segment of eng-ummmuhammad, passed through in its shapes', async () => {
    const chapter = await get({ edition: 'eng-ummmuhammad', chapter: 112 });
    expectAnswer(chapter, 'quran-api', 'books/quran-b');
    expect(chapter.body.data).toEqual(s.fixture('eng-ummmuhammad-112.json'));
    const verse = await get({ edition: 'eng-ummmuhammad', chapter: 2, verse: 255 });
    expect(verse.body.data).toEqual(s.fixture('eng-ummmuhammad-2-255.json'));
    const segment = await get({ edition: 'eng-ummmuhammad', segment: 'manzil', segment_no: 7 });
    expectMatchesSchema('books/quran-b', segment.body.data);
    expect(segment.body.data.manzils).toHaveLength(2);
    expect(s.fake.calls.map((c) => c.path)).toEqual([
      '/editions/eng-ummmuhammad/112.min.json',
      '/editions/eng-ummmuhammad/2/255.min.json',
      '/editions/eng-ummmuhammad/manzils/7.min.json',
    ]);
  });

  test("editions (the default mode) are quran-api's map", async () => {
    const res = await get({});
    expectAnswer(res, 'quran-api', 'books/quran-b');
    expect(Object.keys(res.body.data)).toEqual(['ara_quranuthmanienc', 'eng_ummmuhammad']);
  });

  test('editions fall back to the embedded ones when quran-api is unreachable', async () => {
    await s.withApp({ env: { UPSTREAM_QURAN_API_URL: 'http://127.0.0.1:9' } }, async (down) => {
      const res = await down.get({ mode: 'editions' });
      expectAnswer(res, 'embedded', 'books/quran-b');
      expect(res.body.data.ara_quranuthmanienc).toMatchObject({ name: 'ara-quranuthmanienc', language: 'Arabic', direction: 'rtl' });
      // The embedded edition still answers with the upstream down.
      const verse = await down.get({ chapter: 1, verse: 1 });
      expect(verse.body.data).toMatchObject({ chapter: 1, verse: 1 });
    });
  });

  test('an edition quran-api does not hold → 404', async () => {
    const res = await get({ edition: 'xxx-nosuchedition', chapter: 1 });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('No such edition, chapter, verse or segment at quran-api');
  });

  s.failureTests({ edition: 'eng-ummmuhammad', chapter: 5 });

  test('a body without the expected list → 502', async () => {
    s.failWith = { json: { verses: [] } };
    expectFailure(await get({ edition: 'eng-ummmuhammad', chapter: 6 }), { status: 502, code: 'upstream_changed' });
  });

  test('slower than the upstream timeout → 504', async () => {
    s.failWith = { json: s.fixture('eng-ummmuhammad-112.json'), delayMs: 2000 };
    await expect(
      quranB({ mode: 'chapter', edition: 'eng-ummmuhammad', chapter: 112 }, shortTimeoutCtx('quran-api', s.fake.url)),
    ).rejects.toMatchObject({ status: 504 });
  });

  test('an identical second call is served from the cache', async () => {
    await expectCacheHit({
      t: s.t,
      path: PATH,
      query: { edition: 'eng-ummmuhammad', chapter: 112, mode: 'chapter' },
      upstreamCalls: () => s.fake.calls.length,
    });
  });

  test('concurrent identical calls share one upstream call', async () => {
    await expectCoalesced({
      t: s.t,
      path: PATH,
      query: { edition: 'eng-ummmuhammad', chapter: 113 },
      upstreamCalls: () => s.fake.calls.length,
    });
  });
});

test.each([
  [{ segment: 'juz', segment_no: 31 }, 'Invalid value for segment_no: must be between 1 and 30 for juz'],
  [{ segment: 'ruku', segment_no: 557 }, 'Invalid value for segment_no: must be between 1 and 556 for ruku'],
  [{ segment: 'manzil', segment_no: 8 }, 'Invalid value for segment_no: must be between 1 and 7 for manzil'],
  [{ segment: 'maqra', segment_no: 241 }, 'Invalid value for segment_no: must be between 1 and 240 for maqra'],
  [{ segment: 'page', segment_no: 605 }, 'Invalid value for segment_no: must be between 1 and 604'],
  [{ segment: 'page', segment_no: 0 }, 'Invalid value for segment_no: must be between 1 and 604'],
  [{ segment: 'hizb', segment_no: 1 }, 'Invalid value for segment: must be one of juz, ruku, page, manzil, maqra'],
  [{ mode: 'segment', segment: 'juz' }, 'Missing required parameter: segment_no'],
  [{ mode: 'segment', segment_no: 3 }, 'Missing required parameter: segment'],
  [{ chapter: 1, verse: 8 }, 'Invalid value for verse: surah 1 has 7 ayahs'],
  [{ chapter: 115 }, 'Invalid value for chapter: must be between 1 and 114'],
  [{ mode: 'verse', verse: 3 }, 'Missing required parameter: chapter'],
  [{ mode: 'verse', chapter: 3 }, 'Missing required parameter: verse'],
  [{ mode: 'chapter' }, 'Missing required parameter: chapter'],
  [{ mode: 'edition' }, 'Missing required parameter: edition'],
  [{ edition: '../../etc', chapter: 1 }, 'Invalid value for edition: must be an edition name such as eng-ummmuhammad'],
])('%j → 400', async (query, message) => {
  const res = await get(query);
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ success: false, error: message });
  expect(s.fake.calls).toHaveLength(0);
});
