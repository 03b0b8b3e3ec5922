// Serves hosted blobs back at the links the cloud-storage, tts and gen-models endpoints hand out:
//   /p/<id>            a paste as a small HTML page (the text escaped)    /p/<id>/raw   the text itself
//   /i/<id>            an image viewer page                               /i/<id>.<ext> the image bytes
//   /i/<id>/delete/<token>  a confirm page (GET) and the deletion (POST) behind an image's delete_url
//   /f/<id>            a file's download page                             /f/<id>/<name> the bytes, as an attachment
//   /media/<id>.<ext>  generated speech, images and video
// Links are public (the id is the capability, 8 random characters) and not metered. Nothing a caller
// uploaded is ever served as active content: pages are ours, with a CSP allowing no script; uploaded
// files go out as application/octet-stream attachments; images and media only under the image, audio or
// video type sniffed at upload; every answer carries X-Content-Type-Options: nosniff.
import crypto from 'node:crypto';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { text as readText } from 'node:stream/consumers';
import express, { type Request, type Response, type NextFunction } from 'express';
import { BLOB_ID, type ByteRange, type HostedBlobs } from './blobs.js';
import { ApiError } from '../errors.js';
import type { BlobMeta } from '../types.js';

type Found = { meta: BlobMeta };

/** Types a browser may render inline: never HTML, SVG, XML or anything scriptable. */
const INLINE_SAFE =
  /^(image\/(png|jpeg|gif|webp|bmp|avif|tiff|x-icon|vnd\.microsoft\.icon|heic|heif|jxl|apng)|audio\/[a-z0-9.+-]+|video\/[a-z0-9.+-]+|text\/plain)(;|$)/i;

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A Content-Disposition value with an ASCII fallback and the UTF-8 name (RFC 6266 / 5987). */
export function disposition(type: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_') || 'download';
  const utf8 = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${type}; filename="${ascii}"; filename*=UTF-8''${utf8}`;
}

export function humanSize(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1048576).toFixed(1)} MB`;
}

function common(res: Response) {
  res.set('X-Content-Type-Options', 'nosniff');
  res.set('Referrer-Policy', 'no-referrer');
  res.set('Cross-Origin-Resource-Policy', 'cross-origin');
}

/** Our own small HTML page: no script at all, a nonce for its one style block, images only from here. */
function sendPage(res: Response, status: number, title: string, body: string, opts: { noindex?: boolean } = {}) {
  const nonce = crypto.randomBytes(12).toString('base64');
  common(res);
  res.set(
    'Content-Security-Policy',
    `default-src 'none'; img-src 'self'; style-src 'nonce-${nonce}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  );
  res.set('X-Frame-Options', 'DENY');
  res.set('Cache-Control', 'no-cache');
  if (opts.noindex) res.set('X-Robots-Tag', 'noindex, nofollow');
  res.status(status).type('text/html; charset=utf-8').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
${opts.noindex ? '<meta name="robots" content="noindex, nofollow">\n' : ''}<title>${escapeHtml(title)}</title>
<style nonce="${nonce}">body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
pre{background:#f6f8fa;border:1px solid #ddd;padding:1rem;overflow:auto;white-space:pre-wrap;word-break:break-word}
.meta{color:#666;font-size:13px}img{max-width:100%;height:auto;border:1px solid #ddd}a.button,button{display:inline-block;padding:.5rem 1rem;background:#0366d6;color:#fff;border:0;border-radius:4px;text-decoration:none;font-size:15px;cursor:pointer}</style>
</head><body>
${body}
</body></html>`);
}

function notFoundPage(res: Response, what: string) {
  sendPage(res, 404, 'Not found', `<h1>Not found</h1><p>This ${escapeHtml(what)} does not exist or has expired.</p>`, { noindex: true });
}

function notFoundText(res: Response) {
  common(res);
  res.status(404).type('text/plain; charset=utf-8').set('Cache-Control', 'no-cache').send('Not found: it does not exist or has expired.\n');
}

/** Seconds a shared cache may keep bytes: an hour at most, never past the blob's expiry. */
function maxAge(meta: BlobMeta): number {
  if (!meta.expiresAt) return 3600;
  return Math.max(0, Math.min(3600, Math.floor((Date.parse(meta.expiresAt) - Date.now()) / 1000)));
}

function expiryText(meta: BlobMeta): string {
  return meta.expiresAt ? `expires ${escapeHtml(meta.expiresAt.replace(/\.\d{3}Z$/, 'Z'))}` : 'never expires';
}

/** Immutable blobs (an id is never reused): the id and creation time identify the bytes on every instance. */
function etagOf(meta: BlobMeta): string {
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
async function sendBytes(blobs: HostedBlobs, req: Request, res: Response, found: Found, headers: Record<string, string>) {
  const { meta } = found;
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
  common(res);
  res.set('Content-Security-Policy', "default-src 'none'; sandbox");
  res.set('Cache-Control', `${meta.private ? 'private' : 'public'}, max-age=${maxAge(meta)}`);
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

/** The blob of `id` when it exists, has not expired and is of `kind`. */
async function find(blobs: HostedBlobs, id: string, kind: string): Promise<Found | undefined> {
  if (!BLOB_ID.test(id)) return undefined;
  const found = await blobs.get(id);
  return found && found.meta.kind === kind ? found : undefined;
}

/** `abc123.png` → ['abc123', 'png']; `abc123` → ['abc123', undefined]. */
function splitExt(name: string): [string, string | undefined] {
  const m = /^([^.]+)(?:\.([A-Za-z0-9]{1,8}))?$/.exec(name);
  return m ? [m[1], m[2]] : ['', undefined];
}

const wrap =
  (fn: (req: Request, res: Response, next: NextFunction) => Promise<unknown>) => (req: Request, res: Response, next: NextFunction) => {
    fn(req, res, next).catch(next);
  };

export function createHostingRouter(blobs: HostedBlobs): express.Router {
  const router = express.Router({ caseSensitive: true, strict: false });

  // ---- pastes ----
  router.get(
    '/p/:id',
    wrap(async (req, res) => {
      const found = await find(blobs, String(req.params.id), 'paste');
      if (!found) return notFoundPage(res, 'paste');
      const { meta } = found;
      const bytes = await blobs.read(meta.id);
      if (!bytes) return notFoundPage(res, 'paste');
      const text = await readText(bytes);
      const title = String(meta.name ?? '') || 'Untitled';
      const format = String(meta.format ?? 'text');
      sendPage(
        res,
        200,
        `${title} - paste`,
        `<h1>${escapeHtml(title)}</h1>
<p class="meta">${escapeHtml(format)} · ${humanSize(meta.size)} · created ${escapeHtml(meta.createdAt.replace(/\.\d{3}Z$/, 'Z'))} · ${expiryText(meta)}${meta.private ? ' · unlisted' : ''} · <a href="/p/${meta.id}/raw">raw</a></p>
<pre><code class="language-${escapeHtml(format)}">${escapeHtml(text)}</code></pre>`,
        { noindex: Boolean(meta.private) },
      );
    }),
  );
  router.get(
    '/p/:id/raw',
    wrap(async (req, res) => {
      const found = await find(blobs, String(req.params.id), 'paste');
      if (!found) return notFoundText(res);
      if (found.meta.private) res.set('X-Robots-Tag', 'noindex, nofollow');
      return sendBytes(blobs, req, res, found, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Disposition': 'inline' });
    }),
  );

  // ---- images ----
  router.get(
    '/i/:name',
    wrap(async (req, res) => {
      const [id, ext] = splitExt(String(req.params.name));
      const found = await find(blobs, id, 'image');
      if (!found) return ext ? notFoundText(res) : notFoundPage(res, 'image');
      const { meta } = found;
      const fileName = String(meta.filename ?? `${meta.id}.${meta.ext ?? 'img'}`);
      if (ext) {
        const inline = INLINE_SAFE.test(meta.contentType);
        return sendBytes(blobs, req, res, found, {
          'Content-Type': inline ? meta.contentType : 'application/octet-stream',
          'Content-Disposition': disposition(inline ? 'inline' : 'attachment', fileName),
        });
      }
      const src = `/i/${meta.id}.${escapeHtml(String(meta.ext ?? 'img'))}`;
      const dims = meta.width && meta.height ? `${meta.width} × ${meta.height} · ` : '';
      sendPage(
        res,
        200,
        `${fileName} - image`,
        `<h1>${escapeHtml(fileName)}</h1>
<p class="meta">${dims}${humanSize(meta.size)} · ${escapeHtml(meta.contentType)} · ${expiryText(meta)}</p>
<p><a href="${src}"><img src="${src}" alt="${escapeHtml(fileName)}"></a></p>`,
      );
    }),
  );
  const deletePage = (action: 'confirm' | 'delete') =>
    wrap(async (req, res) => {
      const found = await find(blobs, String(req.params.id), 'image');
      const token = String(req.params.token);
      const hash = typeof found?.meta.deleteHash === 'string' ? found.meta.deleteHash : '';
      const given = crypto.createHash('sha256').update(token).digest('hex');
      if (!found || hash.length !== given.length || !crypto.timingSafeEqual(Buffer.from(hash), Buffer.from(given))) {
        return notFoundPage(res, 'image');
      }
      if (action === 'confirm') {
        return sendPage(
          res,
          200,
          'Delete image',
          `<h1>Delete this image?</h1>
<p class="meta">${escapeHtml(String(found.meta.filename ?? found.meta.id))} · ${humanSize(found.meta.size)}</p>
<form method="post"><button type="submit">Delete permanently</button></form>`,
          { noindex: true },
        );
      }
      await blobs.remove(found.meta.id);
      sendPage(res, 200, 'Image deleted', '<h1>Image deleted</h1><p>The image and its links are gone.</p>', { noindex: true });
    });
  router.get('/i/:id/delete/:token', deletePage('confirm'));
  router.post('/i/:id/delete/:token', deletePage('delete'));

  // ---- files ----
  router.get(
    '/f/:id',
    wrap(async (req, res) => {
      const found = await find(blobs, String(req.params.id), 'file');
      if (!found) return notFoundPage(res, 'file');
      const { meta } = found;
      const fileName = String(meta.fileName ?? meta.id);
      const href = `/f/${meta.id}/${encodeURIComponent(fileName)}`;
      sendPage(
        res,
        200,
        `${fileName} - download`,
        `<h1>${escapeHtml(fileName)}</h1>
<p class="meta">${humanSize(meta.size)} · md5 ${escapeHtml(String(meta.md5 ?? ''))} · uploaded ${escapeHtml(meta.createdAt.replace(/\.\d{3}Z$/, 'Z'))} · ${expiryText(meta)}</p>
<p><a class="button" href="${escapeHtml(href)}" download>Download</a></p>`,
      );
    }),
  );
  router.get(
    '/f/:id/:name',
    wrap(async (req, res) => {
      const found = await find(blobs, String(req.params.id), 'file');
      if (!found) return notFoundText(res);
      return sendBytes(blobs, req, res, found, {
        'Content-Type': 'application/octet-stream',
        'Content-Disposition': disposition('attachment', String(found.meta.fileName ?? found.meta.id)),
      });
    }),
  );

  // ---- generated media ----
  router.get(
    '/media/:name',
    wrap(async (req, res) => {
      const [id] = splitExt(String(req.params.name));
      const found = await find(blobs, id, 'media');
      if (!found) return notFoundText(res);
      const inline = INLINE_SAFE.test(found.meta.contentType);
      const name = String(found.meta.filename ?? req.params.name);
      return sendBytes(blobs, req, res, found, {
        'Content-Type': inline ? found.meta.contentType : 'application/octet-stream',
        'Content-Disposition': disposition(inline ? 'inline' : 'attachment', name),
      });
    }),
  );

  return router;
}
