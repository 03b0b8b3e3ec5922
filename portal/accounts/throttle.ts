// Sign-in throttling (OWASP Authentication cheat sheet): failed attempts are counted per client IP and per
// account (by the email typed, so an unknown email is counted like a known one) in fixed 15-minute windows,
// on the engine's counters (Redis shared by every instance, or in process and kept in the store, so a
// restart does not wipe them). After 10 failures the next
// attempt is answered 429 without checking the password, until the window closes. A success clears the
// account's run of failures ("in a row"), not the IP's: one's own account cannot reset the IP's count.
import type { Logger } from 'pino';
import { MemoryCounter, type Counter } from '../../engine/access/counter.js';
import { RedisCounter } from '../../engine/access/redis-counter.js';
import { StoredCounter } from '../../engine/access/stored-counter.js';
import type { Store } from '../../engine/store/types.js';
import type { RedisHandle } from '../../engine/infra/redis.js';
import { normalEmail } from './accounts.js';

const WINDOW_MS = 15 * 60_000;
export const MAX_FAILURES = 10;

export class SignInThrottle {
  constructor(
    private readonly counter: Counter,
    private readonly max = MAX_FAILURES,
  ) {}

  /** On Redis when there is one, otherwise in process and written to `store` (read back before `ready`). */
  static create(o: { redis?: RedisHandle; store?: Store; prefix: string; log: Logger }): {
    throttle: SignInThrottle;
    ready: Promise<void>;
  } {
    if (o.redis)
      return {
        throttle: new SignInThrottle(new RedisCounter(o.redis.client, WINDOW_MS, `${o.prefix}signin:`, o.redis, o.log)),
        ready: Promise.resolve(),
      };
    if (!o.store) return { throttle: new SignInThrottle(new MemoryCounter(WINDOW_MS)), ready: Promise.resolve() };
    const counter = new StoredCounter(WINDOW_MS, o.store, 'signin', o.log);
    return { throttle: new SignInThrottle(counter), ready: counter.load() };
  }

  private keys(ip: string | undefined, email: string) {
    return [`ip:${ip ?? 'unknown'}`, `acct:${normalEmail(email)}`];
  }

  /** When the next attempt is allowed (epoch ms), or undefined when it is allowed now. */
  async blockedUntil(ip: string | undefined, email: string): Promise<number | undefined> {
    let until: number | undefined;
    for (const key of this.keys(ip, email)) {
      const w = await this.counter.peek(key);
      if (w && w.hits >= this.max) until = Math.max(until ?? 0, w.resetAt);
    }
    return until;
  }

  async failed(ip: string | undefined, email: string): Promise<void> {
    await Promise.all(this.keys(ip, email).map((k) => this.counter.hit(k)));
  }

  async succeeded(email: string): Promise<void> {
    const key = this.keys(undefined, email)[1];
    const w = await this.counter.peek(key);
    for (let i = 0; i < (w?.hits ?? 0); i++) await this.counter.refund(key);
  }

  async close(): Promise<void> {
    await this.counter.close();
  }
}
