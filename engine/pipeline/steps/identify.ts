// The identify step: which key was presented (header, then query, then body) and whose it is. An unseen
// personal key waits for the key store; every other answer is given at once, without a promise.
import type { Call } from '../call.js';
import type { Next, Step } from '../chain.js';
import { presentedKey, type Identifier } from '../../access/identify.js';

export function identify(identifier: Identifier): Step {
  return (call: Call, next: Next) => {
    const presented = presentedKey(call.req.headers, call.query, call.req.body as Record<string, unknown> | undefined);
    const identity = identifier(presented, call.req.socket);
    if (identity instanceof Promise) {
      identity.then((i) => {
        call.identity = i;
        next();
      }, next);
    } else {
      call.identity = identity;
      next();
    }
  };
}
