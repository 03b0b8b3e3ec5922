// The store behind keys, accounts, sessions and usage: one contract, two backends (SQLite under DATA_DIR,
// Redis), and the move from one to the other that never drops keys quietly.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import request from 'supertest';
import { createClient, type RedisClientType } from 'redis';
import { redisAvailable, testApp } from '../../helpers/app.js';
import { SqliteStore } from '../../../engine/store/sqlite.js';
import { RedisStore } from '../../../engine/store/redis.js';
import type { Store } from '../../../engine/store/types.js';

const run = promisify(execFile);
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'uua-store-'));
let redisUrl: string | undefined;
let client: RedisClientType | undefined;

beforeAll(async () => {
  redisUrl = await redisAvailable();
  if (redisUrl) {
    client = createClient({ url: redisUrl });
    await client.connect();
  }
});
afterAll(async () => {
  await client?.close();
});

const backends: [string, () => Promise<Store | undefined>][] = [
  ['sqlite', async () => new SqliteStore(path.join(tmp(), 'uua.sqlite'))],
  [
    'redis',
    async () => {
      if (!client) return undefined;
      const s = new RedisStore(client, `test-${crypto.randomUUID()}:`, 'redis');
      await s.listen();
      return s;
    },
  ],
];

describe.each(backends)('%s store', (_name, open) => {
  test('documents, short-lived documents, counters, capped lists and announcements', async () => {
    const s = await open();
    if (!s) return;
    try {
      const heard: string[] = [];
      s.onAnnounce((t) => heard.push(t));
      expect(await s.get('things', 'a')).toBeUndefined();
      await s.put('things', 'a', { n: 1 });
      expect(await s.insert('things', 'a', { n: 2 })).toBe(false); // one writer wins
      expect(await s.insert('things', 'b', { n: 3 })).toBe(true);
      expect(await s.get('things', 'a')).toEqual({ n: 1 });
      expect((await s.list<{ n: number }>('things')).map((d) => d.n).sort()).toEqual([1, 3]);
      expect((await s.entries('things')).map(([id]) => id).sort()).toEqual(['a', 'b']);
      expect(await s.count('things')).toBe(2);
      expect(await s.del('things', 'a')).toBe(true);
      expect(await s.del('things', 'a')).toBe(false);

      await s.putTemp('sessions', 'x', { who: 'me' }, 60_000);
      await s.putTemp('sessions', 'gone', { who: 'you' }, 1);
      expect(await s.getTemp('sessions', 'x')).toEqual({ who: 'me' });
      const until = Date.now() + 2000;
      while ((await s.getTemp('sessions', 'gone')) && Date.now() < until) await new Promise((ok) => setTimeout(ok, 20));
      expect(await s.getTemp('sessions', 'gone')).toBeUndefined();
      expect(await s.list('sessions')).toEqual([]); // short-lived documents are not a collection's
      expect(await s.delTemp('sessions', 'x')).toBe(true);
      // Short-lived documents written in a batch, and read back all at once (as counters are at boot).
      await s.write([
        { kind: 'temp', coll: 'windows', id: 'a:1', doc: { hits: 3 }, ttlMs: 60_000 },
        { kind: 'temp', coll: 'windows', id: 'b*[x]', doc: { hits: 1 }, ttlMs: 60_000 },
        { kind: 'temp', coll: 'windows', id: 'old', doc: { hits: 9 }, ttlMs: 1 },
        { kind: 'temp', coll: 'windowsX', id: 'other', doc: { hits: 5 }, ttlMs: 60_000 },
      ]);
      await new Promise((ok) => setTimeout(ok, 20));
      expect((await s.tempEntries('windows')).sort(([x], [y]) => x.localeCompare(y))).toEqual([
        ['a:1', { hits: 3 }],
        ['b*[x]', { hits: 1 }],
      ]);
      expect(await s.getTemp('windows', 'a:1')).toEqual({ hits: 3 });
      expect(await s.tempEntries('nothing')).toEqual([]);

      await s.write([
        { kind: 'add', coll: 'usage', id: 'k', add: { a: 2, b: 1 }, ttlMs: 60_000 },
        { kind: 'add', coll: 'usage', id: 'k', add: { a: 3 }, ttlMs: 60_000 },
        { kind: 'push', list: 'recent', items: ['1', '2', '3'], cap: 4, ttlMs: 60_000 },
        { kind: 'push', list: 'recent', items: ['4', '5'], cap: 4, ttlMs: 60_000 },
        { kind: 'put', coll: 'things', id: 'c', doc: { n: 4 } },
      ]);
      expect(await s.counters('usage', 'k')).toEqual({ a: 5, b: 1 });
      expect(await s.countersMany('usage', ['none', 'k'])).toEqual([{}, { a: 5, b: 1 }]);
      expect(await s.recent('recent', 10)).toEqual(['5', '4', '3', '2']);
      expect(await s.recent('recent', 2)).toEqual(['5', '4']);
      expect(await s.get('things', 'c')).toEqual({ n: 4 });

      await s.announce('keys');
      expect(heard).toContain('keys');
    } finally {
      await s.close();
    }
  });
});

test("SQLite: another process's commit is announced within a second", async () => {
  const file = path.join(tmp(), 'uua.sqlite');
  const a = new SqliteStore(file);
  const b = new SqliteStore(file);
  try {
    const heard: string[] = [];
    a.onAnnounce((t) => heard.push(t));
    await b.put('keys', 'h', { id: 'x' });
    const until = Date.now() + 1000;
    while (!heard.length && Date.now() < until) await new Promise((ok) => setTimeout(ok, 25));
    expect(heard).toEqual(['*']);
    expect(await a.get('keys', 'h')).toEqual({ id: 'x' });
  } finally {
    await a.close();
    await b.close();
  }
});

// legacy layout: moved to engine/db/legacy
test.skip('moving to Redis with keys in SQLite is refused until `npm run keys -- migrate`, which keeps them working', async () => {
  if (!redisUrl) return;
  const dataDir = tmp();
  const prefix = `test-${crypto.randomUUID()}:`;
  const local = await testApp({}, { dataDir });
  const { key } = await local.api.keys.issue('premium', 'kept');
  await local.close();

  await expect(testApp({ REDIS_URL: redisUrl, REDIS_PREFIX: prefix }, { dataDir })).rejects.toThrow(
    /uua\.sqlite holds 1 keys and accounts that are not in Redis\. Run `REDIS_URL=… npm run keys -- migrate`/,
  );

  const out = await run('npx', ['tsx', 'scripts/keys.ts', 'migrate'], {
    env: { ...process.env, DATA_DIR: dataDir, REDIS_URL: redisUrl, REDIS_PREFIX: prefix },
  });
  expect(out.stdout).toMatch(/copied 1 documents/);
  const shared = await testApp({ REDIS_URL: redisUrl, REDIS_PREFIX: prefix }, { dataDir });
  try {
    const res = await request(shared.app).get('/api/v1/tools/ccgen').query({ bin: '457173' }).set('X-API-Key', key);
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe('5000');
  } finally {
    await shared.close();
  }
}, 60_000);
