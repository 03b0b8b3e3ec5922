// A tiny FIFO lock: at most one holder, a bounded queue and a bounded wait. Used where the upstream
// allows one call in flight per key (trace.moe's free tier answers 402 to a second concurrent search).
import { upstreamBusy } from '../../engine/adapter.js';

export interface Lock {
  /** Waits for the lock; resolves to its release function. Full queue, too long a wait → 503 with Retry-After. */
  acquire(signal?: AbortSignal): Promise<() => void>;
}

export function oneAtATime(opts: { maxQueue: number; maxWaitMs: number; busyMessage: string }): Lock {
  let held = false;
  const queue: Array<() => void> = [];
  const retryAfter = Math.max(1, Math.ceil(opts.maxWaitMs / 1000));

  const release = () => {
    const next = queue.shift();
    if (next) next();
    else held = false;
  };

  return {
    acquire(signal) {
      if (!held) {
        held = true;
        return Promise.resolve(once(release));
      }
      if (queue.length >= opts.maxQueue) return Promise.reject(upstreamBusy(opts.busyMessage, retryAfter));
      return new Promise((resolve, reject) => {
        const leave = (err: Error) => {
          const i = queue.indexOf(grant);
          if (i >= 0) queue.splice(i, 1);
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          reject(err);
        };
        // Handed the lock by release(): still `held`, now ours.
        const grant = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(once(release));
        };
        const onAbort = () => leave(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
        const timer = setTimeout(() => leave(upstreamBusy(opts.busyMessage, retryAfter)), opts.maxWaitMs);
        queue.push(grant);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
