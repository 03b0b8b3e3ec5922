// features/hosting/sweep-lock.ts on a real Redis: one holder at a time, released only by its holder; and the
// blob store sweeping only when it holds the lock (two instances on one table and one bucket, one Redis).
import crypto from 'node:crypto';
import { createClient, type RedisClientType } from 'redis';
import { sweepLock } from '../../../features/hosting/sweep-lock.js';
import { redisAvailable } from '../../helpers/app.js';
import { startS3Server, type S3Server } from '../../helpers/s3-server.js';
import { PASTE } from '../../helpers/hosted.js';
import { openBlobs } from '../../helpers/blob-store.js';
import { freshDatabase } from '../../helpers/db.js';

let client: RedisClientType | undefined;
beforeAll(async () => {
  const url = await redisAvailable();
  if (!url) return;
  client = createClient({ url });
  await client.connect();
});
afterAll(async () => {
  await client?.close();
});
const key = () => `test-${crypto.randomUUID()}:blobs:sweep`;

test('one holder at a time; the lock is free again once the holder is done', async () => {
  if (!client) return;
  const k = key();
  const lock = sweepLock(client, k);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const first = lock(async () => {
    await gate;
    return 'first';
  });
  await new Promise((r) => setImmediate(r));
  while (!(await client.get(k))) await new Promise((r) => setTimeout(r, 5));
  expect(await lock(async () => 'second')).toBeUndefined();
  release();
  expect(await first).toBe('first');
  expect(await client.get(k)).toBeNull();
  expect(await lock(async () => 'third')).toBe('third');
});

test('a holder whose lock expired and was taken over does not release the new holder', async () => {
  if (!client) return;
  const k = key();
  const lock = sweepLock(client, k);
  await lock(async () => {
    // As if the lock had expired during a long sweep and another instance had taken it.
    await client!.set(k, 'someone-else');
  });
  expect(await client.get(k)).toBe('someone-else');
  await client.del(k);
});

test('the lock has a time to live, so a crashed holder cannot keep it', async () => {
  if (!client) return;
  const k = key();
  await sweepLock(
    client,
    k,
    60_000,
  )(async () => {
    const ttl = await client!.pTTL(k);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });
});

describe('S3 store with the lock', () => {
  let s3: S3Server;
  beforeAll(async () => {
    s3 = await startS3Server();
  });
  afterAll(async () => {
    await s3.close();
  });

  test('an instance sweeps only when it holds the lock', async () => {
    if (!client) return;
    const k = key();
    let offset = 0;
    const clock = () => Date.now() + offset;
    const { db } = await freshDatabase('sqlite');
    const open = async () => (await openBlobs({ db, s3: s3.env, lock: sweepLock(client!, k), clock })).blobs;
    const a = await open();
    const b = await open();
    try {
      const m = await a.put({ bytes: Buffer.from('brief'), ...PASTE, contentType: 'text/plain', ttlSeconds: 1 });
      offset = 5000;
      await client.set(k, 'held-by-another-instance');
      expect(await b.sweep()).toBe(0);
      expect(await b.read(m.id)).toBeDefined(); // not swept: another instance holds the lock
      expect(await b.get(m.id)).toBeUndefined(); // but hidden at once all the same
      await client.del(k);
      const m2 = await a.put({ bytes: Buffer.from('also brief'), ...PASTE, contentType: 'text/plain', ttlSeconds: 1 });
      offset = 10_000;
      expect(await b.sweep()).toBe(1);
      expect(await b.read(m2.id)).toBeUndefined(); // swept: the bytes are gone, not only hidden
      expect(await client.get(k)).toBeNull();
    } finally {
      a.close();
      b.close();
    }
  });
});
