// A pool of server keys for one upstream (UPSTREAM_<ID>_KEYS). Keys are handed out round-robin so the
// load spreads; a key the provider refuses or throttles sits out a cool-down instead of failing every
// request that would have drawn it.

export class KeyPool {
  private readonly keys: string[];
  private readonly coolUntil = new Map<string, number>();
  private next = 0;

  constructor(
    keys: string[],
    private readonly now: () => number = Date.now,
  ) {
    this.keys = [...new Set(keys.map((k) => k.trim()).filter(Boolean))];
  }

  get size(): number {
    return this.keys.length;
  }

  /** All keys, longest first: the order in which they are scrubbed from logged text. */
  secrets(): string[] {
    return [...this.keys].sort((a, b) => b.length - a.length);
  }

  /** The next key that is neither cooling down nor in `skip`, or undefined. */
  take(skip: ReadonlySet<string>): string | undefined {
    const t = this.now();
    for (let i = 0; i < this.keys.length; i++) {
      const idx = (this.next + i) % this.keys.length;
      const key = this.keys[idx];
      if (skip.has(key) || (this.coolUntil.get(key) ?? 0) > t) continue;
      this.next = (idx + 1) % this.keys.length;
      return key;
    }
    return undefined;
  }

  coolDown(key: string, ms: number): void {
    const until = this.now() + ms;
    this.coolUntil.set(key, Math.max(this.coolUntil.get(key) ?? 0, until));
  }

  /** Seconds until the first cooling key is usable again (at least 1). */
  retryAfterSeconds(): number {
    const t = this.now();
    let soonest = Infinity;
    for (const key of this.keys) soonest = Math.min(soonest, (this.coolUntil.get(key) ?? 0) - t);
    return Math.max(1, Math.ceil(soonest / 1000));
  }
}
