// CSRF (OWASP CSRF Prevention cheat sheet): the synchronizer token pattern. Each session (the anonymous
// pre-session of the sign-in and sign-up forms included, against login CSRF) holds a random token; every
// state-changing request must send it back in a hidden `csrf` field or an X-CSRF-Token header (fetch), and
// it is compared in constant time. A browser's Fetch Metadata saying the request came from another site
// is refused as well (defence in depth). Own code: the tokens live in our server-side session already.
import crypto from 'node:crypto';
import type { Request, Response, NextFunction } from 'express';
import { PageError } from './pages.js';
import { formExpired } from './views/error.js';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

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

const refused = () => new PageError(403, 'This form has expired', formExpired());

/** Middleware (after the body parsers): refuses a state-changing request without this session's token. */
export function csrfProtect(req: Request, res: Response, next: NextFunction) {
  if (SAFE.has(req.method)) return next();
  if (req.get('sec-fetch-site') === 'cross-site') return next(refused());
  const expected = res.locals.session?.doc.csrf;
  const token = sent(req);
  if (!expected || !token || !same(token, expected)) return next(refused());
  next();
}
