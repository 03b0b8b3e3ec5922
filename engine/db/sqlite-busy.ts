// Two connections of one SQLite file in one process (the tables', the counters' store) must never wait for
// each other with SQLite's own busy wait: it blocks the event loop, which the holder of the lock may need to
// finish. A locked write is tried again a few milliseconds later instead.
import type { DatabaseSync } from 'node:sqlite';
import { setTimeout as pause } from 'node:timers/promises';

const RETRY_MS = 5;

const isBusy = (err: unknown) => (err as { errcode?: number }).errcode === 5 || /database is locked/.test(String((err as Error).message));

/** Runs `write`, again every few milliseconds while the file is locked, for at most `giveUpMs`. */
export async function whenFree<T>(write: () => T | Promise<T>, giveUpMs: number): Promise<T> {
  const giveUp = Date.now() + giveUpMs;
  for (;;) {
    try {
      return await write();
    } catch (err) {
      if (!isBusy(err) || Date.now() >= giveUp) throw err;
      await pause(RETRY_MS);
    }
  }
}

/**
 * Rolls back the transaction `db` holds, if it still holds one: SQLite ends a transaction itself on some
 * errors (SQLITE_FULL, SQLITE_IOERR), and a ROLLBACK then fails with "cannot rollback - no transaction is
 * active", which must never take the place of the error that ended it (the caller throws that one).
 */
export function rollBack(db: DatabaseSync): void {
  if (!db.isTransaction) return;
  try {
    db.exec('ROLLBACK');
  } catch {
    // The error that brought us here is the one to tell.
  }
}
