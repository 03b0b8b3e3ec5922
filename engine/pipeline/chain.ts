// Composes the steps of one API route into one function, so the engine routes with a Map look-up and
// runs its steps without Express's router walking a layer for each.
import type { Call } from './call.js';

export type Next = (err?: unknown) => void;
/** One step of the lifecycle: calls next() to go on, next(err) to stop with an error, or answers. */
export type Step = (call: Call, next: Next) => unknown;
/** Answers a call with the error a step raised (engine/pipeline/respond.ts). */
export type Fail = (err: unknown, call: Call) => void;

const NO_ANSWER = new Error('the steps ended without an answer');

export function chain(steps: Step[], fail: Fail): (call: Call) => void {
  return (call) => {
    let i = 0;
    const next: Next = (err) => {
      if (err !== undefined && err !== null) return fail(err, call);
      const step = steps[i++];
      if (step === undefined) return fail(NO_ANSWER, call);
      try {
        const out = step(call, next);
        if (out instanceof Promise) out.catch((e: unknown) => fail(e, call));
      } catch (e) {
        fail(e, call);
      }
    };
    next();
  };
}
