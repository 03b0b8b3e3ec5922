// Quotes, characters and episodes of the monster-hunter series (The Supernatural API).
// Quirks absorbed here: lists come as {data, next, prev, count, resultCount} where `next` is always
// present and `count` is the size of the whole unfiltered collection, so the next page is known only
// by comparing the page length with the size we asked for; quotes are blocks of `line_0…line_N`,
// turned into `lines[]`; `char` must equal a speaker exactly, in lower case (comma-separated = all of);
// the random quote names its episode only by id, so the episode is read by that id.
import { reply, type AdapterContext } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { isRecord, unexpectedShape } from './_quotes.js';

const PAGE_SIZE = 10;
type Query = Record<string, string | number | undefined>;

function quoteBlock(q: Record<string, unknown>) {
  const lines = Object.keys(q)
    .filter((k) => /^line_\d+$/.test(k))
    .sort((a, b) => Number(a.slice(5)) - Number(b.slice(5)))
    .map((k) => {
      const line = isRecord(q[k]) ? q[k] : {};
      const who = isRecord(line.character) ? line.character.name : line.character;
      return { character: typeof who === 'string' ? who : null, quote: typeof line.quote === 'string' ? line.quote : '' };
    });
  const ep = isRecord(q.episode) ? q.episode : undefined;
  const episode = ep ? { id: ep.id ?? null, title: ep.title ?? null, season: ep.season ?? null, episode: ep.ep ?? null } : null;
  return { episodeId: typeof q.episodeId === 'string' ? q.episodeId : null, episode, lines };
}

/**
 * The random route answers the bare quote, its episode only as `episodeId` (the lists fill `episode` in);
 * the upstream gives that episode at /episodes/{id}, so it is read from there. An id it does not know
 * (404, empty body) leaves `episode` null.
 */
async function withEpisode(ctx: AdapterContext<'supernatural'>, q: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (isRecord(q.episode) || typeof q.episodeId !== 'string' || !q.episodeId) return q;
  const res = await ctx.upstream('supernatural').request({ path: `/episodes/${encodeURIComponent(q.episodeId)}`, allowStatus: [404] });
  if (res.status === 404) return q;
  if (!isRecord(res.body)) throw unexpectedShape();
  return { ...q, episode: res.body };
}

async function page(ctx: AdapterContext<'supernatural'>, resource: string, query: Query): Promise<Record<string, unknown>[]> {
  const res = await ctx.upstream('supernatural').request({ path: `/${resource}`, searchParams: query });
  if (!isRecord(res.body) || !Array.isArray(res.body.data)) throw unexpectedShape();
  return res.body.data.filter(isRecord);
}

/** Characters and episodes have no random route: `count` from a one-item page, then a random page of one. */
async function randomOf(ctx: AdapterContext<'supernatural'>, resource: string, filters: Query) {
  const res = await ctx.upstream('supernatural').request({ path: `/${resource}`, searchParams: { ...filters, page: 1, size: 1 } });
  if (!isRecord(res.body) || !Array.isArray(res.body.data)) throw unexpectedShape();
  const total = Number(res.body.count);
  if (!res.body.data.length || !Number.isFinite(total) || total < 1) throw unexpectedShape();
  const n = 1 + Math.floor(Math.random() * total);
  const item: unknown = n === 1 ? res.body.data[0] : (await page(ctx, resource, { ...filters, page: n, size: 1 }))[0];
  if (!isRecord(item)) throw unexpectedShape();
  return reply({ data: item, cacheable: false });
}

const hunterSeries: Adapter<'quotes/hunter-series'> = async (params, ctx) => {
  const resource = params.resource;
  const char = params.char?.trim().toLowerCase();
  const season = params.season;
  const pageNo = params.page ?? 1;

  const filters: Query = resource === 'characters' ? { name: char } : resource === 'episodes' ? { season } : { char, season };

  if (params.action === 'random') {
    if (resource !== 'quotes') return randomOf(ctx, resource, filters);
    const res = await ctx.upstream('supernatural').request({ path: '/quotes/random' });
    if (!isRecord(res.body)) throw unexpectedShape();
    return reply({ data: quoteBlock(await withEpisode(ctx, res.body)), cacheable: false });
  }

  const rows = await page(ctx, resource, { ...filters, page: pageNo, size: PAGE_SIZE });
  const items = resource === 'quotes' ? rows.map(quoteBlock) : rows;
  return { resource, items, page: pageNo, page_size: PAGE_SIZE, next_page: rows.length === PAGE_SIZE ? pageNo + 1 : null };
};

export default hunterSeries;
