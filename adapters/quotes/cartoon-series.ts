// Quotes of the adult cartoon series (South Park Quotes): random ones, or every quote matching a search.
// The upstream stores quotes and names in lower case and does not lower the term itself; its search
// returns all matches and has no count, so `count` only applies to random draws.
import { reply, type Adapter } from '../../engine/adapter.js';
import { quoteItems } from './_quotes.js';

const cartoonSeries: Adapter = async (params, ctx) => {
  const client = ctx.upstream('southpark-quotes');
  const search = typeof params.search === 'string' ? params.search.trim().toLowerCase() : '';
  if (search) {
    const res = await client.request({ path: `/quotes/search/${encodeURIComponent(search)}` });
    const items = quoteItems(res.body, 'character');
    return { items, count: items.length, search };
  }
  const res = await client.request({ path: `/quotes/${Number(params.count)}` });
  const items = quoteItems(res.body, 'character');
  return reply({ data: { items, count: items.length }, cacheable: false });
};

export default cartoonSeries;
