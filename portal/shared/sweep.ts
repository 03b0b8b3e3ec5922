// Rows that expire (sessions, one-time links, invites, keys held for a page, claims) are treated as absent
// once past their expires_at, and deleted now and then in small batches, so no request waits on a big
// delete and no table grows with what nobody can use any more.

/** Rows deleted by one sweep at most: a table with more expired rows is emptied over several sweeps. */
export const SWEEP_BATCH = 500;
const SWEEP_EVERY_MS = 60_000;

/**
 * `run` at most once a minute per instance, in the background: a failed sweep is tried again at the next
 * chance, and never fails the request that set it off.
 */
export function sweeper(run: (now: number) => Promise<unknown>): () => void {
  let last = 0;
  return () => {
    const now = Date.now();
    if (now - last < SWEEP_EVERY_MS) return;
    last = now;
    run(now).catch(() => {
      last = 0;
    });
  };
}
