// Throttling of the links anyone can have mailed (OWASP Forgot Password cheat sheet: stop a flood of
// mails to one address and a flood of requests from one client): requests to send the confirmation link
// again or a reset link are counted per client IP and per address, known or not (so the answer says
// nothing about the address), in fixed one-hour windows on the engine's counters, as the sign-in throttle.
import type { Logger } from 'pino';
import { MemoryCounter, type Counter } from '../../engine/access/counter.js';
import { RedisCounter } from '../../engine/access/redis-counter.js';
import type { RedisHandle } from '../../engine/infra/redis.js';
import { normalEmail } from './accounts.js';

const WINDOW_MS = 3600_000;
/** Link mails per address per hour (sign-up's included), and link requests per client IP per hour. */
const PER_ADDRESS = 5;
const PER_IP = 20;

export class LinkThrottle {
  constructor(private readonly counter: Counter) {}

  static create(o: { redis?: RedisHandle; prefix: string; log: Logger }): LinkThrottle {
    return new LinkThrottle(
      o.redis ? new RedisCounter(o.redis.client, WINDOW_MS, `${o.prefix}links:`, o.redis, o.log) : new MemoryCounter(WINDOW_MS),
    );
  }

  /**
   * Counts one request for a link to `email` (from `ip`, when a client asked for it): undefined when it
   * may be sent, else when the next will be allowed (epoch ms).
   */
  async hit(ip: string | undefined, email: string): Promise<number | undefined> {
    const limits: [string, number][] = [[`to:${normalEmail(email)}`, PER_ADDRESS]];
    if (ip !== undefined) limits.push([`ip:${ip}`, PER_IP]);
    let until: number | undefined;
    for (const [key, max] of limits) {
      const w = await this.counter.hit(key);
      if (w.hits > max) until = Math.max(until ?? 0, w.resetAt);
    }
    return until;
  }
}
