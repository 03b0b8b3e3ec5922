// Public-domain e-books of Project Gutenberg, through Gutendex: a search (every word must match an
// author or a title), one book by id, or the catalog's pages (most downloaded first). 32 per page.
import type { Adapter } from './_catalog.js';
import { isRecord, malformed, pageOf, text, type Rec } from './_shape.js';

function book(b: Rec) {
  const people = (v: unknown) =>
    (Array.isArray(v) ? v.filter(isRecord) : []).map((p) => ({
      name: text(p.name),
      birth_year: p.birth_year ?? null,
      death_year: p.death_year ?? null,
    }));
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  return {
    id: b.id,
    title: text(b.title),
    authors: people(b.authors),
    translators: people(b.translators),
    subjects: strings(b.subjects),
    bookshelves: strings(b.bookshelves),
    languages: strings(b.languages),
    summaries: strings(b.summaries),
    copyright: typeof b.copyright === 'boolean' ? b.copyright : null,
    media_type: text(b.media_type),
    formats: isRecord(b.formats) ? b.formats : {},
    download_count: typeof b.download_count === 'number' ? b.download_count : null,
  };
}

const bookCatalog: Adapter<'books/book-catalog'> = async (params, ctx) => {
  const client = ctx.upstream('gutendex');
  const q = params.q?.trim() ?? '';
  if (params.id !== undefined) {
    const id = params.id;
    const res = await client.request({ path: `/books/${id}`, notFoundMessage: `No book with id ${id}` });
    if (!isRecord(res.body) || typeof res.body.id !== 'number') throw malformed();
    return book(res.body);
  }
  const page = params.page ?? 1;
  // Gutendex answers 404 {"detail":"Invalid page."} past the last page.
  const res = await client.request({
    path: '/books',
    searchParams: { ...(q ? { search: q } : {}), ...(page > 1 ? { page } : {}) },
    notFoundMessage: `No page ${page} for this search`,
  });
  const body = res.body;
  if (!isRecord(body) || !Array.isArray(body.results)) throw malformed();
  return {
    ...(q ? { query: q } : {}),
    count: typeof body.count === 'number' ? body.count : body.results.length,
    page,
    next_page: pageOf(body.next),
    items: body.results.filter(isRecord).map(book),
  };
};

export default bookCatalog;
