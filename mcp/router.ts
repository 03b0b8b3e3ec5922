// /mcp: the catalog as MCP tools over the Streamable HTTP transport, stateless (docs/decisions/mcp.md).
// Every POST gets its own Server and transport (mcp/server.ts), answered with plain JSON: no session to keep, so any
// instance behind a load balancer answers any message. A tool call is the REST request it stands for,
// injected into the app in process (mcp/inject.ts) with the connection's key and client address, so the
// key, plan meter, validation, cache and envelope are the REST endpoint's own.
import express, { type Express, type NextFunction, type Request, type Response, type Router } from 'express';
import type { Config } from '../engine/config.js';
import type { EndpointSpec, UpstreamSpec } from '../engine/catalog/load.js';
import { ApiError } from '../engine/errors.js';
import type { ApiServer } from '../engine/pipeline/api.js';
import type { LargeBodies } from '../engine/pipeline/large-bodies.js';
import { refuseDeepJson } from '../engine/pipeline/json-depth.js';
import { injector, type Injector } from './inject.js';
import { buildTools } from './tools.js';
import { callerOf } from './rest-request.js';

export interface McpDeps {
  /** The pages (hosted files are read through it), and the API that is served before it. */
  app: Express;
  api: ApiServer;
  endpoints: EndpointSpec[];
  upstreams: Record<string, UpstreamSpec>;
  /** True when this server holds a pooled key for the upstream. */
  pooled: (upstream: string) => boolean;
  config: Config;
  version: string;
  /** Bodies over MAX_BODY_KB read at once (engine/pipeline/large-bodies.ts), shared with the API. */
  largeBodies?: LargeBodies;
}

/** How long, and for how many keys, a key that passed is taken without asking again. */
const PASSED_MS = 30_000;
const PASSED_MAX = 10_000;

export function createMcpRouter(deps: McpDeps): Router {
  const { env, mcp } = deps.config;
  const tools = buildTools(deps.endpoints, {
    upstreams: deps.upstreams,
    pooled: deps.pooled,
    env,
    hideUnconfigured: mcp.hideUnconfigured,
    pageSize: mcp.pageSize,
  });
  const inject = injector(deps.app, deps.api);
  const { publicUrl, serviceName, maxUploadBytes, maxBodyBytes } = deps.config;
  const info = { name: serviceName, version: deps.version };
  const instructions = `Every tool is an endpoint of ${serviceName} (${publicUrl}/openapi.json). A call counts as one request of your key's plan, exactly as the REST call does; errors carry the REST API's messages.`;

  const router = express.Router();
  // A browser page may only talk to /mcp from an origin the operator trusts (MCP: servers MUST validate
  // Origin, against DNS rebinding). Agents and SDK clients send no Origin.
  // The server's own port on this machine by either name, whatever PUBLIC_URL says: a browser at
  // http://127.0.0.1:PORT reaches the same server as one at the default http://localhost:PORT.
  const port = deps.config.port;
  const origins = new Set([
    new URL(publicUrl).origin,
    `http://localhost:${port}`,
    `http://127.0.0.1:${port}`,
    `http://[::1]:${port}`,
    ...mcp.allowedOrigins,
  ]);
  router.use((req: Request, _res: Response, next: NextFunction) => {
    const origin = req.headers.origin;
    if (origin === undefined || origins.has(origin) || origins.has('*')) return next();
    next(new ApiError('forbidden', `Origin ${origin} may not use /mcp; the operator can allow it with MCP_ALLOWED_ORIGINS`));
  });
  // No message is read before its key passed (docs/decisions/no-work-before-a-key.md): the usage endpoint
  // checks it without spending the allowance, and meters missing and wrong keys per IP as REST does, so an
  // address refused for bad keys is refused here too, its body unread. A JSON-RPC message needs no more
  // than MAX_BODY_KB; a larger one (a file sent as base64) takes a place among the few large bodies read at once.
  const largest = Math.max(maxBodyBytes, Math.ceil((maxUploadBytes * 4) / 3) + 65536);
  const small = express.json({ limit: maxBodyBytes, verify: refuseDeepJson });
  const large = express.json({ limit: largest, verify: refuseDeepJson });
  router.post(
    '/',
    (req: Request, res: Response, next: NextFunction) => {
      keyPasses(req, res).then((passed) => {
        if (!passed) return;
        // Said to be over the limit: refused now (body-parser would first read it all, and drop it).
        if (Number(req.headers['content-length'] ?? 0) > largest)
          return next(new ApiError('payload_too_large', 'Request body is too large'));
        if (!deps.largeBodies || !largerThan(req, maxBodyBytes)) return small(req, res, next);
        const refused = deps.largeBodies.take(req.ip ?? '', res);
        if (refused) return next(refused);
        large(req, res, next);
      }, next);
    },
    (req: Request, res: Response, next: NextFunction) => {
      serve(req, res).catch(next);
    },
  );
  // Stateless: no server-initiated stream to open (GET) and no session to end (DELETE).
  router.all('/', (req: Request, _res: Response, next: NextFunction) => {
    next(new ApiError('method_not_allowed', `Method ${req.method} is not allowed on /mcp; use POST`, { Allow: 'POST' }));
  });

  // The SDK is loaded at the first MCP request: a server only ever asked REST boots as fast as before.
  let sdk: Promise<typeof import('./server.js')> | undefined;
  // Keys that passed, until when: the usage endpoint reads the key's history, too much to do for every
  // message, and each tool call is checked again by its REST route anyway. Missing and wrong keys are
  // never remembered, so each is metered.
  const passed = new Map<string, number>();
  /** Whether the connection's key passes; if not, the key check's answer is sent. */
  async function keyPasses(req: Request, res: Response): Promise<boolean> {
    const caller = callerOf(req.headers, req.socket.remoteAddress);
    const key = caller.headers['x-api-key'];
    if (key !== undefined && (passed.get(key) ?? 0) > Date.now()) return true;
    const check = await inject({
      method: 'GET',
      url: '/api/v1/account/usage',
      headers: caller.headers,
      remoteAddress: caller.remoteAddress,
    });
    if (check.statusCode < 400 && key !== undefined) {
      if (passed.size >= PASSED_MAX) passed.clear();
      passed.set(key, Date.now() + PASSED_MS);
      return true;
    }
    refuse(res, check);
    return false;
  }
  async function serve(req: Request, res: Response) {
    const caller = callerOf(req.headers, req.socket.remoteAddress);
    sdk ??= import('./server.js');
    const { answer } = await sdk;
    await answer(req, res, { tools, caller, inject, publicUrl, info, instructions });
  }
  return router;
}

/** Whether a body is over `limit` bytes, or of a length not given. */
function largerThan(req: Request, limit: number): boolean {
  const length = req.headers['content-length'];
  return length === undefined ? req.headers['transfer-encoding'] !== undefined : Number(length) > limit;
}

/** The key check's answer, passed on as it came: status, allowance headers and the JSON envelope. */
function refuse(res: Response, check: Awaited<ReturnType<Injector>>) {
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit', 'ratelimit-policy', 'retry-after']) {
    const v = check.headers[name];
    if (v !== undefined) res.setHeader(name, String(v));
  }
  res.status(check.statusCode).type('application/json').send(check.rawPayload);
}
