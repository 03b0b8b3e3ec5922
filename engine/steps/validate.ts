// The validate step: raises the body error the parse step kept, then checks the parameters against the
// endpoint's catalog entry (engine/validate.ts) into call.params, or answers 400 with the spec's words.
import type { Request, Response, NextFunction, RequestHandler } from 'express';
import { callOf } from '../call.js';
import type { EndpointSpec } from '../catalog.js';
import { compileValidator } from '../validate.js';

export function validate(spec: EndpointSpec): RequestHandler {
  const check = compileValidator(spec);
  return (_req: Request, res: Response, next: NextFunction) => {
    const call = callOf(res);
    const input = call.input!;
    if (input.error) return next(input.error);
    call.params = check(input.raw, input.files);
    next();
  };
}
