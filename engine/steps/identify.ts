// The identify step: which key was presented (header, then query, then body) and whose it is. An unseen
// personal key waits for the key store; every other answer is given at once, without a promise.
import type { Request, Response, NextFunction, RequestHandler } from 'express';
import { callOf } from '../call.js';
import { presentedKey, type Identifier } from '../identify.js';

export function identify(identifier: Identifier): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const call = callOf(res);
    const identity = identifier(presentedKey(req.headers, call.query, req.body as Record<string, unknown> | undefined));
    if (identity instanceof Promise) {
      identity.then((i) => { call.identity = i; next(); }, next);
    } else {
      call.identity = identity;
      next();
    }
  };
}
