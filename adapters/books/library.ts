// Open Library: search works, search or read an author, read a work or an edition.
//   search → /search.json; author → /search/authors.json (q) or /authors/OL…A.json (id);
//   work → /works/OL…W.json; edition → /books/OL…M.json.
// The id's last letter names its kind, so mode may be left out when an id is given. Quirk absorbed here:
// `description` (and bio, notes, first_sentence) is a string or a {type, value} object.
import { invalidParam, missingParam } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { isRecord, malformed, text, type Rec } from './_shape.js';

const KIND_BY_LETTER: Record<string, string> = { A: 'author', W: 'work', M: 'edition' };
const LETTER_BY_KIND: Record<string, string> = { author: 'A', work: 'W', edition: 'M' };
const PATH_BY_KIND: Record<string, string> = { author: 'authors', work: 'works', edition: 'books' };
const RICH_TEXT = ['description', 'bio', 'notes', 'first_sentence'];
const NOISE = ['type', 'revision', 'latest_revision', 'created', 'last_modified', 'location'];
const SEARCH_FIELDS = 'key,title,author_name,author_key,first_publish_year,cover_i,edition_count';
const LIMIT = 20;

const coverUrl = (id: unknown) => (typeof id === 'number' && id > 0 ? `https://covers.openlibrary.org/b/id/${id}-M.jpg` : null);
const olid = (key: unknown) => (typeof key === 'string' ? (key.split('/').pop() ?? null) : null);

function record(r: Rec): Rec {
  const out: Rec = { ...r, id: olid(r.key) };
  for (const f of NOISE) delete out[f];
  for (const f of RICH_TEXT) {
    const v = r[f];
    if (isRecord(v)) out[f] = text(v.value);
  }
  const covers = Array.isArray(r.covers) ? r.covers : Array.isArray(r.photos) ? r.photos : [];
  out.cover_urls = covers.map(coverUrl).filter(Boolean);
  return out;
}

const library: Adapter<'books/library'> = async (params, ctx) => {
  const client = ctx.upstream('openlibrary');
  const q = params.q?.trim() ?? '';
  const id = params.id;
  const idKind = id ? KIND_BY_LETTER[id.slice(-1)] : undefined;
  const mode = params.mode ?? idKind ?? 'search';
  // Which kind an id is shows only in its last letter, a fact of Open Library's ids.
  if (id && idKind !== mode)
    throw invalidParam(
      'id',
      `${id} is ${idKind === 'author' ? 'an' : 'a'} ${idKind} id; mode=${mode} needs an id ending in ${LETTER_BY_KIND[mode]}`,
    );

  if (id) {
    const res = await client.request({ path: `/${PATH_BY_KIND[mode]}/${id}.json`, notFoundMessage: `No ${mode} with id ${id}` });
    if (!isRecord(res.body) || typeof res.body.key !== 'string') throw malformed();
    return record(res.body);
  }
  if (!q) throw missingParam('q');

  const authors = mode === 'author';
  const res = await client.request({
    path: authors ? '/search/authors.json' : '/search.json',
    searchParams: authors ? { q, limit: LIMIT } : { q, limit: LIMIT, fields: SEARCH_FIELDS },
  });
  const body = res.body;
  if (!isRecord(body) || !Array.isArray(body.docs)) throw malformed();
  const items = body.docs.filter(isRecord).map((d) =>
    authors
      ? {
          key: d.key,
          id: olid(d.key),
          name: text(d.name),
          birth_date: text(d.birth_date),
          death_date: text(d.death_date),
          top_work: text(d.top_work),
          work_count: d.work_count ?? null,
        }
      : {
          key: d.key,
          id: olid(d.key),
          title: text(d.title),
          authors: Array.isArray(d.author_name) ? d.author_name : [],
          author_ids: Array.isArray(d.author_key) ? d.author_key : [],
          first_publish_year: d.first_publish_year ?? null,
          edition_count: d.edition_count ?? null,
          cover_url: coverUrl(d.cover_i),
        },
  );
  return { mode, query: q, total: typeof body.numFound === 'number' ? body.numFound : items.length, items };
};

export default library;
