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

  constructor(private readonly redis: Store | undefined, private readonly health: RedisHealth | undefined, private readonly log: Logger, prefix: string) {
    this.prefix = prefix;
  }

  init(options: Options) {
    this.memory.init(options);
    this.redis?.init?.(options);
  }

  private useRedis(): boolean {
    return this.redis !== undefined && this.health !== undefined && this.health.ready();
  }

  private fallback(op: string, err: unknown) {
    this.health?.failed(err);
    this.log.warn({ op, err: (err as Error).message }, 'rate-limit store: Redis failed, counting in process');
  }

  async increment(key: string): Promise<IncrementResponse> {
    if (this.useRedis()) {
      try {
        return await this.redis!.increment(key);
      } catch (err) {
        this.fallback('increment', err);
      }
    }
    return this.memory.increment(key);
  }

  async decrement(key: string) {
    if (this.useRedis()) {
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
    if (this.useRedis()) await Promise.resolve(this.redis!.resetKey(key)).catch((err) => this.fallback('resetKey', err));
  }

  async get(key: string) {
    if (this.useRedis() && this.redis!.get) {
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
