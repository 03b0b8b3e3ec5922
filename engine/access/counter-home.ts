// Where a counter keeps its windows, for the meter's allowances and the portal's throttles alike: in Redis
// when it is configured (shared by every instance), otherwise in process and written to the store once a
// second (engine/access/stored-counter.ts: a restart forgets nothing), or in process only (no store).
import type { RedisClientType } from 'redis';
import type { Logger } from 'pino';
import type { RedisHealth } from '../infra/redis.js';
import type { Store } from '../store/types.js';
import { MemoryCounter, type Counter } from './counter.js';
import { RedisCounter } from './redis-counter.js';
import { StoredCounter } from './stored-counter.js';

export interface CounterHome {
  redis?: RedisClientType;
  /** Redis's state; without it a Redis client is not used (the counter stays in process). */
  redisHealth?: RedisHealth;
  store?: Store;
  /** The Redis key prefix (REDIS_PREFIX). */
  prefix: string;
  log: Logger;
}

/** A counter of `windowMs` windows named `name`: Redis keys `<prefix><name>:…`, or the store's collection `<name>`. */
export function counterIn(home: CounterHome, name: string, windowMs: number): Counter {
  if (home.redis && home.redisHealth) return new RedisCounter(home.redis, windowMs, `${home.prefix}${name}:`, home.redisHealth, home.log);
  return home.store ? new StoredCounter(windowMs, home.store, name, home.log) : new MemoryCounter(windowMs);
}

/** Settles once a counter kept in the store has read its open windows back (at once for the others). */
export const readBack = (counter: Counter): Promise<void> => (counter instanceof StoredCounter ? counter.load() : Promise.resolve());
