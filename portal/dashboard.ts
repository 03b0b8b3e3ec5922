// The signed-in account's pages under /dashboard: API keys (key-pages.ts) and usage (usage-pages.ts).
// Visitors who are not signed in are sent to sign in and brought back.
import express, { type Router } from 'express';
import type { PortalDeps } from './index.js';
import type { Pages } from './pages.js';
import { requireSignedIn } from './sessions.js';
import { pageHeaders } from './security.js';
import { keyRoutes } from './key-pages.js';
import { usageRoutes } from './usage-pages.js';

export function dashboardRoutes(deps: PortalDeps, pages: Pages): Router {
  const r = express.Router();
  r.use('/dashboard', pageHeaders, requireSignedIn);
  r.use(keyRoutes(deps, pages));
  r.use(usageRoutes(deps, pages));
  return r;
}
