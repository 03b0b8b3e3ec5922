// Random quotes of the teen sci-fi series (Stranger Things Quotes). The upstream does not parse the count
// (`/quotes/abc` answers junk), so only the catalog-validated integer ever reaches the path.
import { reply } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { quoteItems } from './_quotes.js';

const teenScifiSeries: Adapter<'quotes/teen-scifi-series'> = async (params, ctx) => {
  const count = params.count;
  const res = await ctx.upstream('strangerthings-quotes').request({ path: `/quotes/${count}` });
  const items = quoteItems(res.body, 'author');
  return reply({ data: { items, count: items.length }, cacheable: false });
};

export default teenScifiSeries;
