// A file, hosted by the service in gofile's answer shape: a download page, a short code, the file's id,
// name, size and MD5. Any file is taken (it is only ever served back as an application/octet-stream
// attachment, see features/hosting/send.ts) and kept for a retention period: catalog option
// `retentionDays`, 30 days by default (gofile keeps guest files while they are downloaded; a self-hosted
// service needs a bound on its disk). With UPSTREAM_GOFILE_KEYS set, files go to gofile (_gofile.ts).
import crypto from 'node:crypto';
import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { fileTypeFromFile } from 'file-type';
import { ApiError, invalidParam, reply } from '../../engine/adapter.js';
import type { Adapter } from './_catalog.js';
import { cleanFileName } from './_names.js';
import { uploadToGofile } from './_gofile.js';

export const DEFAULT_RETENTION_DAYS = 30;

async function md5Of(file: string): Promise<string> {
  const hash = crypto.createHash('md5');
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
}

const fileHost: Adapter<'cloud-storage/file-host'> = async (params, ctx) => {
  const file = params.file; // required, and only ever an upload: the catalog's file type
  if (file.size === 0) throw invalidParam('file', 'must not be empty');
  const days = Number(ctx.options.retentionDays ?? DEFAULT_RETENTION_DAYS);
  const fileName = cleanFileName(file.originalName) || 'file';
  const [md5, type] = await Promise.all([md5Of(file.path), fileTypeFromFile(file.path).catch(() => undefined)]);

  // With an operator's gofile token the file goes there; if gofile fails, the service hosts it itself.
  if (ctx.upstream('gofile').hasKeys) {
    try {
      const data = await uploadToGofile(ctx, {
        path: file.path,
        fileName,
        size: file.size,
        md5,
        mimetype: type?.mime ?? 'application/octet-stream',
      });
      return reply({ data, source: 'gofile', cacheable: false });
    } catch (err) {
      if (!(err instanceof ApiError) || err.status < 500) throw err;
      ctx.log.warn({ err: err.message }, 'gofile upload failed; hosting the file here');
    }
  }

  const fileId = crypto.randomUUID();

  const meta = await ctx.blobs.put({
    fromPath: file.path,
    contentType: type?.mime ?? 'application/octet-stream',
    ttlSeconds: days > 0 ? days * 86_400 : null,
    kind: 'file',
    fileName,
    fileId,
    md5,
  });
  return reply({
    data: {
      downloadPage: ctx.blobs.url(meta),
      code: meta.id,
      fileId,
      fileName,
      size: meta.size,
      md5,
      mimetype: meta.contentType,
      directLink: ctx.blobs.url(meta, `/${encodeURIComponent(fileName)}`),
      expiresAt: meta.expiresAt,
    },
    cacheable: false,
  });
};

export default fileHost;
