// A request counter in Redis, shared exactly by every instance on the same Redis, that counts in process
// while Redis does not answer and hands those counts to Redis once it answers again.
//
// The hits of one event-loop turn go to Redis as one script call (the counters, each with how many hits it
// takes), not one call per request: each request still gets its own place in its window's count, so the
// allowance stays exact, and a busy key or many keys cost Redis and this process one command per turn
// instead of one per request. While a call is in flight, later hits wait for its answer and then go out
// together (group commit), so the busier the server, the larger and fewer the calls (docs/decisions/upstream-path.md,
// "One script call per turn"). The counters keep rate-limit-redis's layout (an integer with the window as
// its PX expiry), so counters already in Redis carry on.
//
// Through an outage (docs/decisions/redis-outages.md): every figure Redis answers is kept in process, so a
// request Redis cannot count is counted from the last figure seen for its counter, never from zero; and each
// such request weighs as many hits as there are instances on this Redis (engine/infra/redis-peers.ts), so
// each instance admits its share of what was left and the instances together stay within the allowance.
// The hits counted meanwhile are owed to Redis and handed over when it answers again. Every call carries an
// id that Redis records as applied, in the same script, so a call whose answer was lost (a timeout, a cut
// connection) is sent again under its id and counts once, whether or not the first sending ran.
import { randomUUID } from 'node:crypto';
import type { RedisClientType } from 'redis';
import type { Logger } from 'pino';
import { MemoryCounter, type Counter, type Hit } from './counter.js';
import { RedisScript } from '../infra/redis-script.js';
import { answeredWithin, type RedisHealth } from '../infra/redis.js';

// KEYS[1]: this counter's set of applied call ids (per process); KEYS[2..]: the counters.
// ARGV[1]: the window in ms; ARGV[2]: how long the set of ids lives; ARGV[3]: the lowest id that may still
// be sent again (lower ones are forgotten); then the calls: id, how many counters, and per counter its
// index in KEYS and the hits it takes. A call already applied is skipped whole.
// Answers, per counter, its count after all calls and the ms left in its window. A counter with no window
// (absent, expired, or left without an expiry by a refund after it closed) opens one at the hits it takes.
const APPLY = new RedisScript(`
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[3])
local i = 4
while i <= #ARGV do
  local fresh = redis.call('ZADD', KEYS[1], 'NX', ARGV[i], ARGV[i]) == 1
  local m = tonumber(ARGV[i + 1])
  i = i + 2
  for j = 1, m do
    if fresh then
      local key = KEYS[tonumber(ARGV[i])]
      local n = tonumber(ARGV[i + 1])
      if redis.call('PTTL', key) <= 0 then
        if n > 0 then redis.call('SET', key, n, 'PX', window) end
      else
        redis.call('INCRBY', key, n)
      end
    end
    i = i + 2
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local out = {}
for k = 2, #KEYS do
  out[2 * k - 3] = tonumber(redis.call('GET', KEYS[k]) or '0')
  out[2 * k - 2] = redis.call('PTTL', KEYS[k])
end
return out`);

// KEYS[1]: a counter. Answers its count (false when absent) and the ms left in its window.
const GET = new RedisScript(`return { redis.call('GET', KEYS[1]), redis.call('PTTL', KEYS[1]) }`);

/** The hits of one counter waiting for the next call, in the order they came. */
interface Pending {
  key: string;
  waiters: ((hit: Hit) => void)[];
}

/** Hits sent to Redis under one id, by counter. */
interface Part {
  id: number;
  hits: Map<string, number>;
}

/** What a counter was counted in process since Redis last answered for it: `n` hits on top of `base`. */
interface Local {
  base: number;
  n: number;
  resetAt: number;
}

// A script call's keys are bounded, so one turn with very many distinct clients stays a few short scripts.
const MAX_KEYS_PER_CALL = 256;
// A Redis that stops answering without closing the connection (paused, swapping, a network that drops
// packets) is given up on after this long: the call's requests are counted in process, like an outage.
const CALL_WAIT_MS = 1000;
// How often the counts owed are offered to Redis when no request comes to carry them.
const REPAY_MS = 1000;

export class RedisCounter implements Counter {
  private readonly memory: MemoryCounter;
  private readonly windowMs: number;
  private readonly applied: string;
  private batch = new Map<string, Pending>();
  /** The flush due at the end of this turn; none while calls are in flight (the last answer flushes). */
  private flushing: NodeJS.Immediate | undefined;
  private inFlight = 0;
  private nextId = 1;
  /** Calls whose answer was lost: sent again under their ids until Redis answers. */
  private unsure: Part[] = [];
  /** Hits counted in process while Redis was not ready, not yet sent (refunds make them negative). */
  private owed = new Map<string, number>();
  private readonly local = new Map<string, Local>();
  private repaying: Promise<void> | undefined;
  private readonly repayer: NodeJS.Timeout;

  constructor(
    private readonly redis: RedisClientType,
    windowMs: number,
    private readonly prefix: string,
    private readonly health: RedisHealth,
    private readonly log: Logger,
  ) {
    this.memory = new MemoryCounter(windowMs);
    this.windowMs = windowMs;
    this.applied = `${prefix}~applied:${randomUUID()}`;
    this.repayer = setInterval(() => void this.repay(), REPAY_MS);
    this.repayer.unref();
  }

  hit(key: string): Hit | Promise<Hit> {
    if (!this.health.ready()) return this.counted(key, true);
    if (this.owes()) void this.repay();
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
    const l = this.local.get(key);
    if (l !== undefined && l.n > 0) l.n--;
    this.owed.set(key, (this.owed.get(key) ?? 0) - 1);
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
    const w = this.memory.peek(key);
    return w && this.weighed(key, w);
  }

  /** Hands what is owed to Redis when it answers (within a second), then stops the timers; answers how many counters it could not hand over. */
  async close(): Promise<number> {
    clearInterval(this.repayer);
    if (this.health.ready() && this.owes()) await this.repay();
    this.memory.close();
    return new Set([...this.owed.keys(), ...this.unsure.flatMap((p) => [...p.hits.keys()])]).size;
  }

  private owes(): boolean {
    return this.owed.size > 0 || this.unsure.length > 0;
  }

  /**
   * Counts one request in process: on top of the last figure Redis gave for this counter, each request
   * weighing one hit per instance on this Redis. `owe`: the hit is Redis's to learn (not already in a call
   * sent under an id).
   */
  private counted(key: string, owe: boolean): Hit {
    const w = this.memory.hit(key);
    let l = this.local.get(key);
    if (l === undefined || l.resetAt !== w.resetAt) this.local.set(key, (l = { base: w.hits - 1, n: 0, resetAt: w.resetAt }));
    l.n++;
    if (owe) this.owed.set(key, (this.owed.get(key) ?? 0) + 1);
    return this.weighed(key, w);
  }

  private weighed(key: string, w: Hit): Hit {
    const l = this.local.get(key);
    if (l === undefined || l.resetAt !== w.resetAt) return w;
    return { hits: l.base + l.n * Math.max(1, this.health.peers?.() ?? 1), resetAt: w.resetAt };
  }

  /** Keeps Redis's figure of a counter, the one an outage counts on from. */
  private seen(key: string, hits: number, ttl: number, now: number) {
    if (ttl <= 0) return;
    this.memory.restore(key, { hits, resetAt: now + ttl });
    this.local.delete(key);
  }

  /** Sends what is owed (the calls whose answer was lost, and the hits counted in process) in one call. */
  private repay(): Promise<void> {
    if (this.repaying !== undefined || !this.owes() || !this.health.ready()) return this.repaying ?? Promise.resolve();
    const now = Date.now();
    if (this.owed.size) {
      this.unsure.push({ id: this.nextId++, hits: this.owed });
      this.owed = new Map();
    }
    // A window that closed meanwhile is over: its hits no longer count against anything (the call's id is
    // still sent, so a late first sending of it is skipped).
    for (const p of this.unsure) for (const [key, n] of p.hits) if (n === 0 || this.memory.peek(key) === undefined) p.hits.delete(key);
    const parts = this.unsure;
    this.repaying = this.apply(parts)
      .then((reply) => {
        this.unsure = this.unsure.filter((p) => !parts.includes(p));
        for (const [key, [hits, ttl]] of reply) this.seen(key, hits, ttl, now);
        this.log.info({ prefix: this.prefix, calls: parts.length }, 'rate-limit counter: counts made without Redis handed to it');
      })
      .catch((err: unknown) => this.fallback('repay', err))
      .finally(() => {
        this.repaying = undefined;
        if (this.inFlight === 0) this.flush();
      });
    return this.repaying;
  }

  /** Runs calls in one script; answers each counter's count and ms left. */
  private async apply(parts: Part[]): Promise<Map<string, [number, number]>> {
    const keys: string[] = [];
    const index = new Map<string, number>();
    // Ids below the oldest call that may still be sent again are forgotten.
    const oldest = Math.min(this.nextId, ...this.unsure.map((p) => p.id), ...parts.map((p) => p.id));
    const args = [String(this.windowMs), String(this.windowMs + 60_000), String(oldest)];
    for (const p of parts) {
      args.push(String(p.id), String(p.hits.size));
      for (const [key, n] of p.hits) {
        let i = index.get(key);
        if (i === undefined) index.set(key, (i = keys.push(key) + 1));
        args.push(String(i), String(n));
      }
    }
    const reply = await answeredWithin(
      APPLY.run(this.redis, [this.applied, ...keys.map((k) => this.prefix + k)], args),
      CALL_WAIT_MS,
      'counter script',
    );
    // Checked before any request is answered, so a reply of another shape falls back whole.
    if (!Array.isArray(reply) || reply.length !== 2 * keys.length || !reply.every(Number.isInteger))
      throw new Error(`unexpected reply to the counters' script: ${String(reply).slice(0, 100)}`);
    const out = reply as number[];
    return new Map(keys.map((key, i) => [key, [out[2 * i], out[2 * i + 1]]]));
  }

  private flush() {
    this.flushing = undefined;
    // The counts owed go first, so the figures the next call answers include them.
    if (this.batch.size === 0 || this.repaying !== undefined) return;
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
    const part: Part = { id: this.nextId++, hits: new Map(counters.map((c) => [c.key, c.waiters.length])) };
    return this.apply([part])
      .then((reply) => {
        const now = Date.now();
        for (const c of counters) {
          const [total, ttl] = reply.get(c.key)!;
          this.seen(c.key, total, ttl, now);
          const resetAt = now + ttl;
          const first = total - c.waiters.length;
          // The requests of one counter take their places in the order they came.
          c.waiters.forEach((resolve, j) => resolve({ hits: first + j + 1, resetAt }));
        }
      })
      .catch((err: unknown) => {
        this.fallback('increment', err);
        // Whether the call ran is unknown: it is sent again under its id, which Redis applies once.
        this.unsure.push(part);
        for (const c of counters) for (const resolve of c.waiters) resolve(this.counted(c.key, false));
      });
  }

  private fallback(op: string, err: unknown) {
    this.health.failed(err);
    this.log.warn({ op, prefix: this.prefix, err: (err as Error).message }, 'rate-limit counter: Redis failed, counting in process');
  }
}
