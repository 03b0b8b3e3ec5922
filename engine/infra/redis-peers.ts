// How many instances share this Redis, counted by a heartbeat: every few seconds each instance writes its
// id with Redis's own clock into one sorted set and reads how many wrote within the last 15 s. A counter cut
// off from Redis lets each instance spend this share of what was left (engine/access/redis-counter.ts), so
// the instances together stay within the allowance (docs/operations.md, "Redis outages").
import { randomUUID } from 'node:crypto';
import type { RedisClientType } from 'redis';
import { RedisScript } from './redis-script.js';

const BEAT_MS = 5000;
const FORGET_MS = 15_000;

// KEYS[1]: the set; ARGV[1]: this instance's id; ARGV[2]: how long a silent instance still counts, in ms.
const BEAT = new RedisScript(`
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('ZCARD', KEYS[1])`);

export interface Peers {
  /** Instances seen on this Redis lately, this one included (1 until the first beat is answered). */
  count(): number;
  stop(): Promise<void>;
}

export function countPeers(redis: RedisClientType, prefix: string): Peers {
  const key = `${prefix}instances`;
  const id = randomUUID();
  let seen = 1;
  const beat = () =>
    BEAT.run(redis, [key], [id, String(FORGET_MS)]).then(
      (n) => {
        // The largest count seen over the last beats would hold a departed instance's share; the last is enough.
        if (typeof n === 'number' && n > 0) seen = n;
      },
      // Redis down: keep the last count, which is the one the share is to be taken from.
      () => {},
    );
  void beat();
  // At once on every (re)connection, so a count is known before the first beat's interval is over.
  redis.on('ready', () => void beat());
  const timer = setInterval(() => void beat(), BEAT_MS);
  timer.unref();
  return {
    count: () => seen,
    async stop() {
      clearInterval(timer);
      // Leaving: the others need not keep this instance's share once they are cut off.
      if (redis.isReady) await redis.sendCommand(['ZREM', key, id]).catch(() => {});
    },
  };
}
