// PokéAPI. Resource names are the catalog's enum (the API's own list, from its v2 root); ids and names
// are lower-case upstream and paths end with a slash.
// A list answers {count, next, previous, results}; `next`/`previous` are full URLs whose offsets we pass on.
import { num, record, records } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';

function offsetOf(link: unknown): number | null {
  if (typeof link !== 'string') return null;
  try {
    const v = new URL(link).searchParams.get('offset');
    return v !== null && /^\d+$/.test(v) ? Number(v) : null;
  } catch {
    return null;
  }
}

const creatureData: Adapter<'anime/creature-data'> = async (params, ctx) => {
  const resource = params.resource;
  const api = ctx.upstream('pokeapi');

  if (params.id !== undefined) {
    const id = params.id.toLowerCase();
    const { body } = await api.request({ path: `/${resource}/${id}/`, notFoundMessage: `No ${resource} with id or name "${id}"` });
    return record(body);
  }

  const limit = params.limit;
  const offset = params.offset ?? 0;
  const { body } = await api.request({ path: `/${resource}/`, searchParams: { limit, offset } });
  const list = record(body);
  const items = records(list.results);
  return {
    items,
    count: num(list.count) ?? items.length,
    limit,
    offset,
    next_offset: offsetOf(list.next),
    previous_offset: offsetOf(list.previous),
  };
};

export default creatureData;
