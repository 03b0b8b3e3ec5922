// One contract for hosted blobs, run on both backends: the disk (DATA_DIR) and an S3-compatible store
// (s3rver on a loopback port). Storing, reading ranges, expiry hidden at once and swept, removal; then the
// hosting routes over each backend: Content-Length, ETag, ranges (206, 416), conditional GETs (304);
// and, for S3, the store going away: hosting answers 503 in the envelope within the timeout while every
// other endpoint answers as before, and it all comes back with the store.
import fs from 'node:fs';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import pino from 'pino';
import request from 'supertest';
import type { HostedBlobs } from '../../../features/hosting/blobs.js';
import { createBlobStore } from '../../../features/hosting/blobs.js';
import { createS3BlobStore } from '../../../features/hosting/s3.js';
import { loadConfig } from '../../../server/config.js';
import { startS3Server, type S3Server } from '../../helpers/s3-server.js';
import { FILE, IMAGE, PASTE } from '../../helpers/hosted.js';
import { testApp, type TestApp } from '../../helpers/app.js';
import { tmpDirs } from '../../helpers/tmp-dirs.js';

const log = pino({ level: 'silent' });
const PUBLIC = 'https://files.example.org';

let s3: S3Server;
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => {
  await s3.close();
});

interface Backend {
  open(): HostedBlobs;
  env(): Record<string, string>;
}
const tmpDir = tmpDirs('uua-contract-');

const backends: [string, Backend][] = [
  ['disk', { open: () => createBlobStore(tmpDir(), PUBLIC, log, 3_600_000, clock), env: () => ({}) }],
  [
    's3',
    {
      open: () => createS3BlobStore(loadConfig(s3.env).s3!, { publicUrl: PUBLIC, log, sweepEveryMs: 3_600_000, clock }),
      env: () => s3.env,
    },
  ],
];

/** The stores' clock for expiry: moved forward by `later` (the S3 client keeps signing with the real time). */
let offset = 0;
const clock = () => Date.now() + offset;
async function later<T>(ms: number, run: () => Promise<T>): Promise<T> {
  offset = ms;
  try {
    return await run();
  } finally {
    offset = 0;
  }
}

describe.each(backends)('%s backend', (_name, backend) => {
  let blobs: HostedBlobs;
  beforeEach(() => {
    blobs = backend.open();
  });
  afterEach(() => blobs.close());

  test('put and read back bytes, a file moved in, and one range', async () => {
    const meta = await blobs.put({
      bytes: Buffer.from('hello world'),
      ...PASTE,
      contentType: 'text/plain',
      name: 'ünï ✓',
      private: 1,
    });
    expect(meta).toMatchObject({ kind: 'paste', contentType: 'text/plain', size: 11, expiresAt: null, name: 'ünï ✓', private: 1 });
    expect(meta.id).toMatch(/^[A-Za-z0-9]{8}$/);
    expect((await blobs.get(meta.id))?.meta).toEqual(meta);
    expect(await text((await blobs.read(meta.id))!)).toBe('hello world');
    expect(await text((await blobs.read(meta.id, { start: 6, end: 10 }))!)).toBe('world');
    expect(blobs.url(meta, '/raw')).toBe(`${PUBLIC}/p/${meta.id}/raw`);

    const src = path.join(tmpDir(), 'upload');
    fs.writeFileSync(src, 'x'.repeat(100_000));
    const file = await blobs.put({ fromPath: src, ...FILE, contentType: 'application/octet-stream' });
    expect(file.size).toBe(100_000);
    expect(fs.existsSync(src)).toBe(false);
    expect((await text((await blobs.read(file.id))!)).length).toBe(100_000);
  });

  test('unknown and malformed ids are simply absent', async () => {
    for (const bad of ['NoSuch12', '../../engine/keys', '', 'a/b', 'x'.repeat(40), 'abc.json']) {
      expect(await blobs.get(bad)).toBeUndefined();
      expect(await blobs.read(bad)).toBeUndefined();
    }
  });

  test('expiry is honoured on read at once, and the sweep removes the bytes', async () => {
    const keep = await blobs.put({ bytes: Buffer.from('k'), ...PASTE, contentType: 'text/plain', ttlSeconds: 3600 });
    const gone = await blobs.put({ bytes: Buffer.from('g'), ...PASTE, contentType: 'text/plain', ttlSeconds: 1 });
    const never = await blobs.put({ bytes: Buffer.from('n'), ...PASTE, contentType: 'text/plain', ttlSeconds: null });
    await later(2000, async () => {
      expect(await blobs.get(gone.id)).toBeUndefined();
      expect(await blobs.get(keep.id)).toBeDefined();
    });
    const swept = await blobs.put({ bytes: Buffer.from('s'), ...PASTE, contentType: 'text/plain', ttlSeconds: 1 });
    expect(await later(2000, () => blobs.sweep())).toBeGreaterThanOrEqual(1);
    expect(await blobs.read(swept.id)).toBeUndefined(); // the bytes themselves are gone, not only hidden
    expect(await blobs.read(gone.id)).toBeUndefined();
    expect(await blobs.get(keep.id)).toBeDefined();
    // Long after, a blob that never expires is still there.
    await later(2 * 3600_000, () => blobs.sweep());
    expect(await text((await blobs.read(never.id))!)).toBe('n');
  });

  test('remove deletes at once and says whether there was anything', async () => {
    const m = await blobs.put({ bytes: Buffer.from('x'), ...IMAGE, contentType: 'image/png' });
    expect(await blobs.remove(m.id)).toBe(true);
    expect(await blobs.remove(m.id)).toBe(false);
    expect(await blobs.get(m.id)).toBeUndefined();
    expect(await blobs.read(m.id)).toBeUndefined();
  });

  test('a second store on the same place sees what the first stored', async () => {
    const m = await blobs.put({ bytes: Buffer.from('shared'), kind: 'media', contentType: 'audio/mpeg', ttlSeconds: 60 });
    if (_name === 'disk') return; // a disk is one instance's own: covered by tests/features/hosting/blobs.test.ts
    const other = backend.open();
    try {
      expect((await other.get(m.id))?.meta).toEqual(m);
      expect(await text((await other.read(m.id))!)).toBe('shared');
    } finally {
      other.close();
    }
  });

  describe('hosting routes', () => {
    let t: TestApp;
    let id: string;
    const BYTES = Buffer.from('0123456789abcdefghij');
    beforeAll(async () => {
      t = await testApp(backend.env());
      const res = await request(t.app).post('/api/v1/cloud-storage/file-host').field('apikey', t.key).attach('file', BYTES, 'digits.txt');
      expect(res.status).toBe(200);
      id = res.body.data.code;
    });
    afterAll(async () => {
      await t.close();
    });
    const get = () =>
      request(t.app)
        .get(`/f/${id}/digits.txt`)
        .buffer(true)
        .parse((res, cb) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => cb(null, Buffer.concat(chunks)));
        });

    test('the whole file with Content-Length, ETag and Last-Modified', async () => {
      const res = await get();
      expect(res.status).toBe(200);
      expect(Buffer.compare(res.body as Buffer, BYTES)).toBe(0);
      expect(res.headers['content-length']).toBe(String(BYTES.length));
      expect(res.headers['etag']).toMatch(/^"[A-Za-z0-9]+-[a-z0-9]+"$/);
      expect(res.headers['accept-ranges']).toBe('bytes');
      expect(new Date(res.headers['last-modified']).getTime()).toBeGreaterThan(Date.now() - 60_000);
      const head = await request(t.app).head(`/f/${id}/digits.txt`);
      expect(head.status).toBe(200);
      expect(head.headers['content-length']).toBe(String(BYTES.length));
    });

    test('ranges: 206 with Content-Range, suffix ranges, 416 past the end, If-Range', async () => {
      const part = await get().set('Range', 'bytes=2-5');
      expect(part.status).toBe(206);
      expect((part.body as Buffer).toString()).toBe('2345');
      expect(part.headers['content-range']).toBe(`bytes 2-5/${BYTES.length}`);
      expect(part.headers['content-length']).toBe('4');
      const tail = await get().set('Range', 'bytes=-3');
      expect((tail.body as Buffer).toString()).toBe('hij');
      const past = await get().set('Range', 'bytes=100-200');
      expect(past.status).toBe(416);
      expect(past.headers['content-range']).toBe(`bytes */${BYTES.length}`);
      expect(JSON.parse((past.body as Buffer).toString())).toMatchObject({ success: false, code: 'range_not_satisfiable' });
      const etag = (await get()).headers['etag'];
      expect((await get().set('Range', 'bytes=0-0').set('If-Range', etag)).status).toBe(206);
      expect((await get().set('Range', 'bytes=0-0').set('If-Range', '"other"')).status).toBe(200);
    });

    test('conditional GETs: If-None-Match and If-Modified-Since answer 304', async () => {
      const first = await get();
      const etag = first.headers['etag'];
      const none = await get().set('If-None-Match', etag);
      expect(none.status).toBe(304);
      expect(none.headers['etag']).toBe(etag);
      expect((await get().set('If-None-Match', '"something-else"')).status).toBe(200);
      expect((await get().set('If-Modified-Since', first.headers['last-modified'])).status).toBe(304);
      expect((await get().set('If-Modified-Since', new Date(Date.now() - 3600_000).toUTCString())).status).toBe(200);
    });

    test('a paste page and its raw text come back from the store', async () => {
      const res = await request(t.app).post('/api/v1/cloud-storage/paste-host').send({ apikey: t.key, paste: 'echo "hi" ✓', private: 1 });
      expect(res.status).toBe(200);
      const page = await request(t.app).get(`/p/${res.body.data.id}`);
      expect(page.text).toContain('echo &quot;hi&quot; ✓');
      expect((await request(t.app).get(`/p/${res.body.data.id}/raw`)).text).toBe('echo "hi" ✓');
    });
  });
});

describe('s3: the object store stopped', () => {
  let store: S3Server;
  let t: TestApp;
  let id: string;
  beforeAll(async () => {
    store = await startS3Server();
    t = await testApp({ ...store.env, S3_TIMEOUT_MS: '1000' });
    const res = await request(t.app).post('/api/v1/cloud-storage/paste-host').send({ apikey: t.key, paste: 'still here' });
    id = res.body.data.id;
  });
  afterAll(async () => {
    await t.close();
    await store.close();
  });

  test('hosting answers 503 in the envelope within the timeout; every other endpoint answers; then it recovers', async () => {
    await store.stop();
    const started = Date.now();
    const upload = await request(t.app).post('/api/v1/cloud-storage/paste-host').send({ apikey: t.key, paste: 'lost?' });
    expect(upload.status).toBe(503);
    expect(upload.body).toMatchObject({ success: false, code: 'storage_unavailable' });
    expect(upload.headers['x-ratelimit-limit']).toBeDefined();
    const file = await request(t.app)
      .post('/api/v1/cloud-storage/file-host')
      .field('apikey', t.key)
      .attach('file', Buffer.from('bytes'), 'a.bin');
    expect(file.status).toBe(503);
    for (const url of [`/p/${id}/raw`, `/p/${id}`]) {
      const down = await request(t.app).get(url);
      expect(down.status).toBe(503);
      expect(down.headers['content-type']).toMatch(/^application\/json/);
      expect(down.headers['cache-control'] ?? '').not.toMatch(/max-age=[1-9]/);
      expect(down.body).toMatchObject({ success: false, error: 'Hosted content storage is unavailable; try again shortly' });
    }
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(t.api.blobs.state()).toMatchObject({ backend: 's3', reachable: false });
    const other = await request(t.app).get('/api/v1/tools/fake-address').query({ apikey: t.key });
    expect(other.status).toBe(200);
    expect((await request(t.app).get('/health')).status).toBe(200);

    await store.start();
    const back = await request(t.app).get(`/p/${id}/raw`);
    expect(back.status).toBe(200);
    expect(back.text).toBe('still here');
    expect(t.api.blobs.state()).toMatchObject({ reachable: true });
  });

  test('a store that accepts connections but never answers is cut off by the timeout', async () => {
    // A black hole on the store's port: accepts, reads, never answers.
    const net = await import('node:net');
    await store.stop();
    const port = Number(new URL(store.endpoint).port);
    const sockets: import('node:net').Socket[] = [];
    const hole = net.createServer((s) => {
      sockets.push(s);
      s.resume();
    });
    await new Promise<void>((resolve) => hole.listen(port, '127.0.0.1', resolve));
    try {
      const started = Date.now();
      const res = await request(t.app).get(`/p/${id}/raw`);
      expect(res.status).toBe(503);
      // One retry at most: two silences of S3_TIMEOUT_MS (1 s here), and a little.
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      sockets.forEach((s) => s.destroy());
      await new Promise((resolve) => hole.close(resolve));
      await store.start();
    }
  });
});

describe('s3: the bucket', () => {
  test('a missing bucket is created by the service at start', async () => {
    const store = await startS3Server({ bucket: 'fresh-bucket', createBucket: false });
    const t = await testApp(store.env);
    try {
      await t.api.blobs.sweep();
      const res = await request(t.app).post('/api/v1/cloud-storage/paste-host').send({ apikey: t.key, paste: 'first' });
      expect(res.status).toBe(200);
      expect(fs.existsSync(path.join(store.directory, 'fresh-bucket'))).toBe(true);
    } finally {
      await t.close();
      await store.close();
    }
  });

  test('an interrupted write (bytes without metadata) is swept once stale, not before', async () => {
    const store = await startS3Server();
    const blobs = createS3BlobStore(loadConfig(store.env).s3!, { publicUrl: PUBLIC, log, sweepEveryMs: 3_600_000, clock });
    try {
      const m = await blobs.put({ bytes: Buffer.from('half'), ...FILE, contentType: 'application/octet-stream', ttlSeconds: 1 });
      // What a crash between the bytes and the metadata leaves: the bytes and the marker.
      const { DeleteObjectCommand, S3Client } = await import('@aws-sdk/client-s3');
      const raw = new S3Client({
        endpoint: store.endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      });
      await raw.send(new DeleteObjectCommand({ Bucket: store.bucket, Key: `blobs/${m.id}.json` }));
      raw.destroy();
      await later(2000, () => blobs.sweep()); // due, but its write might still be under way
      expect(await text((await blobs.read(m.id))!)).toBe('half');
      await later(2 * 3600_000, () => blobs.sweep());
      expect(await blobs.read(m.id)).toBeUndefined();
    } finally {
      blobs.close();
      await store.close();
    }
  });
});
