// An image, hosted by the service in imgbb's answer shape (numbers as strings, as imgbb sends them).
// The type is sniffed from the bytes, never taken from the name or the claimed Content-Type, and only
// raster formats a browser can show are kept. SVG is refused: it is XML that can carry script, and an
// image host serving it inline would host active content (file-host takes any file, as an attachment).
// Without `expiration` an image is kept until deleted (imgbb's rule); delete_url deletes it.
// With UPSTREAM_IMGBB_KEYS set, the image is forwarded to imgbb instead (_imgbb.ts), same answer shape.
import crypto from 'node:crypto';
import { fileTypeFromBuffer } from 'file-type';
import { ApiError, invalidParam, reply } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { readImageInput } from './_image-input.js';
import { imageSize } from './_image-size.js';
import { uploadToImgbb } from './_imgbb.js';
import { cleanFileName } from './_names.js';

/** file-type's extensions of the formats accepted. */
const ACCEPTED = new Set(['png', 'apng', 'jpg', 'gif', 'webp', 'bmp', 'avif', 'tif', 'ico', 'cur', 'heic', 'jxl']);

const imageHost: Adapter<'cloud-storage/image-host'> = async (params, ctx) => {
  const input = await readImageInput(params.image, ctx);
  const type = await fileTypeFromBuffer(input.bytes);
  if (!type || !ACCEPTED.has(type.ext)) throw invalidParam('image', 'not an image');
  const size = imageSize(input.bytes, type.ext);

  const given = cleanFileName(params.name ?? input.originalName ?? '', 200).replace(/\.[A-Za-z0-9]{1,5}$/, '');
  const title = given || 'image';
  const fileName = `${title}.${type.ext}`;
  const expiration = params.expiration ?? 0;

  // With an operator's imgbb key the image goes there; if imgbb fails, the service hosts it itself.
  if (ctx.upstream('imgbb').hasKeys) {
    try {
      const data = await uploadToImgbb(ctx, input.bytes, { name: title, mime: type.mime, ext: type.ext }, expiration);
      return reply({ data, source: 'imgbb', cacheable: false });
    } catch (err) {
      if (!(err instanceof ApiError) || err.status < 500) throw err;
      ctx.log.warn({ err: err.message }, 'imgbb upload failed; hosting the image here');
    }
  }

  const deleteToken = crypto.randomBytes(16).toString('hex');

  const meta = await ctx.blobs.put({
    ...(input.fromPath ? { fromPath: input.fromPath } : { bytes: input.bytes }),
    contentType: type.mime,
    ttlSeconds: expiration || null,
    kind: 'image',
    fileName,
    ext: type.ext,
    width: size?.width ?? null,
    height: size?.height ?? null,
    deleteHash: crypto.createHash('sha256').update(deleteToken).digest('hex'),
  });
  const url = ctx.blobs.url(meta, `.${type.ext}`);
  return reply({
    data: {
      id: meta.id,
      title,
      url_viewer: ctx.blobs.url(meta),
      url,
      display_url: url,
      width: String(size?.width ?? 0),
      height: String(size?.height ?? 0),
      size: String(meta.size),
      time: String(Math.floor(Date.parse(meta.createdAt) / 1000)),
      expiration: String(expiration),
      expires_at: meta.expiresAt,
      image: { filename: fileName, name: title, mime: type.mime, extension: type.ext, url },
      delete_url: ctx.blobs.url(meta, `/delete/${deleteToken}`),
    },
    cacheable: false,
  });
};

export default imageHost;
