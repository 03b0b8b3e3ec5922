// A write refused for lack of space (a full disk, a quota, SQLite's SQLITE_FULL) is neither the caller's
// fault nor a bug: it answers 507 storage_full with a Retry-After, /health says `degraded` while it lasts,
// and what need not be stored keeps answering (docs/decisions/storage-full.md). The state is the process's:
// every part writing under DATA_DIR shares the one disk.
import { ApiError } from '../errors.js';

const FULL_CODES = new Set(['ENOSPC', 'EDQUOT']);
/** SQLite's primary result code for "database or disk is full" (the low byte of an extended code). */
const SQLITE_FULL = 13;
/** A refused write counts for this long, unless a write goes through first. */
const FULL_FOR_MS = 60_000;
/** What a client is told to wait: space comes back when an operator frees it, or expired content is swept. */
const RETRY_AFTER_S = 60;

/** True for an error that says no space was left to write (on its own or as the cause of another). */
export function isStorageFull(err: unknown): boolean {
  for (
    let e = err as { code?: unknown; errcode?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 4;
    depth++
  ) {
    if (typeof e.code === 'string' && FULL_CODES.has(e.code)) return true;
    if (typeof e.errcode === 'number' && (e.errcode & 0xff) === SQLITE_FULL) return true;
    if (typeof e.message === 'string' && /database or disk is full|no space left on device/i.test(e.message)) return true;
    e = e.cause as typeof e;
  }
  return false;
}

let fullAt = 0;

export const storage = {
  /** Tells of a write refused for lack of space. */
  refused(): void {
    fullAt = Date.now();
  },
  /** Tells of a write that went through: there is space again. */
  written(): void {
    fullAt = 0;
  },
  /** `full` from a refused write until a write goes through, or a minute passes without another refusal. */
  state(): 'ok' | 'full' {
    return fullAt !== 0 && Date.now() - fullAt < FULL_FOR_MS ? 'full' : 'ok';
  },
};

/** The answer to a request whose write found no space (and the record that the disk is full). */
export function storageFull(): ApiError {
  storage.refused();
  return new ApiError('storage_full', 'The server has no space left to store this: try again later', {
    'Retry-After': String(RETRY_AFTER_S),
  });
}
