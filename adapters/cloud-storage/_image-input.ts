// The `image` parameter of image-host, as imgbb takes it: a multipart file, base64 text (bare or as a
// data: URI), or an http(s) URL fetched through the SSRF guard (ctx.fetchUrl). At most 32 MiB whichever
// way it comes: multer enforces it for files (413), this module for base64 and URLs.
import fsp from 'node:fs/promises';
import { ApiError, invalidParam, payloadTooLarge, type AdapterContext } from '../../engine/adapter.js';
import type { ImageHostParams } from './_catalog.js';

const MAX_IMAGE_BYTES = 32 * 1024 * 1024;

export interface ImageInput {
  bytes: Buffer;
  /** The file on disk when it came as an upload (moved into the store, not copied). */
  fromPath?: string;
  /** The name the image came with (upload name or the URL's last path segment), if any. */
  originalName?: string;
}

const tooLarge = () => payloadTooLarge(`Image is too large: the limit is ${MAX_IMAGE_BYTES / 1048576} MB`);

/**
 * Whether `s` is base64 or base64url: its alphabet, then at most two '='. A loop, not a regular expression:
 * over a body of megabytes V8's regular expressions may run out of backtracking stack (a RangeError, seen
 * under memory pressure), where this walks the string once.
 */
function isBase64(s: string): boolean {
  const end = s.length - (s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0);
  if (end === 0) return false;
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i);
    const ok = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47 || c === 95 || c === 45;
    if (!ok) return false;
  }
  return true;
}

function fromBase64(text: string): Buffer {
  const m = /^data:([^,]*?),/i.exec(text);
  if (m && !/;base64$/i.test(m[1])) throw invalidParam('image', 'a data: URI must be base64-encoded');
  const raw = m ? text.slice(m[0].length) : text;
  const b64 = /\s/.test(raw) ? raw.split(/\s/).join('') : raw;
  if (!isBase64(b64) || b64.length % 4 === 1) {
    throw invalidParam('image', 'must be a multipart file, base64 data or an http(s) URL');
  }
  // Refuse before decoding: base64 is 4 characters per 3 bytes.
  const padding = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
  if (Math.floor(((b64.length - padding) * 3) / 4) > MAX_IMAGE_BYTES) throw tooLarge();
  return Buffer.from(b64, b64.includes('-') || b64.includes('_') ? 'base64url' : 'base64');
}

function nameFromUrl(url: string): string | undefined {
  try {
    const last = new URL(url).pathname.split('/').pop();
    return last ? decodeURIComponent(last) : undefined;
  } catch {
    return undefined;
  }
}

/** The guard speaks of `url`; here the parameter is `image`. */
function renamed(err: unknown): unknown {
  if (!(err instanceof ApiError)) return err;
  const message = err.message.replace(/^Invalid value for url:/, 'Invalid value for image:').replace(/\burl\b/g, 'image URL');
  return new ApiError(err.code, message, err.headers);
}

/** `image` as the catalog types it (a file param with orText): an upload, or its text. */
export async function readImageInput(value: ImageHostParams['image'], ctx: AdapterContext<never>): Promise<ImageInput> {
  if (typeof value !== 'string') {
    if (value.size > MAX_IMAGE_BYTES) throw tooLarge();
    return { bytes: await fsp.readFile(value.path), fromPath: value.path, originalName: value.originalName };
  }
  const text = value.trim();
  if (/^https?:\/\//i.test(text)) {
    const fetched = await ctx.fetchUrl(text, { maxBytes: MAX_IMAGE_BYTES }).catch((err: unknown) => {
      throw renamed(err);
    });
    if (fetched.bytes.length > MAX_IMAGE_BYTES) throw tooLarge();
    return { bytes: fetched.bytes, originalName: nameFromUrl(fetched.finalUrl) };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) throw invalidParam('image', 'a URL must use http or https');
  return { bytes: fromBase64(text) };
}
