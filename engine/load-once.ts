// "Made on first use, then at hand": a module imported, a connection pool or an engine created when the
// first caller needs it, never at boot. Callers that come while it is being made share the one making; once
// made, `value` holds it, so a hot path can use it without waiting a turn of the microtask queue.
export class LoadOnce<T, A extends unknown[] = []> {
  private made: T | undefined;
  private making: Promise<T> | undefined;

  /**
   * `make` may throw or reject alike. `retry`: a failed making is forgotten, so the next call tries again
   * (an engine that may fail for a while); without it the failure is kept and every call gets it, as a
   * module that does not load will not load later.
   */
  constructor(
    private readonly make: (...args: A) => Promise<T>,
    private readonly opts: { retry?: boolean } = {},
  ) {}

  /** The value, made by the first call with its arguments (a later call's are not used). */
  get(...args: A): Promise<T> {
    return (this.making ??= new Promise<T>((resolve) => resolve(this.make(...args))).then(
      (made) => (this.made = made),
      (err: unknown) => {
        if (this.opts.retry) this.making = undefined;
        throw err;
      },
    ));
  }

  /** The value once made; undefined before (or after forget()). */
  get value(): T | undefined {
    return this.made;
  }

  /** True from the first get() on (made, being made, or failed), until forget(). */
  get started(): boolean {
    return this.making !== undefined;
  }

  /** Drops the value, or a failed making: the next get() makes it again. */
  forget(): void {
    this.made = undefined;
    this.making = undefined;
  }
}
