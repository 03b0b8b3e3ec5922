// Sending portal pages: the shell with the viewer and CSRF token of the request, never cached (they show
// an account's data), and an error handler that answers page errors (403, 404, 429, 500) with a page.
import type { Request, Response, NextFunction, ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';
import { html, type Safe } from '../engine/html.js';
import { page } from './layout.js';
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
    res.send(page({ title, serviceName, viewer: res.locals.viewer, csrf: res.locals.csrf, wide: o.wide, scripts: o.scripts, body }).value);
  };

  const errorPage: ErrorRequestHandler = (err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    // An error on a path whose router never ran (a CSRF refusal) still gets the pages' headers.
    if (!res.getHeader('Content-Security-Policy')) pageHeaders(req, res, () => {});
    if (err instanceof PageError) {
      res.set(err.headers);
      return send(res, err.title, html`<h1>${err.title}</h1><p>${err.detail}</p>`, { status: err.status });
    }
    const status = (err as { status?: number; statusCode?: number })?.status ?? (err as { statusCode?: number })?.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      // A body the parser refused (too large, malformed): never logged, it may hold a password.
      return send(res, 'Bad request', html`<h1>Bad request</h1><p>The form could not be read. Go back and try again.</p>`, { status });
    }
    log.error({ err: { message: (err as Error)?.message, stack: (err as Error)?.stack }, path: req.path }, 'portal: unhandled error');
    send(res, 'Something went wrong', html`<h1>Something went wrong</h1><p>The page could not be shown. Try again in a moment.</p>`, {
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
