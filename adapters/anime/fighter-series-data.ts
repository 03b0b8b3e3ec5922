// Dragon Ball API. Without a filter a list is paged upstream (`{items, meta, links}`); with any filter
// the upstream answers a bare array of every match and ignores page and limit, so we page it here.
// Filters are per resource: the catalog's rules refuse one given for the other resource.
import { notFound, isRecord, malformed, num, record, records } from '../../engine/adapter.js';
import type { Adapter, FighterSeriesDataParams } from './_catalog.js';

const FILTERS: Record<FighterSeriesDataParams['resource'], Array<keyof FighterSeriesDataParams>> = {
  characters: ['name', 'gender', 'race', 'affiliation'],
  planets: ['name', 'isDestroyed'],
};

const filtersOf = (
  resource: FighterSeriesDataParams['resource'],
  params: FighterSeriesDataParams,
): Record<string, string | number | boolean> =>
  Object.fromEntries(FILTERS[resource].flatMap((n) => (params[n] === undefined ? [] : [[n, params[n]]])));

const fighterSeriesData: Adapter<'anime/fighter-series-data'> = async (params, ctx) => {
  const resource = params.resource;
  const api = ctx.upstream('dragonball');
  const filters = filtersOf(resource, params);

  if (params.id !== undefined) {
    const id = params.id;
    const { body } = await api.request({ path: `/${resource}/${id}`, notFoundMessage: `No ${resource} with id ${id}` });
    const item = record(body);
    if (item.id === undefined) throw notFound(`No ${resource} with id ${id}`);
    return item;
  }

  const page = params.page;
  const limit = params.limit;
  const filtered = Object.keys(filters).length > 0;
  const { body } = await api.request({
    path: `/${resource}`,
    searchParams: filtered ? filters : { page, limit },
  });

  if (Array.isArray(body)) {
    const all = records(body);
    return {
      items: all.slice((page - 1) * limit, page * limit),
      page,
      limit,
      total: all.length,
      totalPages: Math.ceil(all.length / limit),
    };
  }
  if (!isRecord(body)) throw malformed();
  const meta = isRecord(body.meta) ? body.meta : {};
  const items = records(body.items);
  const total = num(meta.totalItems) ?? items.length;
  return {
    items,
    page: num(meta.currentPage) ?? page,
    limit,
    total,
    totalPages: num(meta.totalPages) ?? Math.ceil(total / limit),
  };
};

export default fighterSeriesData;
