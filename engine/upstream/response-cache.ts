// The response cache of endpoints with a `cache:` TTL. In process always (lru-cache, bounded, least
// recently used out first), in Redis too when a ready client is given, so instances share answers.
// Concurrent identical misses share one call of the producer: in process by a shared promise, and across
// instances by a lock in Redis (SET NX) that the first one takes while the others wait for its answer
// there. Redis is an optimisation only: its errors are logged and ignored, a read never waits on it for
// more than REDIS_WAIT_MS (the lock, LOCK_WAIT_MS), and a wait for another instance's answer ends when
// its lock does.
import { hash, randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { answeredWithin } from '../infra/redis.js';

/** The few node-redis v5 client members used here (a RedisClientType fits). */
export interface CacheRedis {
  readonly isReady: boolean;
  get(key: string): Promise<unknown>;
  set(key: string, value: string, options?: { expiration: { type: 'PX'; value: number }; condition?: 'NX' }): Promise<unknown>;
  del(key: string): Promise<unknown>;
}

export interface CacheProduce<T> {
  value: T;
  /** false: hand the value back but never store it (random results, secrets). */
  cacheable: boolean;
}

/** How values are stored: JSON by default; a caller that keeps its answers serialised already passes its own. */
export interface CacheCodec<T> {
  encode(value: T): string;
  decode(text: string): T;
}

const JSON_CODEC: CacheCodec<unknown> = { encode: (v) => JSON.stringify(v), decode: (text) => JSON.parse(text) as unknown };

export interface ResponseCache {
  /** The value under `key` from memory, or undefined: answers a hit without a promise. */
  get<T>(key: string, codec?: CacheCodec<T>): T | undefined;
  /**
   * The miss: Redis, else `fn` (shared by concurrent callers, of every instance on the Redis), then stored.
   * `lockMs`: how long another instance may take over the call before this one asks itself (its deadline).
   */
  fill<T>(
    key: string,
    ttlMs: number,
    fn: () => Promise<CacheProduce<T>>,
    codec?: CacheCodec<T>,
    lockMs?: number,
  ): Promise<{ value: T; cached: boolean }>;
  /** get, then fill. */
  wrap<T>(key: string, ttlMs: number, fn: () => Promise<CacheProduce<T>>, codec?: CacheCodec<T>): Promise<{ value: T; cached: boolean }>;
  /** Entries currently held in process (tests, metrics). */
  readonly size: number;
  clear(): void;
}

export interface ResponseCacheOptions {
  redis?: CacheRedis;
  /** Prefix of Redis keys, e.g. `uua:cache:`. */
  prefix: string;
  maxEntries: number;
  /** Bound on the memory copy's size (keys and stored JSON, in UTF-16 code units ×2); 32 MiB by default. */
  maxBytes?: number;
  log: Logger;
}

const REDIS_WAIT_MS = 50;
/** A miss is about to cost an upstream call: the lock that may save it is waited for longer than a read. */
const LOCK_WAIT_MS = 250;
/** How often an instance waiting for another's answer looks for it in Redis. */
const SHARED_POLL_MS = 25;
const DEFAULT_LOCK_MS = 30_000;
const REDIS_WARN_EVERY_MS = 30_000;

interface Entry {
  json: string;
  expires: number;
}

/** What the caller of wrap() that did the work tells the ones that waited for it. */
interface Outcome {
  value: unknown;
  /** The stored JSON, when the value may be shared; waiting callers get their own copy of it. */
  json?: string;
  cached: boolean;
  /** The write to Redis, settled (never rejected) once it has landed. */
  written?: Promise<void>;
}

export function createResponseCache(opts: ResponseCacheOptions): ResponseCache {
  const { redis, prefix, log } = opts;
  const maxEntries = Math.max(1, opts.maxEntries);
  // Not a Map kept in insertion order: evicting its oldest entry walks past every one deleted since its
  // last rehash, which made an insert once full many times dearer than lru-cache's (docs/decisions/upstream-path.md).
  // Bounded in bytes too: 5,000 entries of long parameters and large answers would otherwise hold hundreds
  // of megabytes (the hostile sweep of scripts/measure-lean.mjs); an answer larger than the whole bound is not kept in memory.
  const mem = new LRUCache<string, Entry>({
    max: maxEntries,
    maxSize: opts.maxBytes ?? 32 * 1024 * 1024,
    sizeCalculation: (e, key) => 2 * (key.length + e.json.length) + 64,
  });
  const inflight = new Map<string, Promise<Outcome>>();
  let lastWarn = 0;

  const warn = (err: unknown, op: string) => {
    const now = Date.now();
    if (now - lastWarn < REDIS_WARN_EVERY_MS) return;
    lastWarn = now;
    log.warn({ err: (err as Error)?.message ?? String(err), op }, 'response cache: redis unavailable, using memory only');
  };

  function memGet(key: string): Entry | undefined {
    const e = mem.get(key); // now the most recently used
    if (e === undefined || e.expires > Date.now()) return e;
    mem.delete(key);
    return undefined;
  }

  /** The entry shared in Redis; called only while Redis is ready (produce). */
  async function redisGet(redis: CacheRedis, key: string, codec: CacheCodec<unknown>): Promise<(Entry & { value: unknown }) | undefined> {
    try {
      const raw = await answeredWithin(redis.get(prefix + key), REDIS_WAIT_MS, 'GET');
      if (typeof raw !== 'string') return undefined;
      // Stored as {"e":<expiry epoch ms>,"v":<value>} so the memory copy expires with the Redis one.
      const m = /^\{"e":(\d+),"v":/.exec(raw);
      if (!m || Number(m[1]) <= Date.now()) return undefined;
      const json = raw.slice(m[0].length, -1);
      return { json, expires: Number(m[1]), value: codec.decode(json) };
    } catch (err) {
      warn(err, 'get');
      return undefined;
    }
  }

  function redisSet(key: string, e: Entry, ttlMs: number): Promise<void> | undefined {
    if (!redis?.isReady) return undefined;
    const raw = `{"e":${e.expires},"v":${e.json}}`;
    // Not awaited: the answer never waits for a write.
    return redis.set(prefix + key, raw, { expiration: { type: 'PX', value: Math.max(1, Math.round(ttlMs)) } }).then(
      () => {},
      (err) => warn(err, 'set'),
    );
  }

  /** Keeps a produced value: in memory and in Redis, when it may be kept and serialises. */
  function keep<T>(key: string, ttlMs: number, res: CacheProduce<T>, codec: CacheCodec<T>): Outcome {
    if (!res.cacheable) return { value: res.value, cached: false };
    let json: string | undefined;
    try {
      json = codec.encode(res.value);
    } catch (err) {
      log.warn({ err: (err as Error).message, key }, 'response cache: value is not JSON, not cached');
    }
    if (json === undefined) return { value: res.value, cached: false };
    const e = { json, expires: Date.now() + ttlMs };
    mem.set(key, e);
    return { value: res.value, json, cached: false, written: redisSet(key, e, ttlMs) };
  }

  /** An answer another instance stored, kept in memory too. */
  function shared(key: string, found: Entry & { value: unknown }): Outcome {
    mem.set(key, { json: found.json, expires: found.expires });
    return { value: found.value, json: found.json, cached: true };
  }

  /**
   * A miss of every instance: the one that takes the key's lock runs the producer, and lets the lock go
   * once its answer is in Redis; the others look for that answer until the lock is gone (answered without
   * a value to share, failed, or the instance died and the lock ran out), then ask themselves.
   */
  function acrossInstances(
    redis: CacheRedis,
    key: string,
    lockMs: number,
    run: () => Promise<Outcome>,
    codec: CacheCodec<unknown>,
  ): Promise<Outcome> {
    const lock = `${prefix}lock:${key}`;
    const mine = randomUUID();
    const taken = answeredWithin(
      redis.set(lock, mine, { expiration: { type: 'PX', value: lockMs }, condition: 'NX' }),
      LOCK_WAIT_MS,
      'SET NX',
    );
    const letGo = () =>
      answeredWithin(redis.get(lock), REDIS_WAIT_MS, 'GET')
        .then((holder) => (holder === mine ? redis.del(lock) : undefined))
        .catch((err) => warn(err, 'del'));
    const lead = () =>
      run().then(
        (out) => {
          void (out.written ?? Promise.resolve()).then(letGo);
          return out;
        },
        (err: unknown) => {
          void letGo();
          throw err;
        },
      );
    const until = Date.now() + lockMs;
    const wait = (): Promise<Outcome> =>
      new Promise<void>((ok) => setTimeout(ok, SHARED_POLL_MS)).then(() =>
        redisGet(redis, key, codec).then(async (found) => {
          if (found) return shared(key, found);
          const held = await answeredWithin(redis.get(lock), LOCK_WAIT_MS, 'GET').catch(() => null);
          if (held !== null && Date.now() < until) return wait();
          // The lock is gone: the answer may have landed just before it went.
          const late = await redisGet(redis, key, codec);
          return late ? shared(key, late) : run();
        }),
      );
    return taken.then(
      (reply) => (reply === 'OK' ? lead() : wait()),
      (err) => {
        warn(err, 'lock');
        return run();
      },
    );
  }

  // Promise chains rather than async functions: a miss passes through here on every uncached call, and
  // each async layer cost it a promise and a microtask more (docs/decisions/upstream-path.md).
  function produce<T>(
    key: string,
    ttlMs: number,
    fn: () => Promise<CacheProduce<T>>,
    codec: CacheCodec<T>,
    lockMs: number,
  ): Promise<Outcome> {
    const run = () => fn().then((res) => keep(key, ttlMs, res, codec));
    if (!redis?.isReady) return run();
    return redisGet(redis, key, codec).then((found) =>
      found ? shared(key, found) : acrossInstances(redis, key, lockMs, run, codec as CacheCodec<unknown>),
    );
  }

  function get<T>(key: string, codec = JSON_CODEC as CacheCodec<T>): T | undefined {
    const hit = memGet(key);
    return hit === undefined ? undefined : codec.decode(hit.json);
  }

  function fill<T>(
    key: string,
    ttlMs: number,
    fn: () => Promise<CacheProduce<T>>,
    codec = JSON_CODEC as CacheCodec<T>,
    lockMs = DEFAULT_LOCK_MS,
  ): Promise<{ value: T; cached: boolean }> {
    if (!(ttlMs > 0)) return fn().then((res) => ({ value: res.value, cached: false }));
    const pending = inflight.get(key);
    if (pending) {
      // Errors are shared too: a failing upstream is asked once, not once per waiting caller.
      // A caller that shared another's call cost no upstream call: it is served as a hit.
      return pending.then((out) =>
        out.json !== undefined
          ? { value: codec.decode(out.json), cached: true }
          : // The answer was not cacheable (random, secret): this caller gets its own.
            fn().then((res) => ({ value: res.value, cached: false })),
      );
    }
    const p = produce(key, ttlMs, fn, codec, lockMs);
    inflight.set(key, p);
    // Registered before any waiting caller's, so the key is free again before they go on.
    return p.then(
      (out) => {
        inflight.delete(key);
        return { value: out.value as T, cached: out.cached };
      },
      (err: unknown) => {
        inflight.delete(key);
        throw err;
      },
    );
  }

  return {
    get,
    fill,
    async wrap(key, ttlMs, fn, codec) {
      const hit = ttlMs > 0 ? get(key, codec) : undefined;
      return hit !== undefined ? { value: hit, cached: true } : fill(key, ttlMs, fn, codec);
    },
    get size() {
      return mem.size;
    },
    clear: () => mem.clear(),
  };
}

const NOT_IN_KEY = new Set(['apikey', 'upstream_key']);

/**
 * The cache keys of one endpoint, for its validated params: sorted names (sorted once, here), stringified
 * values, without the caller's keys, hashed so long texts do not make long Redis keys (nor a caller's text a
 * key).
 */
export function cacheKeyOf(endpoint: string, names: string[]): (params: Record<string, unknown>) => string {
  const sorted = names.filter((k) => !NOT_IN_KEY.has(k.toLowerCase())).sort();
  return (params) => {
    const pairs: [string, string][] = [];
    for (const k of sorted) if (params[k] !== undefined) pairs.push([k, stringify(params[k])]);
    return `${endpoint}:${hashedText(JSON.stringify(pairs))}`;
  };
}

/**
 * Texts of keys up to this long have their hashes remembered, this many at a time (about 2.5 MB at most):
 * engine/remembered.ts's memo holds 50,000, which for texts this long could be 27 MB.
 */
const SHORT_KEY_TEXT = 256;
const KEY_TEXTS = 4096;
const keyHashes = new Map<string, string>();

/**
 * A key's text hashed: the parameters asked again (every hit) cost a look-up rather than a SHA-256, a call
 * into the crypto library that cost about 3 % of a cached call's CPU.
 */
function hashedText(text: string): string {
  if (text.length > SHORT_KEY_TEXT) return hash('sha256', text, 'base64url');
  let h = keyHashes.get(text);
  if (h === undefined) {
    if (keyHashes.size >= KEY_TEXTS) keyHashes.clear();
    keyHashes.set(text, (h = hash('sha256', text, 'base64url')));
  }
  return h;
}

function stringify(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return `bytes:${hash('sha256', v, 'hex')}`;
  if (typeof v === 'object' && v !== null) return JSON.stringify(v);
  return String(v);
}
