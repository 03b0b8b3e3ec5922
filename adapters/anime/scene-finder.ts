// trace.moe: find the anime scene of a screenshot, or read the search quota (action=me).
// - The caller's image URL is handed to trace.moe as `url=` (trace.moe fetches it), after a check that it
//   names a public host.
// - cutBorders and anilistInfo are presence flags upstream: sent only when true.
// - The free tier allows one search in flight, so searches queue one at a time in this process (the
//   tracemoe upstream's policy in catalog/upstreams.yaml); a full queue or a long wait is a 503 with
//   Retry-After. 402 (quota spent or concurrency exceeded) and 503 (its queue is full) become our 503 too.
// - Preview URLs expire 300 s after the search: we say when.
import {
  reply,
  type UpstreamClient,
  badInput,
  upstreamBusy,
  upstreamFailed,
  upstreamChanged,
  upstreamTimeout,
  isRecord,
  num,
  record,
  records,
  type Rec,
  required,
} from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { assertPublicUrl } from './_public-url.js';

const PREVIEW_TTL_MS = 300_000;
const BUSY = 'The scene search service is busy; try again shortly';

async function quota(api: UpstreamClient, signal: AbortSignal) {
  const me = record((await api.request({ path: '/me', signal })).body);
  const q = num(me.quota);
  const used = num(me.quotaUsed);
  if (q === undefined || used === undefined) throw upstreamChanged('The upstream service answered with malformed data');
  // `id` is left out: it is our server's IP address or the key's owner.
  return {
    quota: q,
    quotaUsed: used,
    quotaRemaining: Math.max(0, q - used),
    concurrency: num(me.concurrency) ?? null,
    priority: num(me.priority) ?? null,
  };
}

function scene(r: Rec): Rec {
  const { anilist, ...rest } = r;
  return { animedb: anilist ?? null, ...rest, episode: rest.episode ?? null };
}

const sceneFinder: Adapter<'anime/scene-finder'> = async (params, ctx) => {
  const api = ctx.upstream('tracemoe');
  if (params.action === 'me') return reply({ data: await quota(api, ctx.signal), cacheable: false });

  const url = assertPublicUrl('url', required(params, 'url')).toString();
  const res = await api.request({
    path: '/search',
    searchParams: {
      url,
      cutBorders: params.cutBorders === true ? '' : undefined,
      anilistID: params.animedbID,
      anilistInfo: params.animedbInfo === true ? '' : undefined,
    },
    allowStatus: [400, 402, 503, 504],
  });
  if (res.status === 400) throw badInput('Invalid value for url: the image could not be fetched or read by the search service');
  if (res.status === 402) {
    const why = isRecord(res.body) ? String(res.body.error ?? '') : '';
    // Spent quota lasts until the daily reset; a concurrency refusal clears in seconds.
    throw upstreamBusy('The scene search quota or concurrency limit is reached; try again later', /quota/i.test(why) ? 3600 : 10);
  }
  if (res.status === 503) throw upstreamBusy(BUSY, 10);
  if (res.status === 504) throw upstreamTimeout();
  const body = record(res.body);
  if (typeof body.error === 'string' && body.error !== '') throw upstreamFailed();
  return reply({
    data: {
      frameCount: num(body.frameCount) ?? null,
      items: records(body.result).map(scene),
      previewsExpireAt: new Date(Date.now() + PREVIEW_TTL_MS).toISOString(),
    },
    cacheable: false,
  });
};

export default sceneFinder;
