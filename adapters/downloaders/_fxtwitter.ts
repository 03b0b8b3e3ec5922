// FxTwitter's status API, the keyless X/Twitter fallback of dl-e: GET /status/{id}. The answer's `code`
// mirrors the HTTP status; anything but 200 (not found, private, suspended) is a 404 for our caller.
// GIFs arrive as MP4 videos marked `type: "gif"`.
import { notFound, upstreamChanged, type AdapterContext } from '../../engine/adapter.js';
import { absolute, dedupe, extensionOf, measures, type Download, type DownloadMedia } from './_media.js';

export const FXTWITTER = 'fxtwitter';
export const X_HOSTS = ['twitter.com', 'www.twitter.com', 'mobile.twitter.com', 'x.com', 'www.x.com', 'mobile.x.com'];
const TITLE_MAX = 280;

interface FxMedia {
  type?: unknown;
  url?: unknown;
  thumbnail_url?: unknown;
  width?: unknown;
  height?: unknown;
  duration?: unknown;
  format?: unknown;
}

export async function fxtwitter(ctx: AdapterContext<typeof FXTWITTER>, statusId: string): Promise<Download> {
  const res = await ctx.upstream(FXTWITTER).request<Record<string, unknown>>({
    path: `/status/${statusId}`,
    allowStatus: [401, 403, 404],
  });
  const b = typeof res.body === 'object' && res.body !== null ? res.body : {};
  if (b.code !== 200 || res.status !== 200) {
    if (typeof b.code === 'number' || res.status !== 200) throw notFound('The post was not found, is private or was deleted');
    throw upstreamChanged('The X/Twitter fallback answered in an unexpected shape');
  }
  const tweet = (b.tweet ?? {}) as Record<string, unknown>;
  const media = (tweet.media ?? {}) as Record<string, unknown>;
  const list = (x: unknown): FxMedia[] => (Array.isArray(x) ? x.filter((m): m is FxMedia => typeof m === 'object' && m !== null) : []);
  // `all` keeps the post's own order; older answers only have the two lists.
  const items = list(media.all).length ? list(media.all) : [...list(media.videos), ...list(media.photos)];

  const medias: DownloadMedia[] = [];
  let videoThumb: string | undefined;
  let firstPhoto: string | undefined;
  for (const m of items) {
    const url = absolute(m.url);
    if (!url) continue;
    const size = measures({ width: m.width, height: m.height });
    if (m.type === 'photo') {
      medias.push({ url, type: 'image', quality: null, extension: extensionOf(url) ?? 'jpg', ...size });
      firstPhoto ??= url;
    } else {
      const w = Number(m.width);
      const h = Number(m.height);
      const ext = typeof m.format === 'string' && m.format.startsWith('video/') ? m.format.slice(6) : (extensionOf(url) ?? 'mp4');
      medias.push({
        url,
        type: m.type === 'gif' ? 'gif' : 'video',
        quality: w > 0 && h > 0 ? `${Math.min(w, h)}p` : null,
        extension: ext,
        ...size,
        ...measures({ duration: m.duration }),
      });
      videoThumb ??= absolute(m.thumbnail_url);
    }
  }
  if (!medias.length) throw notFound('The post has no photos, videos or GIFs');
  const author = (tweet.author ?? {}) as Record<string, unknown>;
  const text = typeof tweet.text === 'string' ? tweet.text.trim() : '';
  return {
    title: text ? (text.length > TITLE_MAX ? `${text.slice(0, TITLE_MAX - 1)}…` : text) : null,
    author: typeof author.screen_name === 'string' ? author.screen_name : null,
    thumbnail: videoThumb ?? firstPhoto ?? null,
    medias: dedupe(medias),
  };
}
