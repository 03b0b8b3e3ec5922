// books/library against a loopback Open Library: work search, author search and lookup, works and
// editions by id (the id's letter names its kind), description/bio as string or {type, value};
// errors, cache and coalescing.
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { shortTimeoutCtx } from '../../helpers/short-timeout.js';
import library from '../../../adapters/books/library.js';

const s = upstreamSuite({
  endpoint: 'books/library',
  upstreams: {
    openlibrary: {
      routes: {
        'GET /search.json': (r) => ({ json: s.fixture('search.json'), delayMs: r.query.get('q') === 'slow' ? 150 : 0 }),
        'GET /search/authors.json': () => ({ json: s.fixture('authors-search.json') }),
        'GET /authors/OL23919A.json': () => ({ json: s.fixture('author.json') }),
        'GET /works/OL82563W.json': () => ({ json: s.fixture('work.json') }),
        'GET /books/OL7353617M.json': () => ({ json: s.fixture('edition.json') }),
      },
    },
  },
});
const { get } = s;

describe('modes', () => {
  test('search (the default with q) → /search.json with limit and fields', async () => {
    const res = await get({ q: 'harry potter' });
    expectAnswer(res, 'openlibrary');
    expect(res.body.data).toEqual({
      mode: 'search',
      query: 'harry potter',
      total: 4063,
      items: [
        {
          key: '/works/OL82563W',
          id: 'OL82563W',
          title: "Harry Potter and the Philosopher's Stone",
          authors: ['J. K. Rowling'],
          author_ids: ['OL23919A'],
          first_publish_year: 1997,
          edition_count: 390,
          cover_url: 'https://covers.openlibrary.org/b/id/15155833-M.jpg',
        },
      ],
    });
    expectMatchesSchema('books/library', res.body.data);
    expect(s.fake.calls[0].query.get('limit')).toBe('20');
    expect(s.fake.calls[0].query.get('fields')).toMatch(/^key,title,author_name/);
  });

  test('author with q → /search/authors.json', async () => {
    const res = await get({ mode: 'author', q: 'rowling' });
    expect(res.status).toBe(200);
    expect(res.body.data.items[0]).toEqual({
      key: 'OL23919A',
      id: 'OL23919A',
      name: 'J. K. Rowling',
      birth_date: '31 July 1965',
      death_date: null,
      top_work: "Harry Potter and the Philosopher's Stone",
      work_count: 413,
    });
    expectMatchesSchema('books/library', res.body.data);
  });

  test('an author id: bio {type, value} becomes text, housekeeping fields go', async () => {
    const res = await get({ id: 'OL23919A' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      key: '/authors/OL23919A',
      id: 'OL23919A',
      name: 'J. K. Rowling',
      bio: 'Joanne Rowling is a British author.',
      cover_urls: ['https://covers.openlibrary.org/b/id/5543033-M.jpg'],
    });
    expect(res.body.data.revision).toBeUndefined();
    expect(res.body.data.type).toBeUndefined();
    expectMatchesSchema('books/library', res.body.data);
    expect(s.fake.calls[0].path).toBe('/authors/OL23919A.json');
  });

  test('a work: description object → text; invalid cover ids dropped', async () => {
    const res = await get({ mode: 'work', id: 'OL82563W' });
    expect(res.body.data).toMatchObject({
      id: 'OL82563W',
      description: 'Harry discovers he is a wizard.',
      cover_urls: ['https://covers.openlibrary.org/b/id/15155833-M.jpg'],
    });
    expectMatchesSchema('books/library', res.body.data);
  });

  test('an edition: description already a string stays one', async () => {
    const res = await get({ id: 'OL7353617M' });
    expect(res.body.data).toMatchObject({
      id: 'OL7353617M',
      title: 'Fantastic Mr. Fox',
      description: 'A fox outwits three farmers.',
      number_of_pages: 96,
    });
    expectMatchesSchema('books/library', res.body.data);
    expect(s.fake.calls[0].path).toBe('/books/OL7353617M.json');
  });

  test('an unknown id → 404', async () => {
    const res = await get({ id: 'OL1W' });
    expectFailure(res, { status: 404, code: 'not_found' });
    expect(res.body.error).toBe('No work with id OL1W');
  });
});

describe('bad input', () => {
  s.badInputTests([
    [{ id: 'OL82563X' }, 'Invalid value for id: must be an Open Library id such as OL82563W, OL7353617M or OL23919A'],
    [{ mode: 'edition', id: 'OL82563W' }, 'Invalid value for id: OL82563W is a work id; mode=edition needs an id ending in M'],
    [{ mode: 'work', id: 'OL23919A' }, 'Invalid value for id: OL23919A is an author id; mode=work needs an id ending in W'],
    [{ mode: 'search', id: 'OL82563W' }, 'Invalid value for id: is not used with mode=search; give q'],
    [{ mode: 'work' }, 'Missing required parameter: id'],
    [{ mode: 'author' }, 'Missing required parameter: q'],
    [{}, 'Missing required parameter: q'],
    [{ mode: 'subject', q: 'x' }, 'Invalid value for mode: must be one of search, author, work, edition'],
  ]);
});

describe('upstream failures', () => {
  beforeEach(() => s.freshApp());
  s.failureTests({ q: 'tolkien' });

  test('a body without docs → 502', async () => {
    s.failWith = { json: { numFound: 3 } };
    expectFailure(await get({ q: 'tolkien' }), { status: 502, code: 'upstream_changed' });
  });

  test('slower than the upstream timeout → 504', async () => {
    s.failWith = { json: s.fixture('search.json'), delayMs: 2000 };
    await expect(library({ q: 'tolkien' }, shortTimeoutCtx('openlibrary', s.fake.url))).rejects.toMatchObject({ status: 504 });
  });
});

s.cacheTests({ hit: { id: 'OL82563W' }, coalesced: { q: 'slow' } });
