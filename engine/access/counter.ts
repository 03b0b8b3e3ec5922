// Fixed-window request counters. A window opens at a client's first request and closes `windowMs` later,
// as express-rate-limit's MemoryStore and rate-limit-redis count (engine/access/redis-counter.ts counts the same
// in Redis). The in-process counter answers synchronously, so a request metered in process costs no
// promise and no event-loop turn.

export interface Hit {
  /** Requests counted in the current window, this one included. */
  hits: number;
  /** When the window closes, in epoch milliseconds. */
  resetAt: number;
}

export interface Counter {
  /** Counts one request for `key`. In process the answer is immediate; in Redis it is a promise. */
  hit(key: string): Hit | Promise<Hit>;
  /** Gives one request back (a 5xx of ours or the upstream's). */
  refund(key: string): void | Promise<void>;
  /** The open window of `key` without counting (usage pages), or undefined when none is open. */
  peek(key: string): Hit | undefined | Promise<Hit | undefined>;
  /**
   * Stops its timers; a counter that writes in the background finishes its writes first. Answers how many
   * windows it could not write (a full disk, a Redis that does not answer): their counts are lost at exit.
   */
  close(): number | Promise<number>;
}

export class MemoryCounter implements Counter {
  private readonly windows = new Map<string, Hit>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly windowMs: number) {
    // Closed windows are dropped now and then, so a day of distinct client IPs does not pile up forever.
    this.sweeper = setInterval(() => this.sweep(), Math.min(windowMs, 60_000));
    this.sweeper.unref();
  }

  hit(key: string): Hit {
    const now = Date.now();
    let w = this.windows.get(key);
    if (w === undefined || w.resetAt <= now) {
      w = { hits: 0, resetAt: now + this.windowMs };
      this.windows.set(key, w);
    }
    w.hits++;
    return { hits: w.hits, resetAt: w.resetAt };
  }

  refund(key: string): void {
    const w = this.windows.get(key);
    if (w !== undefined && w.hits > 0 && w.resetAt > Date.now()) w.hits--;
  }

  peek(key: string): Hit | undefined {
    const w = this.windows.get(key);
    return w !== undefined && w.resetAt > Date.now() ? { hits: w.hits, resetAt: w.resetAt } : undefined;
  }

  close(): number {
    clearInterval(this.sweeper);
    return 0;
  }

  /** Opens `key`'s window as it was (a window read back from the store at boot). */
  restore(key: string, w: Hit): void {
    if (w.resetAt > Date.now() && w.hits > 0) this.windows.set(key, { hits: w.hits, resetAt: w.resetAt });
  }

  /** Windows held, open or not yet swept. */
  get size(): number {
    return this.windows.size;
  }

  /** Drops closed windows (also run every minute, or every window if shorter). */
  sweep(): void {
    const now = Date.now();
    for (const [key, w] of this.windows) if (w.resetAt <= now) this.windows.delete(key);
  }
}
