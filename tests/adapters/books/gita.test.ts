// books/gita against a loopback gita-api: a verse by chapter and verse, by serial, checked locally
// against the verse-count table (no call for a verse that does not exist); errors inside HTTP 200
// ("Language not implemented" → 404, "Invalid verse no" → 400); Odia string numbers, combined verses
// and a purport given as the text of a Python list; cache and coalescing.
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { shortTimeoutCtx } from '../../helpers/short-timeout.js';
import { gitaSerial } from '../../../adapters/books/_gita-verses.js';
import gita from '../../../adapters/books/gita.js';

const s = upstreamSuite({
  endpoint: 'books/gita',
  upstreams: {
    gita: {
      routes: {
        'GET /:lang/verse/:c/:v': (_r, p) =>
          p.lang === 'eng'
            ? { json: s.fixture('not-implemented.json') }
            : p.lang === 'odi'
              ? { json: s.fixture('odi-1-4.json') }
              : { json: s.fixture('tel-2-47.json'), delayMs: p.v === '20' ? 150 : 0 },
        'GET /:lang/verse/:serial': () => ({ json: s.fixture('tel-2-47.json') }),
      },
    },
  },
});
const { get } = s;

describe('verses', () => {
  test('chapter and verse, Telugu by default', async () => {
    const res = await get({ chapter: 2, verse: 47 });
    expectAnswer(res, 'gita');
    expect(res.body.data).toEqual({ ...s.fixture('tel-2-47.json') });
    expectMatchesSchema('books/gita', res.body.data);
    expect(s.fake.calls[0].path).toBe('/tel/verse/2/47');
  });

  test('by serial (mode inferred from serial): /{language}/verse/{serial}', async () => {
    const res = await get({ serial: 166 });
    expect(res.status).toBe(200);
    expectMatchesSchema('books/gita', res.body.data);
    expect(s.fake.calls[0].path).toBe('/tel/verse/166');
  });

  test('Odia: string numbers become integers, a combined verse a list, a repr purport a list', async () => {
    const res = await get({ language: 'odi', chapter: 1, verse: 4 });
    expect(res.body.data).toMatchObject({ chapter_no: 1, verse_no: [4, 5, 6], language: 'odia', purport: ['ପ୍ରଥମ ଅନୁଚ୍ଛେଦ', 'ଦ୍ୱିତୀୟ ଅନୁଚ୍ଛେଦ'] });
    expect(Array.isArray(res.body.data.verse)).toBe(true);
    expectMatchesSchema('books/gita', res.body.data);
  });

  test('"Language not implemented" inside a 200 → 404', async () => {
    const res = await get({ language: 'eng', chapter: 1, verse: 1 });
    expectFailure(res, { status: 404, code: 'not_found' });
    expect(res.body.error).toBe('Language eng is not available from the upstream');
  });

  test('"Invalid verse no" inside a 200 → 400', async () => {
    s.failWith = { json: s.fixture('invalid-verse.json') };
    expectFailure(await get({ chapter: 2, verse: 70 }), { status: 400, code: 'bad_input' });
  });
});

describe('local checks, before any call', () => {
  s.badInputTests([
    [{ chapter: 2, verse: 73 }, 'Invalid value for verse: chapter 2 has 72 verses'],
    [{ chapter: 12, verse: 21 }, 'Invalid value for verse: chapter 12 has 20 verses'],
    [{ chapter: 19, verse: 1 }, 'Invalid value for chapter: must be between 1 and 18'],
    [{ mode: 'serial', serial: 702 }, 'Invalid value for serial: must be between 1 and 701'],
    [{ mode: 'serial' }, 'Missing required parameter: serial'],
    [{ chapter: 2 }, 'Missing required parameter: verse'],
    [{ verse: 2 }, 'Missing required parameter: chapter'],
    [{}, 'Missing required parameter: chapter'],
    [{ mode: 'serial', serial: 5, chapter: 1 }, 'Invalid value for mode: serial takes serial, not chapter and verse'],
    [{ mode: 'verse', serial: 5 }, 'Invalid value for serial: is used with mode=serial only'],
    [{ language: 'hin', chapter: 1, verse: 1 }, 'Invalid value for language: must be one of tel, odi, eng, esp'],
  ]);

  test('serials map through the cumulative verse counts', () => {
    expect(gitaSerial(1)).toEqual({ chapter: 1, verse: 1 });
    expect(gitaSerial(47)).toEqual({ chapter: 1, verse: 47 });
    expect(gitaSerial(48)).toEqual({ chapter: 2, verse: 1 });
    expect(gitaSerial(119)).toEqual({ chapter: 2, verse: 72 });
    expect(gitaSerial(623)).toEqual({ chapter: 17, verse: 28 });
    expect(gitaSerial(701)).toEqual({ chapter: 18, verse: 78 });
  });
});

describe('upstream failures', () => {
  beforeEach(() => s.freshApp());
  s.failureTests({ chapter: 3, verse: 5 });

  test('an object with neither verse nor translation → 502', async () => {
    s.failWith = { json: { chapter_no: 3 } };
    expectFailure(await get({ chapter: 3, verse: 5 }), { status: 502, code: 'upstream_changed' });
  });

  test('slower than the upstream timeout → 504', async () => {
    s.failWith = { json: s.fixture('tel-2-47.json'), delayMs: 2000 };
    await expect(gita({ language: 'tel', chapter: 3, verse: 5 }, shortTimeoutCtx('gita', s.fake.url))).rejects.toMatchObject({
      status: 504,
    });
  });
});

s.cacheTests({ hit: { chapter: 4, verse: 7 }, coalesced: { chapter: 4, verse: 20 } });
