// Everything the server answers that is neither the API (engine/pipeline/api.ts) nor /health
// (server/health-route.ts): the portal's pages, MCP, /openapi.json, /metrics, the service document and
// hosted files, on Express. server/app.ts imports this module once the server listens, or at the first
// request that needs it, so the boot does not wait for Express, the portal's modules and the MCP SDK.
import express, { type Express, type Request, type Response, type NextFunction } from 'express';
import type { Logger } from 'pino';
import type { Config } from '../engine/config.js';
import type { Catalog, PlanSpec } from '../engine/catalog/load.js';
import type { Adapter } from '../engine/types.js';
import type { Store } from '../engine/store/index.js';
import type { Db } from '../engine/db/open.js';
import type { KeyStore } from '../engine/access/keystore.js';
import type { RedisHandle } from '../engine/infra/redis.js';
import type { createMetrics } from '../engine/infra/metrics.js';
import type { HostedBlobs } from '../features/hosting/blobs.js';
import type { ApiServer } from '../engine/pipeline/api.js';
import type { LargeBodies } from '../engine/pipeline/large-bodies.js';
import type { AccountUsageDeps } from '../features/usage/account-usage.js';
import type { Health } from '../features/health/health.js';
import type { TrustProxy } from '../engine/access/trust-proxy.js';
import { ApiError } from '../engine/errors.js';
import { errorHandler } from '../engine/pipeline/respond.js';
import { createHostingRouter } from '../features/hosting/routes.js';
import { openApiDocument } from '../engine/openapi/document.js';
import { accountUsageDocument } from '../features/usage/openapi.js';
import { requestLogDocument } from '../features/request-log/openapi.js';
import type { LogRecords } from '../features/request-log/records.js';
import { createPortal } from '../portal/index.js';
import { createMcpRouter } from '../mcp/router.js';
import { serviceRoutes } from './service-routes.js';

export interface WebDeps {
  config: Config;
  version: string;
  catalog: Catalog;
  plans: Record<string, PlanSpec>;
  adapters: Map<string, Adapter>;
  store: Store;
  /** The tables (engine/db/). */
  db: Db;
  keys: KeyStore;
  redis: RedisHandle | undefined;
  blobs: HostedBlobs;
  metrics: ReturnType<typeof createMetrics>;
  usage: AccountUsageDeps;
  /** The request log's table (features/request-log/): the inspector's pages read it. */
  requestLog: LogRecords;
  /** REQUEST_LOG: whether calls are recorded now. */
  recordingCalls: boolean;
  health: Health;
  log: Logger;
  /** The API's door: MCP's tool calls are run through it. */
  api: ApiServer;
  /** Bodies over MAX_BODY_KB read at once, shared by the API and /mcp. */
  largeBodies: LargeBodies;
  /** TRUST_PROXY compiled once, so the API and the pages agree on the client address. */
  trust: TrustProxy;
  /** Whether an upstream has server keys (MCP's tool list and the OpenAPI document say which need the caller's). */
  pooled: (upstream: string) => boolean;
}

export interface Web {
  app: Express;
  /** Settles when the portal's start-up work is done (the first admin, counts read back). */
  ready: Promise<void>;
  close(): Promise<void>;
}

export function createWeb(deps: WebDeps): Web {
  const { config, version, catalog, log, pooled } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trust);
  app.set('query parser', 'simple');
  app.set('etag', false);
  // No answer is ever to be read as another type than it says (the API's own answers set it in engine/pipeline/call.ts).
  app.use((_req: Request, res: Response, next: NextFunction) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  });
  // MCP clients (agents): every endpoint as a tool, each call run through the API (mcp/router.ts).
  app.use(
    '/mcp',
    createMcpRouter({
      app,
      api: deps.api,
      endpoints: catalog.endpoints,
      upstreams: catalog.upstreams,
      pooled,
      config,
      version,
      largeBodies: deps.largeBodies,
    }),
  );
  // The portal answers browsers at / (Accept: text/html); JSON clients get the service document below.
  // One OpenAPI document from this server's configuration: /openapi.json serves it, /docs renders it.
  // Made at its first reader (about 0.3 s of example requests worked out per endpoint).
  let document: ReturnType<typeof openApiDocument> | undefined;
  const openapi = () =>
    (document ??= openApiDocument(catalog.endpoints, {
      title: config.serviceName,
      version,
      url: config.publicUrl,
      upstreams: catalog.upstreams,
      pooled,
      implemented: (e) => deps.adapters.has(e.adapter),
      parts: [accountUsageDocument(), requestLogDocument()],
    }));
  const portal = createPortal({
    config,
    store: deps.store,
    db: deps.db,
    keys: deps.keys,
    plans: deps.plans,
    endpoints: catalog.endpoints,
    upstreams: catalog.upstreams,
    openapi,
    log,
    redis: deps.redis,
    usage: deps.usage,
    requestLog: deps.requestLog,
    recordingCalls: deps.recordingCalls,
    health: deps.health,
  });
  app.use(portal.router);
  app.use(serviceRoutes({ config, version, endpoints: catalog.endpoints, openapi, metrics: deps.metrics }));
  app.use(createHostingRouter(deps.blobs));
  app.use((req: Request, _res: Response, next: NextFunction) => next(new ApiError('not_found', `No such page: ${req.method} ${req.path}`)));
  app.use(portal.browserErrorPage);
  app.use(errorHandler(log));
  return { app, ready: portal.ready, close: () => portal.close() };
}
