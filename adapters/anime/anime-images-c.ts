// waifu.im, rewritten API: PascalCase query names, tag filters repeated once per tag (IncludedTags=a&
// IncludedTags=b: all required; ExcludedTags: any excludes), IsNsfw True|False|All (False by default,
// which hides NSFW-only tags). The spec has no image id parameter: image-by-id reads `id` (a catalog
// addition, recorded there). Search answers random images and is never cached.
import { reply, notFound, isRecord, malformed, num, record, records, type Rec, required } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';

const NSFW: Record<string, string> = { true: 'True', false: 'False', All: 'All' };

const names = (x: unknown): string[] =>
  Array.isArray(x) ? (x as unknown[]).map((t) => (isRecord(t) ? t.name : t)).filter((t): t is string => typeof t === 'string') : [];

function image(x: Rec): Rec {
  if (x.id === undefined || typeof x.url !== 'string') throw malformed();
  const pick = [
    'id',
    'url',
    'source',
    'width',
    'height',
    'byteSize',
    'extension',
    'dominantColor',
    'isNsfw',
    'isAnimated',
    'uploadedAt',
    'favorites',
  ];
  const out: Rec = Object.fromEntries(pick.filter((k) => x[k] !== undefined).map((k) => [k, x[k]]));
  return { ...out, tags: names(x.tags), artists: names(x.artists) };
}

function tagsParam(sp: URLSearchParams, name: string, value: unknown) {
  for (const t of String(value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean))
    sp.append(name, t);
}

const animeImagesC: Adapter<'anime/anime-images-c'> = async (params, ctx) => {
  const api = ctx.upstream('waifu-im');
  const action = params.action ?? 'search';

  if (action === 'tags') {
    const body = record((await api.request({ path: '/tags' })).body);
    const items = records(body.items)
      .filter((t) => typeof t.name === 'string')
      .map((t) => ({ name: t.name, slug: t.slug ?? null, description: t.description ?? null, imageCount: num(t.imageCount) ?? null }));
    return { items };
  }

  if (action === 'image-by-id') {
    const id = required(params, 'id');
    const { body } = await api.request({ path: `/images/${id}`, notFoundMessage: `No image with id ${id}` });
    // Tolerate a one-item page as well as the bare image.
    const rec = record(body);
    if (Array.isArray(rec.items)) {
      const first = records(rec.items)[0];
      if (!first) throw notFound(`No image with id ${id}`);
      return image(first);
    }
    return image(rec);
  }

  const sp = new URLSearchParams();
  tagsParam(sp, 'IncludedTags', params.includedTags);
  tagsParam(sp, 'ExcludedTags', params.excludedTags);
  if (params.isNsfw !== undefined) sp.set('IsNsfw', NSFW[params.isNsfw]);
  if (params.isAnimated !== undefined) sp.set('IsAnimated', params.isAnimated ? 'True' : 'False');
  if (params.orientation !== undefined) sp.set('Orientation', params.orientation);
  sp.set('PageSize', String(params.limit));
  const body = record((await api.request({ path: '/images', searchParams: sp, notFoundMessage: 'No image matches these filters' })).body);
  const items = records(body.items).map(image);
  return reply({ data: { items, total: num(body.totalCount) ?? items.length }, cacheable: false });
};

export default animeImagesC;
