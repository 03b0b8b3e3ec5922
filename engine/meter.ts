// Per-plan allowances with express-rate-limit: one limiter (own store, own prefix) per plan, plus one for
// invalid or missing keys counted per client IP. Every response carries the limit headers; 5xx are refunded.
import { createHash } from 'node:crypto';
import type { Request, Response, NextFunction, RequestHandler } from 'express';
import { rateLimit, ipKeyGenerator, MemoryStore, type Store } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';
import type { RedisClientType } from 'redis';
import type { Logger } from 'pino';
import type { PlanSpec } from './catalog.js';
import { ApiError } from './errors.js';
import { parseDuration } from './duration.js';
import { FallbackStore, type RedisHealth } from './fallback-store.js';
import type { Identity } from './identify.js';

export const AUTH_FAIL_PLAN = 'auth-fail';

export interface MeterDeps {
  plans: Record<string, PlanSpec>;
  authFailLimit: number;
  redis?: RedisClientType;
  redisHealth?: RedisHealth;
  log: Logger;
  prefix: string;
}

interface LimitInfo { limit: number; remaining: number; resetTime?: Date; key: string }

// The draft-8 partition key of a counter (the first 12 hex digits of its SHA-256, base64), remembered.
const partitionKeys = new Map<string, string>();
function partitionKey(key: string): string {
  let pk = partitionKeys.get(key);
  if (pk === undefined) {
    if (partitionKeys.size > 50_000) partitionKeys.clear();
    pk = Buffer.from(createHash('sha256').update(key).digest('hex').slice(0, 12)).toString('base64');
    partitionKeys.set(key, pk);
  }
  return pk;
}

/** `RateLimit` and `RateLimit-Policy` (IETF draft 8), as express-rate-limit writes them. */
function standardHeaders(req: Request, res: Response, name: string, windowMs: number) {
  const info = (req as Request & { rateLimit?: LimitInfo }).rateLimit;
  if (!info || res.headersSent) return;
  const resetSeconds = info.resetTime ? Math.max(0, Math.ceil((info.resetTime.getTime() - Date.now()) / 1000)) : Math.ceil(windowMs / 1000);
  res.setHeader('RateLimit', `"${name}"; r=${info.remaining}; t=${resetSeconds}`);
  res.setHeader('RateLimit-Policy', `"${name}"; q=${info.limit}; w=${Math.ceil(windowMs / 1000)}; pk=:${partitionKey(info.key)}:`);
}

export function identityOf(res: Response): Identity {
  return res.locals.identity as Identity;
}

function counterKey(plan: PlanSpec, req: Request, res: Response): string {
  const id = identityOf(res);
  const keyId = id.status === 'ok' ? id.keyId : '-';
  switch (plan.keyedBy) {
    case 'shared': return 'all';
    case 'key': return keyId;
    default: return `${keyId}:${ipKeyGenerator(req.ip ?? '0.0.0.0')}`;
  }
}

export function createMeter(deps: MeterDeps) {
  const stores: Array<FallbackStore | MemoryStore> = [];
  const storeOf: Record<string, Store> = {};
  const makeStore = (planId: string): Store => {
    const prefix = `${deps.prefix}rl:${planId}:`;
    // Without Redis the in-process store is used as it is: the fallback wrapper would only add awaits.
    const store = deps.redis
      ? new FallbackStore(new RedisStore({ prefix, sendCommand: (...args: string[]) => deps.redis!.sendCommand(args) }), deps.redisHealth, deps.log, prefix)
      : new MemoryStore();
    stores.push(store);
    storeOf[planId] = store;
    return store;
  };

  const plans: Record<string, PlanSpec> = {
    ...deps.plans,
    [AUTH_FAIL_PLAN]: { id: AUTH_FAIL_PLAN, limit: deps.authFailLimit, window: '15m', keyedBy: 'key+ip', description: 'invalid or missing keys, per client IP' },
  };

  const limiters: Record<string, RequestHandler> = {};
  const windows: Record<string, number> = {};
  for (const plan of Object.values(plans)) {
    const windowMs = (windows[plan.id] = parseDuration(plan.window));
    limiters[plan.id] = rateLimit({
      windowMs,
      limit: plan.limit,
      // The standard headers are written by standardHeaders() below: express-rate-limit's own draft-8 code
      // hashes the counter key on every request, which measured as its costliest step (~20 µs a call).
      standardHeaders: false,
      legacyHeaders: true,
      store: makeStore(plan.id),
      keyGenerator: (req, res) => counterKey(plan, req, res),
      handler: (req, res, next) => {
        standardHeaders(req, res, plan.id, windowMs);
        next(new ApiError('quota', 'Rate limit exceeded. Try again later.'));
      },
      validate: false, // our configuration is fixed; the per-request checks cost throughput
    });
  }

  const meter = (req: Request, res: Response, next: NextFunction) => {
    const id = identityOf(res);
    const planId = id.status === 'ok' ? id.plan : AUTH_FAIL_PLAN;
    const limiter = limiters[planId];
    if (!limiter) return next(new ApiError('internal', `Unknown plan ${planId}`));
    return limiter(req, res, (err?: unknown) => {
      if (!err) standardHeaders(req, res, planId, windows[planId]);
      // Our own and the upstream's failures (5xx) are refunded, never the caller's: the error handler calls
      // this. (express-rate-limit's skipFailedRequests does the same with three listeners per request.)
      const key = (req as Request & { rateLimit?: { key: string } }).rateLimit?.key;
      if (key !== undefined) res.locals.refund = async () => storeOf[planId].decrement(key);
      next(err);
    });
  };
  return { meter, close: () => stores.forEach((s) => s.shutdown()) };
}
