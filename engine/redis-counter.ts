// A request counter in Redis (rate-limit-redis's store: one script call per request, shared exactly by
// every instance on the same Redis) that counts in process while Redis does not answer. Failing open to a
// local counter keeps the service answering with its limit headers through an outage, and it goes back to
// Redis by itself once the client is ready again.
import type { Options } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';
import type { RedisClientType } from 'redis';
import type { Logger } from 'pino';
import { MemoryCounter, type Counter, type Hit } from './counter.js';

export interface RedisHealth {
  /** True while the client is connected and ready. */
  ready(): boolean;
  /** Called on every failed Redis call, so /health can show it. */
  failed(err: unknown): void;
}

export class RedisCounter implements Counter {
  private readonly store: RedisStore;
  private readonly memory: MemoryCounter;
  // rate-limit-redis loads its Lua script in init(); a load that failed (Redis down at boot, or restarted)
  // would poison every later call, so the store is initialised again on the first call after a failure.
  private loaded: Promise<void> | undefined;

  constructor(redis: RedisClientType, private readonly windowMs: number, private readonly prefix: string, private readonly health: RedisHealth, private readonly log: Logger) {
    this.store = new RedisStore({ prefix, sendCommand: (...args: string[]) => redis.sendCommand(args) });
    this.memory = new MemoryCounter(windowMs);
  }

  async hit(key: string): Promise<Hit> {
    if (await this.useRedis()) {
      try {
        const r = await this.store.increment(key);
        return { hits: r.totalHits, resetAt: r.resetTime?.getTime() ?? Date.now() + this.windowMs };
      } catch (err) {
        this.fallback('increment', err);
      }
    }
    return this.memory.hit(key);
  }

  async refund(key: string): Promise<void> {
    if (await this.useRedis()) {
      try {
        return await this.store.decrement(key);
      } catch (err) {
        this.fallback('decrement', err);
      }
    }
    this.memory.refund(key);
  }

  async peek(key: string): Promise<Hit | undefined> {
    if (await this.useRedis()) {
      try {
        const r = await this.store.get(key);
        return r && r.resetTime && r.resetTime.getTime() > Date.now() ? { hits: r.totalHits, resetAt: r.resetTime.getTime() } : undefined;
      } catch (err) {
        this.fallback('get', err);
      }
    }
    return this.memory.peek(key);
  }

  close(): void {
    this.memory.close();
  }

  private async useRedis(): Promise<boolean> {
    if (!this.health.ready()) return false;
    // The store reads only windowMs of express-rate-limit's options.
    this.loaded ??= this.store.init({ windowMs: this.windowMs } as Options);
    try {
      await this.loaded;
      return true;
    } catch (err) {
      this.fallback('init', err);
      return false;
    }
  }

  private fallback(op: string, err: unknown) {
    this.loaded = undefined;
    this.health.failed(err);
    this.log.warn({ op, prefix: this.prefix, err: (err as Error).message }, 'rate-limit counter: Redis failed, counting in process');
  }
}
