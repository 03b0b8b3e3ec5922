// How a portal route answers: a page in the shell with the viewer and CSRF token of the request, never
// cached (they show an account's data); an error handler that answers page errors (403, 404, 429, 500)
// with a page; and the helpers every route uses (async handlers, posted fields, query parameters).
import zlib from 'node:zlib';
import type { Request, Response, NextFunction, ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Safe } from '../../engine/html.js';
import { page } from './layout.js';
import { errorBody, resetWords } from './error.js';
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
  /**
   * Gzipped for a browser that takes it: only for a long page that shows nothing the request sent (the
   * reference), since compressing a page that echoes typed input beside a secret leaks the secret (BREACH).
   */
  compress?: boolean;
}

export function createPages(serviceName: string, log: Logger) {
  const send = (res: Response, title: string, body: Safe, o: SendOptions = {}) => {
    res
      .status(o.status ?? 200)
      .set('Cache-Control', 'no-store')
      .type('html');
    const theme = /(?:^|;\s*)uua_theme=(light|dark)(?:;|$)/.exec(res.req.headers.cookie ?? '')?.[1] as 'light' | 'dark' | undefined;
    const text = page({
      title,
      serviceName,
      viewer: res.locals.viewer,
      csrf: res.locals.csrf,
      wide: o.wide,
      scripts: o.scripts,
      theme,
      body,
    }).value;
    if (!o.compress) return void res.send(text);
    res.vary('Accept-Encoding');
    if (!res.req.acceptsEncodings('gzip')) return void res.send(text);
    res.set('Content-Encoding', 'gzip').send(zlib.gzipSync(text));
  };

  const errorPage: ErrorRequestHandler = (err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    // A JSON client (Stripe's webhook calls, a script) gets the envelope for anything but a page's own error.
    if (!(err instanceof PageError) && req.accepts(['json', 'html']) !== 'html') return next(err);
    // An error on a path whose router never ran (a CSRF refusal) still gets the pages' headers.
    if (!res.getHeader('Content-Security-Policy')) pageHeaders(req, res, () => {});
    if (err instanceof PageError) {
      res.set(err.headers);
      return send(res, err.title, errorBody(err.status, err.title, err.detail), { status: err.status });
    }
    const status = (err as { status?: number; statusCode?: number })?.status ?? (err as { statusCode?: number })?.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      // A body the parser refused (too large, malformed): never logged, it may hold a password.
      return send(res, 'Bad request', errorBody(status, 'Bad request', 'The form could not be read. Go back and try again.'), { status });
    }
    log.error({ err: { message: (err as Error)?.message, stack: (err as Error)?.stack }, path: req.path }, 'portal: unhandled error');
    send(res, 'Something went wrong', errorBody(500, 'Something went wrong', 'The page could not be shown. Try again in a moment.'), {
      status: 500,
    });
  };

  /**
   * Errors of the pages outside the portal (a missing page, a hosted file, /metrics) for a browser: the
   * same answer as a page in the portal's look. JSON clients, and every path under /api/, keep the JSON
   * envelope (the next handler, engine/pipeline/respond.ts).
   */
  const browserErrorPage: ErrorRequestHandler = (err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent || req.path.startsWith('/api/') || req.accepts(['json', 'html']) !== 'html') return next(err);
    const e = err as { status?: number; message?: string; headers?: Record<string, string> };
    const status = typeof e?.status === 'number' && e.status >= 400 && e.status < 600 ? e.status : undefined;
    if (!status || status === 500) return errorPage(err, req, res, next); // logged there, shown as a 500
    const { title, detail } = browserWords(status, e.message ?? '', Number(e.headers?.['Retry-After']));
    if (!res.getHeader('Content-Security-Policy')) pageHeaders(req, res, () => {});
    res.set(e.headers ?? {});
    send(res, title, errorBody(status, title, detail), { status });
  };

  return { send, errorPage, browserErrorPage };
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

/** A browser's words for an error of the error vocabulary (its own message is written for API clients). */
function browserWords(status: number, message: string, retryAfter: number): { title: string; detail: string } {
  if (status === 404)
    return { title: 'Page not found', detail: 'There is no page at this address. It may have moved, or the link may be mistyped.' };
  if (status === 401 || status === 403) return { title: 'Not allowed', detail: message || 'You may not open this page.' };
  if (status === 429)
    return {
      title: 'Too many requests',
      detail: `You have used this allowance up for now. Try again ${Number.isFinite(retryAfter) && retryAfter > 0 ? resetWords(retryAfter) : 'in a moment'}.`,
    };
  if (status >= 500) return { title: 'Temporarily unavailable', detail: 'This could not be shown just now. Try again in a moment.' };
  return { title: 'Bad request', detail: message || 'The request could not be read.' };
}
