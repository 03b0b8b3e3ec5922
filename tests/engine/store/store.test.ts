// The store of what must be shared and fast (counters, the meter's windows, capped lists, the change bus):
// one contract, two backends (SQLite under DATA_DIR, Redis).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient, type RedisClientType } from 'redis';
import { redisAvailable } from '../../helpers/app.js';
import { SqliteStore } from '../../../engine/store/sqlite.js';
import { RedisStore } from '../../../engine/store/redis.js';
import type { Store } from '../../../engine/store/types.js';

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
  test('short-lived documents, counters, capped lists and announcements', async () => {
    const s = await open();
    if (!s) return;
    try {
      const heard: string[] = [];
      s.onAnnounce((t) => heard.push(t));
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
      expect(await s.tempEntries('nothing')).toEqual([]);

      await s.write([
        { kind: 'add', coll: 'usage', id: 'k', add: { a: 2, b: 1 }, ttlMs: 60_000 },
        { kind: 'add', coll: 'usage', id: 'k', add: { a: 3 }, ttlMs: 60_000 },
        { kind: 'push', list: 'recent', items: ['1', '2', '3'], cap: 4, ttlMs: 60_000 },
        { kind: 'push', list: 'recent', items: ['4', '5'], cap: 4, ttlMs: 60_000 },
      ]);
      expect(await s.counters('usage', 'k')).toEqual({ a: 5, b: 1 });
      expect(await s.countersMany('usage', ['none', 'k'])).toEqual([{}, { a: 5, b: 1 }]);
      expect(await s.recent('recent', 10)).toEqual(['5', '4', '3', '2']);
      expect(await s.recent('recent', 2)).toEqual(['5', '4']);

      await s.announce('keys');
      expect(heard).toContain('keys');
    } finally {
      await s.close();
    }
  });
});

test("SQLite: another process's announcement is heard within a second; its other commits are not", async () => {
  const file = path.join(tmp(), 'uua.sqlite');
  const a = new SqliteStore(file);
  const b = new SqliteStore(file);
  try {
    const heard: string[] = [];
    a.onAnnounce((t) => heard.push(t));
    // Counters (and the request log's rows, on the tables' connection) are written many times a second: none
    // of it makes another process forget the keys it remembers.
    await b.write([{ kind: 'add', coll: 'usage', id: 'k', add: { n: 1 }, ttlMs: 60_000 }]);
    await new Promise((ok) => setTimeout(ok, 600));
    expect(heard).toEqual([]);
    expect(await a.counters('usage', 'k')).toEqual({ n: 1 });
    const heardByB: string[] = [];
    b.onAnnounce((t) => heardByB.push(t));
    await b.announce('keys');
    expect(heardByB).toEqual(['keys']);
    const until = Date.now() + 1000;
    while (!heard.length && Date.now() < until) await new Promise((ok) => setTimeout(ok, 25));
    expect(heard).toEqual(['*']);
    // Its own announcement is not told to b a second time by its poll.
    await new Promise((ok) => setTimeout(ok, 600));
    expect(heardByB).toEqual(['keys']);
  } finally {
    await a.close();
    await b.close();
  }
});
