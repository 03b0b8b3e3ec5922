// A request counter in Redis, shared exactly by every instance on the same Redis, that counts in process
// while Redis does not answer. Failing open to a local counter keeps the service answering with its limit
// headers through an outage, and it goes back to Redis by itself once the client is ready again.
//
// The hits of one event-loop turn go to Redis as one script call (the counters, each with how many hits it
// takes), not one call per request: each request still gets its own place in its window's count, so the
// allowance stays exact, and a busy key or many keys cost Redis and this process one command per turn
// instead of one per request. While a call is in flight, later hits wait for its answer and then go out
// together (group commit), so the busier the server, the larger and fewer the calls (docs/decisions/upstream-path.md,
// "One script call per turn"). The counters keep rate-limit-redis's layout (an integer with the window as
// its PX expiry), so counters already in Redis carry on.
import type { RedisClientType } from 'redis';
import type { Logger } from 'pino';
import { MemoryCounter, type Counter, type Hit } from './counter.js';
import { RedisScript } from '../infra/redis-script.js';
import { answeredWithin, type RedisHealth } from '../infra/redis.js';

// KEYS: the counters; ARGV[1]: the window in ms; ARGV[1 + i]: the hits KEYS[i] takes. Answers, per counter,
// its count after them and the ms left in its window. A counter with no window (absent, expired, or left
// without an expiry by a refund after it closed) opens one at this turn's hits.
const INCREMENT = new RedisScript(`
local window = tonumber(ARGV[1])
local out = {}
for i, key in ipairs(KEYS) do
  local n = tonumber(ARGV[i + 1])
  local ttl = redis.call('PTTL', key)
  if ttl <= 0 then
    redis.call('SET', key, n, 'PX', window)
    out[2 * i - 1], out[2 * i] = n, window
  else
    out[2 * i - 1], out[2 * i] = redis.call('INCRBY', key, n), ttl
  end
end
return out`);

// KEYS[1]: a counter. Answers its count (false when absent) and the ms left in its window.
const GET = new RedisScript(`return { redis.call('GET', KEYS[1]), redis.call('PTTL', KEYS[1]) }`);

/** The hits of one counter waiting for the next call, in the order they came. */
interface Pending {
  key: string;
  waiters: ((hit: Hit) => void)[];
}

// A script call's keys are bounded, so one turn with very many distinct clients stays a few short scripts.
const MAX_KEYS_PER_CALL = 256;
// A Redis that stops answering without closing the connection (paused, swapping, a network that drops
// packets) is given up on after this long: the call's requests are counted in process, like an outage.
const CALL_WAIT_MS = 1000;

export class RedisCounter implements Counter {
  private readonly memory: MemoryCounter;
  private readonly window: string;
  private batch = new Map<string, Pending>();
  /** The flush due at the end of this turn; none while calls are in flight (the last answer flushes). */
  private flushing: NodeJS.Immediate | undefined;
  private inFlight = 0;

  constructor(
    private readonly redis: RedisClientType,
    windowMs: number,
    private readonly prefix: string,
    private readonly health: RedisHealth,
    private readonly log: Logger,
  ) {
    this.memory = new MemoryCounter(windowMs);
    this.window = String(windowMs);
  }

  hit(key: string): Hit | Promise<Hit> {
    if (!this.health.ready()) return this.memory.hit(key);
    let pending = this.batch.get(key);
    if (pending === undefined) {
      pending = { key, waiters: [] };
      this.batch.set(key, pending);
      // At the end of the turn (the check phase), after every request that was ready has been read; or,
      // while a call is in flight, as soon as it is answered (group commit: one call at a time).
      if (this.inFlight === 0) this.flushing ??= setImmediate(() => this.flush());
    }
    const waiters = pending.waiters;
    return new Promise<Hit>((resolve) => waiters.push(resolve));
  }

  async refund(key: string): Promise<void> {
    if (this.health.ready()) {
      try {
        await answeredWithin(this.redis.sendCommand(['DECR', this.prefix + key]), CALL_WAIT_MS, 'DECR');
        return;
      } catch (err) {
        this.fallback('decrement', err);
      }
    }
    this.memory.refund(key);
  }

  async peek(key: string): Promise<Hit | undefined> {
    if (this.health.ready()) {
      try {
        const [hits, ttl] = (await answeredWithin(GET.run(this.redis, [this.prefix + key], []), CALL_WAIT_MS, 'counter GET')) as [
          string | null,
          number,
        ];
        return hits !== null && ttl > 0 ? { hits: Number(hits), resetAt: Date.now() + ttl } : undefined;
      } catch (err) {
        this.fallback('get', err);
      }
    }
    return this.memory.peek(key);
  }

  close(): void {
    this.memory.close();
  }

  private flush() {
    this.flushing = undefined;
    if (this.batch.size === 0) return;
    const all = [...this.batch.values()];
    this.batch = new Map();
    for (let i = 0; i < all.length; i += MAX_KEYS_PER_CALL) {
      this.inFlight++;
      void this.send(all.slice(i, i + MAX_KEYS_PER_CALL)).finally(() => {
        if (--this.inFlight === 0) this.flush();
      });
    }
  }

  private send(counters: Pending[]): Promise<void> {
    const keys = counters.map((c) => this.prefix + c.key);
    const args = [this.window, ...counters.map((c) => String(c.waiters.length))];
    return answeredWithin(INCREMENT.run(this.redis, keys, args), CALL_WAIT_MS, 'counter script')
      .then((reply) => {
        // Checked before any request is answered, so a reply of another shape falls back whole.
        if (!Array.isArray(reply) || reply.length !== 2 * counters.length || !reply.every(Number.isInteger))
          throw new Error(`unexpected reply to the counters' script: ${String(reply).slice(0, 100)}`);
        const out = reply as number[];
        const now = Date.now();
        counters.forEach((c, i) => {
          const resetAt = now + out[2 * i + 1];
          const first = out[2 * i] - c.waiters.length;
          // The requests of one counter take their places in the order they came.
          c.waiters.forEach((resolve, j) => resolve({ hits: first + j + 1, resetAt }));
        });
      })
      .catch((err: unknown) => {
        this.fallback('increment', err);
        for (const c of counters) for (const resolve of c.waiters) resolve(this.memory.hit(c.key));
      });
  }

  private fallback(op: string, err: unknown) {
    this.health.failed(err);
    this.log.warn({ op, prefix: this.prefix, err: (err as Error).message }, 'rate-limit counter: Redis failed, counting in process');
  }
}
