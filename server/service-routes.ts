// The service's own pages for machines: the service document at / (for JSON clients; browsers get the
// portal's landing page), /health for load balancers, /openapi.json, and /metrics for Prometheus.
import express, { type Router } from 'express';
import type { Config } from '../engine/config.js';
import type { EndpointSpec } from '../engine/catalog/load.js';
import { ApiError } from '../engine/errors.js';
import type { Adapter } from '../engine/types.js';
import type { RedisHandle } from '../engine/infra/redis.js';
import { metricsAccess, type createMetrics } from '../engine/infra/metrics.js';
import type { HostedBlobs } from '../engine/hosting/types.js';
import type { openApiDocument } from '../engine/openapi/document.js';

export interface ServiceRoutesDeps {
  config: Config;
  version: string;
  endpoints: EndpointSpec[];
  /** The OpenAPI document, built once from this server's configuration (server/app.ts; /docs renders it too). */
  openapi: ReturnType<typeof openApiDocument>;
  adapters: Map<string, Adapter>;
  redis: RedisHandle | undefined;
  blobs: HostedBlobs;
  metrics: ReturnType<typeof createMetrics>;
  /** True once SIGTERM started draining (server/main.ts). */
  draining(): boolean;
}

export function serviceRoutes(deps: ServiceRoutesDeps): Router {
  const { config, version, endpoints, adapters, redis, blobs, metrics } = deps;
  const router = express.Router();
  router.get('/', (_req, res) => {
    res.json({
      success: true,
      name: config.serviceName,
      version,
      docs: `${config.publicUrl}/openapi.json`,
      health: `${config.publicUrl}/health`,
      status: `${config.publicUrl}/status.json`,
      endpoints: endpoints.length,
    });
  });
  router.get('/health', (_req, res) => {
    const draining = deps.draining();
    const redisState = redis ? (redis.ready() ? 'ready' : 'down') : 'disabled';
    const blobState = blobs.state();
    const objectStore = blobState.backend === 'disk' ? 'disk' : blobState.reachable ? 'ready' : 'down';
    // Draining: 503, so a balancer's health check takes the instance out while it finishes its requests.
    // A shared part down is "degraded" but 200: every instance sees the same outage, and taking them all
    // out would turn a partial outage into a whole one.
    res.status(draining ? 503 : 200).json({
      status: draining ? 'draining' : redisState === 'down' || objectStore === 'down' ? 'degraded' : 'ok',
      version,
      uptimeSeconds: Math.round(process.uptime()),
      redis: redisState,
      ...(redisState === 'down' ? { redisError: 'unreachable; counting and caching in process until it returns' } : {}),
      objectStore,
      endpoints: endpoints.length,
      adapters: endpoints.filter((e) => adapters.has(e.adapter)).length,
    });
  });
  const { openapi } = deps;
  router.get('/openapi.json', (_req, res) => {
    res.json(openapi);
  });
  router.get('/metrics', async (req, res, next) => {
    const access = metricsAccess(config.metricsToken, req.headers.authorization);
    const challenge = { 'WWW-Authenticate': 'Bearer realm="metrics"' };
    if (access === 'missing')
      return next(new ApiError('missing_key', 'Missing metrics token: send Authorization: Bearer <METRICS_TOKEN>', challenge));
    if (access === 'wrong') return next(new ApiError('invalid_key', 'Invalid metrics token', challenge));
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  return router;
}
