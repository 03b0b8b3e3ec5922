// Nekosia: random images of a category, the tag list, or one image by id.
// - `id` is the session id (with session=id) or, for image-by-id, a 24-hex image id: the catalog checks each.
// - session=ip would make the upstream track OUR address, shared by every caller; we send session=id
//   with a salted hash of the caller's IP instead, so duplicate avoidance stays per caller and the
//   caller's address never leaves this service.
// - A random answer comes as one image at the top level, or (older shape) as `images:[…]`.
import crypto from 'node:crypto';
import {
  reply,
  badInput,
  missingParam,
  notFound,
  upstreamFailed,
  isRecord,
  malformed,
  num,
  record,
  records,
  type Rec,
  required,
} from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';

const IP_SALT = crypto.randomBytes(16);
const rejected = 'The image service rejected the request: check the category and tags';

function image(x: Rec): Rec {
  const { success: _s, status: _st, key: _k, count: _c, images: _i, ...rest } = x;
  const original = isRecord(rest.image) && isRecord(rest.image.original) ? rest.image.original : {};
  if (typeof rest.id !== 'string' || typeof original.url !== 'string') throw malformed();
  return { ...rest, id: rest.id, url: original.url };
}

const tagList = (x: unknown): string[] =>
  Array.isArray(x) ? (x as unknown[]).map((t) => (isRecord(t) ? t.name : t)).filter((t): t is string => typeof t === 'string') : [];

const csv = (x: unknown): string | undefined => {
  const tags = String(x ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  return tags.length ? tags.join(',') : undefined;
};

const animeImagesB: Adapter<'anime/anime-images-b'> = async (params, ctx) => {
  const api = ctx.upstream('nekosia');
  const action = params.action ?? 'random';
  const id = params.id;

  if (action === 'tags') {
    const body = record((await api.request({ path: '/tags' })).body);
    if (!Array.isArray(body.tags)) throw malformed();
    const extra = Object.fromEntries(['anime', 'characters'].filter((k) => Array.isArray(body[k])).map((k) => [k, tagList(body[k])]));
    return { items: tagList(body.tags), ...extra };
  }

  if (action === 'image-by-id') {
    const imageId = required(params, 'id');
    const { body } = await api.request({ path: `/getImageById/${imageId.toLowerCase()}`, notFoundMessage: `No image with id ${imageId}` });
    return image(record(body));
  }

  const category = params.category ?? 'random';
  const additionalTags = csv(params.additionalTags);
  if (category === 'nothing' && !additionalTags) throw missingParam('additionalTags'); // tags of only commas or blanks
  const session = params.session ?? (id !== undefined ? 'id' : undefined);
  const sessionId = session === 'ip' ? crypto.createHmac('sha256', IP_SALT).update(ctx.clientIp).digest('hex').slice(0, 32) : id;

  const res = await api.request({
    path: `/images/${encodeURIComponent(category)}`,
    searchParams: {
      count: params.count,
      additionalTags,
      blacklistedTags: csv(params.blacklistedTags),
      rating: params.rating,
      session: session ? 'id' : undefined,
      id: sessionId,
    },
    allowStatus: [400],
    notFoundMessage: `No images in category ${category}`,
  });
  if (res.status === 400) throw badInput(rejected);
  const body = record(res.body);
  // An error may also come inside a 200: {"success":false,"status":404,"message":"…"}.
  if (body.success === false) {
    if (body.status === 404) throw notFound(`No images in category ${category}`);
    if (body.status === 400) throw badInput(rejected);
    throw upstreamFailed();
  }
  const items = Array.isArray(body.images) ? records(body.images).map(image) : [image(body)];
  return reply({ data: { items, count: num(body.count) ?? items.length }, cacheable: false });
};

export default animeImagesB;
