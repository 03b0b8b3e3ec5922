// The one answer shape of every downloader, whichever provider found the media:
//   { title, author, thumbnail, medias: [{ url, type, quality, extension, width?, height?, duration? }] }
// (the service adds each media's link, size and sniffed type: features/media/)
// and the small readers the providers share (file extensions, "1920x1080" → "1080p", the host check).
import { invalidParam, reply, type Reply } from '../../engine/adapter.js';

export type MediaType = 'video' | 'audio' | 'image' | 'gif';

export interface DownloadMedia {
  url: string;
  type: MediaType;
  quality: string | null;
  extension: string | null;
  /** What the provider says of the file: pixels, seconds. */
  width?: number;
  height?: number;
  duration?: number;
}

/** The positive numbers the provider gave, by name; the others left out. */
export function measures(given: Record<string, unknown>): Pick<DownloadMedia, 'width' | 'height' | 'duration'> {
  const out: Record<string, number> = {};
  for (const [name, x] of Object.entries(given)) if (typeof x === 'number' && Number.isFinite(x) && x > 0) out[name] = x;
  return out;
}

export interface Download {
  title: string | null;
  author: string | null;
  thumbnail: string | null;
  medias: DownloadMedia[];
}

const TYPE_OF_EXT: Record<string, MediaType> = {
  mp4: 'video',
  webm: 'video',
  mkv: 'video',
  mov: 'video',
  m4v: 'video',
  mp3: 'audio',
  m4a: 'audio',
  ogg: 'audio',
  opus: 'audio',
  wav: 'audio',
  aac: 'audio',
  flac: 'audio',
  weba: 'audio',
  jpg: 'image',
  jpeg: 'image',
  png: 'image',
  webp: 'image',
  heic: 'image',
  avif: 'image',
  gif: 'gif',
};

/**
 * The caller's URL, when it is http(s) on one of `hosts` exactly. The catalog's `hosts:` check also lets
 * subdomains through; the sites' own hosts are a closed list (upstreams.md), so this one is exact.
 */
export function siteUrl(raw: unknown, hosts: readonly string[]): URL {
  let u: URL | undefined;
  try {
    u = new URL(String(raw));
  } catch {
    u = undefined;
  }
  const host = u?.hostname.toLowerCase().replace(/\.$/, '');
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || !host || !hosts.includes(host)) {
    throw invalidParam('url', `must be an http(s) URL on ${hosts.join(', ')}`);
  }
  return u;
}

/** A known media extension of a file name or URL path (`.../a.JPG?x=1` → jpg), else null. */
export function extensionOf(nameOrUrl: string | undefined | null): string | null {
  if (!nameOrUrl) return null;
  let path = nameOrUrl;
  try {
    const u = new URL(nameOrUrl);
    path = u.pathname;
    // Twitter's image CDN names the format in the query: /media/abc?format=jpg&name=large
    const format = u.searchParams.get('format')?.toLowerCase();
    if (format && TYPE_OF_EXT[format]) return format;
  } catch {
    // a bare file name
  }
  const m = /\.([A-Za-z0-9]{2,5})$/.exec(path);
  const ext = m?.[1].toLowerCase();
  return ext && TYPE_OF_EXT[ext] ? (ext === 'jpeg' ? 'jpg' : ext) : null;
}

export function typeOfExtension(ext: string | null, fallback: MediaType): MediaType {
  return (ext && TYPE_OF_EXT[ext]) || fallback;
}

/** `1920x1080` (or `1080x1920`, a portrait video) → `1080p`; `720p` stays; anything else → null. */
export function qualityOf(text: string | undefined | null): string | null {
  if (!text) return null;
  const wh = /(?:^|[^0-9])(\d{2,5})x(\d{2,5})(?:[^0-9]|$)/.exec(text);
  if (wh) return `${Math.min(Number(wh[1]), Number(wh[2]))}p`;
  const p = /(?:^|[^0-9])(\d{3,4})p(?:[^a-z0-9]|$)/i.exec(text);
  return p ? `${p[1]}p` : null;
}

/** A media URL: absolute http(s), or made absolute against `base` (tikwm answers some paths relative). */
export function absolute(url: unknown, base?: string): string | undefined {
  if (typeof url !== 'string' || !url.trim()) return undefined;
  try {
    const u = base ? new URL(url.trim(), base) : new URL(url.trim());
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.toString() : undefined;
  } catch {
    return undefined;
  }
}

/** Drops repeated URLs, keeping the first (the best-ranked) of each. */
export function dedupe(medias: DownloadMedia[]): DownloadMedia[] {
  const seen = new Set<string>();
  return medias.filter((m) => (seen.has(m.url) ? false : (seen.add(m.url), true)));
}

/**
 * Reused for MEDIA_CACHE_TTL like any answer: callers get links on this service (features/media/), which ask
 * the provider again when its own link, in the cached answer, has died.
 */
export function downloadReply(download: Download, source: string): Reply {
  return reply({ data: { ...download }, source });
}
