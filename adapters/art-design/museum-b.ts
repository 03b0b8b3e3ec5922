// Objects of the Metropolitan Museum: a search (q), one object (id), or the departments (embedded).
// Quirks absorbed here: search answers ids only (or `objectIDs: null`), so the first few objects are
// fetched one by one, spaced by the met upstream's policy (catalog/upstreams.yaml); `q` goes last in the query string
// because parameter order changes the results; a 410 on /v1/search means the API moved search to
// /v1.1 (offset/limit paging): remembered, and followed. Empty text fields become null.
import {
  missingParam,
  upstreamChanged,
  reply,
  type AdapterContext,
  type UpstreamClient,
  isRecord,
  malformed,
  type Rec,
} from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { MET_DEPARTMENTS } from './_museum-b-departments.js';

type Obj = Rec;
const isObj = isRecord;
const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);

const TEXT_FIELDS = [
  'title',
  'artistDisplayName',
  'artistDisplayBio',
  'artistNationality',
  'objectDate',
  'objectName',
  'department',
  'culture',
  'period',
  'medium',
  'dimensions',
  'classification',
  'creditLine',
  'primaryImage',
  'primaryImageSmall',
  'objectURL',
] as const;
/** Whether this server's Met answered 410 Gone to /v1/search (kept a day, then asked again). */
const searchMoved = (ctx: AdapterContext<never>) => ctx.memo('met:search-moved', 24 * 3600_000, async () => ({ toV11: false }));

function metObject(o: Obj) {
  const out: Obj = { objectID: o.objectID };
  for (const f of TEXT_FIELDS) out[f] = text(o[f]);
  out.isPublicDomain = o.isPublicDomain === true;
  out.additionalImages = Array.isArray(o.additionalImages) ? o.additionalImages.filter((u) => typeof u === 'string' && u) : [];
  out.tags = Array.isArray(o.tags) ? o.tags.map((t) => (isObj(t) ? text(t.term) : null)).filter(Boolean) : [];
  return out;
}

async function searchIds(client: UpstreamClient, ctx: AdapterContext<never>, q: string, max: number): Promise<Obj> {
  const base = client.baseUrl ?? '';
  const moved = await searchMoved(ctx);
  if (!moved.toV11) {
    const params = new URLSearchParams({ hasImages: 'true' });
    params.append('q', q); // last, on purpose
    const res = await client.request({ path: String(client.settings.searchPath ?? '/search'), searchParams: params, allowStatus: [410] });
    if (res.status !== 410) {
      if (!isObj(res.body)) throw malformed();
      return res.body;
    }
    ctx.log.warn('met: /v1/search answered 410; using /v1.1/search from now on');
    moved.toV11 = true;
  }
  const v11 = base.replace(/\/v1\/?$/, '/v1.1');
  if (v11 === base) throw upstreamChanged('The upstream moved its search API to a version this base URL cannot reach');
  const params = new URLSearchParams({ hasImages: 'true', offset: '0', limit: String(max) });
  params.append('q', q);
  const res = await client.request({ path: `${v11}/search`, searchParams: params });
  if (!isObj(res.body)) throw malformed();
  return res.body;
}

const museumB: Adapter<'art-design/museum-b'> = async (params, ctx) => {
  const q = params.q?.trim() ?? '';
  if (params.mode === 'departments') {
    return reply({ data: { total: MET_DEPARTMENTS.length, items: MET_DEPARTMENTS.map((d) => ({ ...d })) }, source: 'embedded' });
  }

  const client = ctx.upstream('met');
  const getObject = async (id: number, allowMissing: boolean) => {
    const res = await client.request({
      path: `/objects/${id}`,
      allowStatus: allowMissing ? [404] : [],
      notFoundMessage: `No object with id ${id}`,
    });
    if (res.status === 404) return undefined;
    if (!isObj(res.body) || res.body.objectID === undefined) throw malformed();
    return metObject(res.body);
  };

  if (params.id !== undefined) return (await getObject(params.id, false))!;
  if (!q) throw missingParam('q');

  const max = Math.max(1, Math.min(20, Number(client.settings.maxObjects ?? 10)));
  const found = await searchIds(client, ctx, q, max);
  const ids = found.objectIDs === null || found.objectIDs === undefined ? [] : found.objectIDs;
  if (!Array.isArray(ids)) throw malformed();
  const items: Obj[] = [];
  // One by one, never in parallel: the WAF counts bursts. Ids the index still lists but whose object
  // is gone (404) are skipped.
  for (const id of ids.slice(0, max)) {
    const o = await getObject(Number(id), true);
    if (o) items.push(o);
  }
  return { query: q, total: typeof found.total === 'number' ? found.total : ids.length, items };
};

export default museumB;
