// The types the portal's files share: what the composition root hands the portal, the signed-in viewer, and
// the key and usage figures the dashboard pages show. This module imports no other portal file, so routes,
// views and the accounts code can all name these types without an import circle.
import type { Logger } from 'pino';
import type { Config } from '../../engine/config.js';
import type { EndpointSpec, PlanSpec, UpstreamSpec } from '../../engine/catalog/load.js';
import type { KeyRecord, KeyStore } from '../../engine/access/keystore.js';
import type { Store } from '../../engine/store/index.js';
import type { Db } from '../../engine/db/open.js';
import type { RedisHandle } from '../../engine/infra/redis.js';
import type { AccountUsageDeps, keyUsage } from '../../features/usage/account-usage.js';
import type { History } from '../../features/usage/usage.js';
import type { openApiDocument } from '../../engine/openapi/document.js';
import type { Health } from '../../features/health/health.js';
import type { LogRecords } from '../../features/request-log/records.js';

/** What server/app.ts builds once and hands the portal (createPortal). */
export interface PortalDeps {
  config: Config;
  /** Accounts, sessions, invites (SQLite or Redis, as keys). */
  store: Store;
  /** The tables (engine/db/): accounts, sessions, links, invites, upgrades, plan changes, webhooks, billing, claims. */
  db: Db;
  keys: KeyStore;
  plans: Record<string, PlanSpec>;
  /** The catalog's endpoints, as loaded at boot: the landing page counts and lists them. */
  endpoints: EndpointSpec[];
  /** The catalog's upstreams: the reference's search finds an endpoint by the provider that answers it. */
  upstreams: Record<string, UpstreamSpec>;
  /** The OpenAPI document /openapi.json serves: the reference at /docs is rendered from it. */
  openapi: () => ReturnType<typeof openApiDocument>;
  log: Logger;
  redis?: RedisHandle;
  /** Allowances and usage history of keys (features/usage/account-usage.ts keyUsage). */
  usage: AccountUsageDeps;
  /** The request log's table (features/request-log/): the inspector's pages. */
  requestLog: LogRecords;
  /** False unless REQUEST_LOG=on: no call is recorded now (what was kept before is still shown). */
  recordingCalls: boolean;
  /** Endpoint states, probes, incidents and operator alerts (features/health/): the status pages. */
  health: Health;
}

/** The signed-in account as the pages show it (auth/sessions.ts makes it from an Account). */
export interface Viewer {
  /** The account's id (accounts/accounts.ts). */
  id: string;
  email: string;
  name: string;
  role: 'user' | 'admin';
  plan: string;
  status: 'active' | 'pending' | 'suspended';
}

/** What a key's calls count on: the free key per client IP, a personal key by itself. */
export interface KeyRef {
  id: string;
  plan: string;
  label: string;
  record?: KeyRecord;
}

/** One allowance as the X-RateLimit-* headers carry it (resetAt in epoch ms). */
export interface AllowanceFigures {
  limit: number;
  used: number;
  remaining: number;
  resetAt: number;
}

/** One key's figures on the usage page: allowance now, 24 hours by hour, 30 days by day, the last calls. */
export type KeyUsage = Awaited<ReturnType<typeof keyUsage>> & { hourly: History; daily: History };
