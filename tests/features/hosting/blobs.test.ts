// features/hosting/store.ts over the disk, and the media part of features/hosting/routes.ts: ids, URLs per kind,
// expiry hidden at once and swept from disk through the expiry index (in bounded batches, touching only what
// is due), removal, and generated media served inline only for safe types (with Range support for players).
import fs from 'node:fs';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import request from 'supertest';
import { sql } from 'kysely';
import { canonicalKind, type HostedBlobs } from '../../../features/hosting/blobs.js';
import type { Db } from '../../../engine/db/open.js';
import { diskBytes } from '../../../features/hosting/disk.js';
import { createHostedBlobs } from '../../../features/hosting/store.js';
import { rowOf } from '../../../features/hosting/records.js';
import { appForTests } from '../../helpers/app.js';
import { openBlobs } from '../../helpers/blob-store.js';
import { describeEngines, engineTest } from '../../helpers/db.js';
import { FILE, IMAGE, PASTE } from '../../helpers/hosted.js';
import pino from 'pino';

const log = pino({ level: 'silent' });
let dir: string;
let db: Db;
let blobs: HostedBlobs;
beforeEach(async () => {
  ({ blobs, db, dataDir: dir } = await openBlobs({ sweepEveryMs: 60_000 }));
});
afterEach(() => {
  blobs.close();
});

test('put stores bytes and metadata; get returns both; ids are 8 random alphanumerics', async () => {
  const meta = await blobs.put({ bytes: Buffer.from('hello'), ...PASTE, contentType: 'text/plain', name: 'n' });
  expect(meta).toMatchObject({ kind: 'paste', contentType: 'text/plain', size: 5, expiresAt: null, name: 'n' });
  expect(meta.id).toMatch(/^[A-Za-z0-9]{8}$/);
  const found = await blobs.get(meta.id);
  expect(found?.meta).toEqual(meta);
  expect(await text((await blobs.read(meta.id))!)).toBe('hello');
  const ids = new Set(
    await Promise.all(
      Array.from({ length: 50 }, async () => (await blobs.put({ bytes: Buffer.from('x'), kind: 'media', contentType: 'audio/mpeg' })).id),
    ),
  );
  expect(ids.size).toBe(50);
});

test('put moves a file already on disk instead of copying it', async () => {
  const src = path.join(dir, 'upload-tmp');
  fs.writeFileSync(src, 'moved bytes');
  const meta = await blobs.put({ fromPath: src, ...FILE, contentType: 'application/octet-stream' });
  expect(fs.existsSync(src)).toBe(false);
  expect(await text((await blobs.read(meta.id))!)).toBe('moved bytes');
});

test('URLs: each kind under its own prefix; short kind names are the same kinds', async () => {
  const p = await blobs.put({ bytes: Buffer.from('a'), ...PASTE, contentType: 'text/plain' });
  expect(p.kind).toBe('paste');
  expect(blobs.url(p, '/raw')).toBe(`https://files.example.org/p/${p.id}/raw`);
  const m = await blobs.put({ bytes: Buffer.from('a'), kind: 'media', contentType: 'audio/mpeg' });
  expect(blobs.url(m, '.mp3')).toBe(`https://files.example.org/media/${m.id}.mp3`);
  expect(canonicalKind('i')).toBe('image');
  expect(canonicalKind('f')).toBe('file');
  expect(canonicalKind('image')).toBe('image');
});

test('an expired blob is hidden at once and removed by the sweeper', async () => {
  const keep = await blobs.put({ bytes: Buffer.from('k'), ...PASTE, contentType: 'text/plain', ttlSeconds: 3600 });
  const gone = await blobs.put({ bytes: Buffer.from('g'), ...PASTE, contentType: 'text/plain', ttlSeconds: 1 });
  const never = await blobs.put({ bytes: Buffer.from('n'), ...PASTE, contentType: 'text/plain', ttlSeconds: null });
  const realNow = Date.now;
  Date.now = () => realNow() + 2000;
  try {
    expect(await blobs.sweep()).toBe(1);
    expect(await blobs.get(gone.id)).toBeUndefined();
    expect(fs.existsSync(path.join(dir, 'blobs', gone.id))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'blobs', `${gone.id}.json`))).toBe(false);
    expect(await blobs.get(keep.id)).toBeDefined();
    expect(await blobs.get(never.id)).toBeDefined();
  } finally {
    Date.now = realNow;
  }
});

test('the sweeper runs by itself: a one-second blob is gone from disk shortly after', async () => {
  const quick = (await openBlobs({ db, dataDir: dir, sweepEveryMs: 100 })).blobs;
  try {
    const m = await quick.put({ bytes: Buffer.from('brief'), kind: 'media', contentType: 'audio/mpeg', ttlSeconds: 1 });
    const file = path.join(dir, 'blobs', m.id);
    expect(fs.existsSync(file)).toBe(true);
    const deadline = Date.now() + 5000;
    while (fs.existsSync(file) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(fs.existsSync(file)).toBe(false);
    expect(fs.existsSync(`${file}.json`)).toBe(false);
  } finally {
    quick.close();
  }
});

test('get of an expired blob removes it even before a sweep', async () => {
  const m = await blobs.put({ bytes: Buffer.from('x'), ...PASTE, contentType: 'text/plain', ttlSeconds: 1 });
  const realNow = Date.now;
  Date.now = () => realNow() + 1500;
  try {
    expect(await blobs.get(m.id)).toBeUndefined();
  } finally {
    Date.now = realNow;
  }
  expect(fs.existsSync(path.join(dir, 'blobs', m.id))).toBe(false);
});

test('remove deletes now; malformed ids are never looked up on disk', async () => {
  const m = await blobs.put({ bytes: Buffer.from('x'), ...IMAGE, contentType: 'image/png' });
  expect(await blobs.remove(m.id)).toBe(true);
  expect(await blobs.remove(m.id)).toBe(false);
  expect(await blobs.get(m.id)).toBeUndefined();
  for (const bad of ['../keys', '..', '', 'a/b', 'x'.repeat(40), 'abc.json']) expect(await blobs.get(bad)).toBeUndefined();
});

test('metadata survives a new store on the same directory', async () => {
  const m = await blobs.put({ bytes: Buffer.from('persist'), kind: 'media', contentType: 'audio/mpeg', ttlSeconds: 60 });
  blobs.close();
  const again = (await openBlobs({ db, dataDir: dir })).blobs;
  try {
    expect((await again.get(m.id))?.meta).toEqual(m);
  } finally {
    again.close();
  }
});

describeEngines('the sweeper reads the expiry index', (engine, open) => {
  engineTest(
    'in bounded batches, oldest first, deleting the bytes of what is due and nothing else',
    async () => {
      const { db } = await open();
      const dataDir = fs.mkdtempSync(path.join(dir, 'many-'));
      const disk = diskBytes(dataDir);
      const deleted: string[] = [];
      const bytes = { ...disk, delete: (id: string) => (deleted.push(id), disk.delete(id)) };
      const at = Date.now();
      // The sweep the store runs by itself at start sees a time before any of them is due.
      let now = at - 3_000_000;
      const store = createHostedBlobs({ db, bytes, publicUrl: 'http://x', log, sweepEveryMs: 3_600_000, clock: () => now });
      try {
        await new Promise((resolve) => setTimeout(resolve, 50));
        now = at;
        // 1,050 expired (one second apart), 200 that expire later, 50 that never do.
        const row = (i: number, expiresAt: number | null) =>
          rowOf(
            {
              ...PASTE,
              id: `Blob${String(i).padStart(5, '0')}`,
              contentType: 'text/plain',
              size: 1,
              createdAt: new Date(at).toISOString(),
              expiresAt: null,
            },
            { ready: 1, expiresAt },
          );
        const rows = [
          ...Array.from({ length: 1050 }, (_, i) => row(i, at - 2_000_000 + i * 1000)),
          ...Array.from({ length: 200 }, (_, i) => row(2000 + i, at + 3_600_000)),
          ...Array.from({ length: 50 }, (_, i) => row(3000 + i, null)),
        ];
        for (let i = 0; i < rows.length; i += 200)
          await db
            .insertInto('hosted')
            .values(rows.slice(i, i + 200))
            .execute();
        for (const r of rows) fs.writeFileSync(path.join(dataDir, 'blobs', r.id), 'x');

        expect(await store.sweep()).toBe(1000); // one sweep: ten batches of a hundred, the oldest first
        expect(deleted).toEqual(rows.slice(0, 1000).map((r) => r.id));
        expect(await store.sweep()).toBe(50);
        expect(new Set(deleted)).toEqual(new Set(rows.slice(0, 1050).map((r) => r.id)));
        expect(deleted).toHaveLength(1050);
        expect(fs.readdirSync(path.join(dataDir, 'blobs'))).toHaveLength(250);
        expect(
          Number(
            (
              await db
                .selectFrom('hosted')
                .select((eb) => eb.fn.countAll().as('n'))
                .executeTakeFirstOrThrow()
            ).n,
          ),
        ).toBe(250);
        now += 2 * 3_600_000;
        expect(await store.sweep()).toBe(200); // the never-expiring stay
      } finally {
        store.close();
      }
    },
    60_000,
  );

  engineTest('its look-up is answered from the index on expiry, not a scan of the table', async () => {
    const { db } = await open();
    const due = db
      .selectFrom('hosted')
      .select(['id', 'ready'])
      .where('expiresAt', '<=', Date.now())
      .orderBy('expiresAt')
      .limit(100)
      .compile();
    if (engine === 'sqlite') {
      const plan = await sql
        .raw<{ detail: string }>(`EXPLAIN QUERY PLAN ${due.sql.replace('?', String(Date.now())).replace('?', '100')}`)
        .execute(db);
      expect(plan.rows.map((r) => r.detail).join('\n')).toMatch(/USING INDEX hosted_by_expiry/);
    } else {
      // On a table this small the planner would rather scan: forbid that, and the index must serve.
      await db.transaction().execute(async (trx) => {
        await sql`set local enable_seqscan = off`.execute(trx);
        const plan = await sql
          .raw<{ 'QUERY PLAN': string }>(`EXPLAIN ${due.sql.replace('$1', String(Date.now())).replace('$2', '100')}`)
          .execute(trx);
        expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/Index Scan (using|on) hosted_by_expiry/);
      });
    }
  });
});

describe('media routes', () => {
  const t = appForTests();

  test('generated audio is served inline with its type, and honours Range', async () => {
    const bytes = Buffer.from('ID3' + 'a'.repeat(100));
    const m = await t.api.blobs.put({ bytes, kind: 'media', contentType: 'audio/mpeg', ttlSeconds: 600 });
    const url = t.api.blobs.url(m, '.mp3');
    expect(url).toBe(`http://127.0.0.1:3999/media/${m.id}.mp3`);
    const res = await request(t.app).get(`/media/${m.id}.mp3`).buffer(true);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('audio/mpeg');
    expect(res.headers['content-disposition']).toMatch(/^inline/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(Number(res.headers['cache-control'].match(/max-age=(\d+)/)![1])).toBeLessThanOrEqual(600);
    const part = await request(t.app).get(`/media/${m.id}.mp3`).set('Range', 'bytes=0-2').buffer(true);
    expect(part.status).toBe(206);
    expect(Buffer.from(part.body as Buffer).toString()).toBe('ID3');
  });

  test('media of an unsafe type goes out as an attachment, never as HTML', async () => {
    const m = await t.api.blobs.put({ bytes: Buffer.from('<script>alert(1)</script>'), kind: 'media', contentType: 'text/html' });
    const res = await request(t.app).get(`/media/${m.id}.html`);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['content-disposition']).toMatch(/^attachment/);
  });

  test('a blob is only served under its own kind', async () => {
    const m = await t.api.blobs.put({ bytes: Buffer.from('x'), kind: 'media', contentType: 'audio/mpeg' });
    expect((await request(t.app).get(`/p/${m.id}/raw`)).status).toBe(404);
    expect((await request(t.app).get(`/f/${m.id}/x.mp3`)).status).toBe(404);
    expect((await request(t.app).get(`/i/${m.id}.png`)).status).toBe(404);
    expect((await request(t.app).get('/media/NoSuch12.mp3')).status).toBe(404);
  });
});
