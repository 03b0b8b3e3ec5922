// A lock that lets one instance at a time sweep expired blobs out of the shared bucket: SET NX PX with a
// random token, released only by its holder (compare-and-delete in one script). One Redis, so Redlock's
// quorum over several masters buys nothing; and a sweep is idempotent, so a lock lost to a Redis failover
// costs at worst a doubled sweep, never a wrong answer. Redis unreachable: nobody sweeps until it returns,
// and expiry is still honoured on every read.
import crypto from 'node:crypto';
import type { RedisClientType } from 'redis';
import { RedisScript } from '../../engine/infra/redis-script.js';

export type SweepLock = <T>(run: () => Promise<T>) => Promise<T | undefined>;

const RELEASE = new RedisScript("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end");

/** Runs `run` when this instance got the lock; undefined when another holds it (or Redis is down). */
export function sweepLock(redis: RedisClientType, key: string, ttlMs = 5 * 60_000): SweepLock {
  return async (run) => {
    const token = crypto.randomBytes(16).toString('hex');
    const got = await redis.set(key, token, { condition: 'NX', expiration: { type: 'PX', value: ttlMs } }).catch(() => null);
    if (got !== 'OK') return undefined;
    try {
      return await run();
    } finally {
      await RELEASE.run(redis, [key], [token]).catch(() => {});
    }
  };
}
