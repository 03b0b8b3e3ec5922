import { jest } from '@jest/globals';
import net from 'node:net';
import { hash, randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { createClient } from 'redis';
import { cacheKeyOf, createResponseCache, type CacheRedis } from '../../../engine/upstream/response-cache.js';

const log = pino({ level: 'silent' });
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/** Polls `check` until it holds, for at most `ms`; false when it never did. */
async function eventually(check: () => Promise<boolean>, ms = 5000): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await sleep(10);
  }
}

/** A producer that counts its calls and answers after a short delay. */
function producer<T>(value: T, opts: { cacheable?: boolean; delayMs?: number; fail?: boolean } = {}) {
  const fn = jest.fn(async () => {
    await sleep(opts.delayMs ?? 20);
    if (opts.fail) throw new Error('upstream broke');
    return { value, cacheable: opts.cacheable ?? true };
  });
  return fn;
}

describe('in process', () => {
  test('a second call is a hit, served as a copy', async () => {
    const cache = createResponseCache({ prefix: 't:', maxEntries: 10, log });
    const fn = producer({ items: [1, 2] });
    const a = await cache.wrap('k', 60_000, fn);
    expect(a).toEqual({ value: { items: [1, 2] }, cached: false });
    const b = await cache.wrap('k', 60_000, fn);
    expect(b).toEqual({ value: { items: [1, 2] }, cached: true });
    b.value.items.push(3);
    expect((await cache.wrap('k', 60_000, fn)).value).toEqual({ items: [1, 2] });
    expect(fn).toHaveBeenCalledTimes(1);
  });

  test('get answers a hit in memory at once and undefined for a miss or an expired entry', async () => {
    const cache = createResponseCache({ prefix: 't:', maxEntries: 10, log });
    expect(cache.get('k')).toBeUndefined();
    await cache.fill('k', 50, producer({ n: 1 }));
    expect(cache.get('k')).toEqual({ n: 1 });
    await new Promise((r) => setTimeout(r, 80));
    expect(cache.get('k')).toBeUndefined();
  });

  test('entries expire after their TTL', async () => {
    // The cache reads Date.now(): the test moves that clock rather than racing a short real TTL, which a
    // busy machine could let run out between the first call and the second.
    let now = Date.now();
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      const cache = createResponseCache({ prefix: 't:', maxEntries: 10, log });
      const fn = producer('v', { delayMs: 0 });
      await cache.wrap('k', 40, fn);
      now += 39;
      expect((await cache.wrap('k', 40, fn)).cached).toBe(true);
      now += 1;
      expect((await cache.wrap('k', 40, fn)).cached).toBe(false);
      expect(fn).toHaveBeenCalledTimes(2);
    } finally {
      jest.restoreAllMocks();
    }
  });

  test('bounded by maxEntries, least recently used goes first', async () => {
    const cache = createResponseCache({ prefix: 't:', maxEntries: 2, log });
    const fn = producer(1, { delayMs: 0 });
    await cache.wrap('a', 60_000, fn);
    await cache.wrap('b', 60_000, fn);
    await cache.wrap('a', 60_000, fn); // a is now the most recent
    await cache.wrap('c', 60_000, fn); // evicts b
    expect(cache.size).toBe(2);
    expect((await cache.wrap('a', 60_000, fn)).cached).toBe(true);
    expect((await cache.wrap('b', 60_000, fn)).cached).toBe(false);
  });

  test('bounded by maxBytes too: large answers evict the least recently used, one larger than the bound is not kept', async () => {
    const cache = createResponseCache({ prefix: 't:', maxEntries: 100, maxBytes: 10_000, log });
    const big = (n: number) => producer({ text: 'x'.repeat(n) }, { delayMs: 0 });
    await cache.wrap('a', 60_000, big(2000)); // ~4 kB each in UTF-16
    await cache.wrap('b', 60_000, big(2000));
    await cache.wrap('c', 60_000, big(2000)); // over 10 kB: evicts a
    expect(cache.size).toBe(2);
    expect((await cache.wrap('a', 60_000, big(2000))).cached).toBe(false);
    await cache.wrap('huge', 60_000, big(20_000));
    expect((await cache.wrap('huge', 60_000, big(20_000))).cached).toBe(false);
  });

  test('10 concurrent identical misses share one call', async () => {
    const cache = createResponseCache({ prefix: 't:', maxEntries: 10, log });
    const fn = producer({ n: 42 }, { delayMs: 50 });
    const results = await Promise.all(Array.from({ length: 10 }, () => cache.wrap('same', 60_000, fn)));
    expect(fn).toHaveBeenCalledTimes(1);
    for (const r of results) expect(r.value).toEqual({ n: 42 });
    // Different keys are not coalesced.
    await Promise.all([cache.wrap('x', 60_000, fn), cache.wrap('y', 60_000, fn)]);
    expect(fn).toHaveBeenCalledTimes(3);
  });

  test('errors are shared by concurrent callers but never cached', async () => {
    const cache = createResponseCache({ prefix: 't:', maxEntries: 10, log });
    const bad = producer('x', { fail: true });
    const settled = await Promise.allSettled(Array.from({ length: 5 }, () => cache.wrap('e', 60_000, bad)));
    expect(settled.every((s) => s.status === 'rejected')).toBe(true);
    expect(bad).toHaveBeenCalledTimes(1);
    const good = producer('fine');
    expect(await cache.wrap('e', 60_000, good)).toEqual({ value: 'fine', cached: false });
  });

  test('cacheable:false answers are never stored nor handed to other callers', async () => {
    const cache = createResponseCache({ prefix: 't:', maxEntries: 10, log });
    let n = 0;
    const fn = jest.fn(async () => {
      await sleep(20);
      return { value: ++n, cacheable: false };
    });
    const concurrent = await Promise.all(Array.from({ length: 4 }, () => cache.wrap('r', 60_000, fn)));
    expect(new Set(concurrent.map((r) => r.value)).size).toBe(4);
    expect((await cache.wrap('r', 60_000, fn)).cached).toBe(false);
    expect(cache.size).toBe(0);
  });

  test('a TTL of 0 disables caching', async () => {
    const cache = createResponseCache({ prefix: 't:', maxEntries: 10, log });
    const fn = producer('v', { delayMs: 0 });
    await cache.wrap('k', 0, fn);
    await cache.wrap('k', 0, fn);
    expect(fn).toHaveBeenCalledTimes(2);
  });
});

/** The key of any params: the endpoint's names taken from the params themselves. */
const cacheKey = (endpoint: string, params: Record<string, unknown>) => cacheKeyOf(endpoint, Object.keys(params))(params);

describe('cacheKey', () => {
  test('stable across param order, stringified values, without apikey and upstream_key', () => {
    const a = cacheKey('anime/search', { q: 'naruto', page: 2, apikey: 'k1', upstream_key: 'u1' });
    const b = cacheKey('anime/search', { page: '2', q: 'naruto', apikey: 'k2', extra: undefined });
    expect(a).toBe(b);
    expect(a.startsWith('anime/search:')).toBe(true);
    expect(a).not.toContain('naruto');
    expect(cacheKey('anime/search', { q: 'naruto', page: 3 })).not.toBe(a);
    expect(cacheKey('anime/top', { q: 'naruto', page: 2 })).not.toBe(a);
    // Values that would concatenate alike stay distinct.
    expect(cacheKey('e', { a: 'b', c: '' })).not.toBe(cacheKey('e', { a: 'bc' }));
  });

  test("an endpoint's own key maker (its names sorted once) gives the same keys, whichever params are set", () => {
    const keyOf = cacheKeyOf('anime/search', ['q', 'page', 'apikey', 'upstream_key', 'sort']);
    expect(keyOf({ q: 'naruto', page: 2, apikey: 'k1', upstream_key: 'u1' })).toBe(cacheKey('anime/search', { q: 'naruto', page: 2 }));
    expect(keyOf({ page: 2, q: 'naruto', sort: 'asc' })).toBe(cacheKey('anime/search', { sort: 'asc', q: 'naruto', page: '2' }));
    expect(keyOf({ q: 'naruto' })).not.toBe(keyOf({ q: 'naruto', page: 1 }));
    // The very string earlier builds made (and keep in Redis): the SHA-256 of [["page","2"],["q","naruto"]].
    expect(keyOf({ q: 'naruto', page: 2, apikey: 'k1' })).toBe('anime/search:gMlDgEUuXa4UXdWbDPr_S-FA85fS0ZE0ebRCEDViOL0');
  });

  test('a key is the SHA-256 of its text whether its hash was remembered or not: long texts, and past the bound', () => {
    const keyOf = cacheKeyOf('e', ['q']);
    const sha = (q: string) => `e:${hash('sha256', JSON.stringify([['q', q]]), 'base64url')}`;
    const long = 'x'.repeat(300);
    for (let round = 0; round < 2; round++) {
      expect(keyOf({ q: long })).toBe(sha(long));
      // More distinct texts than are remembered at a time: the first ones are hashed again, the same.
      for (let i = 0; i < 5000; i += 499) expect(keyOf({ q: `p${i}` })).toBe(sha(`p${i}`));
      for (let i = 0; i < 5000; i++) keyOf({ q: `p${i}` });
    }
    expect(keyOf({ q: 'p0' })).toBe(sha('p0'));
  });
});

describe('redis trouble never breaks the cache', () => {
  test('client pointed at a closed port: served from memory', async () => {
    const srv = net.createServer();
    await new Promise<void>((ok) => srv.listen(0, '127.0.0.1', ok));
    const { port } = srv.address() as net.AddressInfo;
    await new Promise((ok) => srv.close(ok));
    // As in production: the client keeps trying to reconnect in the background.
    const client = createClient({ url: `redis://127.0.0.1:${port}`, disableOfflineQueue: true, socket: { reconnectStrategy: () => 50 } });
    client.on('error', () => {});
    client.connect().catch(() => {});
    await sleep(30);
    try {
      const cache = createResponseCache({ redis: client, prefix: 't:', maxEntries: 10, log });
      const fn = producer('v');
      expect((await cache.wrap('k', 60_000, fn)).cached).toBe(false);
      expect((await cache.wrap('k', 60_000, fn)).cached).toBe(true);
      expect(fn).toHaveBeenCalledTimes(1);
    } finally {
      if (client.isOpen) client.destroy();
    }
  });

  test('a Redis that hangs or fails is waited on for ~50 ms at most', async () => {
    const hanging: CacheRedis = {
      isReady: true,
      get: () => new Promise(() => {}),
      set: () => new Promise(() => {}),
      del: () => new Promise(() => {}),
    };
    const failing: CacheRedis = {
      isReady: true,
      get: async () => Promise.reject(new Error('READONLY')),
      set: async () => Promise.reject(new Error('READONLY')),
      del: async () => Promise.reject(new Error('READONLY')),
    };
    for (const redis of [hanging, failing]) {
      const cache = createResponseCache({ redis, prefix: 't:', maxEntries: 10, log });
      const started = Date.now();
      const r = await cache.wrap('k', 60_000, producer('v', { delayMs: 0 }));
      expect(r).toEqual({ value: 'v', cached: false });
      expect(Date.now() - started).toBeLessThan(500);
    }
  });
});

describe('through Redis', () => {
  let client: ReturnType<typeof createClient> | undefined;
  const prefix = `test:cache:${randomUUID()}:`;

  beforeAll(async () => {
    const c = createClient({ url: REDIS_URL, disableOfflineQueue: true, socket: { connectTimeout: 1000, reconnectStrategy: false } });
    c.on('error', () => {});
    try {
      await c.connect();
      client = c;
    } catch {
      c.destroy();
      if (process.env.CI === 'true') throw new Error(`Redis is required under CI=true but ${REDIS_URL} is unreachable`);
      console.warn(`[response-cache.test] Redis at ${REDIS_URL} unreachable: Redis tests skipped`);
    }
  });

  afterAll(async () => {
    if (!client) return;
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*` })) if (keys.length) await client.del(keys);
    client.destroy();
  });

  const redis = () => client;

  test('a second instance reads what the first stored, with its TTL', async () => {
    if (!client) return;
    const one = createResponseCache({ redis: redis(), prefix, maxEntries: 10, log });
    const fn = producer({ shared: true });
    await one.wrap('k1', 60_000, fn);
    // The write is not awaited by wrap(): wait for it to land rather than for a fixed time.
    expect(await eventually(async () => (await client!.exists(`${prefix}k1`)) === 1)).toBe(true);
    const ttl = await client.pTTL(`${prefix}k1`);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    // A read waits on Redis for 50 ms at most and then asks its own producer: on a busy machine one GET
    // can take longer than that. Such an attempt is not what is tested here, so a new second instance
    // (empty memory) asks again, a few times; its producer answers uncacheable, so it never overwrites k1.
    const own = producer({ shared: false }, { cacheable: false, delayMs: 0 });
    let two = createResponseCache({ redis: redis(), prefix, maxEntries: 10, log });
    let got = await two.wrap('k1', 60_000, own);
    for (let attempt = 1; attempt < 5 && !got.cached; attempt++) {
      two = createResponseCache({ redis: redis(), prefix, maxEntries: 10, log });
      got = await two.wrap('k1', 60_000, own);
    }
    expect(got).toEqual({ value: { shared: true }, cached: true });
    expect(fn).toHaveBeenCalledTimes(1);
    // Now in the second instance's memory too.
    expect(two.size).toBe(1);
  });

  test('10 concurrent identical misses share one call, and the result reaches Redis', async () => {
    if (!client) return;
    const cache = createResponseCache({ redis: redis(), prefix, maxEntries: 10, log });
    const fn = producer({ n: 7 }, { delayMs: 50 });
    const results = await Promise.all(Array.from({ length: 10 }, () => cache.wrap('k2', 60_000, fn)));
    expect(fn).toHaveBeenCalledTimes(1);
    for (const r of results) expect(r.value).toEqual({ n: 7 });
    // The write is not awaited by wrap(): wait (bounded) for it to land.
    expect(await eventually(async () => (await client!.get(`${prefix}k2`)) !== null)).toBe(true);
    expect(await client.get(`${prefix}k2`)).toContain('"n":7');
  });

  test('two instances: concurrent misses of both share one call, the other instance waiting for it in Redis', async () => {
    if (!client) return;
    const one = createResponseCache({ redis: redis(), prefix, maxEntries: 10, log });
    const two = createResponseCache({ redis: redis(), prefix, maxEntries: 10, log });
    const fn = producer({ n: 8 }, { delayMs: 200 });
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? one : two).fill('k5', 60_000, fn)));
    expect(fn).toHaveBeenCalledTimes(1);
    for (const r of results) expect(r.value).toEqual({ n: 8 });
    expect(results.filter((r) => r.cached)).toHaveLength(9);
    // The lock is let go once the answer is in Redis.
    expect(await eventually(async () => (await client!.exists(`${prefix}lock:k5`)) === 0)).toBe(true);
  });

  test('an instance whose call fails lets the lock go: the waiting one asks itself', async () => {
    if (!client) return;
    const one = createResponseCache({ redis: redis(), prefix, maxEntries: 10, log });
    const two = createResponseCache({ redis: redis(), prefix, maxEntries: 10, log });
    const failing = producer('never', { delayMs: 100, fail: true });
    const working = producer('fine', { delayMs: 0 });
    const [a, b] = await Promise.allSettled([
      one.fill('k6', 60_000, failing),
      new Promise((r) => setTimeout(r, 20)).then(() => two.fill('k6', 60_000, working)),
    ]);
    expect(a.status).toBe('rejected');
    expect(b).toEqual({ status: 'fulfilled', value: { value: 'fine', cached: false } });
    expect(failing).toHaveBeenCalledTimes(1);
    expect(working).toHaveBeenCalledTimes(1);
  });

  test('non-cacheable answers never reach Redis; expired ones are not served', async () => {
    if (!client) return;
    const cache = createResponseCache({ redis: redis(), prefix, maxEntries: 10, log });
    await cache.wrap('k3', 60_000, producer('secret', { cacheable: false }));
    await cache.wrap('k4', 30, producer('short'));
    await sleep(80);
    expect(await client.exists(`${prefix}k3`)).toBe(0);
    const fresh = createResponseCache({ redis: redis(), prefix, maxEntries: 10, log });
    expect((await fresh.wrap('k4', 30, producer('again'))).value).toBe('again');
  });
});
