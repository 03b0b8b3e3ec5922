// features/hosting/blobs.ts and the media part of features/hosting/routes.ts: ids, URLs per kind, expiry hidden at once
// and swept from disk, orphans and temporary files swept when stale, removal, and generated media served
// inline only for safe types (with Range support for players).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { text } from 'node:stream/consumers';
import request from 'supertest';
import { canonicalKind, createBlobStore, type HostedBlobs } from '../../../features/hosting/blobs.js';
import { appForTests } from '../../helpers/app.js';
import { FILE, IMAGE, PASTE } from '../../helpers/hosted.js';

const log = pino({ level: 'silent' });
let dir: string;
let blobs: HostedBlobs;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-blobs-'));
  blobs = createBlobStore(dir, 'https://files.example.org', log);
});
afterEach(() => {
  blobs.close();
  fs.rmSync(dir, { recursive: true, force: true });
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
  const quick = createBlobStore(dir, 'https://files.example.org', log, 100);
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

test('the sweeper removes stale orphans and temporary files, not fresh ones', async () => {
  const b = path.join(dir, 'blobs');
  const old = new Date(Date.now() - 2 * 3600_000);
  for (const name of ['Orphan01', 'Orphan02.part', 'Orphan03.json.tmp']) {
    fs.writeFileSync(path.join(b, name), 'x');
    fs.utimesSync(path.join(b, name), old, old);
  }
  fs.writeFileSync(path.join(b, 'Fresh001'), 'being written');
  const kept = await blobs.put({ bytes: Buffer.from('k'), ...PASTE, contentType: 'text/plain' });
  fs.utimesSync(path.join(b, kept.id), old, old);
  await blobs.sweep();
  expect(fs.readdirSync(b).sort()).toEqual(['Fresh001', kept.id, `${kept.id}.json`].sort());
});

test('remove deletes now; malformed ids are never looked up on disk', async () => {
  const m = await blobs.put({ bytes: Buffer.from('x'), ...IMAGE, contentType: 'image/png' });
  expect(await blobs.remove(m.id)).toBe(true);
  expect(await blobs.remove(m.id)).toBe(false);
  expect(await blobs.get(m.id)).toBeUndefined();
  for (const bad of ['../../engine/keys', '..', '', 'a/b', 'x'.repeat(40), 'abc.json']) expect(await blobs.get(bad)).toBeUndefined();
});

test('metadata survives a new store on the same directory', async () => {
  const m = await blobs.put({ bytes: Buffer.from('persist'), kind: 'media', contentType: 'audio/mpeg', ttlSeconds: 60 });
  blobs.close();
  const again = createBlobStore(dir, 'https://files.example.org', log);
  try {
    expect((await again.get(m.id))?.meta).toEqual(m);
  } finally {
    again.close();
  }
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
