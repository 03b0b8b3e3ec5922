// Hosted blobs as earlier builds left them: the bytes, and the metadata beside them as a sidecar `<id>.json`
// (on disk under DATA_DIR/blobs, or in the bucket), in every shape features/hosting/stored-meta.ts reads; and
// what a deployment of them must still serve once `npm run migrate` has moved them into the table.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import type { S3Server } from './s3-server.js';
import type { TestApp } from './app.js';

const TOKEN = 'a'.repeat(32);
export const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

/** Sidecars exactly as the build before typed metadata wrote them (adapters' `extra` spread in first). */
export const EARLIER = {
  paste: {
    name: 'Old <b>paste</b>',
    format: 'python',
    private: 1,
    expire: '1W',
    id: 'OldPaste',
    kind: 'paste',
    contentType: 'text/plain; charset=utf-8',
    size: 11,
    createdAt: '2025-01-02T03:04:05.678Z',
    expiresAt: '2099-01-01T00:00:00.000Z',
  },
  image: {
    filename: 'holiday "2024".png',
    ext: 'png',
    width: 64,
    height: 48,
    deleteHash: sha256(TOKEN),
    id: 'OldImage',
    kind: 'image',
    contentType: 'image/png',
    size: 11,
    createdAt: '2025-01-02T03:04:05.678Z',
    expiresAt: null,
  },
  file: {
    fileName: 'report é.pdf',
    fileId: '0b7c2a52-7a1e-4d0e-9a34-2f6a1b1c9d10',
    md5: '5eb63bbbe01eeed093cb22bb8f5acdc3',
    id: 'OldFile1',
    kind: 'file',
    contentType: 'application/pdf',
    size: 11,
    createdAt: '2025-01-02T03:04:05.678Z',
    expiresAt: '2099-01-01T00:00:00.000Z',
  },
  media: {
    id: 'OldMedia',
    kind: 'media',
    contentType: 'audio/mpeg',
    size: 11,
    createdAt: '2025-01-02T03:04:05.678Z',
    expiresAt: '2099-01-01T00:00:00.000Z',
  },
};

/** Looser shapes earlier builds wrote: short kinds, fields missing or of another type. */
const LOOSE = {
  shortPaste: {
    id: 'LoosePst',
    kind: 'p',
    contentType: 'text/plain',
    size: 11,
    createdAt: '2025-01-02T03:04:05.678Z',
    expiresAt: null,
    private: 'yes',
  },
  shortImage: {
    id: 'LooseImg',
    kind: 'i',
    contentType: 'image/gif',
    size: 11,
    createdAt: '2025-01-02T03:04:05.678Z',
    expiresAt: null,
    ext: 'gif',
    width: '64',
  },
  bareFile: { id: 'LooseFil', kind: 'f', contentType: 'application/zip', size: 11, createdAt: '2025-01-02T03:04:05.678Z', expiresAt: null },
};
/** A sidecar cut short: no blob to any build, left where it is. */
export const UNREADABLE = { id: 'CutShort', text: '{"id":"CutShort","kind":' };

export const SIDECARS = [...Object.values(EARLIER), ...Object.values(LOOSE)];
const BYTES = 'hello world';

/** A DATA_DIR/blobs as an earlier build filled it. */
export function diskSidecars(dataDir: string): void {
  const dir = path.join(dataDir, 'blobs');
  fs.mkdirSync(dir, { recursive: true });
  for (const meta of SIDECARS) {
    fs.writeFileSync(path.join(dir, meta.id), BYTES);
    fs.writeFileSync(path.join(dir, `${meta.id}.json`), JSON.stringify(meta));
  }
  fs.writeFileSync(path.join(dir, UNREADABLE.id), BYTES);
  fs.writeFileSync(path.join(dir, `${UNREADABLE.id}.json`), UNREADABLE.text);
}

/** A bucket as an earlier build filled it, with its expiry markers. */
export async function bucketSidecars(store: S3Server): Promise<void> {
  const { PutObjectCommand, S3Client } = await import('@aws-sdk/client-s3');
  const raw = new S3Client({
    endpoint: store.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  const put = (Key: string, Body: string) => raw.send(new PutObjectCommand({ Bucket: store.bucket, Key, Body: Buffer.from(Body) }));
  try {
    for (const meta of SIDECARS) {
      await put(`blobs/${meta.id}`, BYTES);
      await put(`blobs/${meta.id}.json`, JSON.stringify(meta));
      await put(`due/${String(Date.parse('2099-01-01T00:00:00.000Z')).padStart(15, '0')}/${meta.id}`, '');
    }
    await put(`blobs/${UNREADABLE.id}`, BYTES);
    await put(`blobs/${UNREADABLE.id}.json`, UNREADABLE.text);
  } finally {
    raw.destroy();
  }
}

/** Every kind served as the earlier build served it, from the table now; then the image deleted by its old link. */
export async function expectServedAsBefore(t: TestApp): Promise<void> {
  const paste = await request(t.app).get('/p/OldPaste');
  expect(paste.status).toBe(200);
  expect(paste.text).toContain('<h1>Old &lt;b&gt;paste&lt;/b&gt;</h1>');
  expect(paste.text).toContain('language-python');
  expect(paste.text).toContain(' · unlisted · ');
  expect(paste.headers['x-robots-tag']).toMatch(/noindex/);
  const raw = await request(t.app).get('/p/OldPaste/raw');
  expect(raw.text).toBe('hello world');
  expect(raw.headers['cache-control']).toMatch(/^private, /);

  const viewer = await request(t.app).get('/i/OldImage');
  expect(viewer.status).toBe(200);
  expect(viewer.text).toContain('<h1>holiday &quot;2024&quot;.png</h1>');
  expect(viewer.text).toContain('64 × 48 · 11 B · image/png · never expires');
  expect(viewer.text).toContain('<img src="/i/OldImage.png" alt="holiday &quot;2024&quot;.png">');
  const img = await request(t.app).get('/i/OldImage.png');
  expect(img.headers['content-disposition']).toBe(`inline; filename="holiday _2024_.png"; filename*=UTF-8''holiday%20%222024%22.png`);
  const confirm = await request(t.app).get(`/i/OldImage/delete/${TOKEN}`);
  expect(confirm.status).toBe(200);
  expect(confirm.text).toContain('holiday &quot;2024&quot;.png · 11 B');
  expect((await request(t.app).get('/i/OldImage/delete/wrong-token')).status).toBe(404);

  const file = await request(t.app).get('/f/OldFile1');
  expect(file.text).toContain('<h1>report é.pdf</h1>');
  expect(file.text).toContain(`md5 ${EARLIER.file.md5} · uploaded 2025-01-02T03:04:05Z · expires 2099-01-01T00:00:00Z`);
  const dl = await request(t.app).get('/f/OldFile1/x').buffer(true);
  expect(dl.headers['content-disposition']).toBe(`attachment; filename="report _.pdf"; filename*=UTF-8''report%20%C3%A9.pdf`);

  const media = await request(t.app).get('/media/OldMedia.mp3');
  expect(media.status).toBe(200);
  expect(media.headers['content-disposition']).toBe(`inline; filename="OldMedia.mp3"; filename*=UTF-8''OldMedia.mp3`);

  // The loose shapes, read as the pages showed them.
  const untitled = await request(t.app).get('/p/LoosePst');
  expect(untitled.text).toContain('<h1>Untitled</h1>');
  expect(untitled.text).toContain(' · unlisted · ');
  expect((await request(t.app).get('/i/LooseImg')).text).toContain('<h1>LooseImg.gif</h1>');
  expect((await request(t.app).get('/f/LooseFil')).text).toContain('<h1>LooseFil</h1>');
  expect((await request(t.app).get('/p/CutShort')).status).toBe(404);

  // Deleting through the old link still works, and the image is gone.
  expect((await request(t.app).post(`/i/OldImage/delete/${TOKEN}`)).status).toBe(200);
  expect((await request(t.app).get('/i/OldImage')).status).toBe(404);
}
