// The fetch every request goes through: it waits and tries again after a 429 or 503 when retries are asked
// for, as long as the server's Retry-After is within bounds, and turns an answer that is not a 2xx into an
// ApiError, so that the generated client only ever sees successes.
import { errorOf, retryAfterOf } from './errors.js';

export interface RetryOptions {
  /** Tries after the first, for 429 and 503 answers. Default 2. */
  retries?: number;
  /** The longest Retry-After waited for, in seconds; a longer one is thrown at once. Default 60. */
  maxDelaySeconds?: number;
}

const sleep = (ms: number, signal: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });

export function transport(base: typeof fetch, retry: RetryOptions | undefined): typeof fetch {
  const retries = retry ? (retry.retries ?? 2) : 0;
  const maxDelay = retry?.maxDelaySeconds ?? 60;
  return async (input, init) => {
    const request = new Request(input, init);
    for (let attempt = 0; ; attempt++) {
      // A body can be read once: each try sends a copy.
      const res = await base(attempt < retries ? request.clone() : request);
      if (res.ok) return res;
      const wait = retryAfterOf(res.headers);
      if ((res.status === 429 || res.status === 503) && attempt < retries && wait !== undefined && wait <= maxDelay) {
        await res.body?.cancel();
        await sleep(wait * 1000, request.signal);
        continue;
      }
      throw await errorOf(res);
    }
  };
}
