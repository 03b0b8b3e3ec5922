// Random quotes of the devil series (Lucifer Quotes). `lang` is checked by the catalog because the
// upstream silently answers in English for any unknown language.
import { reply } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { quoteItems } from './_quotes.js';

const devilSeries: Adapter<'quotes/devil-series'> = async (params, ctx) => {
  const count = params.count;
  const path = params.lang === 'fr' ? `/fr/quotes/${count}` : `/quotes/${count}`;
  const res = await ctx.upstream('lucifer-quotes').request({ path });
  const items = quoteItems(res.body, 'author');
  // Random draws: never cached.
  return reply({ data: { items, count: items.length, lang: params.lang ?? 'en' }, cacheable: false });
};

export default devilSeries;
