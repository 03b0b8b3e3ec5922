// books/book-catalog against a loopback Gutendex: search with paging, one book, the catalog's pages,
// DRF 404s ("No Book matches", "Invalid page."), errors, cache and coalescing.
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { shortTimeoutCtx } from '../../helpers/short-timeout.js';
import bookCatalog from '../../../adapters/books/book-catalog.js';

const s = upstreamSuite({
  endpoint: 'books/book-catalog',
  upstreams: {
    gutendex: {
      routes: {
        'GET /books': (r) =>
          r.query.get('page') === '99'
            ? { status: 404, json: { detail: 'Invalid page.' } }
            : { json: s.fixture('books-search.json'), delayMs: r.query.get('search') === 'slow' ? 150 : 0 },
        'GET /books/1400': () => ({ json: s.fixture('book-1400.json') }),
        'GET /books/:id': () => ({ status: 404, json: { detail: 'No Book matches the given query.' } }),
      },
    },
  },
});
const { get } = s;

describe('modes', () => {
  test('q → /books?search=, with count, page and the next page read from `next`', async () => {
    const res = await get({ q: 'dickens great' });
    expectAnswer(res, 'gutendex');
    expect(res.body.data).toMatchObject({ query: 'dickens great', count: 5, page: 1, next_page: 2 });
    expect(res.body.data.items[0]).toMatchObject({
      id: 1400,
      title: 'Great Expectations',
      authors: [{ name: 'Dickens, Charles', birth_year: 1812, death_year: 1870 }],
      download_count: 31245,
    });
    expectMatchesSchema('books/book-catalog', res.body.data);
    expect(Object.fromEntries(s.fake.calls[0].query)).toEqual({ search: 'dickens great' });
  });

  test('page is passed on; without q the catalog is listed', async () => {
    const res = await get({ page: 3 });
    expect(res.status).toBe(200);
    expect(res.body.data.page).toBe(3);
    expect(res.body.data.query).toBeUndefined();
    expectMatchesSchema('books/book-catalog', res.body.data);
    expect(Object.fromEntries(s.fake.calls[0].query)).toEqual({ page: '3' });
  });

  test('id → /books/{id}, the book itself', async () => {
    const res = await get({ id: 1400 });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: 1400, languages: ['en'], copyright: false, media_type: 'Text' });
    expect(res.body.data.formats['application/epub+zip']).toMatch(/1400/);
    expectMatchesSchema('books/book-catalog', res.body.data);
  });

  test('an unknown id and a page past the end → 404', async () => {
    const book = await get({ id: 77 });
    expectFailure(book, { status: 404, code: 'not_found' });
    expect(book.body.error).toBe('No book with id 77');
    const page = await get({ q: 'dickens', page: 99 });
    expectFailure(page, { status: 404, code: 'not_found' });
    expect(page.body.error).toBe('No page 99 for this search');
  });
});

describe('bad input', () => {
  s.badInputTests([
    [{ q: 'x', id: 1 }, 'Invalid value for id: give either q (search) or id (one book), not both'],
    [{ id: 0 }, 'Invalid value for id: must be between 1 and 10000000'],
    [{ page: 'two' }, 'Invalid value for page: must be an integer'],
    [{ page: 0 }, 'Invalid value for page: must be between 1 and 100000'],
  ]);
});

describe('upstream failures', () => {
  beforeEach(() => s.freshApp());
  s.failureTests({ q: 'austen' });

  test('a body without results → 502', async () => {
    s.failWith = { json: { count: 1 } };
    expectFailure(await get({ q: 'austen' }), { status: 502, code: 'upstream_changed' });
  });

  test('slower than the upstream timeout → 504', async () => {
    s.failWith = { json: s.fixture('books-search.json'), delayMs: 2000 };
    await expect(bookCatalog({ q: 'austen' }, shortTimeoutCtx('gutendex', s.fake.url))).rejects.toMatchObject({ status: 504 });
  });
});

s.cacheTests({ hit: { q: 'twain' }, coalesced: { q: 'slow' } });
