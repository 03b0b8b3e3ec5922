// The in-process counter made durable for the embedded default (no Redis): windows are counted in memory,
// as fast as MemoryCounter, and those that changed are written to the store (SQLite) once a second in one
// transaction, as short-lived documents that expire with their window; at boot the open windows are read
// back. A SIGTERM writes what is left (close), so a restart loses nothing; a kill -9 loses at most the
// last second of counts (docs/decisions/account-allowance.md). A write that fails is tried again every
// second, and close answers how many windows it could not write.
import type { Logger } from 'pino';
import type { Store, WriteOp } from '../store/types.js';
import { MemoryCounter, type Counter, type Hit } from './counter.js';

const FLUSH_MS = 1000;

export class StoredCounter implements Counter {
  private readonly memory: MemoryCounter;
  private dirty = new Set<string>();
  private readonly flusher: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();

  /** `coll`: the store's collection of this counter's windows (one per plan or throttle). */
  constructor(
    windowMs: number,
    private readonly store: Store,
    private readonly coll: string,
    private readonly log: Pick<Logger, 'warn'>,
  ) {
    this.memory = new MemoryCounter(windowMs);
    this.flusher = setInterval(() => void this.flush(), FLUSH_MS);
    this.flusher.unref();
  }

  /** Reads back the windows still open (before the first request is counted). */
  async load(): Promise<void> {
    for (const [key, w] of await this.store.tempEntries<Hit>(this.coll)) this.memory.restore(key, w);
  }

  hit(key: string): Hit {
    this.dirty.add(key);
    return this.memory.hit(key);
  }

  refund(key: string): void {
    this.dirty.add(key);
    this.memory.refund(key);
  }

  peek(key: string): Hit | undefined {
    return this.memory.peek(key);
  }

  /** Writes the windows that changed since the last write, in one batch. */
  flush(): Promise<void> {
    if (!this.dirty.size) return this.writing;
    const keys = this.dirty;
    this.dirty = new Set();
    const now = Date.now();
    const ops: WriteOp[] = [];
    for (const key of keys) {
      const w = this.memory.peek(key);
      if (w !== undefined && w.resetAt > now)
        ops.push({ kind: 'temp', coll: this.coll, id: key, doc: { hits: w.hits, resetAt: w.resetAt }, ttlMs: w.resetAt - now });
    }
    // A failed write (a full disk among others) is retried with the next second's changes: the windows stay
    // in memory, as they are, until one goes through.
    this.writing = this.writing
      .then(() => this.store.write(ops))
      .catch((err: Error) => {
        for (const key of keys) this.dirty.add(key);
        this.log.warn({ err: err.message, counter: this.coll }, 'counter: write failed');
      });
    return this.writing;
  }

  async close(): Promise<number> {
    this.memory.close();
    clearInterval(this.flusher);
    await this.flush();
    return this.dirty.size;
  }
}
