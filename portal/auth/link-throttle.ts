// Throttling of the links anyone can have mailed (OWASP Forgot Password cheat sheet: stop a flood of
// mails to one address and a flood of requests from one client): requests to send the confirmation link
// again or a reset link are counted per client IP and per address, known or not (so the answer says
// nothing about the address), in fixed one-hour windows on the engine's counters, as the sign-in throttle
// (kept in the store, or Redis, so a restart resets nothing).
import type { Counter } from '../../engine/access/counter.js';
import { normalEmail } from '../accounts/accounts.js';
import { counterIn, readBack, type CounterHome } from '../../engine/access/counter-home.js';

const WINDOW_MS = 3600_000;
/** Link mails per address per hour (sign-up's included), and link requests per client IP per hour. */
const PER_ADDRESS = 5;
const PER_IP = 20;

export class LinkThrottle {
  /** Settles once the counts kept in the store are read back. */
  readonly ready: Promise<void>;

  constructor(private readonly counter: Counter) {
    this.ready = readBack(counter);
  }

  static create(o: CounterHome): LinkThrottle {
    return new LinkThrottle(counterIn(o, 'links', WINDOW_MS));
  }

  async close(): Promise<void> {
    await this.counter.close();
  }

  /** Counts one request for a link from `ip` only: undefined when it may be answered, else until when (epoch ms). */
  async hitClient(ip: string | undefined): Promise<number | undefined> {
    if (ip === undefined) return undefined;
    const w = await this.counter.hit(`ip:${ip}`);
    return w.hits > PER_IP ? w.resetAt : undefined;
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
