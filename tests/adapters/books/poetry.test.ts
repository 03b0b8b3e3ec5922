// books/poetry against a loopback PoetryDB: every title, every author, random (never cached), by author,
// by title, by both; errors inside HTTP 200 with a numeric or string status; `linecount` string →
// number; `,;:` refused; cache and coalescing.
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectNeverCached } from '../../helpers/cache-checks.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { shortTimeoutCtx } from '../../helpers/short-timeout.js';
import poetry from '../../../adapters/books/poetry.js';

const PATH = '/api/v1/books/poetry';
const OZYMANDIAS = {
  title: 'Ozymandias',
  author: 'Percy Bysshe Shelley',
  lines: ['I met a traveller from an antique land', 'Who said: Two vast and trunkless legs of stone'],
  linecount: 2,
};
const notFound200 = { json: { status: 404, reason: 'Not found' } };

const s = upstreamSuite({
  endpoint: 'books/poetry',
  upstreams: {
    poetrydb: {
      routes: {
        'GET /title': () => ({ json: s.fixture('titles.json') }),
        'GET /author': () => ({ json: s.fixture('authors.json') }),
        'GET /random': () => ({ json: s.fixture('ozymandias.json') }),
        'GET /author/:a': (_r, p) => (p.a === 'Percy Bysshe Shelley' ? { json: s.fixture('ozymandias.json'), delayMs: 150 } : notFound200),
        'GET /title/:t': (_r, p) => (p.t === 'Ozymandias' ? { json: s.fixture('ozymandias.json') } : notFound200),
        'GET /author,title/:both': () => ({ json: s.fixture('ozymandias.json') }),
      },
    },
  },
});
const { get } = s;

describe('routes', () => {
  test('no parameters → every title', async () => {
    const res = await get({});
    expectAnswer(res, 'poetrydb');
    expect(res.body.data).toEqual({ kind: 'titles', items: s.fixture('titles.json').titles, count: 2 });
    expectMatchesSchema('books/poetry', res.body.data);
    expect(s.fake.calls[0].path).toBe('/title');
  });

  test('mode=authors → every author', async () => {
    const res = await get({ mode: 'authors' });
    expect(res.body.data).toEqual({ kind: 'authors', items: ['Percy Bysshe Shelley', 'William Shakespeare'], count: 2 });
    expectMatchesSchema('books/poetry', res.body.data);
  });

  test('mode=random → a poem, linecount as a number, never cached', async () => {
    const res = await get({ mode: 'random' });
    expect(res.body.data).toEqual({ kind: 'poems', items: [OZYMANDIAS], count: 1 });
    expectMatchesSchema('books/poetry', res.body.data);
    await expectNeverCached({ t: s.t, path: PATH, query: { mode: 'random' }, upstreamCalls: () => s.fake.calls.length });
  });

  test.each([
    [{ author: 'Percy Bysshe Shelley' }, '/author/Percy%20Bysshe%20Shelley'],
    [{ title: 'Ozymandias' }, '/title/Ozymandias'],
    [{ author: 'Shelley', title: 'Ozymandias' }, '/author,title/Shelley;Ozymandias'],
  ])('%j → %s', async (query, path) => {
    const res = await get(query);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ kind: 'poems', items: [OZYMANDIAS], count: 1 });
    expectMatchesSchema('books/poetry', res.body.data);
    expect(s.fake.calls[0].path).toBe(path);
  });

  test('not found, told inside a 200 → 404', async () => {
    const res = await get({ title: 'No Such Poem' });
    expectFailure(res, { status: 404, code: 'not_found' });
    expect(res.body.error).toBe('No poem matches this author or title');
  });

  test('another error inside a 200, with a string status → 400', async () => {
    s.failWith = { json: { status: '405', reason: 'list not available. Only author, title, lines, linecount.' } };
    expectFailure(await get({ title: 'Sonnet' }), { status: 400, code: 'bad_input' });
  });
});

describe('bad input', () => {
  s.badInputTests([
    [{ author: 'Shelley;Keats' }, 'Invalid value for author: must be a name without , ; or :'],
    [{ title: 'Ozymandias:abs' }, 'Invalid value for title: must be a title without , ; or :'],
    [
      { mode: 'random', author: 'Shelley' },
      'Invalid value for mode: random takes no author or title; omit mode to find poems by author or title',
    ],
    [{ mode: 'titles' }, 'Invalid value for mode: must be one of authors, random'],
  ]);
});

describe('upstream failures', () => {
  beforeEach(() => s.freshApp());
  s.failureTests({ author: 'Keats' });

  test('titles without the titles key → 502', async () => {
    s.failWith = { json: { authors: [] } };
    expectFailure(await get({}), { status: 502, code: 'upstream_changed' });
  });

  test('slower than the upstream timeout → 504', async () => {
    s.failWith = { json: [], delayMs: 2000 };
    await expect(poetry({ author: 'Keats' }, shortTimeoutCtx('poetrydb', s.fake.url))).rejects.toMatchObject({ status: 504 });
  });
});

s.cacheTests({ hit: { title: 'Ozymandias' }, coalesced: { author: 'Percy Bysshe Shelley' } });
