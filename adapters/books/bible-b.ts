// A Bible passage by natural-language reference, from bible-api.com. The reference is read and checked
// locally first (_bible-b-reference.ts) and sent upstream in a canonical form; the translation is
// checked against the upstream's own list (/data, kept for a day). The upstream bans an IP for an hour
// after more than 10 404s in 30 s: its policy in catalog/upstreams.yaml (15 calls per 30 s; a pause after
// 3 404s, an hour after a 403) keeps this server in its good books. Answers are cached for 30 days.
import { ApiError, badInput, invalidParam, notFound, upstreamBusy, type AdapterContext } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { parseReference } from './_bible-b-reference.js';
import { isRecord, malformed, text } from './_shape.js';

const LIST_TTL_MS = 24 * 3600_000;
const BANNED = 'Upstream bible-api refuses this server for now; try again later';
/** Used when /data cannot be read: the translations bible-api.com has long served. */
const KNOWN = [
  'web',
  'kjv',
  'asv',
  'bbe',
  'darby',
  'dra',
  'ylt',
  'oeb-us',
  'oeb-cw',
  'webbe',
  'clementine',
  'almeida',
  'rccv',
  'cherokee',
  'cuv',
  'bkr',
];
const KNOWN_SET = new Set(KNOWN);
/** A list that could not be read is asked for again after a minute. */
const KNOWN_TTL_MS = 60_000;

/** The upstream's translations (/data, kept a day), or the long-served ones when it cannot be read. */
function translations(ctx: AdapterContext<'bible-api'>): Promise<Set<string>> {
  return ctx.memo(
    'bible-api:translations',
    (ids) => (ids === KNOWN_SET ? KNOWN_TTL_MS : LIST_TTL_MS),
    async (upstream) => {
      try {
        const res = await upstream('bible-api').request({ path: '/data' });
        const list = isRecord(res.body) && Array.isArray(res.body.translations) ? res.body.translations : undefined;
        const ids = new Set((list ?? []).map((t) => (isRecord(t) ? text(t.identifier) : null)).filter((x): x is string => !!x));
        if (!ids.size) throw malformed();
        return ids;
      } catch (err) {
        // Paused or over the allowance (catalog/upstreams.yaml's policy): the caller hears it.
        if (err instanceof ApiError && err.code === 'upstream_busy') throw err;
        ctx.log.warn({ err: (err as Error).message }, 'bible-api: translation list unavailable; using the built-in list');
        return KNOWN_SET;
      }
    },
  );
}

const bibleB: Adapter<'books/bible-b'> = async (params, ctx) => {
  const parsed = parseReference(params.ref);
  const client = ctx.upstream('bible-api');
  const translation = (params.translation ?? parsed.translation ?? String(client.settings.defaultTranslation ?? 'web')).toLowerCase();
  const known = await translations(ctx);
  if (!known.has(translation))
    throw invalidParam('translation', `unknown translation ${translation}; known: ${[...known].sort().join(', ')}`);

  const res = await client.request({
    path: `/${encodeURI(parsed.reference)}`,
    searchParams: { translation },
    allowStatus: [400, 403, 404],
  });
  const error = isRecord(res.body) ? String(res.body.error ?? '') : '';
  // The ban's pause (an hour) is the upstream policy's; this answer is the first of it.
  if (res.status === 403) throw upstreamBusy(BANNED, 3600);
  if (res.status === 404) {
    if (/translation/i.test(error)) throw invalidParam('translation', `unknown translation ${translation}`);
    throw notFound(`${parsed.reference} was not found in translation ${translation}`);
  }
  if (res.status === 400) {
    if (/too many/i.test(error)) throw invalidParam('ref', 'covers too many chapters; ask for a shorter passage');
    throw badInput('The upstream service rejected the reference');
  }

  const b = res.body;
  if (!isRecord(b) || !Array.isArray(b.verses) || typeof b.reference !== 'string') throw malformed();
  return {
    reference: b.reference,
    verses: b.verses
      .filter(isRecord)
      .map((v) => ({ book_id: v.book_id, book_name: v.book_name, chapter: v.chapter, verse: v.verse, text: text(v.text) ?? '' })),
    text: typeof b.text === 'string' ? b.text.trim() : '',
    translation_id: text(b.translation_id) ?? translation,
    translation_name: text(b.translation_name) ?? translation,
    translation_note: text(b.translation_note),
  };
};

export default bibleB;
