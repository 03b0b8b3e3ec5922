// Quran editions, chapters, verses and segments in fawazahmed0/quran-api's shapes: a list keyed by what it
// holds (`quran`, `chapter`, and the PLURAL segment name: `juzs`, `rukus`, `pages`, `manzils`, `maqras`)
// of {chapter, verse, text}; a single verse is that object itself; editions are its map keyed by name
// with '_'. Cleared editions (_quran-editions.ts) come from quran-json with segment bounds from quran-meta;
// others from the upstream (`quran-api`). `mode` defaults from what is given: segment → segment,
// verse → verse, chapter → chapter, edition → edition, nothing → editions.
import { ApiError, upstreamChanged, reply, type AdapterContext, type UpstreamClient, required } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { globalNumber, segmentRange, versesOf, type Verse } from './_quran.js';
import { EMBEDDED, embeddedByQuranApiName, type EditionRow } from './_quran-editions.js';

const DEFAULT_EDITION = 'ara-quranuthmanienc';

const row = (v: Verse) => ({ chapter: v.surah, verse: v.ayah, text: v.text });

function editionsMap(base: string | undefined) {
  return Object.fromEntries(
    EMBEDDED.map((e: EditionRow) => [
      e.quranApi!.replace(/-/g, '_'),
      {
        name: e.quranApi!,
        author: e.author,
        language: e.languageName,
        direction: e.direction,
        source: e.source,
        comments: 'Served from the embedded quran-json text',
        link: `${base ?? ''}/editions/${e.quranApi}.json`,
        linkmin: `${base ?? ''}/editions/${e.quranApi}.min.json`,
      },
    ]),
  );
}

/** A JSON object from the upstream holding `key` (an array unless `key` is '' for any object). */
async function fromUpstream(
  client: UpstreamClient,
  ctx: AdapterContext<never>,
  path: string,
  key: string,
): Promise<Record<string, unknown>> {
  const res = await client.request<Record<string, unknown>>({
    path: `${path}.min.json`,
    notFoundMessage: 'No such edition, chapter, verse or segment at quran-api',
  });
  const body = res.body;
  const ok =
    body &&
    typeof body === 'object' &&
    !Array.isArray(body) &&
    (key === '' || Array.isArray(body[key]) || (key === 'text' && typeof body.text === 'string'));
  if (!ok) throw upstreamChanged('quran-api answered with an unexpected shape');
  return body;
}

const quranB: Adapter<'books/quran-b'> = async (params, ctx) => {
  const mode =
    params.mode ??
    (params.segment !== undefined
      ? 'segment'
      : params.verse !== undefined
        ? 'verse'
        : params.chapter !== undefined
          ? 'chapter'
          : params.edition !== undefined
            ? 'edition'
            : 'editions');
  const client = ctx.upstream('quran-api');
  const name = params.edition ?? DEFAULT_EDITION;
  const local = embeddedByQuranApiName(name);
  const path = `/editions/${encodeURIComponent(name.replace(/_/g, '-'))}`;
  const answer = (data: Record<string, unknown>) => reply({ data, source: 'quran-api' });
  const embedded = (data: Record<string, unknown>) => reply({ data, source: 'embedded', cacheable: false });

  switch (mode) {
    case 'editions':
      try {
        return answer(await fromUpstream(client, ctx, '/editions', ''));
      } catch (err) {
        if (!(err instanceof ApiError)) throw err; // any upstream failure: the list is never the caller's fault
        ctx.log.warn({ err: err.message }, 'quran-api editions unavailable; listing the embedded ones');
        return embedded(editionsMap(client.baseUrl));
      }
    case 'edition':
      return local ? embedded({ quran: versesOf(local).map(row) }) : answer(await fromUpstream(client, ctx, path, 'quran'));
    case 'chapter': {
      const c = required(params, 'chapter');
      return local
        ? embedded({
            chapter: versesOf(local)
              .filter((v) => v.surah === c)
              .map(row),
          })
        : answer(await fromUpstream(client, ctx, `${path}/${c}`, 'chapter'));
    }
    case 'verse': {
      const chapter = required(params, 'chapter');
      const verse = required(params, 'verse');
      const n = globalNumber(chapter, verse);
      return local ? embedded(row(versesOf(local)[n - 1])) : answer(await fromUpstream(client, ctx, `${path}/${chapter}/${verse}`, 'text'));
    }
    default: {
      const segment = required(params, 'segment');
      const segmentNo = required(params, 'segment_no');
      const [first, last] = segmentRange(segment, segmentNo);
      const key = `${segment}s`;
      if (local)
        return embedded({
          [key]: versesOf(local)
            .slice(first - 1, last)
            .map(row),
        });
      return answer(await fromUpstream(client, ctx, `${path}/${key}/${segmentNo}`, key));
    }
  }
};

export default quranB;
