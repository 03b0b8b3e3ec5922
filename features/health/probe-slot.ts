// Which instance probes an interval: with Redis, the first to SET NX the interval's slot key (it expires by
// itself after two intervals, and is never released: a round that ends early must not let a slower
// instance run the same interval again). One Redis, so Redlock buys nothing; a slot lost to a failover costs
// at worst one doubled round. Redis unreachable: nobody probes until it returns. Without Redis there is one
// instance, and it probes every interval.
import type { RedisClientType } from 'redis';
import type { SlotClaim } from './probes.js';

export function probeSlot(redis: RedisClientType | undefined, prefix: string, intervalMs: number): SlotClaim {
  if (!redis) return () => Promise.resolve(true);
  return async (slotStart) => {
    const got = await redis
      .set(`${prefix}probe-slot:${slotStart}`, '1', { condition: 'NX', expiration: { type: 'PX', value: 2 * intervalMs } })
      .catch(() => null);
    return got === 'OK';
  };
}
