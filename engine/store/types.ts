// What must be shared and fast, and nothing else: counters (usage, throttles), the meter's windows kept
// across restarts, capped lists of recent calls, and a change signal heard by every process on the same
// store (the CLI's changes included). Redis when REDIS_URL is set, so every instance shares it; SQLite under
// DATA_DIR otherwise (node:sqlite). Records (accounts, keys, sessions, …) live in the tables (engine/db/).

export interface CounterAdd {
  kind: 'add';
  coll: string;
  id: string;
  /** Field → amount to add. */
  add: Record<string, number>;
  /** The counter set is dropped this long after its last write. */
  ttlMs: number;
}

export interface ListPush {
  kind: 'push';
  list: string;
  /** Newest last. */
  items: string[];
  /** The list keeps only its newest `cap` items. */
  cap: number;
  ttlMs: number;
}

export interface TempPut {
  kind: 'temp';
  coll: string;
  id: string;
  doc: unknown;
  ttlMs: number;
}

export type WriteOp = CounterAdd | ListPush | TempPut;

export interface Store {
  readonly kind: 'sqlite' | 'redis';
  /** Where it lives, for logs and messages (a file path, or the Redis URL without credentials). */
  readonly where: string;

  // Short-lived documents (the meter's windows), written by write()'s 'temp' ops.
  /** Every short-lived document of a collection that has not expired, with its id (read at boot). */
  tempEntries<T>(coll: string): Promise<[string, T][]>;

  /**
   * Counters and capped lists in one round trip (a Redis transaction, one SQLite transaction): all or none.
   * `once`: an id under which the write is applied at most once, so a write whose answer was lost can be
   * sent again (SQLite knows its outcome, so it needs none).
   */
  write(ops: WriteOp[], once?: string): Promise<void>;
  counters(coll: string, id: string): Promise<Record<string, number>>;
  /** Counter sets of several ids at once, in the order asked (missing ones are empty). */
  countersMany(coll: string, ids: string[]): Promise<Record<string, number>[]>;
  /** The newest `n` items of a list, newest first. */
  recent(list: string, n: number): Promise<string[]>;

  /** Tells every process on this store that `topic` changed (and this one at once). */
  announce(topic: string): Promise<void>;
  /** Hears announcements; '*' means "something may have changed" (SQLite sees another process's announcement). */
  onAnnounce(listener: (topic: string) => void): void;
  close(): Promise<void>;
}
