// The cache step: for an endpoint with a `cache:` TTL (or one the composition root gives it), an answer to the
// same parameters is served from the response cache (engine/upstream/response-cache.ts), and concurrent misses,
// of every instance on the Redis, share one adapter call; otherwise, and
// for uploads, media and answers the adapter marks uncacheable, the adapter runs every time.
import type { Call, Outcome } from '../call.js';
import type { Next, Step } from '../chain.js';
import type { EndpointSpec } from '../../catalog/load.js';
import { parseDuration } from '../../duration.js';
import { answerCodec } from '../respond.js';
import { cacheKeyOf, type ResponseCache } from '../../upstream/response-cache.js';
import type { Invoke } from './invoke.js';

// Kept serialised: a hit is spliced into the envelope, never parsed and serialised again.
const outcomeCodec = answerCodec<Outcome>();

/**
 * `lookedUp` hears each look-up of the cache, hit or miss (the operator metrics); a call that shared
 * another's is a hit. `ttlMs` replaces the entry's `cache:` (an operator's setting for a kind of endpoint).
 */
export function cached(
  spec: EndpointSpec,
  cache: ResponseCache,
  invoke: Invoke,
  lookedUp: (hit: boolean) => void = () => {},
  ttlMs = spec.cache ? parseDuration(spec.cache) : 0,
): Step {
  // Another instance's call is waited for as long as the endpoint's deadline, and a little more.
  const lockMs = parseDuration(spec.timeout ?? '30s') + 1000;
  // The validated params hold only the catalog's names (engine/catalog/validate.ts).
  const keyOf = cacheKeyOf(spec.id, Object.keys(spec.params));
  const produce = (call: Call) => () => {
    lookedUp(false);
    return new Promise<{ value: Outcome; cacheable: boolean }>((resolve, reject) =>
      invoke(call, (err) => {
        if (err !== undefined && err !== null) return reject(err instanceof Error ? err : new Error(String(err)));
        const out = call.outcome!;
        resolve({ value: out, cacheable: out.cacheable && !out.media });
      }),
    );
  };
  /** A miss in memory: Redis, a call shared with concurrent ones, or the adapter (promise chains: docs/decisions/upstream-path.md). */
  const miss = (call: Call, key: string): Promise<Outcome> =>
    cache.fill(key, ttlMs, produce(call), outcomeCodec, lockMs).then(({ value, cached }) => {
      if (!cached) return value;
      lookedUp(true);
      return { ...value, cached };
    });
  const done = (call: Call, next: Next) => (outcome: Outcome) => {
    call.outcome = outcome;
    next();
  };
  return (call: Call, next: Next) => {
    if (!ttlMs || Object.keys(call.input!.files).length) return invoke(call, next);
    const key = keyOf(call.params!);
    // A hit in memory is answered at once, without a promise.
    const hit = cache.get(key, outcomeCodec);
    if (hit !== undefined) {
      lookedUp(true);
      call.outcome = { ...hit, cached: true };
      return next();
    }
    miss(call, key).then(done(call, next), next);
  };
}
