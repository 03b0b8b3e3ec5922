// Artworks of the Art Institute of Chicago: a search (q), one artwork (id), or the collection's first
// page (neither). `fields` is always sent: without it, search hits carry only _score, id and title.
// Image URLs are built from the IIIF base the API returns; images are linked, never proxied.
import { isRecord, malformed, type Rec } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';

const PAGE_SIZE = 12;
const DEFAULT_FIELDS = 'id,title,artist_display,date_display,image_id';
const DEFAULT_IIIF = 'https://www.artic.edu/iiif/2';

type Obj = Rec;
const isObj = isRecord;
const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);

function artwork(a: Obj, iiif: string) {
  const imageId = text(a.image_id);
  return {
    id: a.id,
    title: text(a.title),
    artist_display: text(a.artist_display),
    date_display: text(a.date_display),
    image_id: imageId,
    image_url: imageId ? `${iiif}/${imageId}/full/843,/0/default.jpg` : null,
  };
}

const museumA: Adapter<'art-design/museum-a'> = async (params, ctx) => {
  const client = ctx.upstream('artic');
  const fields = String(client.settings.fields ?? DEFAULT_FIELDS);
  const q = params.q?.trim() ?? '';
  // AIC asks API clients to identify themselves in this header (browsers cannot set User-Agent).
  const headers = { 'AIC-User-Agent': `unified-utility-api (+${ctx.publicUrl})` };

  const path = params.id !== undefined ? `/artworks/${params.id}` : q ? '/artworks/search' : '/artworks';
  const searchParams = params.id !== undefined ? { fields } : { ...(q ? { q } : {}), limit: PAGE_SIZE, fields };
  const res = await client.request({ path, searchParams, headers, notFoundMessage: `No artwork with id ${params.id}` });
  const body = res.body;
  if (!isObj(body)) throw malformed();
  const iiif = (isObj(body.config) && text(body.config.iiif_url)) || String(client.settings.iiifUrl ?? DEFAULT_IIIF);

  if (params.id !== undefined) {
    if (!isObj(body.data)) throw malformed();
    return artwork(body.data, iiif);
  }
  if (!Array.isArray(body.data)) throw malformed();
  const pagination = isObj(body.pagination) ? body.pagination : {};
  const items = body.data.filter(isObj).map((a) => artwork(a, iiif));
  return {
    ...(q ? { query: q } : {}),
    total: typeof pagination.total === 'number' ? pagination.total : items.length,
    page: typeof pagination.current_page === 'number' ? pagination.current_page : 1,
    items,
  };
};

export default museumA;
