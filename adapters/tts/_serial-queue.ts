// Runs jobs one at a time, in arrival order. The eSpeak WebAssembly instance is single-threaded and keeps
// its voice as global state, so two interleaved syntheses would read each other's voice; one job at a
// time also bounds the CPU speech takes from the rest of the service. A bounded line: past `maxWaiting`
// a caller is told to come back (503 + Retry-After) rather than wait behind minutes of audio.
import { upstreamBusy, upstreamTimeout } from '../../engine/adapter.js';

/** A caller that went away or ran out of time: stop working for it (an ApiError, not a 500 in the logs). */
export function stopIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw upstreamTimeout('Speech synthesis stopped: the request was cancelled or ran out of time');
}

export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private waiting = 0;

  constructor(private readonly maxWaiting: number) {}

  /** A job whose caller went away (signal aborted) while it waited is skipped. */
  run<T>(job: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.waiting >= this.maxWaiting) {
      return Promise.reject(upstreamBusy('Speech synthesis is busy; try again in a few seconds', 5));
    }
    this.waiting++;
    const result = this.tail.then(() => {
      this.waiting--;
      stopIfAborted(signal);
      return job();
    });
    // The next job waits for this one to settle, whatever its outcome.
    this.tail = result.catch(() => undefined);
    return result;
  }

  get length(): number {
    return this.waiting;
  }
}
