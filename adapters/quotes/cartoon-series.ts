// Quotes of the adult cartoon series (South Park Quotes): random ones, or every quote matching a search.
// The upstream keeps its quotes as written ("I'm not fat, I'm festively plump." by "Cartman") and answers
// random draws so, but its search matches on lower-cased copies, compares them with the term as sent (so
// the term is lowered here), and answers those copies. The quotes are given back as written: the whole
// collection, asked for alongside the search (GET /quotes/{more than it holds} answers all of it), says
// how each match is written; when that call fails or times out, the matches are answered as the search
// gave them (lower-cased), never an error for a search that found them. The search has no count, so
// `count` only applies to random draws.
import { reply } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { quoteItems, unexpectedShape } from './_quotes.js';

/** More than the upstream holds (113 quotes): it answers all of them, in a random order. */
const WHOLE_COLLECTION = 1000;

/**
 * Each match as the collection writes it; a match the collection does not hold stays as answered, and so
 * does every match when the collection could not be had (`undefined`).
 */
function asWritten(matches: unknown, collection: unknown): unknown {
  if (!Array.isArray(matches)) throw unexpectedShape();
  if (collection === undefined) return matches;
  if (!Array.isArray(collection)) throw unexpectedShape();
  const key = (q: Record<string, unknown>) => `${String(q.quote).toLowerCase()}\n${String(q.character).toLowerCase()}`;
  const written = new Map<string, unknown>();
  for (const q of collection) if (typeof q === 'object' && q !== null) written.set(key(q as Record<string, unknown>), q);
  return (matches as unknown[]).map((m) =>
    typeof m === 'object' && m !== null ? (written.get(key(m as Record<string, unknown>)) ?? m) : m,
  );
}

const cartoonSeries: Adapter<'quotes/cartoon-series'> = async (params, ctx) => {
  const client = ctx.upstream('southpark-quotes');
  const search = params.search?.trim().toLowerCase() ?? '';
  if (search) {
    const [matches, collection] = await Promise.all([
      client.request({ path: `/quotes/search/${encodeURIComponent(search)}` }),
      // Only how the matches are written: the search's answer stands without it (failed, timed out).
      client.request({ path: `/quotes/${WHOLE_COLLECTION}` }).then(
        (r) => r.body,
        () => undefined,
      ),
    ]);
    const items = quoteItems(asWritten(matches.body, collection), 'character');
    return { items, count: items.length, search };
  }
  const res = await client.request({ path: `/quotes/${params.count}` });
  const items = quoteItems(res.body, 'character');
  return reply({ data: { items, count: items.length }, cacheable: false });
};

export default cartoonSeries;
