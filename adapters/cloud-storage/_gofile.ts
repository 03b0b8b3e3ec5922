// Forwarding to gofile, used only when the operator configured UPSTREAM_GOFILE_KEYS (an account token, sent
// as a bearer token). gofile's current flow is one multipart POST to upload.gofile.io/uploadfile (the
// older "GET /servers, then POST to that server" flow is gone); its answer is mapped onto the same fields
// the self-hosted answer has. The upstream client takes a raw body, so the multipart body is built here.
import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import { upstreamFailed, type AdapterContext } from '../../engine/adapter.js';

/** gofile's answer as read: only downloadPage is checked; the rest is turned into text or a number as it comes. */
interface GofileData {
  downloadPage?: string;
  code?: unknown;
  parentFolderCode?: unknown;
  id?: unknown;
  fileId?: unknown;
  name?: unknown;
  fileName?: unknown;
  size?: unknown;
  mimetype?: unknown;
}

/** A multipart/form-data body holding one file field. */
function multipart(field: string, fileName: string, bytes: Buffer): { body: Buffer; contentType: string } {
  const boundary = `----uua${crypto.randomBytes(12).toString('hex')}`;
  const quoted = fileName.replace(/["\\\r\n]/g, '_');
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${quoted}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  return {
    body: Buffer.concat([Buffer.from(head, 'utf8'), bytes, Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8')]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

export async function uploadToGofile(
  ctx: AdapterContext<'gofile'>,
  file: { path: string; fileName: string; size: number; md5: string; mimetype: string },
): Promise<Record<string, unknown>> {
  const client = ctx.upstream('gofile');
  const { body, contentType } = multipart('file', file.fileName, await fsp.readFile(file.path));
  const res = await client.request<{ status?: string; data?: GofileData }>({
    path: String(client.settings.uploadPath ?? '/uploadfile'),
    method: 'POST',
    body,
    headers: { 'content-type': contentType },
  });
  const d = res.body?.data;
  // gofile reports errors inside a 200 as status "error-…".
  if (res.body?.status !== 'ok' || !d || typeof d.downloadPage !== 'string' || !/^https?:\/\//.test(d.downloadPage)) {
    throw upstreamFailed('gofile did not accept the upload');
  }
  return {
    downloadPage: d.downloadPage,
    code: String(d.code ?? d.parentFolderCode ?? d.downloadPage.split('/').pop()),
    fileId: String(d.id ?? d.fileId ?? ''),
    fileName: String(d.name ?? d.fileName ?? file.fileName),
    size: Number(d.size ?? file.size),
    md5: file.md5,
    mimetype: String(d.mimetype ?? file.mimetype),
    // gofile hands out no direct link to guests: the download page is the link.
    directLink: d.downloadPage,
    // gofile removes files by inactivity, not at a set time.
    expiresAt: null,
  };
}
