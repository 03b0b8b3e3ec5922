// Serves hosted blobs back at the links the cloud-storage, tts and gen-models endpoints hand out:
//   /p/<id>            a paste as a small HTML page (the text escaped)    /p/<id>/raw   the text itself
//   /i/<id>            an image viewer page                               /i/<id>.<ext> the image bytes
//   /i/<id>/delete/<token>  a confirm page (GET) and the deletion (POST) behind an image's delete_url
//   /f/<id>            a file's download page                             /f/<id>/<name> the bytes, as an attachment
//   /media/<id>.<ext>  generated speech, images and video
// Links are public (the id is the capability, 8 random characters) and not metered. Each route finds its
// blob by id and kind and reads that kind's typed metadata; the pages are in features/hosting/views.ts, and
// how pages and bytes go out safely (CSP, nosniff, attachments, ranges) in features/hosting/send.ts.
import crypto from 'node:crypto';
import { text as readText } from 'node:stream/consumers';
import express, { type Request, type Response, type NextFunction } from 'express';
import { BLOB_ID } from './meta.js';
import { disposition, notFoundText, sendBytes, sendPage, sniffedTypeHeaders } from './send.js';
import type { HostedBlobs, HostedMeta } from './types.js';
import { deleteImagePage, filePage, imageDeletedPage, imagePage, notFoundPage, pastePage } from './views.js';

/** The blob of `id` when it exists and has not expired (each route then checks its kind). */
async function find(blobs: HostedBlobs, id: string): Promise<HostedMeta | undefined> {
  if (!BLOB_ID.test(id)) return undefined;
  return (await blobs.get(id))?.meta;
}

/** `abc123.png` → ['abc123', 'png']; `abc123` → ['abc123', undefined]. */
function splitExt(name: string): [string, string | undefined] {
  const m = /^([^.]+)(?:\.([A-Za-z0-9]{1,8}))?$/.exec(name);
  return m ? [m[1], m[2]] : ['', undefined];
}

/** Whether `token` is the one whose SHA-256 the image stored, compared in constant time. */
function deleteTokenMatches(deleteHash: string, token: string): boolean {
  const given = crypto.createHash('sha256').update(token).digest('hex');
  return deleteHash.length === given.length && crypto.timingSafeEqual(Buffer.from(deleteHash), Buffer.from(given));
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
      const meta = await find(blobs, String(req.params.id));
      if (meta?.kind !== 'paste') return sendPage(res, 404, notFoundPage('paste'));
      const bytes = await blobs.read(meta.id);
      if (!bytes) return sendPage(res, 404, notFoundPage('paste'));
      sendPage(res, 200, pastePage(meta, await readText(bytes)));
    }),
  );
  router.get(
    '/p/:id/raw',
    wrap(async (req, res) => {
      const meta = await find(blobs, String(req.params.id));
      if (meta?.kind !== 'paste') return notFoundText(res);
      if (meta.private === 1) res.set('X-Robots-Tag', 'noindex, nofollow');
      return sendBytes(blobs, req, res, meta, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Disposition': 'inline' });
    }),
  );

  // ---- images ----
  router.get(
    '/i/:name',
    wrap(async (req, res) => {
      const [id, ext] = splitExt(String(req.params.name));
      const meta = await find(blobs, id);
      if (meta?.kind !== 'image') return ext ? notFoundText(res) : sendPage(res, 404, notFoundPage('image'));
      if (ext) return sendBytes(blobs, req, res, meta, sniffedTypeHeaders(meta, meta.fileName));
      sendPage(res, 200, imagePage(meta));
    }),
  );
  const deleteImage = (action: 'confirm' | 'delete') =>
    wrap(async (req, res) => {
      const meta = await find(blobs, String(req.params.id));
      if (meta?.kind !== 'image' || !deleteTokenMatches(meta.deleteHash, String(req.params.token))) {
        return sendPage(res, 404, notFoundPage('image'));
      }
      if (action === 'confirm') return sendPage(res, 200, deleteImagePage(meta));
      await blobs.remove(meta.id);
      sendPage(res, 200, imageDeletedPage);
    });
  router.get('/i/:id/delete/:token', deleteImage('confirm'));
  router.post('/i/:id/delete/:token', deleteImage('delete'));

  // ---- files ----
  router.get(
    '/f/:id',
    wrap(async (req, res) => {
      const meta = await find(blobs, String(req.params.id));
      if (meta?.kind !== 'file') return sendPage(res, 404, notFoundPage('file'));
      sendPage(res, 200, filePage(meta));
    }),
  );
  router.get(
    '/f/:id/:name',
    wrap(async (req, res) => {
      const meta = await find(blobs, String(req.params.id));
      if (meta?.kind !== 'file') return notFoundText(res);
      return sendBytes(blobs, req, res, meta, {
        'Content-Type': 'application/octet-stream',
        'Content-Disposition': disposition('attachment', meta.fileName),
      });
    }),
  );

  // ---- generated media ----
  router.get(
    '/media/:name',
    wrap(async (req, res) => {
      const name = String(req.params.name);
      const meta = await find(blobs, splitExt(name)[0]);
      if (meta?.kind !== 'media') return notFoundText(res);
      return sendBytes(blobs, req, res, meta, sniffedTypeHeaders(meta, name));
    }),
  );

  return router;
}
