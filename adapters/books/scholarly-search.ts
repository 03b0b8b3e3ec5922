// Scholarly works (articles, books, papers) from Crossref. `mailto` puts the calls in Crossref's polite
// pool when the operator set a contact in upstreams.yaml. Quirks absorbed here: `title` and
// `container-title` are arrays; dates are `{"date-parts": [[y, m, d]]}`; authors are {given, family}
// or an organisation's {name}.
import { badInput } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { isRecord, malformed, text, type Rec } from './_shape.js';

const first = (v: unknown) => (Array.isArray(v) ? text(v.find((x) => typeof x === 'string' && x.trim())) : text(v));

function issued(v: unknown): string | null {
  const parts = isRecord(v) && Array.isArray(v['date-parts']) && Array.isArray(v['date-parts'][0]) ? (v['date-parts'][0] as unknown[]) : [];
  const nums = parts.filter((n): n is number => typeof n === 'number');
  if (!nums.length) return null;
  return [String(nums[0]), ...nums.slice(1, 3).map((n) => String(n).padStart(2, '0'))].join('-');
}

function work(w: Rec) {
  const authors = (Array.isArray(w.author) ? w.author.filter(isRecord) : [])
    .map((a) => text([a.given, a.family].filter((x) => typeof x === 'string').join(' ')) ?? text(a.name))
    .filter((x): x is string => !!x);
  return {
    doi: text(w.DOI),
    title: first(w.title),
    authors,
    issued: issued(w.issued),
    container_title: first(w['container-title']),
    type: text(w.type),
    url: text(w.URL) ?? (text(w.DOI) ? `https://doi.org/${text(w.DOI)}` : null),
  };
}

const scholarlySearch: Adapter<'books/scholarly-search'> = async (params, ctx) => {
  const client = ctx.upstream('crossref');
  const s = client.settings;
  const mailto = typeof s.mailto === 'string' && s.mailto.includes('@') ? s.mailto : undefined;
  const q = params.q.trim();
  const res = await client.request({
    path: '/works',
    searchParams: {
      query: q,
      rows: Number(s.rows ?? 20),
      select: String(s.select ?? 'DOI,title,author,issued,container-title,type,URL'),
      mailto,
    },
    allowStatus: [400],
  });
  // Crossref answers 400 {"status":"failed","message":[{"type":"validation-failure",…}]} for queries it refuses.
  if (res.status === 400) throw badInput('The upstream service rejected the query');
  const body = res.body;
  if (!isRecord(body) || body.status !== 'ok' || !isRecord(body.message) || !Array.isArray(body.message.items)) throw malformed();
  const total = body.message['total-results'];
  const items = body.message.items.filter(isRecord).map(work);
  return { query: q, total: typeof total === 'number' ? total : items.length, items };
};

export default scholarlySearch;
