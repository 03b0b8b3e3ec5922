// The bounds of media links, per key and by its plan: streams open at once (counted in this process: a
// stream lives on one instance) and bytes a day (UTC), counted in the shared store so every instance sees
// them. A stream is counted once it ends, so the day's bound may be passed by the streams already open.
import { ApiError } from '../../engine/errors.js';
import type { MediaConfig } from '../../engine/config.js';
import type { Store } from '../../engine/store/types.js';

const COLL = 'media-bytes';
const DAY_MS = 86_400_000;

export interface StreamLimits {
  /** Opens a stream for `keyId`, or throws 429; the release takes the bytes it sent. */
  open(keyId: string, plan: string): Promise<(bytes: number) => void>;
}

const quota = (message: string, retryAfterSeconds: number) => new ApiError('quota', message, { 'Retry-After': String(retryAfterSeconds) });

export function streamLimits(config: Pick<MediaConfig, 'streams' | 'dailyBytes'>, store: Store): StreamLimits {
  const open = new Map<string, number>();
  const streamsOf = (plan: string) => config.streams.plans[plan] ?? config.streams.default;
  const bytesOf = (plan: string) => config.dailyBytes.plans[plan] ?? config.dailyBytes.default;
  const dayOf = (keyId: string, now: number) => `${keyId}:${new Date(now).toISOString().slice(0, 10)}`;

  return {
    async open(keyId, plan) {
      const now = Date.now();
      const busy = open.get(keyId) ?? 0;
      if (busy >= streamsOf(plan)) throw quota(`At most ${streamsOf(plan)} media streams at once on this plan`, 5);
      const day = dayOf(keyId, now);
      const spent = (await store.counters(COLL, day)).bytes ?? 0;
      if (spent >= bytesOf(plan)) {
        const untilTomorrow = Math.ceil((DAY_MS - (now % DAY_MS)) / 1000);
        throw quota(`This plan's media bytes for today (${Math.round(bytesOf(plan) / 1048576)} MB) are used up`, untilTomorrow);
      }
      // Counted again after the await: two streams may have opened meanwhile.
      const now2 = (open.get(keyId) ?? 0) + 1;
      if (now2 > streamsOf(plan)) throw quota(`At most ${streamsOf(plan)} media streams at once on this plan`, 5);
      open.set(keyId, now2);
      let released = false;
      return (bytes) => {
        if (released) return;
        released = true;
        const left = (open.get(keyId) ?? 1) - 1;
        if (left > 0) open.set(keyId, left);
        else open.delete(keyId);
        if (bytes > 0)
          store.write([{ kind: 'add', coll: COLL, id: day, add: { bytes }, ttlMs: 2 * DAY_MS }]).catch(() => {
            // A lost count only lets this key stream a little more today.
          });
      };
    },
  };
}
