// Security headers of the portal's pages (helmet). Every page is served under a Content-Security-Policy of
// default-src 'self', so it loads, fetches and frames nothing from anywhere else. Only on pages and their
// assets: API answers and hosted files keep their own headers (helmet's Cross-Origin-Resource-Policy would
// stop hosted images being embedded by other sites).
import type { ServerResponse } from 'node:http';
import type { RequestHandler, Response } from 'express';
import helmet from 'helmet';

const directives = {
  'default-src': ["'self'"],
  'base-uri': ["'self'"],
  // Plus Stripe's pages when billing is on (portal/index.ts sets res.locals.formActions).
  'form-action': [
    (_req: unknown, res: ServerResponse) =>
      `'self'${(res as Response).locals.formActions ? ` ${(res as Response).locals.formActions}` : ''}`,
  ],
  'frame-ancestors': ["'none'"],
  'object-src': ["'none'"],
};
// HSTS is ignored over plain http; over https it must not bind an operator's other subdomains.
const common = { strictTransportSecurity: { maxAge: 15552000, includeSubDomains: false } };

/** Browser features no page uses, refused to them and to anything they might embed (helmet sets no Permissions-Policy). */
const PERMISSIONS = 'camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()';

/** Headers for every portal page: use it on each page route. */
const helmetPage = helmet({ ...common, contentSecurityPolicy: { useDefaults: false, directives } });
export const pageHeaders: RequestHandler = (req, res, next) => {
  res.setHeader('Permissions-Policy', PERMISSIONS);
  helmetPage(req, res, next);
};

/** For static files: no MIME sniffing (a file is only ever what its extension says). */
export function assetHeaders(res: ServerResponse) {
  res.setHeader('X-Content-Type-Options', 'nosniff');
}
