// The validate step: raises the body error the parse step kept, then checks the parameters against the
// endpoint's catalog entry and compiled check (engine/catalog/validate.ts) into call.params, or answers 400 with the spec's words.
import type { Call } from '../call.js';
import type { Next, Step } from '../chain.js';
import type { EndpointSpec } from '../../catalog/load.js';
import { validatorOf, type Check } from '../../catalog/validate.js';

export function validate(spec: EndpointSpec, check: Check): Step {
  const valid = validatorOf(spec, check);
  return (call: Call, next: Next) => {
    const input = call.input!;
    if (input.error) return next(input.error);
    call.params = valid(input.raw, input.files);
    next();
  };
}
