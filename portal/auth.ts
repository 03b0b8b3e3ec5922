// Accounts and authentication for the portal, wired once: the first admin from ADMIN_EMAIL/ADMIN_PASSWORD,
// the session and viewer of every request, the body parsers and CSRF check of every portal form, the
// sign-up/sign-in/account pages and the admin pages. createPortal mounts `middleware` before every other
// portal route, `routes` among them, and `errorPage` last.
import express, { type Router } from 'express';
import type { PortalDeps } from './index.js';
import { Accounts, ensureAdmin } from './accounts.js';
import { Sessions } from './sessions.js';
import { csrfProtect } from './csrf.js';
import { Invites } from './invites.js';
import { SignInThrottle } from './throttle.js';
import { createPages, type Pages } from './pages.js';
import { pageHeaders } from './security.js';
import { authRoutes } from './auth-pages.js';
import { adminRoutes } from './admin-pages.js';

import type { SignupMode } from '../engine/config.js';

/** Paths whose state-changing requests are the portal's forms (hosting's capability links are not). */
export const FORM_PATHS = ['/signup', '/login', '/logout', '/account', '/dashboard', '/admin', '/docs'];

/** The pages made here (security headers set here; the other pages set their own). */
const OWN_PATHS = ['/signup', '/login', '/logout', '/account', '/admin'];

export interface AuthContext {
  deps: Omit<PortalDeps, 'viewerOf'>;
  accounts: Accounts;
  sessions: Sessions;
  invites: Invites;
  throttle: SignInThrottle;
  pages: Pages;
  signup: SignupMode;
}

export function createAuth(deps: Omit<PortalDeps, 'viewerOf'>) {
  const { config, log } = deps;
  const accounts = new Accounts(deps.store, deps.keys);
  const ctx: AuthContext = {
    deps,
    accounts,
    sessions: new Sessions(deps.store, accounts, config.publicUrl),
    invites: new Invites(deps.store),
    throttle: SignInThrottle.create({ redis: deps.redis, prefix: config.redisPrefix, log }),
    pages: createPages(config.serviceName, log),
    signup: config.signup,
  };

  // The first admin, never "the first user to sign up". Pages wait for it, so a test or a browser that
  // arrives at once finds it there.
  const admin = config.admin;
  const ready = admin
    ? ensureAdmin(accounts, admin)
        .then(({ outcome, account, note }) =>
          log.info({ accountId: account.id, outcome }, `portal: admin ${admin.email} ${outcome}${note ? `; ${note}` : ''}`),
        )
        .catch((err: Error) => log.error({ err: err.message }, `portal: cannot make ${admin.email} an admin`))
    : Promise.resolve();

  const middleware: Router = express.Router();
  middleware.use((_req, _res, next) => {
    ready.then(() => next(), next);
  });
  const load = ctx.sessions.load();
  // Static files need no session (and no store read).
  middleware.use((req, res, next) => (req.path.startsWith('/portal/') ? next() : load(req, res, next)));
  middleware.use(OWN_PATHS, pageHeaders);
  middleware.use(FORM_PATHS, express.urlencoded({ extended: false, limit: '16kb' }), express.json({ limit: '64kb' }), csrfProtect);

  const routes: Router = express.Router();
  routes.use(authRoutes(ctx));
  routes.use('/admin', adminRoutes(ctx));

  return { ctx, middleware, routes, errorPage: ctx.pages.errorPage, viewerOf: async (req: express.Request) => req.res?.locals.viewer };
}
