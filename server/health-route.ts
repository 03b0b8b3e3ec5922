// GET /health for load balancers, answered before the API and Express (server/app.ts), so it answers as
// soon as the server listens, while the pages and adapters still load (`warming` says what is left).
import type { IncomingMessage, ServerResponse } from 'node:http';
import parseurl from 'parseurl';
import type { RedisHandle } from '../engine/infra/redis.js';
import type { HostedBlobs } from '../features/hosting/types.js';
import { storage } from '../engine/infra/storage-full.js';

export interface HealthRouteDeps {
  version: string;
  endpoints: number;
  /** Endpoints whose adapter file exists. */
  adapters: number;
  redis: RedisHandle | undefined;
  blobs: HostedBlobs;
  /** True once SIGTERM started draining (server/main.ts). */
  draining(): boolean;
  /** What is still being loaded after the boot: `pages` (Express, the portal, MCP), `adapters` (how many). */
  warming(): Record<string, number | true>;
}

/** Answers GET or HEAD /health and says true; any other request says false. */
export function healthRoute(deps: HealthRouteDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || parseurl(req)?.pathname !== '/health') return false;
    const draining = deps.draining();
    const redisState = deps.redis ? (deps.redis.ready() ? 'ready' : 'down') : 'disabled';
    const blobState = deps.blobs.state();
    const objectStore = blobState.backend === 'disk' ? 'disk' : blobState.reachable ? 'ready' : 'down';
    const warming = deps.warming();
    const disk = storage.state();
    // Draining: 503, so a balancer's health check takes the instance out while it finishes its requests.
    // A shared part down (or a full disk) is "degraded" but 200: every instance sees the same outage, and taking them all
    // out would turn a partial outage into a whole one. Warming is 200: a request meanwhile waits for what
    // it needs, it does not fail.
    const body = JSON.stringify({
      status: draining ? 'draining' : redisState === 'down' || objectStore === 'down' || disk === 'full' ? 'degraded' : 'ok',
      version: deps.version,
      uptimeSeconds: Math.round(process.uptime()),
      redis: redisState,
      ...(redisState === 'down' ? { redisError: 'unreachable; counting and caching in process until it returns' } : {}),
      objectStore,
      // DATA_DIR's disk: `full` from a write refused for lack of space until one goes through.
      storage: disk,
      ...(disk === 'full'
        ? { storageError: 'no space left: writes answer 507 storage_full; counts are kept in memory until written' }
        : {}),
      endpoints: deps.endpoints,
      adapters: deps.adapters,
      ...(Object.keys(warming).length ? { warming } : {}),
    });
    res.writeHead(draining ? 503 : 200, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      'X-Content-Type-Options': 'nosniff',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
}
