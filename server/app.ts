// Wires the request lifecycle of every catalog endpoint as one chain of named steps (engine/pipeline/steps/), run on
// a Call (engine/pipeline/call.ts, which also sets X-Request-Id): parse → identify → meter (429; headers on every
// answer) → authorize (401) → validate (400) → cache → invoke (the adapter) → envelope, and the error
// answer for whatever a step raised. The API is served before Express (engine/pipeline/api.ts); Express serves
// the pages.
// The engine knows no endpoint by name: routes, validators and adapters all come from the catalog.
import path from 'node:path';
import type { RequestListener } from 'node:http';
import express, { type Request, type Response, type NextFunction } from 'express';
import type { Logger } from 'pino';
import type { Config } from '../engine/config.js';
import { loadConfig } from './config.js';
import { loadCatalog, type EndpointSpec } from '../engine/catalog/load.js';
import { createIdentifier } from '../engine/access/identify.js';
import { createMeter } from '../engine/access/meter.js';
import { KeyStore, record } from '../engine/access/keystore.js';
import { openRedisStore, openSqlite, type Store } from '../engine/store/index.js';
import { loadAdapters } from '../engine/catalog/registry.js';
import { ApiError } from '../engine/errors.js';
import { errorHandler, failCall } from '../engine/pipeline/respond.js';
import { createLogger } from '../engine/infra/logger.js';
import { connectRedis, type RedisHandle } from '../engine/infra/redis.js';
import { createMetrics, metricsAccess } from '../engine/infra/metrics.js';
import { openBlobStore, type HostedBlobs } from '../engine/hosting/blobs.js';
import { createHostingRouter } from '../engine/hosting/routes.js';
import { createUpstreams } from '../engine/upstream/client.js';
import { createResponseCache } from '../engine/upstream/response-cache.js';
import { loadKeysFile } from '../engine/access/keys-file.js';
import { openApiDocument } from '../engine/openapi/document.js';
import { chain, type Next } from '../engine/pipeline/chain.js';
import type { Call, CallObserver } from '../engine/pipeline/call.js';
import { apiServer, type Route } from '../engine/pipeline/api.js';
import type { Adapter } from '../engine/types.js';
import { createPortal } from '../portal/index.js';
import { createMcpRouter } from '../mcp/router.js';
import { createUsage } from '../engine/access/usage.js';
import { accountUsageHandler } from '../engine/access/account-usage.js';
import { parse } from '../engine/pipeline/steps/parse.js';
import { identify } from '../engine/pipeline/steps/identify.js';
import { authorize } from '../engine/pipeline/steps/authorize.js';
import { validate } from '../engine/pipeline/steps/validate.js';
import { invoker } from '../engine/pipeline/steps/invoke.js';
import { cached } from '../engine/pipeline/steps/cache.js';
import { envelope } from '../engine/pipeline/steps/envelope.js';

export const VERSION = '0.1.0';

export interface App {
  /** The whole server's request listener: the API (engine/pipeline/api.ts), then Express for everything else. */
  app: RequestListener;
  config: Config;
  endpoints: EndpointSpec[];
  adapters: Map<string, Adapter>;
  keys: KeyStore;
  /** Keys, accounts, sessions and usage: SQLite under DATA_DIR, or Redis. */
  store: Store;
  blobs: HostedBlobs;
  log: Logger;
  redis?: RedisHandle;
  /** From now on /health answers 503 `draining`, so a load balancer sends no more traffic (server/main.ts). */
  startDraining(): void;
  close(): Promise<void>;
}

/** `opts.adaptersDir` replaces adapters/ (tests use an empty one to see the 501 of a missing adapter). */
export async function createApp(env: NodeJS.ProcessEnv = process.env, opts: { log?: Logger; adaptersDir?: string } = {}): Promise<App> {
  const config = loadConfig(env);
  const log = opts.log ?? createLogger(config.logLevel);
  const catalog = loadCatalog(config.catalogDir);
  const adapters = await loadAdapters(opts.adaptersDir ?? config.adaptersDir, catalog.endpoints);
  const redis = config.redisUrl ? connectRedis(config.redisUrl, log) : undefined;
  const prefix = config.redisPrefix;
  if (redis) await redis.whenReady(2000); // a clean start when Redis is there; never blocks boot for long
  const store: Store = redis
    ? await openRedisStore(redis.client, prefix, config.redisUrl!, config.dataDir, log).catch(async (err: Error) => {
        await redis.close();
        throw err;
      })
    : openSqlite(config.dataDir);
  const keys = new KeyStore(store);
  const configuredKeys = config.apiKeysFile
    ? loadKeysFile(config.apiKeysFile, catalog.plans).map((k) => record(k.key, k.plan, k.name))
    : [];
  const identifier = createIdentifier(config, keys, configuredKeys);
  store.onAnnounce(() => identifier.forget());
  const {
    meter,
    peekMeter,
    allowance,
    usageKey,
    close: closeMeter,
  } = createMeter({
    plans: applyOverrides(catalog.plans, config),
    authFailLimit: config.authFailLimit,
    redis: redis?.client,
    redisHealth: redis,
    log,
    prefix,
  });
  const cache = createResponseCache({ redis: redis?.client, prefix: `${prefix}cache:`, maxEntries: 5000, log });
  const userAgent = `${config.serviceName.replace(/[^A-Za-z0-9._-]+/g, '')}/${VERSION} (+${config.publicUrl})`;
  const blobs = openBlobStore(config, log, redis && { client: redis.client, prefix });
  const metrics = createMetrics({
    redisUp: redis ? () => redis.ready() : undefined,
    objectStoreUp: config.s3 ? () => blobs.state().reachable : undefined,
  });
  const upstream = createUpstreams(catalog.upstreams, env, { userAgent, log, observe: metrics.upstream });
  let draining = false;
  const usage = createUsage(store, log);
  const usageDeps = { serviceName: config.serviceName, usage, allowance, usageKey };

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'simple');
  app.set('etag', false);

  // The access log and the metrics see every answered API request (engine/pipeline/call.ts).
  const observe: CallObserver = (call, status) => {
    const ms = call.elapsedMs;
    const id = call.identity;
    metrics.observe(call.endpoint, status, ms / 1000, id?.status === 'ok' ? id.plan : undefined);
    usage.record(call, status);
    log.info(
      {
        requestId: call.id,
        endpoint: call.endpoint,
        method: call.method,
        status,
        ms: Math.round(ms),
        keyId: id?.status === 'ok' ? id.keyId : undefined,
      },
      'request',
    );
  };
  const identifyKey = identify(identifier);
  const fail = failCall(log);

  const contextDeps = { log, publicUrl: config.publicUrl, userAgent, allowPrivateFetch: config.allowPrivateFetch, upstream, blobs };
  const routes = new Map<string, Route>();
  const limits = {
    uploadDir: path.join(config.dataDir, 'uploads'),
    maxUploadBytes: config.maxUploadBytes,
    maxBodyBytes: config.maxBodyBytes,
  };
  const answer = envelope(config.serviceName);
  for (const spec of catalog.endpoints) {
    const invoke = invoker(spec, adapters.get(spec.adapter), contextDeps);
    routes.set(`/api/v1/${spec.id}`, {
      endpoint: spec.id,
      method: spec.method,
      run: chain(
        [parse(spec, limits), identifyKey, meter, authorize, validate(spec), cached(spec, cache, invoke, metrics.cache), answer],
        fail,
      ),
    });
  }

  // The caller's own usage: answered like an endpoint, but it does not spend the allowance.
  routes.set('/api/v1/account/usage', {
    endpoint: 'account/usage',
    method: 'GET',
    run: chain([identifyKey, peekMeter, authorize, accountUsageHandler(usageDeps)], fail),
  });

  // Unknown paths and wrong methods: still identified and metered, so they carry the headers too.
  const unmatched: Route = {
    endpoint: 'unmatched',
    method: '',
    run: chain(
      [
        identifyKey,
        meter,
        (call: Call, next: Next) => {
          const route = routes.get(call.path.replace(/\/+$/, ''));
          if (route)
            return next(
              new ApiError('method_not_allowed', `Method ${call.method} is not allowed on ${call.path}; use ${route.method}`, {
                Allow: route.method,
              }),
            );
          next(new ApiError('not_found', `No such endpoint: ${call.method} ${call.path}`));
        },
      ],
      fail,
    ),
  };
  // Express's compiled TRUST_PROXY, so the API and the pages agree on the client address.
  const api = apiServer(routes, unmatched, { observe, trust: app.get('trust proxy fn') as (addr: string, i: number) => boolean });
  // MCP clients (agents): every endpoint as a tool, each call run through the API above (mcp/router.ts).
  app.use('/mcp', createMcpRouter({ app, api, endpoints: catalog.endpoints, upstreams: catalog.upstreams, config, version: VERSION }));
  // The portal answers browsers at / (Accept: text/html); JSON clients get the service document below.
  app.use(createPortal({ config, store, keys, plans: catalog.plans, endpoints: catalog.endpoints, log, redis, usage: usageDeps }));
  app.get('/', (_req, res) => {
    res.json({
      success: true,
      name: config.serviceName,
      version: VERSION,
      docs: `${config.publicUrl}/openapi.json`,
      health: `${config.publicUrl}/health`,
      endpoints: catalog.endpoints.length,
    });
  });
  app.get('/health', (_req, res) => {
    const redisState = redis ? (redis.ready() ? 'ready' : 'down') : 'disabled';
    const blobState = blobs.state();
    const objectStore = blobState.backend === 'disk' ? 'disk' : blobState.reachable ? 'ready' : 'down';
    // Draining: 503, so a balancer's health check takes the instance out while it finishes its requests.
    // A shared part down is "degraded" but 200: every instance sees the same outage, and taking them all
    // out would turn a partial outage into a whole one.
    res.status(draining ? 503 : 200).json({
      status: draining ? 'draining' : redisState === 'down' || objectStore === 'down' ? 'degraded' : 'ok',
      version: VERSION,
      uptimeSeconds: Math.round(process.uptime()),
      redis: redisState,
      ...(redisState === 'down' ? { redisError: 'unreachable; counting and caching in process until it returns' } : {}),
      objectStore,
      endpoints: catalog.endpoints.length,
      adapters: catalog.endpoints.filter((e) => adapters.has(e.adapter)).length,
    });
  });
  const openapi = openApiDocument(catalog.endpoints, {
    title: config.serviceName,
    version: VERSION,
    url: config.publicUrl,
    upstreams: catalog.upstreams,
    implemented: (e) => adapters.has(e.adapter),
  });
  app.get('/openapi.json', (_req, res) => {
    res.json(openapi);
  });
  app.get('/metrics', async (req, res, next) => {
    const access = metricsAccess(config.metricsToken, req.headers.authorization);
    const challenge = { 'WWW-Authenticate': 'Bearer realm="metrics"' };
    if (access === 'missing')
      return next(new ApiError('missing_key', 'Missing metrics token: send Authorization: Bearer <METRICS_TOKEN>', challenge));
    if (access === 'wrong') return next(new ApiError('invalid_key', 'Invalid metrics token', challenge));
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  app.use(createHostingRouter(blobs));
  app.use((req: Request, _res: Response, next: NextFunction) => next(new ApiError('not_found', `No such page: ${req.method} ${req.path}`)));
  app.use(errorHandler(log));

  return {
    app: (req, res) => {
      if (!api(req, res)) app(req, res);
    },
    config,
    endpoints: catalog.endpoints,
    adapters,
    keys,
    store,
    blobs,
    log,
    redis,
    startDraining() {
      draining = true;
    },
    async close() {
      await usage.close();
      closeMeter();
      blobs.close();
      await store.close();
      await redis?.close();
    },
  };
}

function applyOverrides(plans: ReturnType<typeof loadCatalog>['plans'], config: Config) {
  const out = { ...plans };
  for (const [id, o] of Object.entries(config.planOverrides)) {
    if (!out[id]) throw new Error(`PLAN_${id.toUpperCase()}_*: no plan "${id}" in catalog/plans.yaml`);
    out[id] = { ...out[id], ...(o.limit !== undefined ? { limit: o.limit } : {}), ...(o.window ? { window: o.window } : {}) };
  }
  return out;
}
