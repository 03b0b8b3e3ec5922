// The developer portal (spec §5.2), served by the same server after the API dispatcher: landing page, the
// interactive reference, sign-up and sign-in, the API key and usage pages, and the operators' admin pages.
import express, { type Router } from 'express';
import type { Logger } from 'pino';
import type { Config } from '../engine/config.js';
import type { PlanSpec } from '../engine/catalog/load.js';
import type { KeyStore } from '../engine/access/keystore.js';
import type { Store } from '../engine/store/index.js';
import type { RedisHandle } from '../engine/infra/redis.js';
import type { AccountUsageDeps } from '../engine/access/account-usage.js';
import type { Viewer } from './layout.js';
import { docsRoutes } from './docs.js';
import { createAuth } from './auth.js';
import { dashboardRoutes } from './dashboard.js';
import { tryItKey } from './dashboard-view.js';

export interface PortalDeps {
  config: Config;
  /** Accounts, sessions, invites (SQLite or Redis, as keys). */
  store: Store;
  keys: KeyStore;
  plans: Record<string, PlanSpec>;
  log: Logger;
  redis?: RedisHandle;
  /** Allowances and usage history of keys (engine/access/account-usage.ts keyUsage). */
  usage: AccountUsageDeps;
  /** The signed-in viewer of a request, if any (sessions). */
  viewerOf(req: express.Request): Promise<Viewer | undefined>;
}

export function createPortal(base: Omit<PortalDeps, 'viewerOf'>): Router {
  const router = express.Router();
  // Sessions and the viewer of every page, CSRF on every form (portal/auth.ts); viewerOf reads them.
  const auth = createAuth(base);
  const deps: PortalDeps = { ...base, viewerOf: auth.viewerOf };
  router.use(auth.middleware);
  router.use(docsRoutes({ ...deps, viewerKey: async (req) => tryItKey(deps, await deps.viewerOf(req)) }));
  router.use(auth.routes);
  router.use(dashboardRoutes(deps, auth.ctx.pages));
  router.use(auth.errorPage);
  return router;
}
