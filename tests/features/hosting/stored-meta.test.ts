// The typed metadata of hosted blobs (engine/blob-store.ts) and features/hosting/stored-meta.ts: a store keeps
// exactly a kind's typed fields beside the bytes; metadata as earlier builds wrote it (an image's `filename`,
// short kinds, missing fields) reads back typed, with the values the hosting pages showed for it; and a
// DATA_DIR or a bucket filled by an earlier build is served as before after a restart on this one.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import request from 'supertest';
import { createBlobStore } from '../../../features/hosting/blobs.js';
import { createS3BlobStore } from '../../../features/hosting/s3.js';
import { parseStoredMeta, upgradeMeta } from '../../../features/hosting/stored-meta.js';
import type { HostedMeta } from '../../../features/hosting/types.js';
import { loadConfig } from '../../../server/config.js';
import { testApp } from '../../helpers/app.js';
import { FILE, IMAGE, PASTE } from '../../helpers/hosted.js';
import { startS3Server } from '../../helpers/s3-server.js';
import { tmpDirs } from '../../helpers/tmp-dirs.js';

const log = pino({ level: 'silent' });
const tmpDir = tmpDirs('uua-meta-');

const BASE = { contentType: 'application/octet-stream', size: 11, createdAt: '2025-01-02T03:04:05.678Z', expiresAt: null };
const TOKEN = 'a'.repeat(32);
const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

/** Sidecars exactly as the build before typed metadata wrote them (adapters' `extra` spread in first). */
const EARLIER = {
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

describe('upgradeMeta: stored records read back typed', () => {
  test('what earlier builds stored: the image filename becomes fileName, every other field keeps its name and value', () => {
    const { filename, ...image } = EARLIER.image;
    expect(upgradeMeta(EARLIER.image, 'OldImage')).toEqual({ ...image, fileName: filename });
    expect(upgradeMeta(EARLIER.image, 'OldImage')).not.toHaveProperty('filename');
    expect(upgradeMeta(EARLIER.paste, 'OldPaste')).toEqual(EARLIER.paste);
    expect(upgradeMeta(EARLIER.file, 'OldFile1')).toEqual(EARLIER.file);
    expect(upgradeMeta(EARLIER.media, 'OldMedia')).toEqual(EARLIER.media);
  });

  test('a record of today reads back as it was written', () => {
    const records: HostedMeta[] = [
      { ...BASE, id: 'Paste123', ...PASTE, name: 'n', private: 1 },
      { ...BASE, id: 'Image123', ...IMAGE, width: 3, height: 4, deleteHash: sha256('t') },
      { ...BASE, id: 'File1234', ...FILE, md5: 'abc' },
      { ...BASE, id: 'Media123', kind: 'media', expiresAt: '2099-01-01T00:00:00.000Z' },
    ];
    for (const r of records) expect(parseStoredMeta(JSON.stringify(r), r.id)).toEqual(r);
  });

  test('the short kinds adapters could once pass are the full ones', () => {
    expect(upgradeMeta({ ...EARLIER.paste, kind: 'p' }, 'OldPaste')?.kind).toBe('paste');
    expect(upgradeMeta({ ...EARLIER.image, kind: 'i' }, 'OldImage')?.kind).toBe('image');
    expect(upgradeMeta({ ...EARLIER.file, kind: 'f' }, 'OldFile1')?.kind).toBe('file');
  });

  test('missing or mistyped fields get the values the pages showed for them', () => {
    expect(upgradeMeta({ ...BASE, id: 'Paste123', kind: 'paste' }, 'Paste123')).toEqual({
      ...BASE,
      id: 'Paste123',
      kind: 'paste',
      name: 'Untitled',
      format: 'text',
      private: 0,
      expire: 'N',
    });
    expect(upgradeMeta({ ...BASE, id: 'Paste123', kind: 'paste', name: '', private: '1', format: 7 }, 'Paste123')).toMatchObject({
      name: 'Untitled',
      private: 1,
      format: '7',
    });
    expect(upgradeMeta({ ...BASE, id: 'Image123', kind: 'image', width: '64', deleteHash: 5 }, 'Image123')).toEqual({
      ...BASE,
      id: 'Image123',
      kind: 'image',
      fileName: 'Image123.img',
      ext: 'img',
      width: null,
      height: null,
      deleteHash: '',
    });
    expect(upgradeMeta({ ...BASE, id: 'Image123', kind: 'image', ext: 'gif' }, 'Image123')).toMatchObject({ fileName: 'Image123.gif' });
    expect(upgradeMeta({ ...BASE, id: 'File1234', kind: 'file' }, 'File1234')).toEqual({
      ...BASE,
      id: 'File1234',
      kind: 'file',
      fileName: 'File1234',
      fileId: '',
      md5: '',
    });
  });

  test('fields of no kind are dropped: a media record keeps only its base', () => {
    expect(upgradeMeta({ ...EARLIER.media, filename: 'x.mp3', name: 'stray', deleteHash: 'h' }, 'OldMedia')).toEqual(EARLIER.media);
    expect(upgradeMeta({ ...EARLIER.file, ext: 'pdf', private: 1 }, 'OldFile1')).toEqual(EARLIER.file);
  });

  test.each([
    ['another blob', { ...EARLIER.media, id: 'Another1' }],
    ['no size', { ...EARLIER.media, size: undefined }],
    ['a size as text', { ...EARLIER.media, size: '11' }],
    ['no createdAt', { ...EARLIER.media, createdAt: undefined }],
    ['no expiresAt', { ...EARLIER.media, expiresAt: undefined }],
    ['no contentType', { ...EARLIER.media, contentType: undefined }],
    ['an unknown kind', { ...EARLIER.media, kind: 'video' }],
    ['no kind', { ...EARLIER.media, kind: undefined }],
    ['an array', [EARLIER.media]],
    ['null', null],
  ])('%s is no blob', (_what, record) => {
    expect(upgradeMeta(JSON.parse(JSON.stringify(record)), 'OldMedia')).toBeUndefined();
  });

  test('a sidecar that is not JSON is no blob', () => {
    expect(parseStoredMeta('{"id":"OldMedia",', 'OldMedia')).toBeUndefined();
    expect(parseStoredMeta('', 'OldMedia')).toBeUndefined();
  });
});

test('a store keeps exactly the typed fields of the kind beside the bytes, nothing of the body', async () => {
  const dir = tmpDir();
  const blobs = createBlobStore(dir, 'https://files.example.org', log, 3_600_000);
  try {
    const src = path.join(dir, 'upload');
    fs.writeFileSync(src, 'file bytes');
    const metas = [
      await blobs.put({ bytes: Buffer.from('p'), contentType: 'text/plain', ttlSeconds: 60, ...PASTE }),
      await blobs.put({ bytes: Buffer.from('i'), contentType: 'image/png', ...IMAGE, width: 1, height: 2 }),
      await blobs.put({ fromPath: src, contentType: 'application/pdf', ttlSeconds: null, ...FILE }),
      await blobs.put({ bytes: Buffer.from('m'), contentType: 'audio/mpeg', ttlSeconds: 60, kind: 'media' }),
    ];
    const base = ['id', 'kind', 'contentType', 'size', 'createdAt', 'expiresAt'];
    const keys = {
      paste: [...base, 'name', 'format', 'private', 'expire'],
      image: [...base, 'fileName', 'ext', 'width', 'height', 'deleteHash'],
      file: [...base, 'fileName', 'fileId', 'md5'],
      media: base,
    };
    for (const meta of metas) {
      const stored = JSON.parse(fs.readFileSync(path.join(dir, 'blobs', `${meta.id}.json`), 'utf8'));
      expect(Object.keys(stored).sort()).toEqual(keys[meta.kind].sort());
      expect(stored).toEqual(meta);
      expect((await blobs.get(meta.id))?.meta).toEqual(meta);
    }
  } finally {
    blobs.close();
  }
});

test('a DATA_DIR an earlier build filled is served as before after a restart', async () => {
  const dataDir = tmpDir();
  fs.mkdirSync(path.join(dataDir, 'blobs'));
  for (const meta of Object.values(EARLIER)) {
    fs.writeFileSync(path.join(dataDir, 'blobs', meta.id), 'hello world');
    fs.writeFileSync(path.join(dataDir, 'blobs', `${meta.id}.json`), JSON.stringify(meta));
  }
  const t = await testApp({}, { dataDir });
  try {
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

    // Deleting through the old link still works, and the image is gone.
    expect((await request(t.app).post(`/i/OldImage/delete/${TOKEN}`)).status).toBe(200);
    expect((await request(t.app).get('/i/OldImage')).status).toBe(404);
  } finally {
    await t.close();
  }
});

test('a bucket an earlier build filled reads back typed', async () => {
  const store = await startS3Server();
  const { PutObjectCommand, S3Client } = await import('@aws-sdk/client-s3');
  const raw = new S3Client({
    endpoint: store.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  const blobs = createS3BlobStore(loadConfig(store.env).s3!, { publicUrl: 'https://files.example.org', log, sweepEveryMs: 3_600_000 });
  try {
    for (const meta of [EARLIER.image, EARLIER.paste]) {
      await raw.send(new PutObjectCommand({ Bucket: store.bucket, Key: `blobs/${meta.id}`, Body: 'hello world' }));
      await raw.send(new PutObjectCommand({ Bucket: store.bucket, Key: `blobs/${meta.id}.json`, Body: JSON.stringify(meta) }));
    }
    expect((await blobs.get('OldImage'))?.meta).toMatchObject({ kind: 'image', fileName: 'holiday "2024".png', width: 64, height: 48 });
    expect((await blobs.get('OldPaste'))?.meta).toEqual(EARLIER.paste);
  } finally {
    blobs.close();
    raw.destroy();
    await store.close();
  }
});
