// books/bible-a against a loopback wldeh/bible-api: the versions list, a chapter (verses listed twice
// upstream → deduplicated, pilcrows stripped, numbers as integers), one verse, version default en-kjv,
// book and chapter required; errors, cache and coalescing.
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { shortTimeoutCtx } from '../../helpers/short-timeout.js';
import bibleA from '../../../adapters/books/bible-a.js';

const s = upstreamSuite({
  endpoint: 'books/bible-a',
  upstreams: {
    'wldeh-bible': {
      routes: {
        'GET /bibles.json': () => ({ json: s.fixture('bibles.json') }),
        'GET /:version/books/jude/chapters/1.json': () => ({ json: s.fixture('jude-1.json'), delayMs: 150 }),
        'GET /en-kjv/books/john/chapters/3/verses/16.json': () => ({ json: s.fixture('john-3-16.json') }),
        'GET /en-kjv/books/1samuel/chapters/3/verses/4.json': () => ({ json: { verse: '4', text: 'That the LORD called Samuel:' } }),
      },
      fallback: () => ({ status: 404, text: "Couldn't find the requested file." }),
    },
  },
});
const { get } = s;

describe('reading', () => {
  test('a chapter: each verse once, in order, without ¶, version en-kjv by default', async () => {
    const res = await get({ book: 'Jude', chapter: 1 });
    expectAnswer(res, 'wldeh-bible');
    expect(res.body.data).toEqual({
      version: 'en-kjv',
      book: 'Jude',
      chapter: 1,
      items: [
        { verse: 1, text: 'Jude, the servant of Jesus Christ, and brother of James,' },
        { verse: 2, text: 'Mercy unto you, and peace, and love, be multiplied.' },
      ],
      count: 2,
    });
    expectMatchesSchema('books/bible-a', res.body.data);
    expect(s.fake.calls[0].path).toBe('/en-kjv/books/jude/chapters/1.json');
  });

  test('one verse', async () => {
    const res = await get({ book: 'John', chapter: 3, verse: 16 });
    expect(res.body.data).toEqual({
      version: 'en-kjv',
      book: 'John',
      chapter: 3,
      verse: 16,
      text: 'For God so loved the world, that he gave his only begotten Son.',
    });
    expectMatchesSchema('books/bible-a', res.body.data);
  });

  test('book names lose spaces and capitals (1 Samuel → 1samuel)', async () => {
    const res = await get({ book: '1 Samuel', chapter: 3, verse: 4 });
    expect(res.status).toBe(200);
    expect(s.fake.calls[0].path).toBe('/en-kjv/books/1samuel/chapters/3/verses/4.json');
  });

  test('another version, ids with capitals included', async () => {
    const res = await get({ version: 'ahr-Deva-IN-ntaii20', book: 'jude', chapter: 1 });
    expect(res.status).toBe(200);
    expect(s.fake.calls[0].path).toBe('/ahr-Deva-IN-ntaii20/books/jude/chapters/1.json');
  });

  test('an unknown book, chapter or version (plain-text 404) → 404', async () => {
    const res = await get({ book: 'Hezekiah', chapter: 1 });
    expectFailure(res, { status: 404, code: 'not_found' });
    expect(res.body.error).toBe('No Hezekiah 1 in version en-kjv (check the version id and the book name)');
  });
});

test('mode=versions → the list of versions', async () => {
  const res = await get({ mode: 'versions' });
  expect(res.status).toBe(200);
  expect(res.body.data.count).toBe(2);
  expect(res.body.data.items[0]).toMatchObject({ id: 'en-kjv', version: 'King James Version' });
  expectMatchesSchema('books/bible-a', res.body.data);
  expect(s.fake.calls[0].path).toBe('/bibles.json');
});

describe('bad input', () => {
  s.badInputTests([
    [{ chapter: 1 }, 'Missing required parameter: book'],
    [{ book: 'John' }, 'Missing required parameter: chapter'],
    [{}, 'Missing required parameter: book'],
    [{ book: 'John', chapter: 151 }, 'Invalid value for chapter: must be between 1 and 150'],
    [{ book: 'John', chapter: 3, verse: 0 }, 'Invalid value for verse: must be between 1 and 176'],
    [{ version: 'en kjv', book: 'John', chapter: 3 }, 'Invalid value for version: must be a version id such as en-kjv'],
    [{ mode: 'books' }, 'Invalid value for mode: must be one of versions'],
  ]);
});

describe('upstream failures', () => {
  beforeEach(() => s.freshApp());
  s.failureTests({ book: 'Mark', chapter: 1 });

  test('a chapter without data → 502', async () => {
    s.failWith = { json: { verses: [] } };
    expectFailure(await get({ book: 'Mark', chapter: 2 }), { status: 502, code: 'upstream_changed' });
  });

  test('slower than the upstream timeout → 504', async () => {
    s.failWith = { json: s.fixture('jude-1.json'), delayMs: 2000 };
    await expect(bibleA({ version: 'en-kjv', book: 'Mark', chapter: 1 }, shortTimeoutCtx('wldeh-bible', s.fake.url))).rejects.toMatchObject(
      { status: 504 },
    );
  });
});

s.cacheTests({ hit: { book: 'John', chapter: 3, verse: 16 }, coalesced: { book: 'Jude', chapter: 1 } });
