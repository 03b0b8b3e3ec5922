// Bob's Burgers API. Quirks absorbed here:
// - every query key it does not know becomes an exact-match filter, so only sortBy, OrderBy, limit and
//   skip are ever forwarded;
// - the sort direction is `OrderBy` with a capital O (`orderBy` is ignored); where OrderBy acts as a filter
//   and empties the answer, we fetch unsorted and sort and slice here;
// - one id answers a bare object, `1,2,3` an array;
// - every error is HTTP 500 with {"error":"…"}: a 404 when ids were given, else a 502.
import { type UpstreamClient, notFound, isRecord, malformed, records, type Rec } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';

async function list(
  api: UpstreamClient,
  resource: string,
  query: Record<string, string | number | undefined>,
  signal: AbortSignal,
): Promise<Rec[]> {
  const { body } = await api.request({ path: `/${resource}`, searchParams: query, signal });
  return records(body);
}

function sortLocally(items: Rec[], by: string, desc: boolean): Rec[] {
  const cmp = (a: unknown, b: unknown) =>
    typeof a === 'number' && typeof b === 'number' ? a - b : String(a ?? '').localeCompare(String(b ?? ''), 'en', { numeric: true });
  return [...items].sort((a, b) => (desc ? -1 : 1) * cmp(a[by], b[by]));
}

async function byIds(api: UpstreamClient, resource: string, ids: string, signal: AbortSignal) {
  const missing = `No ${resource} with id ${ids}`;
  const res = await api.request({ path: `/${resource}/${ids}`, allowStatus: [500], notFoundMessage: missing, signal });
  if (res.status === 500) throw notFound(missing);
  if (!ids.includes(',')) {
    if (!isRecord(res.body)) throw malformed();
    return res.body;
  }
  const items = records(res.body);
  if (items.length === 0) throw notFound(missing);
  return { items };
}

const burgerShowData: Adapter<'video/burger-show-data'> = async (params, ctx) => {
  const resource = params.resource;
  const api = ctx.upstream('bobsburgers');
  if (params.id !== undefined) return byIds(api, resource, params.id, ctx.signal);

  const sortBy = params.sortBy;
  const orderBy = params.orderBy;
  const limit = params.limit;
  const skip = params.skip;
  let items = await list(api, resource, { sortBy, OrderBy: orderBy, limit, skip }, ctx.signal);
  if (orderBy && items.length === 0) {
    const all = await list(api, resource, {}, ctx.signal);
    const start = skip ?? 0;
    items = sortLocally(all, sortBy ?? 'id', orderBy === 'desc').slice(start, limit === undefined ? undefined : start + limit);
  }
  return { items, skip: skip ?? 0, limit: limit ?? null };
};

export default burgerShowData;
