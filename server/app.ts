// The composition root: reads the configuration once (server/config.ts), builds the engine's parts (store,
// keys, meter, cache, upstream clients, metrics) and the features (features/: hosting, health, usage) and
// plugs them in, the API's routes (server/api-routes.ts), the portal and MCP, and serves the API and /health before Express (engine/pipeline/api.ts,
// server/health-route.ts); Express serves the rest (server/web.ts), loaded once the server listens.
// Nothing below server/ imports this folder.
import path from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import type { RequestListener } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from '../engine/config.js';
import { loadConfig } from './config.js';
import { apiRoutes } from './api-routes.js';
import type { Catalog, EndpointSpec } from '../engine/catalog/load.js';
import { openCatalog } from '../engine/catalog/compiled.js';
import { createIdentifier } from '../engine/access/identify.js';
import { createMeter } from '../engine/pipeline/steps/meter.js';
import { KeyStore, record } from '../engine/access/keystore.js';
import { AccountEvents } from '../engine/access/account-events.js';
import { openRedisStore, openSqlite, type Store } from '../engine/store/index.js';
import { openDatabase, refuseLostDatabase, sqliteFile, type OpenDatabase } from '../engine/db/open.js';
import { keptDamagedWal } from '../engine/db/wal-check.js';
import { dataLeftBehind } from '../engine/db/legacy/refuse.js';
import { adapterRegistry } from '../engine/catalog/registry.js';
import { failCall, sendError } from '../engine/pipeline/respond.js';
import { ApiError, badInput } from '../engine/errors.js';
import { createLogger } from '../engine/infra/logger.js';
import { accessLog } from '../engine/infra/access-log.js';
import { connectRedis, type RedisHandle } from '../engine/infra/redis.js';
import { createMetrics } from '../engine/infra/metrics.js';
import { openBlobStore, openSidecars, type HostedBlobs } from '../features/hosting/blobs.js';
import { sidecarsLeftBehind } from '../features/hosting/sidecars.js';
import { createUpstreams } from '../engine/upstream/client.js';
import { UpstreamEvents } from '../engine/upstream/upstream-events.js';
import { createMemo } from '../engine/upstream/memo.js';
import { createResponseCache } from '../engine/upstream/response-cache.js';
import { importKeysJson, loadKeysFile } from '../engine/access/keys-file.js';
import type { CallObserver } from '../engine/pipeline/call.js';
import { apiServer } from '../engine/pipeline/api.js';
import { largeBodies } from '../engine/pipeline/large-bodies.js';
import type { Adapter } from '../engine/types.js';
import { withFreePersonalPlan } from '../portal/keys/keys.js';
import { createUsage } from '../features/usage/usage.js';
import { accountUsageRoute } from '../features/usage/account-usage.js';
import { createRequestLog, type RequestLog } from '../features/request-log/request-log.js';
import { LogRecords } from '../features/request-log/records.js';
import { accountRequestsRoutes } from '../features/request-log/account-requests.js';
import { identify } from '../engine/pipeline/steps/identify.js';
import { createHealth, type Health } from '../features/health/health.js';
import { probeRunner } from './probe-routes.js';
import { healthRoute } from './health-route.js';
import { compileTrustProxy } from '../engine/access/trust-proxy.js';
import { LoadOnce } from '../engine/load-once.js';
import { createMedia } from '../features/media/media.js';
import { mediaRefresher } from './media-refresh.js';
import { isLive } from '../engine/access/keystore.js';
import type { ResolveHost } from '../engine/upstream/guarded-fetch.js';
import { CONTRACT_VERSION } from '../engine/contract-version.js';

/** The service's version is its contract's: the OpenAPI document's info.version. */
const VERSION = CONTRACT_VERSION;
/** Between two steps of loading in the background: a few turns of the event loop for the requests waiting. */
const WARM_PAUSE_MS = 10;
/**
 * Bodies over MAX_BODY_KB read whole into memory (base64 files) at once, per client address and in all: each
 * holds about three times its size while read (docs/decisions/no-work-before-a-key.md).
 */
const LARGE_BODIES = { perAddress: 1, total: 2 };

export interface App {
  /** The whole server's request listener: the API (engine/pipeline/api.ts), then Express for everything else. */
  app: RequestListener;
  config: Config;
  endpoints: EndpointSpec[];
  adapters: Map<string, Adapter>;
  keys: KeyStore;
  /** Counters, throttles and usage history: SQLite under DATA_DIR, or Redis. */
  store: Store;
  /** The tables (keys, accounts, sessions, webhooks, billing, health): SQLite under DATA_DIR, or PostgreSQL. */
  database: OpenDatabase;
  blobs: HostedBlobs;
  log: Logger;
  redis?: RedisHandle;
  /** Probes, endpoint states, incidents and operator alerts (features/health/). */
  health: Health;
  /** The request log (features/request-log/), unless REQUEST_LOG=off: tests flush it. */
  requestLog: RequestLog | undefined;
  /** Where the upstream clients tell of their circuit breakers' transitions. */
  upstreamEvents: UpstreamEvents;
  /** From now on /health answers 503 `draining`, so a load balancer sends no more traffic (server/main.ts). */
  startDraining(): void;
  /** Loads the pages (Express, the portal, MCP); settles once the portal's start-up work is done. */
  ready(): Promise<void>;
  /** ready(), then every adapter's module: what server/main.ts runs once it listens. Rejects with what could
   * not be loaded (pages that fail to build, an adapter module that does not load or is not an adapter). */
  warm(): Promise<void>;
  /** Writes what is left and closes everything; rejects, saying how much, when counts could not be written. */
  close(): Promise<void>;
}

/**
 * `opts.adaptersDir` replaces adapters/ (tests use an empty one to see the 501 of a missing adapter);
 * `opts.resolve` the DNS of short links' hosts (tests point them at their fakes).
 */
export async function createApp(
  env: NodeJS.ProcessEnv = process.env,
  opts: { log?: Logger; adaptersDir?: string; resolve?: ResolveHost } = {},
): Promise<App> {
  const config = loadConfig(env);
  const log = opts.log ?? createLogger(config.logLevel);
  const { catalog, checks } = await openCatalog(config.catalogDir);
  const registry = adapterRegistry(opts.adaptersDir ?? config.adaptersDir, catalog.endpoints);
  const { adapters } = registry;
  const redis = config.redisUrl ? connectRedis(config.redisUrl, log, config.redisPrefix) : undefined;
  const prefix = config.redisPrefix;
  // A database that was here and is gone stops the start before the counters' store makes a new file.
  if (!config.databaseUrl) {
    // The log first: refuseLostDatabase opens the file, and SQLite's recovery then drops what is damaged.
    const damage = keptDamagedWal(sqliteFile(config.dataDir));
    if (damage)
      log.error(
        damage,
        'the database log is damaged: opening it drops the damaged frame and every commit after it; the log as it was is kept beside it',
      );
    refuseLostDatabase(config.dataDir);
  }
  if (redis) await redis.whenReady(2000); // a clean start when Redis is there; never blocks boot for long
  const store: Store = redis
    ? await openRedisStore(redis.client, prefix, config.redisUrl!, log).catch(async (err: Error) => {
        await redis.close();
        throw err;
      })
    : openSqlite(config.dataDir);
  const database = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl })
    .then(async (opened) => {
      const sidecars = openSidecars(config, log);
      const left = await dataLeftBehind({
        db: opened.db,
        dataDir: config.dataDir,
        databaseUrl: config.databaseUrl,
        redis: redis && { client: redis.client, prefix },
      })
        .then(async (problem) => problem ?? (await sidecarsLeftBehind(sidecars, opened.db, log)))
        .finally(() => sidecars.close());
      if (left) {
        await opened.close();
        throw new Error(left);
      }
      return opened;
    })
    .catch(async (err: Error) => {
      await store.close();
      await redis?.close();
      throw err;
    });
  const keys = new KeyStore(database.db, store, new AccountEvents(log));
  await importKeysJson(keys, config.dataDir);
  const configuredKeys = config.apiKeysFile
    ? loadKeysFile(config.apiKeysFile, catalog.plans).map((k) => record(k.key, k.plan, k.name))
    : [];
  const identifier = createIdentifier(config, keys, configuredKeys);
  const plans = withFreePersonalPlan(applyOverrides(catalog.plans, config));
  store.onAnnounce(() => identifier.forget());
  const {
    meter,
    peekMeter,
    allowance,
    keyUse,
    usageKeys,
    ready: countersRead,
    close: closeMeter,
  } = createMeter({
    plans,
    authFailLimit: config.authFailLimit,
    redis: redis?.client,
    redisHealth: redis,
    store,
    events: keys.events,
    log,
    prefix,
  });
  await countersRead;
  const cache = createResponseCache({ redis: redis?.client, prefix: `${prefix}cache:`, maxEntries: 5000, log });
  const userAgent = `${config.serviceName.replace(/[^A-Za-z0-9._-]+/g, '')}/${VERSION} (+${config.publicUrl})`;
  const blobs = openBlobStore(config, database.db, log, redis && { client: redis.client, prefix });
  const metrics = createMetrics({
    redisUp: redis ? () => redis.ready() : undefined,
    objectStoreUp: config.s3 ? () => blobs.state().reachable : undefined,
  });
  const upstreamEvents = new UpstreamEvents();
  const upstream = createUpstreams(catalog.upstreams, config.env, { userAgent, log, observe: metrics.upstream, events: upstreamEvents });
  const limits = {
    uploadDir: path.join(config.dataDir, 'uploads'),
    maxUploadBytes: config.maxUploadBytes,
    maxBodyBytes: config.maxBodyBytes,
    largeBodies: largeBodies(LARGE_BODIES),
  };
  const context = {
    log,
    publicUrl: config.publicUrl,
    userAgent,
    allowPrivateFetch: config.allowPrivateFetch,
    upstream,
    blobs,
    memo: createMemo(),
    keepAttempts: config.requestLog.on,
  };
  // What the API's routes and the probes' door are both built from (server/api-routes.ts, probe-routes.ts).
  const routeDeps = {
    endpoints: catalog.endpoints,
    adapters,
    checks,
    serviceName: config.serviceName,
    limits,
    context,
    fail: failCall(log),
  };
  const health = createHealth({
    config: config.health,
    endpoints: catalog.endpoints,
    upstreams: catalog.upstreams,
    env: config.env,
    store,
    db: database.db,
    events: upstreamEvents,
    log,
    redis: redis?.client,
    prefix,
    userAgent,
    allowPrivate: config.allowPrivateFetch,
    run: probeRunner(routeDeps),
  });
  let draining = false;
  const usage = createUsage(store, log, (uses) => keys.recordLastUsed(uses));
  const usageDeps = { serviceName: config.serviceName, usage, allowance, keyUse, usageKeys };
  const logRecords = new LogRecords(database);
  const requestLog = config.requestLog.on
    ? createRequestLog({ records: logRecords, plans, endpoints: catalog.endpoints, ip: config.requestLog.ip, log })
    : undefined;

  // The access log, metrics, usage, the request log and the endpoints' health see every answered API request
  // (engine/pipeline/call.ts): a loop turn's calls at once, each of them for one call after another.
  const logAccess = accessLog(log);
  const observe: CallObserver = (calls) => {
    // One reading of the wall clock for the turn's calls: the usage history, the monitor and the log lines.
    const now = Date.now();
    for (const call of calls) {
      const id = call.identity;
      metrics.observe(call.endpoint, call.status, call.elapsedMs / 1000, id?.status === 'ok' ? id.plan : undefined);
    }
    for (const call of calls) usage.record(call, call.status, now);
    if (requestLog) for (const call of calls) requestLog.record(call, call.status, now);
    // A cached answer says nothing of the upstream now.
    for (const call of calls)
      if (!call.outcome?.cached)
        void health.monitor.record(call.endpoint, call.status, call.errorCode, call.elapsedMs, call.outcome?.source, now);
    for (const call of calls) {
      const id = call.identity;
      logAccess(
        call.id,
        call.endpoint,
        call.method,
        call.status,
        Math.round(call.elapsedMs),
        id?.status === 'ok' ? id.keyId : undefined,
        now,
      );
    }
  };
  const identifyStep = identify(identifier);
  const trust = compileTrustProxy(config.trustProxy);
  // Keys of the keys file and the published keys are not in the table and cannot be revoked there.
  const unrevocable = new Set(['free', 'anonymous', ...configuredKeys.map((k) => k.id)]);
  const media = createMedia({
    config: config.media,
    publicUrl: config.publicUrl,
    db: database.db,
    store,
    keyIsLive: async (id) => unrevocable.has(id) || (await keys.get(id).then((rec) => rec !== undefined && isLive(rec))),
    upstream: (id) => {
      const up = catalog.upstreams[id];
      const base = up?.selfHost !== undefined ? upstream(id).baseUrl : undefined;
      return { selfHostedOrigin: base ? new URL(base).origin : undefined, settings: up ? upstream(id).settings : {} };
    },
    refresh: mediaRefresher({ endpoints: catalog.endpoints, adapters, context, trust }),
    blobs,
    tempDir: limits.uploadDir,
    allowPrivate: config.allowPrivateFetch,
    userAgent,
    log,
  });
  const { routes, unmatched } = apiRoutes({
    ...routeDeps,
    cache,
    cacheLookedUp: metrics.cache,
    // Answers that name media are reused for MEDIA_CACHE_TTL: their links on this service outlive the providers'.
    cacheTtlMs: (spec) => (spec.mediaItems ? config.media.cacheTtlMs : undefined),
    aroundInvoke: (spec, invoke) => media.facts(spec, invoke),
    afterCache: (spec) => media.step(spec),
    identify: identifyStep,
    meter,
    resolve: opts.resolve,
    featureRoutes: [
      accountUsageRoute({ ...usageDeps, identify: identifyStep, peekMeter, fail: routeDeps.fail }),
      ...accountRequestsRoutes({
        serviceName: config.serviceName,
        records: logRecords,
        plans,
        identify: identifyStep,
        peekMeter,
        fail: routeDeps.fail,
      }),
    ],
  });
  const api = apiServer(routes, unmatched, { observe, trust });
  const pooled = (id: string) => upstream(id).hasKeys;

  // The pages: imported and built once (server/web.ts), by warm() or by the first request that needs them.
  // Node's module loader holds the event loop while it reads and evaluates a graph of modules: the pages'
  // largest parts one at a time (Express, MCP, the portal), then the rest, with a pause between each for
  // the requests that came in meanwhile (the longest step held a request 100–150 ms in one go).
  const turn = () => pause(WARM_PAUSE_MS);
  const web = new LoadOnce(() =>
    turn()
      .then(() => import('express'))
      .then(turn)
      .then(() => import('../mcp/router.js'))
      .then(turn)
      .then(() => import('../portal/index.js'))
      .then(turn)
      .then(() => import('./web.js'))
      .then(({ createWeb }) =>
        createWeb({
          config,
          version: VERSION,
          catalog,
          plans,
          adapters,
          store,
          db: database.db,
          keys,
          redis,
          blobs,
          metrics,
          usage: usageDeps,
          requestLog: logRecords,
          recordingCalls: config.requestLog.on,
          health,
          log,
          api,
          trust,
          pooled,
          largeBodies: limits.largeBodies,
        }),
      ),
  );
  const pagesReady = () => web.get().then((w) => w.ready);
  const answerHealth = healthRoute({
    version: VERSION,
    endpoints: catalog.endpoints.length,
    adapters: catalog.endpoints.filter((e) => adapters.has(e.adapter)).length,
    redis,
    blobs,
    draining: () => draining,
    warming: () => {
      const cold = registry.cold();
      return { ...(web.value ? {} : { pages: true as const }), ...(cold ? { adapters: cold } : {}) };
    },
  });

  return {
    app: (req, res) => {
      // HTTP/1.1 wants a Host header (RFC 9112 §3.2); node:http leaves the refusal to us (engine/pipeline/client-error.ts).
      if (req.headers.host === undefined && req.httpVersion === '1.1') {
        res.setHeader('Connection', 'close');
        sendError(res, badInput('Missing Host header'));
        return;
      }
      if (api(req, res) || answerHealth(req, res) || media.route(req, res)) return;
      const built = web.value;
      if (built) {
        built.app(req, res);
        return;
      }
      web.get().then(
        (w) => {
          w.app(req, res);
        },
        (err: Error) => {
          log.error({ err: err.message }, 'the pages cannot be loaded');
          sendError(res, new ApiError('internal', 'The server could not load this page'));
        },
      );
    },
    config,
    endpoints: catalog.endpoints,
    adapters,
    keys,
    store,
    database,
    blobs,
    log,
    redis,
    health,
    requestLog,
    upstreamEvents,
    startDraining() {
      draining = true;
    },
    ready: pagesReady,
    async warm() {
      await pagesReady();
      const failed = await registry.warm(WARM_PAUSE_MS);
      if (failed.length) throw new Error(failed.map((f) => f.error.message).join('; '));
    },
    async close() {
      if (web.started) await (await web.get()).close();
      await health.close();
      const usageLost = await usage.close();
      await requestLog?.close();
      logRecords.close();
      await media.close();
      const windowsLost = await closeMeter();
      blobs.close();
      await store.close();
      await database.close();
      await redis?.close();
      // A full disk or an unreachable Redis at exit: say how much is lost, and exit non-zero (server/main.ts).
      if (usageLost || windowsLost)
        throw new Error(
          `not written at exit (no space left, or Redis unreachable): ${windowsLost} counter windows, ${usageLost} seconds of usage history`,
        );
    },
  };
}

function applyOverrides(plans: Catalog['plans'], config: Config) {
  const out = { ...plans };
  for (const [id, o] of Object.entries(config.planOverrides)) {
    if (!out[id]) throw new Error(`PLAN_${id.toUpperCase()}_*: no plan "${id}" in catalog/plans.yaml`);
    out[id] = {
      ...out[id],
      ...(o.limit !== undefined ? { limit: o.limit } : {}),
      ...(o.window ? { window: o.window } : {}),
      ...(o.logDays !== undefined ? { logDays: o.logDays } : {}),
    };
  }
  return out;
}
