// CSRF (OWASP CSRF Prevention cheat sheet): the synchronizer token pattern. Each session (the anonymous
// pre-session of the sign-in and sign-up forms included, against login CSRF) holds a random token; every
// state-changing request must send it back in a hidden `csrf` field or an X-CSRF-Token header (fetch), and
// it is compared in constant time. A browser's Fetch Metadata saying the request came from another site
// is refused as well (defence in depth). Own code: the tokens live in our server-side session already.
//
// A form of this site sent with a token that no longer matches (the session ended, the page was open too
// long) is not lost: expiredForm answers with what was typed, passwords left out, in a form with a fresh
// token to check and send again. Never for another site's request: that stays a plain refusal.
import crypto from 'node:crypto';
import type { Request, Response, NextFunction } from 'express';
import type { PortalContext } from '../context.js';
import { PageError } from './pages.js';
import { pageHeaders } from './security.js';
import { formExpiredBody, formRefused, type TypedField } from './error.js';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Fields given back as they were but not shown (links' tokens, where to go next). */
const CARRIED = new Set(['token', 'invite', 'next']);
const SECRET = /password|current/i;

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

/** The token a request sent: the form field `csrf` or the X-CSRF-Token header. */
function sent(req: Request): string | undefined {
  const field = (req.body as Record<string, unknown> | undefined)?.csrf;
  const value = typeof field === 'string' ? field : req.get('x-csrf-token');
  return value || undefined;
}

/** A form of this site whose token no longer matches its session. */
class FormExpired extends PageError {
  constructor() {
    super(403, 'This form has expired', 'Your session ended before the form was sent.');
  }
}

/** Middleware (after the body parsers): refuses a state-changing request without the session's token. */
export function csrfProtect(req: Request, res: Response, next: NextFunction) {
  if (SAFE.has(req.method)) return next();
  if (req.get('sec-fetch-site') === 'cross-site') return next(new PageError(403, 'This form has expired', formRefused()));
  const expected = res.locals.session?.doc.csrf;
  const token = sent(req);
  if (!expected || !token || !same(token, expected)) return next(new FormExpired());
  next();
}

/** Error middleware after csrfProtect: the expired form again, with what was typed and a fresh token. */
export function expiredForm(ctx: PortalContext) {
  return (err: unknown, req: Request, res: Response, next: NextFunction) => {
    const body = req.body as Record<string, unknown> | undefined;
    // A fetch (X-CSRF-Token) or a form of no fields: the plain refusal is all there is to say.
    if (!(err instanceof FormExpired) || !req.is('urlencoded') || !body) return next(err);
    const fields: TypedField[] = Object.entries(body)
      .filter(([name, value]) => name !== 'csrf' && typeof value === 'string')
      .map(([name, value]) => ({ name, value: SECRET.test(name) ? '' : String(value).slice(0, 4096), secret: SECRET.test(name) }));
    ctx.sessions.ensure(req, res).then((csrf) => {
      pageHeaders(req, res, () => {
        const signedOut = !res.locals.viewer && !/^\/(login|signup)\b/.test(req.originalUrl);
        const page = formExpiredBody({ action: req.originalUrl, csrf, fields, carried: CARRIED, signedOut });
        ctx.pages.send(res, 'Your session ended', page, { status: 403 });
      });
    }, next);
  };
}
