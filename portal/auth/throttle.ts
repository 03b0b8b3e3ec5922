// Sign-in and sign-up throttling (OWASP Authentication cheat sheet), on the engine's counters (Redis shared
// by every instance, or in process and kept in the store, so a restart hands nobody fresh tries).
// Sign-in: failed attempts are counted in fixed 15-minute windows. An attempt from a browser that holds a
// device cookie for the account (auth/device-cookies.ts, OWASP's "Slow Down Online Guessing Attacks
// with Device Cookies") counts on that device's own small allowance and on the account's ceiling for all
// its trusted devices together (so proofs gathered in many browsers add no guesses); every other attempt
// counts per client IP and on the account's lockout of untrusted clients (by the email typed, so an
// unknown email is counted like a known one). Past an allowance the next attempt is answered 429 without
// checking the password, until its window closes: an attacker who locks an account out of untrusted
// browsers leaves its owner's own browser signing in. A success clears the run of failures it was counted
// on ("in a row"), never the IP's: one's own account cannot reset the IP's count.
// Sign-up: every attempt is counted per client IP (IPv6 by /56) in one-minute windows.
import { ipKeyGenerator } from 'express-rate-limit';
import type { Counter } from '../../engine/access/counter.js';
import { counterIn, readBack, type CounterHome } from '../../engine/access/counter-home.js';
import { normalEmail } from '../accounts/accounts.js';

const WINDOW_MS = 15 * 60_000;
export const MAX_FAILURES = 10;
/** A trusted browser's own allowance of failures per window. */
export const DEVICE_MAX_FAILURES = 5;
const SIGNUP_WINDOW_MS = 60_000;

/**
 * One sign-in attempt: from where, for which email, and, when the browser brings a live proof for the
 * email's account, the device cookie's id and that account.
 */
export interface Attempt {
  ip: string | undefined;
  email: string;
  device?: { id: string; accountId: string };
}

export class SignInThrottle {
  readonly ready: Promise<void>;

  constructor(private readonly counter: Counter) {
    this.ready = readBack(counter);
  }

  static create(o: CounterHome): SignInThrottle {
    return new SignInThrottle(counterIn(o, 'signin', WINDOW_MS));
  }

  /** The counters an attempt counts on, each with its allowance. */
  private keys(a: Attempt): [string, number][] {
    if (a.device)
      return [
        [`dev:${a.device.id}`, DEVICE_MAX_FAILURES],
        [`devs:${a.device.accountId}`, MAX_FAILURES],
      ];
    return [
      [`ip:${a.ip ?? 'unknown'}`, MAX_FAILURES],
      [`acct:${normalEmail(a.email)}`, MAX_FAILURES],
    ];
  }

  /** When the next attempt is allowed (epoch ms), or undefined when it is allowed now. */
  async blockedUntil(a: Attempt): Promise<number | undefined> {
    let until: number | undefined;
    for (const [key, max] of this.keys(a)) {
      const w = await this.counter.peek(key);
      if (w && w.hits >= max) until = Math.max(until ?? 0, w.resetAt);
    }
    return until;
  }

  async failed(a: Attempt): Promise<void> {
    await Promise.all(this.keys(a).map(([k]) => this.counter.hit(k)));
  }

  /** Clears the runs of failures the attempt counted on, but the IP's. */
  async succeeded(a: Attempt): Promise<void> {
    for (const [key] of this.keys(a)) {
      if (key.startsWith('ip:')) continue;
      const w = await this.counter.peek(key);
      for (let i = 0; i < (w?.hits ?? 0); i++) await this.counter.refund(key);
    }
  }

  async close(): Promise<void> {
    await this.counter.close();
  }
}

export class SignUpThrottle {
  readonly ready: Promise<void>;

  constructor(
    private readonly counter: Counter,
    /** Sign-ups allowed per client IP per minute. */
    readonly max: number,
  ) {
    this.ready = readBack(counter);
  }

  static create(o: CounterHome & { max: number }): SignUpThrottle {
    return new SignUpThrottle(counterIn(o, 'signup', SIGNUP_WINDOW_MS), o.max);
  }

  /** Counts a sign-up from `ip`: undefined when it may go ahead, else when the next one may (epoch ms). */
  async attempt(ip: string | undefined): Promise<number | undefined> {
    const w = await this.counter.hit(`ip:${ipKeyGenerator(ip ?? '0.0.0.0')}`);
    return w.hits > this.max ? w.resetAt : undefined;
  }

  async close(): Promise<void> {
    await this.counter.close();
  }
}
