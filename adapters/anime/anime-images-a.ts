// nekos.best: random images of a category, a search, or the category list. The upstream demands a
// User-Agent (the engine sends ours). Categories are checked against its own /endpoints list, so a typo
// is a 400 naming the valid ones instead of an upstream 404. Random answers are never cached.
import {
  reply,
  type AdapterContext,
  type UpstreamClient,
  invalidParam,
  upstreamBusy,
  isRecord,
  malformed,
  records,
  required,
} from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { nekosCategories } from './_nekos-categories.js';

async function checkedCategory(ctx: AdapterContext<'nekos-best'>, category: string): Promise<string> {
  const known = await nekosCategories(ctx, 'nekos-best');
  if (!known.has(category)) throw invalidParam('category', `must be one of ${[...known.keys()].sort().join(', ')}`);
  return category;
}

/** nekos.best answers 429 with x-rate-limit-reset (an ISO time) rather than Retry-After. */
async function images(api: UpstreamClient, path: string, searchParams: Record<string, string | number | undefined>, signal: AbortSignal) {
  const res = await api.request({ path, searchParams, allowStatus: [429], notFoundMessage: 'No such image category', signal });
  if (res.status === 429) {
    const reset = Date.parse(String(res.headers['x-rate-limit-reset'] ?? ''));
    const wait = Number.isFinite(reset) ? Math.min(3600, Math.max(1, Math.ceil((reset - Date.now()) / 1000))) : 5;
    throw upstreamBusy('The image service is rate limited; try again shortly', wait);
  }
  if (!isRecord(res.body)) throw malformed();
  const items = records(res.body.results).filter((r) => typeof r.url === 'string');
  return reply({ data: { items }, cacheable: false });
}

const animeImagesA: Adapter<'anime/anime-images-a'> = async (params, ctx) => {
  const api = ctx.upstream('nekos-best');
  const action = params.action;
  if (action === 'endpoints') {
    const known = await nekosCategories(ctx, 'nekos-best');
    return { categories: [...known].sort(([a], [b]) => a.localeCompare(b)).map(([name, format]) => ({ name, format })) };
  }
  if (action === 'search') {
    const category = params.category === undefined ? undefined : await checkedCategory(ctx, params.category);
    // `type` is required upstream: 1 = images, 2 = GIFs.
    return images(
      api,
      '/search',
      { query: required(params, 'query'), type: params.type ?? 1, category, amount: params.amount },
      ctx.signal,
    );
  }
  const category = await checkedCategory(ctx, required(params, 'category'));
  return images(api, `/${category}`, { amount: params.amount }, ctx.signal);
};

export default animeImagesA;
