// Quotes, characters and episodes of the office sitcom (The Office API).
//   quotes:     random (default) → /quote/random; id N → /quote/N; search → the index
//   episodes:   season S → /season/S; id S/E → /season/S/episode/E; random, search, list → the index
//   characters: list, random, search, id (= a name) → the index (distinct speakers)
// The upstream answers HTTP 400 {ok:false, message} for ids that do not exist: those messages map to 404,
// any other 400 stays a 400.
import { badInput, missingParam, notFound, reply, type AdapterContext } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { officeCharacters, officeCorpus, type OfficeRecord } from './_office-corpus.js';
import { isRecord, unexpectedShape } from './_quotes.js';

const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)];
const random = (data: OfficeRecord) => reply({ data, cacheable: false });
const has = (text: unknown, term: string) => typeof text === 'string' && text.toLowerCase().includes(term);

/**
 * The upstream's three not-found messages (src/index.ts), whole: "ID does not exists... yet!" (its typo,
 * or the word fixed), "No episodes found for this season", "No episode found for this season id and
 * episode id". A 400 that merely contains one of these words is not a not-found.
 */
const NOT_FOUND =
  /^(?:ID does not exists?(?:\.\.\. yet!?)?|No episodes found for this season|No episode found for this season id and episode id)$/i;

async function lookup(ctx: AdapterContext<'office-api'>, path: string, missing: string): Promise<unknown> {
  const res = await ctx.upstream('office-api').request({ path, allowStatus: [400] });
  if (res.status === 400) {
    const message = isRecord(res.body) && typeof res.body.message === 'string' ? res.body.message.trim() : '';
    if (NOT_FOUND.test(message)) throw notFound(missing);
    throw badInput('The upstream service rejected the request');
  }
  return res.body;
}

function record(body: unknown): OfficeRecord {
  if (!isRecord(body)) throw unexpectedShape();
  return body;
}

/** `value` is required by the catalog's rules for id, season and search; here it must not be blank. */
function need(value: unknown): string {
  if (typeof value !== 'string' || !value.trim()) throw missingParam('value');
  return value.trim();
}

const officeSeries: Adapter<'quotes/office-series'> = async (params, ctx) => {
  const resource = params.resource;
  const action = params.action;
  const index = () => officeCorpus(ctx.upstream('office-api'), ctx.log);

  if (resource === 'quotes') {
    if (!action || action === 'random') return random(record((await ctx.upstream('office-api').request({ path: '/quote/random' })).body));
    if (action === 'id') {
      const id = need(params.value); // a whole number: the catalog's rules
      return record(await lookup(ctx, `/quote/${Number(id)}`, `No quote with id ${Number(id)}`));
    }
    // search: season is refused by the catalog's rules for quotes.
    const term = need(params.value).toLowerCase();
    const items = index().quotes.filter((q) => has(q.quote, term) || has(q.character, term));
    return { items, count: items.length, search: term };
  }

  if (resource === 'episodes') {
    if (action === 'season') {
      const s = need(params.value); // 1 to 99: the catalog's rules
      const body = await lookup(ctx, `/season/${Number(s)}`, `No episodes in season ${Number(s)}`);
      if (!Array.isArray(body)) throw unexpectedShape();
      const items = body.filter(isRecord);
      return { season: Number(s), items, count: items.length };
    }
    if (action === 'id') {
      // season/episode, as the catalog's rules hold it
      const m = /^(\d{1,2})\s*[/xX.-]\s*(\d{1,3})$/.exec(need(params.value))!;
      return record(await lookup(ctx, `/season/${Number(m[1])}/episode/${Number(m[2])}`, `No episode ${Number(m[1])}/${Number(m[2])}`));
    }
    const episodes = index().episodes;
    if (action === 'random') return random(pick(episodes));
    if (action === 'search') {
      const term = need(params.value).toLowerCase();
      const items = episodes.filter((e) => has(e.title, term) || has(e.description, term));
      return { items, count: items.length, search: term };
    }
    return { items: episodes, count: episodes.length };
  }

  // characters: derived from the speakers of the quotes (season is refused by the catalog's rules).
  const all = officeCharacters(index());
  if (action === 'random') return random(pick(all));
  if (action === 'search') {
    const term = need(params.value).toLowerCase();
    const items = all.filter((c) => c.name.toLowerCase().includes(term));
    return { items, count: items.length, search: term };
  }
  if (action === 'id') {
    const name = need(params.value).toLowerCase();
    const found = all.find((c) => c.name.toLowerCase() === name);
    if (!found) throw notFound(`No character named ${name}`);
    const quotes = index().quotes.filter((q) => typeof q.character === 'string' && q.character.toLowerCase() === name);
    return { ...found, quotes };
  }
  return { items: all, count: all.length };
};

export default officeSeries;
