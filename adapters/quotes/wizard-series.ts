// Characters, students, staff, spells, houses and single characters of the wizard series (HP-API).
// Quirks absorbed here: an unknown house answers `[]` instead of an error, so houses are checked
// locally; `/character/{id}` answers an array, unwrapped here, and `[]` for an unknown id (→ 404).
import { invalidParam, notFound } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { isRecord, unexpectedShape } from './_quotes.js';

const HOUSES = ['gryffindor', 'slytherin', 'hufflepuff', 'ravenclaw'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LISTS: Record<string, string> = {
  characters: '/characters',
  students: '/characters/students',
  staff: '/characters/staff',
  spells: '/spells',
};

/** `house/x` or `house` + id=x, `character/x` or `character` + id=x; the two forms must agree. */
function target(resource: string, id: string | undefined): { kind: string; arg?: string } {
  const [kind, inline] = resource.split('/', 2);
  if (inline && id && inline.toLowerCase() !== id.toLowerCase()) {
    throw invalidParam('id', `does not match the ${kind} named in resource (${inline})`);
  }
  return { kind, arg: inline ?? id };
}

const records = (body: unknown): Record<string, unknown>[] => {
  if (!Array.isArray(body)) throw unexpectedShape();
  return body.filter(isRecord);
};

const wizardSeries: Adapter<'quotes/wizard-series'> = async (params, ctx) => {
  const client = ctx.upstream('hp-api');
  const { kind, arg } = target(params.resource, params.id);
  const get = (path: string) => client.request({ path, notFoundMessage: 'Not found upstream' });

  // The catalog's rules require an id with a bare house or character and refuse one with the other lists.
  if (kind === 'house') {
    const house = String(arg).toLowerCase();
    if (!HOUSES.includes(house)) throw invalidParam('id', `must be a house: ${HOUSES.join(', ')}`);
    const items = records((await get(`/characters/house/${house}`)).body);
    return { house, items, count: items.length };
  }
  // `characters` with an id is a lookup of that character, as the spec's "id: character UUID" suggests.
  if (kind === 'character' || (kind === 'characters' && arg)) {
    if (!UUID.test(String(arg))) throw invalidParam('id', 'must be a character UUID such as 9e3f7ce4-b9a7-4244-b709-dae5c1f1d4a8');
    const found = records((await get(`/character/${String(arg).toLowerCase()}`)).body)[0];
    if (!found) throw notFound(`No character with id ${arg}`);
    return found;
  }
  const items = records((await get(LISTS[kind])).body);
  return { resource: kind, items, count: items.length };
};

export default wizardSeries;
