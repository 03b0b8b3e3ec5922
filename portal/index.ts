// The developer portal (spec §5.2), served by the same server after the API dispatcher: landing page, the
// interactive reference, sign-up and sign-in, the API key and usage pages, and the operators' admin pages.
// createPortal is the one place that mounts every portal router, in the order a request meets them:
// the session and viewer, security headers and the CSRF check of every form, the routers, the error page.
// Its `close` stops what the portal runs in the background (webhook deliveries): server/app.ts calls it
// before closing the store.
import express, { type ErrorRequestHandler, type Router } from 'express';
import type { PortalDeps } from './shared/types.js';
import { createContext } from './context.js';
import { requireSignedIn } from './auth/sessions.js';
import { csrfProtect, expiredForm } from './shared/csrf.js';
import { pageHeaders } from './shared/security.js';
import { assetRoutes } from './shared/assets.js';
import { docsRoutes } from './docs/routes.js';
import { authRoutes } from './auth/routes.js';
import { confirmRoutes } from './auth/confirm-routes.js';
import { resetRoutes } from './auth/reset-routes.js';
import { accountRoutes } from './account/routes.js';
import { adminRoutes } from './admin/routes.js';
import { keyRoutes } from './keys/routes.js';
import { usageRoutes } from './account/usage-routes.js';
import { requestRoutes } from './requests/routes.js';
import { adminRequestRoutes } from './requests/admin-routes.js';
import { webhookRoutes } from './webhooks/routes.js';
import { statusRoutes } from './status/routes.js';
import { statusAdminRoutes } from './status/admin.js';
import { webhookRoutes as stripeWebhook } from './billing/webhook.js';
import { billingRoutes } from './billing/routes.js';
import { twoFactorRoutes } from './two-factor/routes.js';
import { factorSignInRoutes } from './two-factor/sign-in-routes.js';
import { adminFactorGate } from './two-factor/gate.js';

/** Paths whose state-changing requests are the portal's forms (hosting's capability links are not). */
const FORM_PATHS = ['/signup', '/login', '/logout', '/account', '/dashboard', '/admin', '/docs'];

/** Pages whose routers set no security headers of their own (the others do, per route). */
const OWN_PATHS = ['/signup', '/login', '/logout', '/account', '/admin'];

/** The portal's routes, and `close`, which stops its background work (server/app.ts calls it on shutdown). */
export interface Portal {
  router: Router;
  /** For server/app.ts, before the API's error handler: a browser's error outside the portal as a page. */
  browserErrorPage: ErrorRequestHandler;
  /** Settles when the portal's start-up work is done (the first admin made, the throttles' counts read). */
  ready: Promise<void>;
  close(): Promise<void>;
}

export function createPortal(deps: PortalDeps): Portal {
  const ctx = createContext(deps);
  const router = express.Router();

  router.use((_req, _res, next) => {
    ctx.ready.then(() => next(), next);
  });
  // Stripe's events: before every body parser (the signature is checked on the raw body) and any session.
  if (ctx.billing) router.use(stripeWebhook(ctx.billing, deps.log));
  // Pages' forms may lead to Stripe's pages (Checkout, the customer portal): CSP form-action allows them.
  const formActions = ctx.billing?.redirectOrigins.join(' ');
  if (formActions)
    router.use((_req, res, next) => {
      res.locals.formActions = formActions;
      next();
    });
  const load = ctx.sessions.load();
  // Static files need no session (and no store read).
  router.use((req, res, next) => (req.path.startsWith('/portal/') ? next() : load(req, res, next)));
  // With billing on, its pages and forms (portal/billing/routes.ts) are the portal's too; the webhook answered above.
  const billingPaths = ctx.billing ? ['/billing'] : [];
  router.use([...OWN_PATHS, ...billingPaths], pageHeaders);
  router.use(
    [...FORM_PATHS, ...billingPaths],
    express.urlencoded({ extended: false, limit: '16kb' }),
    express.json({ limit: '64kb' }),
    csrfProtect,
    expiredForm(ctx),
  );

  router.use(assetRoutes());
  router.use(docsRoutes(ctx));
  router.use(authRoutes(ctx));
  router.use(factorSignInRoutes(ctx));
  router.use(confirmRoutes(ctx));
  router.use(resetRoutes(ctx));
  router.use(accountRoutes(ctx));
  router.use(twoFactorRoutes(ctx));
  router.use(statusRoutes(ctx));
  // With ADMIN_2FA=required, an admin without a second factor sets one up before any admin page.
  router.use('/admin', adminFactorGate(ctx));
  router.use('/admin/status', statusAdminRoutes(ctx));
  router.use('/admin', adminRequestRoutes(ctx));
  router.use('/admin', adminRoutes(ctx));
  // The signed-in account's pages: visitors who are not signed in are sent to sign in and brought back.
  router.use('/dashboard', pageHeaders, requireSignedIn);
  router.use(keyRoutes(ctx));
  router.use(usageRoutes(ctx));
  router.use(requestRoutes(ctx));
  router.use(webhookRoutes(ctx));
  if (ctx.billing) router.use(billingRoutes(ctx, ctx.billing));

  router.use(ctx.pages.errorPage);
  return { router, browserErrorPage: ctx.pages.browserErrorPage, ready: ctx.ready, close: () => ctx.close() };
}
