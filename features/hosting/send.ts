// How hosted content goes out. Nothing a caller uploaded is ever served as active content: our pages go
// with a CSP that allows no script; bytes go with a sandboxing CSP, inline only under an image, audio,
// video or plain-text type, as an application/octet-stream attachment otherwise; every answer carries
// X-Content-Type-Options: nosniff. Bytes are streamed from whichever store holds them, with the caching,
// conditional and range answers a player or a download manager expects.
import crypto from 'node:crypto';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import { ApiError } from '../../engine/errors.js';
import type { ByteRange, HostedBlobs, HostedMeta } from './types.js';
import { documentOf, type Page } from './views.js';

/** Types a browser may render inline: never HTML, SVG, XML or anything scriptable. */
const INLINE_SAFE =
  /^(image\/(png|jpeg|gif|webp|bmp|avif|tiff|x-icon|vnd\.microsoft\.icon|heic|heif|jxl|apng)|audio\/[a-z0-9.+-]+|video\/[a-z0-9.+-]+|text\/plain)(;|$)/i;

/** A Content-Disposition value with an ASCII fallback and the UTF-8 name (RFC 6266 / 5987). */
export function disposition(type: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_') || 'download';
  const utf8 = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${type}; filename="${ascii}"; filename*=UTF-8''${utf8}`;
}

/** The blob's own type, inline, when a browser cannot run it; an attachment of no particular type otherwise. */
export function sniffedTypeHeaders(meta: HostedMeta, name: string): Record<string, string> {
  const inline = INLINE_SAFE.test(meta.contentType);
  return {
    'Content-Type': inline ? meta.contentType : 'application/octet-stream',
    'Content-Disposition': disposition(inline ? 'inline' : 'attachment', name),
  };
}

function common(res: Response) {
  res.set('X-Content-Type-Options', 'nosniff');
  res.set('Referrer-Policy', 'no-referrer');
  res.set('Cross-Origin-Resource-Policy', 'cross-origin');
}

/** One of our pages (features/hosting/views.ts), its style block allowed by a fresh nonce and nothing else. */
export function sendPage(res: Response, status: number, page: Page) {
  const nonce = crypto.randomBytes(12).toString('base64');
  common(res);
  res.set(
    'Content-Security-Policy',
    `default-src 'none'; img-src 'self'; style-src 'nonce-${nonce}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  );
  res.set('X-Frame-Options', 'DENY');
  res.set('Cache-Control', 'no-cache');
  if (page.noindex) res.set('X-Robots-Tag', 'noindex, nofollow');
  res.status(status).type('text/html; charset=utf-8').send(documentOf(page, nonce));
}

/** The 404 of a link to bytes (raw text, an image or a file itself, media): no page around it. */
export function notFoundText(res: Response) {
  common(res);
  res.status(404).type('text/plain; charset=utf-8').set('Cache-Control', 'no-cache').send('Not found: it does not exist or has expired.\n');
}

/** Seconds a shared cache may keep bytes: an hour at most, never past the blob's expiry. */
function maxAge(meta: HostedMeta): number {
  if (!meta.expiresAt) return 3600;
  return Math.max(0, Math.min(3600, Math.floor((Date.parse(meta.expiresAt) - Date.now()) / 1000)));
}

/** Immutable blobs (an id is never reused): the id and creation time identify the bytes on every instance. */
function etagOf(meta: HostedMeta): string {
  return `"${meta.id}-${Date.parse(meta.createdAt).toString(36)}"`;
}

/** If-Range: the Range applies only while the blob is still the one the client has (RFC 9110 §13.1.5). */
function rangeStillValid(req: Request, etag: string, lastModified: string): boolean {
  const ifRange = req.get('If-Range');
  if (!ifRange) return true;
  if (ifRange.startsWith('"') || ifRange.startsWith('W/')) return ifRange === etag;
  return Date.parse(ifRange) >= Date.parse(lastModified);
}

/**
 * The bytes of a blob, streamed from whichever store holds them, with ETag and Last-Modified (conditional
 * GETs answer 304), and one byte range on request (206; 416 past the end). Several ranges at once get the
 * whole blob, as `send` does.
 */
export async function sendBytes(blobs: HostedBlobs, req: Request, res: Response, meta: HostedMeta, headers: Record<string, string>) {
  const etag = etagOf(meta);
  const lastModified = new Date(meta.createdAt).toUTCString();
  let range: ByteRange | undefined;
  const asked = req.headers.range && rangeStillValid(req, etag, lastModified) ? req.range(meta.size, { combine: true }) : undefined;
  if (asked === -1) {
    throw new ApiError('range_not_satisfiable', `Range not satisfiable: the content is ${meta.size} bytes`, {
      'Content-Range': `bytes */${meta.size}`,
    });
  }
  if (Array.isArray(asked) && asked.type === 'bytes' && asked.length === 1) range = asked[0];

  // The body is opened before the answer's headers are set, so a 503 of the store never goes out with them.
  res.set({ ETag: etag, 'Last-Modified': lastModified });
  const fresh = req.fresh;
  const length = range ? range.end - range.start + 1 : meta.size;
  let body: Readable | undefined;
  if (!fresh && req.method !== 'HEAD' && length > 0) {
    body = await blobs.read(meta.id, range).catch((err: unknown) => {
      res.removeHeader('ETag');
      res.removeHeader('Last-Modified');
      throw err;
    });
    if (!body) {
      res.removeHeader('ETag');
      res.removeHeader('Last-Modified');
      return notFoundText(res); // removed in between
    }
  }
  // An unlisted paste stays out of shared caches.
  const unlisted = meta.kind === 'paste' && meta.private === 1;
  common(res);
  res.set('Content-Security-Policy', "default-src 'none'; sandbox");
  res.set('Cache-Control', `${unlisted ? 'private' : 'public'}, max-age=${maxAge(meta)}`);
  res.set(headers);
  res.set('Accept-Ranges', 'bytes');
  if (fresh) return void res.status(304).end();
  res.status(range ? 206 : 200);
  if (range) res.set('Content-Range', `bytes ${range.start}-${range.end}/${meta.size}`);
  res.set('Content-Length', String(length));
  if (!body) return void res.end();
  // A store failing mid-stream can only cut the answer short: the status and length are already sent.
  await pipeline(body, res).catch(() => body.destroy());
}
