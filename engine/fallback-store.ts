// A rate-limit store that counts in Redis while Redis answers and in process while it does not.
// express-rate-limit's passOnStoreError would drop the headers on a Redis failure; falling back to a local
// counter keeps "every response carries the headers" true, and the service keeps serving (fail open).
import type { Store, Options, IncrementResponse } from 'express-rate-limit';
import { MemoryStore } from 'express-rate-limit';
import type { Logger } from 'pino';

export interface RedisHealth {
  /** True while the client is connected and ready. */
  ready(): boolean;
  /** Called on every failed Redis call, so /health can show it. */
  failed(err: unknown): void;
}

export class FallbackStore implements Store {
  localKeys = false;
  prefix: string;
  private readonly memory = new MemoryStore();
  private options: Options | undefined;
  // rate-limit-redis loads its Lua scripts in init(); a load that failed (Redis down at boot or restarted)
  // would poison every later call, so the store is initialised again on the first call after a failure.
  private redisInit: Promise<void> | undefined;

  constructor(private readonly redis: Store | undefined, private readonly health: RedisHealth | undefined, private readonly log: Logger, prefix: string) {
    this.prefix = prefix;
  }

  init(options: Options) {
    this.memory.init(options);
    this.options = options;
  }

  private async useRedis(): Promise<boolean> {
    if (!this.redis || !this.health?.ready()) return false;
    this.redisInit ??= Promise.resolve(this.redis.init?.(this.options!));
    try {
      await this.redisInit;
      return true;
    } catch (err) {
      this.fallback('init', err);
      return false;
    }
  }

  private fallback(op: string, err: unknown) {
    this.redisInit = undefined;
    this.health?.failed(err);
    this.log.warn({ op, err: (err as Error).message }, 'rate-limit store: Redis failed, counting in process');
  }

  async increment(key: string): Promise<IncrementResponse> {
    if (await this.useRedis()) {
      try {
        return await this.redis!.increment(key);
      } catch (err) {
        this.fallback('increment', err);
      }
    }
    return this.memory.increment(key);
  }

  async decrement(key: string) {
    if (await this.useRedis()) {
      try {
        return await this.redis!.decrement(key);
      } catch (err) {
        this.fallback('decrement', err);
      }
    }
    return this.memory.decrement(key);
  }

  async resetKey(key: string) {
    await this.memory.resetKey(key);
    if (await this.useRedis()) await Promise.resolve(this.redis!.resetKey(key)).catch((err) => this.fallback('resetKey', err));
  }

  async get(key: string) {
    if ((await this.useRedis()) && this.redis!.get) {
      try {
        return await this.redis!.get(key);
      } catch (err) {
        this.fallback('get', err);
      }
    }
    return this.memory.get(key);
  }

  shutdown() {
    this.memory.shutdown();
  }
}
