// The service's own pages for machines: the service document at / (for JSON clients; browsers get the
// portal's landing page), /openapi.json, and /metrics for Prometheus (/health: server/health-route.ts).
import express, { type Router } from 'express';
import type { Config } from '../engine/config.js';
import type { EndpointSpec } from '../engine/catalog/load.js';
import { ApiError } from '../engine/errors.js';
import { metricsAccess, type createMetrics } from '../engine/infra/metrics.js';
import type { openApiDocument } from '../engine/openapi/document.js';

export interface ServiceRoutesDeps {
  config: Config;
  version: string;
  endpoints: EndpointSpec[];
  /** The OpenAPI document, built once from this server's configuration (server/app.ts; /docs renders it too). */
  openapi: () => ReturnType<typeof openApiDocument>;
  metrics: ReturnType<typeof createMetrics>;
}

export function serviceRoutes(deps: ServiceRoutesDeps): Router {
  const { config, version, endpoints, metrics } = deps;
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
  const { openapi } = deps;
  router.get('/openapi.json', (_req, res) => {
    res.json(openapi());
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
