// Quran ayahs, surahs, editions and search in AlQuran Cloud's shapes (`data` of its envelope). Cleared
// editions (_quran-editions.ts: the Arabic Uthmani text) are served from quran-json + quran-meta with no
// network; any other edition goes to AlQuran Cloud (`alquran`). `mode` defaults from what is given:
// q → search, number → ayah, surah → surah, nothing → random.
import crypto from 'node:crypto';
import {
  ApiError,
  missingParam,
  upstreamChanged,
  reply,
  type AdapterContext,
  type UpstreamClient,
  required,
} from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { AYAH_COUNT, positionOf, search, surahInfo, versesOf, type Verse } from './_quran.js';
import { EMBEDDED, embeddedByAlquranId, type EditionRow } from './_quran-editions.js';

const editionObject = (e: EditionRow) => ({
  identifier: e.alquran!,
  language: e.language,
  name: e.name,
  englishName: e.englishName,
  format: 'text',
  type: e.type,
  direction: e.direction,
});

const ayahObject = (v: Verse, e: EditionRow) => ({
  number: v.number,
  text: v.text,
  edition: editionObject(e),
  surah: surahInfo(v.surah),
  numberInSurah: v.ayah,
  ...positionOf(v.number),
});

function surahObject(n: number, e: EditionRow) {
  const verses = versesOf(e).filter((v) => v.surah === n);
  return {
    ...surahInfo(n),
    ayahs: verses.map((v) => ({ number: v.number, text: v.text, numberInSurah: v.ayah, ...positionOf(v.number) })),
    edition: editionObject(e),
  };
}

/** `data` of an AlQuran Cloud envelope, or a 502 when the body is not one. */
async function fromUpstream(client: UpstreamClient, ctx: AdapterContext<never>, path: string, allow404 = false): Promise<unknown> {
  const res = await client.request<{ code?: number; data?: unknown }>({
    path,
    allowStatus: allow404 ? [404] : undefined,
    notFoundMessage: 'No such ayah, surah or edition at AlQuran Cloud',
  });
  if (allow404 && res.status === 404) return undefined;
  const body = res.body;
  if (
    !body ||
    typeof body !== 'object' ||
    body.code !== 200 ||
    body.data === undefined ||
    body.data === null ||
    typeof body.data !== 'object'
  ) {
    throw upstreamChanged('AlQuran Cloud answered with an unexpected shape');
  }
  return body.data;
}

const quranA: Adapter<'books/quran-a'> = async (params, ctx) => {
  const mode =
    params.mode ??
    (params.q !== undefined ? 'search' : params.number !== undefined ? 'ayah' : params.surah !== undefined ? 'surah' : 'random');
  const client = ctx.upstream('alquran');
  const editionId = params.edition ?? String(client.settings.defaultEdition ?? 'quran-uthmani');
  const local = embeddedByAlquranId(editionId);
  const enc = encodeURIComponent;

  if (mode === 'editions') {
    try {
      const list = await fromUpstream(client, ctx, '/edition');
      if (!Array.isArray(list)) throw upstreamChanged('AlQuran Cloud answered with an unexpected shape');
      return reply({ data: { items: list }, source: 'alquran' });
    } catch (err) {
      // The embedded editions still answer when AlQuran Cloud cannot.
      if (!(err instanceof ApiError)) throw err; // any upstream failure: the list is never the caller's fault
      ctx.log.warn({ err: err.message }, 'AlQuran Cloud editions unavailable; listing the embedded ones');
      return reply({ data: { items: EMBEDDED.map(editionObject) }, source: 'embedded', cacheable: false });
    }
  }

  if (mode === 'random' || mode === 'ayah') {
    // Drawn here, not by /ayah/random, which draws from 1..6326 and so fails about 1.4 % of the time.
    const n = mode === 'random' ? crypto.randomInt(1, AYAH_COUNT + 1) : required(params, 'number');
    const cacheable = mode !== 'random';
    if (local) return reply({ data: ayahObject(versesOf(local)[n - 1], local), cacheable: false });
    return reply({
      data: (await fromUpstream(client, ctx, `/ayah/${n}/${enc(editionId)}`)) as Record<string, unknown>,
      source: 'alquran',
      cacheable,
    });
  }

  if (mode === 'surah') {
    const n = required(params, 'surah');
    if (local) return reply({ data: surahObject(n, local), cacheable: false });
    return reply({
      data: (await fromUpstream(client, ctx, `/surah/${n}/${enc(editionId)}`)) as Record<string, unknown>,
      source: 'alquran',
    });
  }

  // search
  const q = (params.q ?? '').trim();
  if (!q) throw missingParam('q');
  if (local) {
    const matches = search(local, q).map((v) => {
      const { number, text, edition, surah, numberInSurah } = ayahObject(v, local);
      return { number, text, edition, surah, numberInSurah };
    });
    return reply({ data: { count: matches.length, matches }, cacheable: false });
  }
  // AlQuran Cloud answers 404 when nothing matches.
  const found = (await fromUpstream(client, ctx, `/search/${enc(q)}/all/${enc(editionId)}`, true)) as
    { count?: number; matches?: unknown[] } | undefined;
  if (found && !Array.isArray(found.matches)) throw upstreamChanged('AlQuran Cloud answered with an unexpected shape');
  return reply({
    data: found ? { count: found.count ?? found.matches!.length, matches: found.matches } : { count: 0, matches: [] },
    source: 'alquran',
  });
};

export default quranA;
