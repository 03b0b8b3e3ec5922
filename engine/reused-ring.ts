// The newest `size` entries of something seen on every request, whose objects are reused once the ring is
// full: recording stores no new object in a long-lived structure (each would be one more old-to-new pointer
// for every scavenge to visit, and garbage on every request). The usage history's recent calls
// (features/usage/usage.ts) and the endpoint monitor's recent answers (features/health/monitor.ts).
export class ReusedRing<T extends object> {
  private readonly items: T[] = [];
  private next = 0;

  /** `blank` makes an entry while the ring fills; from then on the oldest is handed out again. */
  constructor(
    private readonly size: number,
    private readonly blank: () => T,
  ) {}

  /** The entry for the newest: the caller fills in every field. */
  slot(): T {
    const item = this.items.length < this.size ? this.items[this.items.push(this.blank()) - 1] : this.items[this.next];
    this.next = (this.next + 1) % this.size;
    return item;
  }

  /** Oldest first. The entries themselves: copy what must outlive the next slot(). */
  entries(): T[] {
    return this.items.length < this.size ? this.items : [...this.items.slice(this.next), ...this.items.slice(0, this.next)];
  }
}
