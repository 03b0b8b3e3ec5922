// tikwm (https://www.tikwm.com/api/), the keyless TikTok fallback of dl-d: GET /api/?url=…&hd=1.
// Errors come inside HTTP 200 as `code` ≠ 0 with a `msg`. Media paths are sometimes relative to tikwm's own
// host. Order: HD and standard no-watermark video, the sound, slideshow photos; never the watermarked copy.
// When a post has no HD rendition, `hdplay` is the `play` file again (the same link, or another link with
// the same byte size in `hd_size` and `size`): that is one video of no particular quality, not two.
import { notFound, upstreamBusy, upstreamChanged, type AdapterContext } from '../../engine/adapter.js';
import { absolute, dedupe, extensionOf, measures, typeOfExtension, type Download, type DownloadMedia } from './_media.js';

export const TIKWM = 'tikwm';
export const TIKTOK_HOSTS = ['tiktok.com', 'www.tiktok.com', 'm.tiktok.com', 'vm.tiktok.com', 'vt.tiktok.com'];

interface TikwmAnswer {
  code?: unknown;
  msg?: unknown;
  data?: Record<string, unknown>;
}

/** `hdplay` and `play` are one file: the same link once resolved, or two links of the same byte size. */
function sameVideo(d: Record<string, unknown>, base: string | undefined): boolean {
  const hd = absolute(d.hdplay, base);
  const sd = absolute(d.play, base);
  if (!hd || !sd) return false;
  const size = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined);
  return hd === sd || (size(d.hd_size) !== undefined && size(d.hd_size) === size(d.size));
}

export async function tikwm(ctx: AdapterContext<typeof TIKWM>, url: string): Promise<Download> {
  const client = ctx.upstream(TIKWM);
  const res = await client.request<TikwmAnswer>({ path: '/api/', searchParams: { url, hd: 1 } });
  const b = typeof res.body === 'object' && res.body !== null ? res.body : ({} as TikwmAnswer);
  if (b.code !== 0) {
    const msg = typeof b.msg === 'string' ? b.msg : '';
    if (/limit/i.test(msg)) throw upstreamBusy('The TikTok fallback is rate limited; try again later', 1);
    if (typeof b.code === 'number') throw notFound('The TikTok post was not found or is not available');
    throw upstreamChanged('The TikTok fallback answered in an unexpected shape');
  }
  const d = b.data;
  if (!d || typeof d !== 'object') throw upstreamChanged('The TikTok fallback answered in an unexpected shape');
  const base = client.baseUrl;
  const medias: DownloadMedia[] = [];
  // A slideshow's `play` is its sound track, so the file's own extension decides the type when it has one.
  const add = (raw: unknown, type: DownloadMedia['type'], quality: string | null, fallbackExt: string) => {
    const u = absolute(raw, base);
    if (!u) return;
    const ext = extensionOf(u) ?? fallbackExt;
    const actual = typeOfExtension(ext, type);
    // `duration` is the post's (seconds): the video's length, not a slideshow photo's.
    const told = actual === 'video' ? measures({ duration: d.duration }) : {};
    medias.push({ url: u, type: actual, quality: actual === type ? quality : null, extension: ext, ...told });
  };
  if (sameVideo(d, base)) add(d.play, 'video', null, 'mp4');
  else {
    add(d.hdplay, 'video', 'hd', 'mp4');
    add(d.play, 'video', 'sd', 'mp4');
  }
  add(d.music, 'audio', null, 'mp3');
  if (Array.isArray(d.images)) for (const img of d.images) add(img, 'image', null, 'jpg');
  if (!medias.length) throw notFound('The TikTok post has no downloadable media');
  const author = (d.author ?? {}) as Record<string, unknown>;
  const name = [author.nickname, author.unique_id].find((x): x is string => typeof x === 'string' && x.trim() !== '');
  return {
    title: typeof d.title === 'string' && d.title.trim() ? d.title : null,
    author: name ?? null,
    thumbnail: absolute(d.cover, base) ?? absolute(d.origin_cover, base) ?? null,
    medias: dedupe(medias),
  };
}
