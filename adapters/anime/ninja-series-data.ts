// Dattebayo (a ninja-series data set). Quirks absorbed here:
// - ids go in the path, comma-separated (`/clans/1,2,3`): one id answers a bare object, several an array;
// - a list is keyed by its collection name, hyphen included (`{"kekkei-genkai":[…],"currentPage":1,…}`);
// - with `name`, the upstream's `total` is the length of the page, not the number of matches: we say null
//   (unknown) rather than pass on a wrong count.
import { notFound, isRecord, malformed, num, record, records } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';

const ninjaSeriesData: Adapter<'anime/ninja-series-data'> = async (params, ctx) => {
  const resource = params.resource;
  const api = ctx.upstream('dattebayo');

  if (params.ids !== undefined) {
    const ids = params.ids;
    const { body } = await api.request({
      path: `/${resource}/${ids}`,
      notFoundMessage: `No ${resource} found with id ${ids}`,
    });
    if (!Array.isArray(body) && !isRecord(body)) throw malformed();
    const items = Array.isArray(body) ? records(body) : [body];
    if (items.length === 0) throw notFound(`No ${resource} found with ids ${ids}`);
    return { items };
  }

  const page = params.page;
  const limit = params.limit;
  const name = params.name;
  const { body } = await api.request({ path: `/${resource}`, searchParams: { page, limit, name } });
  const list = record(body);
  return {
    items: records(list[resource]),
    page: num(list.currentPage) ?? page,
    limit,
    total: name === undefined ? (num(list.total) ?? null) : null,
  };
};

export default ninjaSeriesData;
