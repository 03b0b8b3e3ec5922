// The deadlines of one endpoint's calls. Every call of an endpoint is given the same time, so calls run out
// of time in the order they started: they wait in a list in that order, and one timer, set for the oldest,
// serves them all. A timer per call (setTimeout, and clearTimeout when the call answered) made an object, a
// closure and two updates of Node's timer lists on every call (docs/decisions/request-path-tuning.md, "Deadlines").

/** A piece of work under a deadline: in its Deadlines' list while its clock runs. */
export abstract class Timed {
  /** performance.now() ms when the time is up. */
  dueAt = 0;
  // The list's links, kept by Deadlines alone.
  clock: Deadlines | undefined = undefined;
  older: Timed | undefined = undefined;
  newer: Timed | undefined = undefined;

  /** Called once, when the time ran out before stop(). */
  abstract expire(): void;

  /** Stops the clock; false when it had already stopped or run out. */
  stop(): boolean {
    return this.clock !== undefined && this.clock.remove(this);
  }
}

export class Deadlines {
  private oldest: Timed | undefined = undefined;
  private newest: Timed | undefined = undefined;
  private timer: NodeJS.Timeout | undefined = undefined;

  /** `ms`: the time each piece of work is given. */
  constructor(readonly ms: number) {}

  /** True when no clock runs. */
  get empty(): boolean {
    return this.oldest === undefined;
  }

  /** Starts the clock of `t`: its expire() is called in `ms` unless it is stopped first. */
  start(t: Timed): void {
    if (t.clock !== undefined) throw new Error('the clock of this work is already running');
    t.dueAt = performance.now() + this.ms;
    t.clock = this;
    t.older = this.newest;
    if (this.newest) this.newest.newer = t;
    else this.oldest = t;
    this.newest = t;
    // Unreferenced: a call in flight keeps the process up by its socket, not by its deadline.
    this.timer ??= setTimeout(this.due, this.ms).unref();
  }

  /** Takes `t` out of the list (Timed.stop). */
  remove(t: Timed): boolean {
    if (t.clock !== this) return false;
    if (t.older) t.older.newer = t.newer;
    else this.oldest = t.newer;
    if (t.newer) t.newer.older = t.older;
    else this.newest = t.older;
    t.clock = t.older = t.newer = undefined;
    return true;
  }

  /** Runs out the clocks whose time is up, oldest first, then waits for the next oldest. The timer may fire a
   * little before performance.now() says the time is up (libuv keeps the loop's time): it is then set again. */
  private readonly due = () => {
    this.timer = undefined;
    const now = performance.now();
    let t: Timed | undefined;
    while ((t = this.oldest) !== undefined && t.dueAt <= now) {
      this.remove(t);
      t.expire();
    }
    if (this.oldest) this.timer = setTimeout(this.due, Math.max(1, Math.ceil(this.oldest.dueAt - now))).unref();
  };
}
