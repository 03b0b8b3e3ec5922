// A Bible passage by natural-language reference, from bible-api.com. The reference is read and checked
// locally first (_bible-b-reference.ts) and sent upstream in a canonical form; the translation is
// checked against the upstream's own list (/data, kept for a day); every call goes through the guard
// that keeps the upstream from banning this server (_bible-b-guard.ts). Answers are cached for 30 days.
import {
  ApiError,
  badInput,
  invalidParam,
  notFound,
  upstreamBusy,
  type Adapter,
  type AdapterContext,
  type UpstreamClient,
} from '../../engine/adapter.js';
import { bibleGuard } from './_bible-b-guard.js';
import { parseReference } from './_bible-b-reference.js';
import { isRecord, malformed, text } from './_shape.js';

const LIST_TTL_MS = 24 * 3600_000;
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
const lists = new Map<string, { ids: Set<string>; at: number }>();

async function translations(client: UpstreamClient, ctx: AdapterContext, guard: ReturnType<typeof bibleGuard>): Promise<Set<string>> {
  const key = client.baseUrl ?? client.id;
  const memo = lists.get(key);
  if (memo && Date.now() - memo.at < LIST_TTL_MS) return memo.ids;
  try {
    guard.admit();
    const res = await client.request({ path: '/data' });
    const list = isRecord(res.body) && Array.isArray(res.body.translations) ? res.body.translations : undefined;
    const ids = new Set((list ?? []).map((t) => (isRecord(t) ? text(t.identifier) : null)).filter((x): x is string => !!x));
    if (!ids.size) throw malformed();
    lists.set(key, { ids, at: Date.now() });
    return ids;
  } catch (err) {
    if (err instanceof ApiError && err.code === 'upstream_busy') throw err;
    ctx.log.warn({ err: (err as Error).message }, 'bible-api: translation list unavailable; using the built-in list');
    return new Set(KNOWN);
  }
}

const bibleB: Adapter = async (params, ctx) => {
  const parsed = parseReference(String(params.ref));
  const client = ctx.upstream('bible-api');
  const guard = bibleGuard(client.baseUrl ?? client.id);
  const translation = String(params.translation ?? parsed.translation ?? client.settings.defaultTranslation ?? 'web').toLowerCase();
  const known = await translations(client, ctx, guard);
  if (!known.has(translation))
    throw invalidParam('translation', `unknown translation ${translation}; known: ${[...known].sort().join(', ')}`);

  guard.admit();
  const res = await client.request({
    path: `/${encodeURI(parsed.reference)}`,
    searchParams: { translation },
    allowStatus: [400, 403, 404],
  });
  const error = isRecord(res.body) ? String(res.body.error ?? '') : '';
  if (res.status === 403) {
    guard.banned();
    throw upstreamBusy('Upstream bible-api refuses this server for now; try again later', guard.retryAfterSeconds());
  }
  if (res.status === 404) {
    guard.notFound();
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
