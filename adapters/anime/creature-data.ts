// PokéAPI. Resource names are checked against the API's own list (below, from its v2 root) so a typo is a
// 400 naming the valid values; ids and names are lower-case upstream and paths end with a slash.
// A list answers {count, next, previous, results}; `next`/`previous` are full URLs whose offsets we pass on.
import type { Adapter } from '../../engine/types.js';
import { invalidParam } from '../../engine/errors.js';
import { num, record, records } from '../../engine/shape.js';

const RESOURCES = [
  'ability', 'berry', 'berry-firmness', 'berry-flavor', 'characteristic', 'contest-effect', 'contest-type', 'egg-group',
  'encounter-condition', 'encounter-condition-value', 'encounter-method', 'evolution-chain', 'evolution-trigger', 'gender',
  'generation', 'growth-rate', 'item', 'item-attribute', 'item-category', 'item-fling-effect', 'item-pocket', 'language',
  'location', 'location-area', 'machine', 'move', 'move-ailment', 'move-battle-style', 'move-category', 'move-damage-class',
  'move-learn-method', 'move-target', 'nature', 'pal-park-area', 'pokeathlon-stat', 'pokedex', 'pokemon', 'pokemon-color',
  'pokemon-form', 'pokemon-habitat', 'pokemon-shape', 'pokemon-species', 'region', 'stat', 'super-contest-effect', 'type',
  'version', 'version-group',
];
const KNOWN = new Set(RESOURCES);

function offsetOf(link: unknown): number | null {
  if (typeof link !== 'string') return null;
  try {
    const v = new URL(link).searchParams.get('offset');
    return v !== null && /^\d+$/.test(v) ? Number(v) : null;
  } catch {
    return null;
  }
}

const creatureData: Adapter = async (params, ctx) => {
  const resource = String(params.resource);
  if (!KNOWN.has(resource)) throw invalidParam('resource', `must be one of ${RESOURCES.join(', ')}`);
  const api = ctx.upstream('pokeapi');

  if (params.id !== undefined) {
    const id = String(params.id).toLowerCase();
    const { body } = await api.request({ path: `/${resource}/${id}/`, notFoundMessage: `No ${resource} with id or name "${id}"`, signal: ctx.signal });
    return record(body);
  }

  const limit = params.limit as number;
  const offset = (params.offset as number | undefined) ?? 0;
  const { body } = await api.request({ path: `/${resource}/`, searchParams: { limit, offset }, signal: ctx.signal });
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
