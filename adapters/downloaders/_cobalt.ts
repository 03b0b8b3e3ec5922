// cobalt (imputnet/cobalt, docs/api.md), the self-hosted provider of every downloader. One POST / per
// link; its five answers become the shared Download shape:
//   tunnel | redirect  {url, filename}                 → one media; quality and type from the filename, and
//                                                        the title too where the name holds one (not classic)
//   local-processing   {type, tunnel:[…], output:{filename, metadata?}} → one media per stream (_cobalt-local.ts);
//                                                        the title and author from the output's tags
//   picker             {picker:[{type,url,thumb}], audio?, audioFilename?} → one media per item (+ the audio)
//   error              {error:{code}}                 → error.api.link.* 400, *.content.* and fetch.empty 404, *rate* 503,
//                                                        *.auth.* 503 (the instance wants a key), else 502
// Errors come with HTTP 400/401/403/429 and the same body, so those statuses are read here, not mapped.
import {
  ApiError,
  invalidParam,
  notConfigured,
  notFound,
  upstreamBusy,
  upstreamFailed,
  upstreamChanged,
  type AdapterContext,
  type UpstreamResponse,
} from '../../engine/adapter.js';
import { extensionOf, qualityOf, typeOfExtension, type Download, type DownloadMedia, type MediaType } from './_media.js';
import { readLocalProcessing } from './_cobalt-local.js';

export const COBALT = 'cobalt';

interface CobaltAnswer {
  status?: unknown;
  url?: unknown;
  filename?: unknown;
  picker?: unknown;
  audio?: unknown;
  audioFilename?: unknown;
  error?: { code?: unknown };
}

const PICKER_TYPE: Record<string, MediaType> = { photo: 'image', video: 'video', gif: 'gif' };
/** What cobalt serves for each picker type when the link does not say (tunnels have no file name). */
const PICKER_EXT: Record<MediaType, string> = { image: 'jpg', video: 'mp4', gif: 'gif', audio: 'mp3' };

/** Asks cobalt for `url` (at `videoQuality`, else the configured one). */
export async function cobalt(ctx: AdapterContext<typeof COBALT>, url: string, videoQuality?: string): Promise<Download> {
  const client = ctx.upstream(COBALT);
  const s = client.settings;
  const style = String(s.filenameStyle ?? 'classic');
  const res = await client.request<CobaltAnswer>({
    path: '/',
    method: 'POST',
    headers: { accept: 'application/json' },
    json: {
      url,
      videoQuality: videoQuality ?? String(s.videoQuality ?? '1080'),
      downloadMode: String(s.downloadMode ?? 'auto'),
      filenameStyle: style,
    },
    allowStatus: [400, 401, 403, 404, 429],
  });
  return readAnswer(res, style);
}

function readAnswer(res: UpstreamResponse<CobaltAnswer>, style: string): Download {
  const b = typeof res.body === 'object' && res.body !== null ? res.body : ({} as CobaltAnswer);
  if (b.status === 'error' || res.status >= 400) throw errorOf(res.status, b, res.headers['retry-after']);
  if ((b.status === 'tunnel' || b.status === 'redirect') && typeof b.url === 'string') {
    const filename = typeof b.filename === 'string' ? b.filename : undefined;
    const ext = extensionOf(filename) ?? extensionOf(b.url);
    return {
      ...namesOf(filename, style),
      thumbnail: null,
      medias: [{ url: b.url, type: typeOfExtension(ext, 'video'), quality: qualityOf(filename), extension: ext }],
    };
  }
  if (b.status === 'local-processing') {
    const local = readLocalProcessing(b as Record<string, unknown>);
    if (local) {
      const names = local.title ? { title: local.title, author: local.author } : namesOf(local.filename, style);
      return { ...names, thumbnail: null, medias: local.medias };
    }
  }
  if (b.status === 'picker' && Array.isArray(b.picker)) {
    const items = (b.picker as unknown[]).filter(
      (p): p is Record<string, unknown> => typeof p === 'object' && p !== null && typeof (p as Record<string, unknown>).url === 'string',
    );
    const medias: DownloadMedia[] = items.map((p) => {
      const type = PICKER_TYPE[String(p.type)] ?? 'image';
      const ext = extensionOf(p.url as string) ?? PICKER_EXT[type];
      return { url: p.url as string, type: ext === 'gif' ? 'gif' : type, quality: null, extension: ext };
    });
    if (typeof b.audio === 'string') {
      const audioName = typeof b.audioFilename === 'string' ? b.audioFilename : undefined;
      medias.push({ url: b.audio, type: 'audio', quality: null, extension: extensionOf(audioName) ?? extensionOf(b.audio) ?? 'mp3' });
    }
    if (!medias.length) throw notFound('The post has no downloadable media');
    const thumb = items.find((p) => typeof p.thumb === 'string')?.thumb as string | undefined;
    return { title: null, author: null, thumbnail: thumb ?? null, medias };
  }
  throw upstreamChanged('The downloader answered in an unexpected shape');
}

/**
 * A cobalt-made file name: `service_id…` with no spaces (create-filename.js's classic names, such as
 * `youtube_dQw4w9WgXcQ_1920x1080_h264`, and the fixed names of the services without title attributes,
 * such as `tiktok_user_7406264589345656082` or `facebook_123`, whatever the style asked).
 */
const MADE_UP_NAME = /^[a-z0-9]+_\S*$/;

/**
 * A title (and author) from cobalt's filename where it holds one: the basic, pretty and nerdy styles
 * name files `Title - Author (1080p, h264, youtube).mp4`. A made-up name holds no title, and is not
 * shown as one: classic names never do, so with classic (the default) the title is null.
 */
function namesOf(filename: string | undefined, style: string): { title: string | null; author: string | null } {
  const base = filename?.replace(/\.[A-Za-z0-9]{2,5}$/, '').trim();
  if (!base || style === 'classic' || MADE_UP_NAME.test(base)) return { title: null, author: null };
  const m = /^(.*) - (.*?)(?: \([^()]*\))?$/.exec(base);
  if (m) return { title: m[1] || null, author: m[2] || null };
  return { title: base.replace(/ \([^()]*\)$/, '') || null, author: null };
}

function errorOf(status: number, b: CobaltAnswer, retryAfter: string | string[] | undefined): ApiError {
  const code = typeof b.error?.code === 'string' ? b.error.code : '';
  if (/(^|\.)link\./.test(code)) return invalidParam('url', `the downloader cannot use this link (${code})`);
  // `fetch.empty`: the service answered nothing for this link (a deleted or private post), as `content.*` says.
  if (/(^|\.)content\./.test(code) || code === 'error.api.fetch.empty') return notFound(`The post is not available (${code})`);
  if (/rate/.test(code) || status === 429) {
    const secs = Number(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter);
    return upstreamBusy('The downloader is rate limited; try again later', Number.isFinite(secs) && secs > 0 ? Math.ceil(secs) : 60);
  }
  if (/(^|\.)auth\./.test(code) || status === 401 || status === 403) {
    return notConfigured('The cobalt instance wants an API key: set UPSTREAM_COBALT_KEYS');
  }
  return upstreamFailed(code ? `The downloader failed (${code})` : 'The downloader failed');
}
