// One contract for hosted blobs, run on both byte stores (the disk, DATA_DIR; an S3-compatible store, s3rver on
// a loopback port) and both engines of the `hosted` table (SQLite, PostgreSQL). Storing, reading ranges,
// expiry hidden at once and swept by the expiry index, removal, writes and removals cut off halfway; then the
// hosting routes over each: every kind served, an image deleted through its link, Content-Length, ETag,
// ranges (206, 416), conditional GETs (304); and, for S3, the store going away: hosting answers 503 in the
// envelope within the timeout while every other endpoint answers as before, and it all comes back with the store.
import fs from 'node:fs';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { PNG } from 'pngjs';
import request from 'supertest';
import type { HostedBlobs } from '../../../features/hosting/blobs.js';
import type { Db, OpenDatabase } from '../../../engine/db/open.js';
import { startS3Server, type S3Server } from '../../helpers/s3-server.js';
import { FILE, IMAGE, PASTE } from '../../helpers/hosted.js';
import { openBlobs, PUBLIC_URL as PUBLIC } from '../../helpers/blob-store.js';
import { describeEngines, engineTest } from '../../helpers/db.js';
import { testApp, type TestApp } from '../../helpers/app.js';
import { tmpDirs } from '../../helpers/tmp-dirs.js';

let s3: S3Server;
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => {
  await s3.close();
});

const tmpDir = tmpDirs('uua-contract-');
/** The S3_* variables of each backend (none: the disk). */
const backends: [string, () => Record<string, string>][] = [
  ['disk', () => ({})],
  ['s3', () => s3.env],
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

function png(width: number, height: number): Buffer {
  const img = new PNG({ width, height });
  img.data.fill(200);
  return PNG.sync.write(img);
}

describeEngines('hosted blobs', (engine, open) => {
  /** The engine's database, made at the first test that needs it (none when PostgreSQL is not there). */
  let opened: (OpenDatabase & { dataDir: string; url?: string }) | undefined;
  const database = async () => (opened ??= (await open()) as OpenDatabase & { dataDir: string; url?: string });

  describe.each(backends)('%s backend', (name, env) => {
    let blobs: HostedBlobs | undefined;
    let db: Db;
    const store = async () => {
      if (!blobs) {
        db = (await database()).db;
        blobs = (await openBlobs({ db, dataDir: tmpDir(), s3: name === 's3' ? env() : undefined, clock })).blobs;
      }
      return blobs;
    };
    afterAll(() => blobs?.close());

    engineTest('put and read back bytes, a file moved in, and one range', async () => {
      const blobs = await store();
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

    engineTest('unknown and malformed ids are simply absent', async () => {
      const blobs = await store();
      for (const bad of ['NoSuch12', '../keys', '', 'a/b', 'x'.repeat(40), 'abc.json']) {
        expect(await blobs.get(bad)).toBeUndefined();
        expect(await blobs.read(bad)).toBeUndefined();
      }
    });

    engineTest('expiry is honoured on read at once, and the sweep removes the bytes and the row', async () => {
      const blobs = await store();
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
      expect(await db.selectFrom('hosted').select('id').where('id', 'in', [swept.id, gone.id]).execute()).toEqual([]);
      expect(await blobs.get(keep.id)).toBeDefined();
      // Long after, a blob that never expires is still there.
      await later(2 * 3600_000, () => blobs.sweep());
      expect(await text((await blobs.read(never.id))!)).toBe('n');
    });

    engineTest('remove deletes at once and says whether there was anything', async () => {
      const blobs = await store();
      const m = await blobs.put({ bytes: Buffer.from('x'), ...IMAGE, contentType: 'image/png' });
      expect(await blobs.remove(m.id)).toBe(true);
      expect(await blobs.remove(m.id)).toBe(false);
      expect(await blobs.get(m.id)).toBeUndefined();
      expect(await blobs.read(m.id)).toBeUndefined();
      expect(await db.selectFrom('hosted').select('id').where('id', '=', m.id).execute()).toEqual([]);
    });

    engineTest('a write cut off before its row was made ready is never served, and is swept after an hour, not before', async () => {
      const blobs = await store();
      const m = await blobs.put({ bytes: Buffer.from('half'), ...FILE, contentType: 'application/octet-stream', ttlSeconds: 1 });
      // What a crash after the bytes and before the last step leaves: the bytes, and the row as first written.
      await db
        .updateTable('hosted')
        .set({ ready: 0, expiresAt: Date.parse(m.createdAt) + 3600_000 })
        .where('id', '=', m.id)
        .execute();
      expect(await blobs.get(m.id)).toBeUndefined();
      await later(2000, () => blobs.sweep()); // its own expiry has passed, but its write might still be under way
      expect(await text((await blobs.read(m.id))!)).toBe('half');
      expect(await later(2 * 3600_000, () => blobs.sweep())).toBe(0); // an interrupted write is no expired blob
      expect(await blobs.read(m.id)).toBeUndefined();
      expect(await db.selectFrom('hosted').select('id').where('id', '=', m.id).execute()).toEqual([]);
    });

    engineTest('a removal cut off after hiding the row: gone at once, the bytes swept next', async () => {
      const blobs = await store();
      const m = await blobs.put({ bytes: Buffer.from('bye'), ...IMAGE, contentType: 'image/png' });
      // What a crash after the first step of remove() leaves.
      await db.updateTable('hosted').set({ ready: 0, expiresAt: Date.now() }).where('id', '=', m.id).execute();
      expect(await blobs.get(m.id)).toBeUndefined();
      expect(await blobs.remove(m.id)).toBe(false);
      await later(1000, () => blobs.sweep());
      expect(await blobs.read(m.id)).toBeUndefined();
      expect(await db.selectFrom('hosted').select('id').where('id', '=', m.id).execute()).toEqual([]);
    });

    engineTest('a second store on the same table and bucket sees what the first stored', async () => {
      const blobs = await store();
      const m = await blobs.put({ bytes: Buffer.from('shared'), kind: 'media', contentType: 'audio/mpeg', ttlSeconds: 60 });
      if (name === 'disk') return; // a disk is one instance's own: covered by tests/features/hosting/blobs.test.ts
      const other = (await openBlobs({ db, s3: env(), clock })).blobs;
      try {
        expect((await other.get(m.id))?.meta).toEqual(m);
        expect(await text((await other.read(m.id))!)).toBe('shared');
      } finally {
        other.close();
      }
    });

    describe('hosting routes', () => {
      let t: TestApp | undefined;
      let id: string;
      const BYTES = Buffer.from('0123456789abcdefghij');
      /** The app on the engine's database and this backend, with one file uploaded. */
      const app = async () => {
        if (!t) {
          const { dataDir, url } = await database();
          t = await testApp({ ...env(), ...(url && { DATABASE_URL: url }) }, { dataDir });
          const res = await request(t.app)
            .post('/api/v1/cloud-storage/file-host')
            .field('apikey', t.key)
            .attach('file', BYTES, 'digits.txt');
          expect(res.status).toBe(200);
          id = res.body.data.code;
        }
        return t;
      };
      afterAll(async () => {
        await t?.close();
      });
      const get = (t: TestApp) =>
        request(t.app)
          .get(`/f/${id}/digits.txt`)
          .buffer(true)
          .parse((res, cb) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => cb(null, Buffer.concat(chunks)));
          });

      engineTest('the whole file with Content-Length, ETag and Last-Modified', async () => {
        const t = await app();
        const res = await get(t);
        expect(res.status).toBe(200);
        expect(Buffer.compare(res.body as Buffer, BYTES)).toBe(0);
        expect(res.headers['content-length']).toBe(String(BYTES.length));
        expect(res.headers['etag']).toMatch(/^"[A-Za-z0-9]+-[a-z0-9]+"$/);
        expect(res.headers['accept-ranges']).toBe('bytes');
        expect(new Date(res.headers['last-modified']).getTime()).toBeGreaterThan(Date.now() - 60_000);
        const head = await request(t.app).head(`/f/${id}/digits.txt`);
        expect(head.status).toBe(200);
        expect(head.headers['content-length']).toBe(String(BYTES.length));
        expect((await request(t.app).get(`/f/${id}`)).text).toContain('<h1>digits.txt</h1>');
      });

      engineTest('ranges: 206 with Content-Range, suffix ranges, 416 past the end, If-Range', async () => {
        const t = await app();
        const part = await get(t).set('Range', 'bytes=2-5');
        expect(part.status).toBe(206);
        expect((part.body as Buffer).toString()).toBe('2345');
        expect(part.headers['content-range']).toBe(`bytes 2-5/${BYTES.length}`);
        expect(part.headers['content-length']).toBe('4');
        const tail = await get(t).set('Range', 'bytes=-3');
        expect((tail.body as Buffer).toString()).toBe('hij');
        const past = await get(t).set('Range', 'bytes=100-200');
        expect(past.status).toBe(416);
        expect(past.headers['content-range']).toBe(`bytes */${BYTES.length}`);
        expect(JSON.parse((past.body as Buffer).toString())).toMatchObject({ success: false, code: 'range_not_satisfiable' });
        const etag = (await get(t)).headers['etag'];
        expect((await get(t).set('Range', 'bytes=0-0').set('If-Range', etag)).status).toBe(206);
        expect((await get(t).set('Range', 'bytes=0-0').set('If-Range', '"other"')).status).toBe(200);
      });

      engineTest('conditional GETs: If-None-Match and If-Modified-Since answer 304', async () => {
        const t = await app();
        const first = await get(t);
        const etag = first.headers['etag'];
        const none = await get(t).set('If-None-Match', etag);
        expect(none.status).toBe(304);
        expect(none.headers['etag']).toBe(etag);
        expect((await get(t).set('If-None-Match', '"something-else"')).status).toBe(200);
        expect((await get(t).set('If-Modified-Since', first.headers['last-modified'])).status).toBe(304);
        expect((await get(t).set('If-Modified-Since', new Date(Date.now() - 3600_000).toUTCString())).status).toBe(200);
      });

      engineTest('a paste page and its raw text come back from the store', async () => {
        const t = await app();
        const res = await request(t.app).post('/api/v1/cloud-storage/paste-host').send({ apikey: t.key, paste: 'echo "hi" ✓', private: 1 });
        expect(res.status).toBe(200);
        const page = await request(t.app).get(`/p/${res.body.data.id}`);
        expect(page.text).toContain('echo &quot;hi&quot; ✓');
        expect((await request(t.app).get(`/p/${res.body.data.id}/raw`)).text).toBe('echo "hi" ✓');
      });

      engineTest('an image: its viewer, its bytes, and its delete link, after which nothing of it is left', async () => {
        const t = await app();
        const res = await request(t.app)
          .post('/api/v1/cloud-storage/image-host')
          .send({ apikey: t.key, image: png(3, 2).toString('base64') });
        expect(res.status).toBe(200);
        const { id, delete_url } = res.body.data as { id: string; delete_url: string };
        expect((await request(t.app).get(`/i/${id}`)).text).toContain('3 × 2');
        const bytes = await request(t.app).get(`/i/${id}.png`).buffer(true);
        expect(bytes.headers['content-type']).toBe('image/png');
        const link = new URL(delete_url).pathname;
        expect((await request(t.app).post(link.replace(/[^/]+$/, 'wrong-token'))).status).toBe(404);
        expect((await request(t.app).get(link)).status).toBe(200);
        expect((await request(t.app).post(link)).status).toBe(200);
        expect((await request(t.app).get(`/i/${id}`)).status).toBe(404);
        expect(await t.api.blobs.read(id)).toBeUndefined();
        expect(await t.api.database.db.selectFrom('hosted').select('id').where('id', '=', id).execute()).toEqual([]);
        expect((await request(t.app).post(link)).status).toBe(404);
      });

      engineTest('generated media is served under its own kind only', async () => {
        const t = await app();
        const m = await t.api.blobs.put({ bytes: Buffer.from('ID3 media'), kind: 'media', contentType: 'audio/mpeg', ttlSeconds: 600 });
        const res = await request(t.app).get(`/media/${m.id}.mp3`).buffer(true);
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toBe('audio/mpeg');
        expect((await request(t.app).get(`/p/${m.id}/raw`)).status).toBe(404);
      });
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
});
