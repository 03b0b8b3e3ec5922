// Waiting that an abort signal cuts short (upstream retry back-off, paced calls).
import { upstreamTimeout, type ApiError } from '../errors.js';

/** Resolves after `ms`; rejects with `onAbort()` (default: a 504) as soon as `signal` aborts. */
export function pause(ms: number, signal?: AbortSignal, onAbort: () => ApiError = () => upstreamTimeout()): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(onAbort());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(onAbort());
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}
