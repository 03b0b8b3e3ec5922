// Composes middlewares into one, so the engine can route with a Map lookup instead of Express walking a
// layer per endpoint on every request.
import type { Request, Response, NextFunction, RequestHandler } from 'express';

export function chain(handlers: RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, done: NextFunction) => {
    let i = 0;
    const next = (err?: unknown) => {
      if (err !== undefined && err !== null) return done(err);
      const h = handlers[i++];
      if (!h) return done();
      try {
        const out = h(req, res, next) as unknown;
        if (out instanceof Promise) out.catch(done);
      } catch (e) {
        done(e);
      }
    };
    next();
  };
}
