// Generated media (image-01, audio-01, video-01): read what Pollinations sent, make sure it is the kind of
// media asked for, host it for a day and answer with its URL (or the bytes, for a client whose Accept asks
// for them).
//
// Pollinations answers some failures with HTTP 200 and a JSON body, so the Content-Type alone is not
// trusted: the bytes are sniffed. A JSON (or other non-media) answer is a 502, or a 400 when it says the
// prompt was turned down.
import { fileTypeFromBuffer } from 'file-type';
import {
  badInput,
  upstreamFailed,
  reply,
  type AdapterContext,
  type Reply,
  type UpstreamClient,
  type UpstreamRequest,
} from '../../engine/adapter.js';
import { errorText, refusal } from './_pollinations.js';

export type Family = 'image' | 'audio' | 'video';

export interface Media {
  bytes: Buffer;
  contentType: string;
  ext: string;
}

const DAY_SECONDS = 86_400;
const PROMPT_REFUSED = /reject|moderat|safety|policy|prohibit|inappropriate|nsfw|flagged|blocked|not allowed/i;
/** Extensions for declared types that sniffing could not confirm (rare containers, raw streams). */
const EXT: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/wav': 'wav',
  'audio/ogg': 'ogg',
  'audio/aac': 'aac',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'video/quicktime': 'mov',
};

/** GET the media; 400/404 are read as Pollinations refusals, everything else is mapped by the client. */
export async function fetchMedia(client: UpstreamClient, req: UpstreamRequest, family: Family): Promise<Media> {
  const res = await client.request<Buffer>({ ...req, responseType: 'buffer', allowStatus: [400, 404] });
  if (res.status === 400 || res.status === 404) throw refusal(res.status, jsonOrText(res.body), family);
  return readMedia(res.body, headerOf(res.headers['content-type']), family);
}

export async function readMedia(bytes: Buffer, declared: string, family: Family): Promise<Media> {
  if (!bytes.length) throw upstreamFailed(`The upstream service sent an empty ${family}`);
  const sniffed = await fileTypeFromBuffer(bytes);
  if (sniffed?.mime.startsWith(`${family}/`)) return { bytes, contentType: sniffed.mime, ext: sniffed.ext };
  const looksLikeText = /^\s*[{[<]/.test(bytes.subarray(0, 64).toString('latin1'));
  if (!sniffed && !looksLikeText && declared.startsWith(`${family}/`)) {
    return { bytes, contentType: declared, ext: EXT[declared] ?? 'bin' };
  }
  const text = errorText(jsonOrText(bytes));
  if (PROMPT_REFUSED.test(text)) throw badInput('The upstream provider rejected the prompt');
  throw upstreamFailed(`The upstream service answered with an error instead of ${family === 'image' ? 'an' : 'a'} ${family}`);
}

/** Host the media for a day; data carries its URL, and the bytes go out raw for a matching Accept. */
export async function hostMedia(ctx: AdapterContext<never>, media: Media, extra: Record<string, unknown>): Promise<Reply> {
  const meta = await ctx.blobs.put({ bytes: media.bytes, kind: 'media', contentType: media.contentType, ttlSeconds: DAY_SECONDS });
  return reply({
    data: {
      url: ctx.blobs.url(meta, `.${media.ext}`),
      content_type: media.contentType,
      bytes: media.bytes.length,
      expires_at: meta.expiresAt,
      ...extra,
    },
    media: { bytes: media.bytes, contentType: media.contentType },
    cacheable: false,
  });
}

function headerOf(v: string | string[] | undefined): string {
  return (Array.isArray(v) ? v[0] : (v ?? '')).split(';')[0].trim().toLowerCase();
}

function jsonOrText(body: unknown): unknown {
  const text = Buffer.isBuffer(body) ? body.toString('utf8') : typeof body === 'string' ? body : undefined;
  if (text === undefined) return body;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
