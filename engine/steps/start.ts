// The start step: the Call of an API request (engine/call.ts), kept on res.locals, and its X-Request-Id.
import type { Request, Response, NextFunction, RequestHandler } from 'express';
import { Call, type CallObserver } from '../call.js';

export function start(endpoint: string, observe: CallObserver): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const call = new Call(endpoint, req.method, req, observe);
    res.locals.call = call;
    res.setHeader('X-Request-Id', call.id);
    next();
  };
}
