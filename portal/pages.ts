// How a portal route answers: a page in the shell with the viewer and CSRF token of the request, never
// cached (they show an account's data); an error handler that answers page errors (403, 404, 429, 500)
// with a page; and the helpers every route uses (async handlers, posted fields, query parameters).
import type { Request, Response, NextFunction, ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Safe } from '../engine/html.js';
import { page } from './views/layout.js';
import { messageBody } from './views/error.js';
import { pageHeaders } from './security.js';

/** An error shown to the visitor as a page with this status, title and message. */
export class PageError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string | Safe,
    readonly headers: Record<string, string> = {},
  ) {
    super(title);
  }
}

export interface SendOptions {
  status?: number;
  wide?: boolean;
  scripts?: string[];
}

export function createPages(serviceName: string, log: Logger) {
  const send = (res: Response, title: string, body: Safe, o: SendOptions = {}) => {
    res
      .status(o.status ?? 200)
      .set('Cache-Control', 'no-store')
      .type('html');
    const theme = /(?:^|;\s*)uua_theme=(light|dark)(?:;|$)/.exec(res.req.headers.cookie ?? '')?.[1] as 'light' | 'dark' | undefined;
    res.send(
      page({ title, serviceName, viewer: res.locals.viewer, csrf: res.locals.csrf, wide: o.wide, scripts: o.scripts, theme, body }).value,
    );
  };

  const errorPage: ErrorRequestHandler = (err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    // An error on a path whose router never ran (a CSRF refusal) still gets the pages' headers.
    if (!res.getHeader('Content-Security-Policy')) pageHeaders(req, res, () => {});
    if (err instanceof PageError) {
      res.set(err.headers);
      return send(res, err.title, messageBody(err.title, err.detail), { status: err.status });
    }
    const status = (err as { status?: number; statusCode?: number })?.status ?? (err as { statusCode?: number })?.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      // A body the parser refused (too large, malformed): never logged, it may hold a password.
      return send(res, 'Bad request', messageBody('Bad request', 'The form could not be read. Go back and try again.'), { status });
    }
    log.error({ err: { message: (err as Error)?.message, stack: (err as Error)?.stack }, path: req.path }, 'portal: unhandled error');
    send(res, 'Something went wrong', messageBody('Something went wrong', 'The page could not be shown. Try again in a moment.'), {
      status: 500,
    });
  };

  return { send, errorPage };
}

export type Pages = ReturnType<typeof createPages>;

/** Wraps an async handler so its rejection reaches the error handler. */
export const wrap =
  (fn: (req: Request, res: Response, next: NextFunction) => Promise<unknown>) => (req: Request, res: Response, next: NextFunction) => {
    fn(req, res, next).catch(next);
  };

/** A posted field as a string of at most `max` characters ('' when absent or not a string). */
export function posted(req: Request, name: string, max = 1024): string {
  const v = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v.slice(0, max) : '';
}

/** A query parameter as a string ('' when absent, repeated or not a string). */
export function queried(req: Request, name: string): string {
  const v = req.query[name];
  return typeof v === 'string' ? v : '';
}
