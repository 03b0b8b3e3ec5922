// Per-plan allowances: one counter per plan (in Redis when configured, otherwise in process), plus one for
// invalid or missing keys counted per client IP. Every response carries the limit headers (the legacy
// X-RateLimit-* trio and IETF draft 8's RateLimit / RateLimit-Policy, as express-rate-limit writes them);
// a 429 adds Retry-After; 5xx are refunded by the error handler through the call's `refund`.
// This replaces express-rate-limit's middleware, which cost more than the rest of a request together
// (docs/decisions.md); its counting semantics are kept, and rate-limit-redis's layout in Redis.
import { createHash } from 'node:crypto';
import { ipKeyGenerator } from 'express-rate-limit';
import type { RedisClientType } from 'redis';
import type { Logger } from 'pino';
import type { PlanSpec } from '../catalog/load.js';
import { ApiError } from '../errors.js';
import { parseDuration } from '../duration.js';
import { MemoryCounter, type Counter, type Hit } from './counter.js';
import { RedisCounter } from './redis-counter.js';
import type { RedisHealth } from '../infra/redis.js';
import type { Call } from '../pipeline/call.js';
import type { Next } from '../pipeline/chain.js';
import { partitionOf } from './usage.js';

export const AUTH_FAIL_PLAN = 'auth-fail';

export interface MeterDeps {
  plans: Record<string, PlanSpec>;
  authFailLimit: number;
  redis?: RedisClientType;
  redisHealth?: RedisHealth;
  log: Logger;
  prefix: string;
}

interface Meter {
  plan: PlanSpec;
  counter: Counter;
  windowSeconds: number;
  /** The constant head of this plan's RateLimit-Policy header. */
  policy: string;
}

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

/** The counter a key's requests count on: the plan's `keyedBy` decides whether the client IP is part of it. */
export function counterKey(plan: PlanSpec, keyId: string, ip: () => string | undefined): string {
  switch (plan.keyedBy) {
    case 'shared':
      return 'all';
    case 'key':
      return keyId;
    default:
      return `${keyId}:${ipKeyGenerator(ip() ?? '0.0.0.0')}`;
  }
}

/** A window's numbers, as the X-RateLimit-* headers carry them. */
export interface Allowance {
  plan: string;
  limit: number;
  used: number;
  remaining: number;
  resetAt: number;
}

/** Writes the limit headers of a counted request and passes it on, or stops it with a 429. */
function settle(m: Meter, key: string, hit: Hit, call: Call, next: Next) {
  writeHeaders(m, key, hit, call);
  // Blocked requests count too (as in express-rate-limit): hammering a spent allowance does not refill it.
  if (hit.hits > m.plan.limit)
    return next(
      new ApiError('quota', 'Rate limit exceeded. Try again later.', {
        'Retry-After': String(Math.max(0, Math.ceil((hit.resetAt - Date.now()) / 1000))),
      }),
    );
  call.refund = () => m.counter.refund(key);
  next();
}

function writeHeaders(m: Meter, key: string, hit: Hit, call: Call) {
  const limit = m.plan.limit;
  const remaining = Math.max(limit - hit.hits, 0);
  const resetSeconds = Math.max(0, Math.ceil((hit.resetAt - Date.now()) / 1000));
  call.header('X-RateLimit-Limit', String(limit));
  call.header('X-RateLimit-Remaining', String(remaining));
  call.header('X-RateLimit-Reset', String(Math.ceil(hit.resetAt / 1000)));
  call.header('RateLimit', `"${m.plan.id}"; r=${remaining}; t=${resetSeconds}`);
  call.header('RateLimit-Policy', `${m.policy}${partitionKey(key)}:`);
}

export function createMeter(deps: MeterDeps) {
  const plans: Record<string, PlanSpec> = {
    ...deps.plans,
    [AUTH_FAIL_PLAN]: {
      id: AUTH_FAIL_PLAN,
      limit: deps.authFailLimit,
      window: '15m',
      keyedBy: 'key+ip',
      description: 'invalid or missing keys, per client IP',
    },
  };
  const meters = new Map<string, Meter>();
  for (const plan of Object.values(plans)) {
    const windowMs = parseDuration(plan.window);
    const counter =
      deps.redis && deps.redisHealth
        ? new RedisCounter(deps.redis, windowMs, `${deps.prefix}rl:${plan.id}:`, deps.redisHealth, deps.log)
        : new MemoryCounter(windowMs);
    const windowSeconds = Math.ceil(windowMs / 1000);
    meters.set(plan.id, { plan, counter, windowSeconds, policy: `"${plan.id}"; q=${plan.limit}; w=${windowSeconds}; pk=:` });
  }

  const meter = (call: Call, next: Next) => {
    const id = call.identity!;
    const planId = id.status === 'ok' ? id.plan : AUTH_FAIL_PLAN;
    const m = meters.get(planId);
    if (m === undefined) return next(new ApiError('internal', `Unknown plan ${planId}`));
    const key = counterKey(m.plan, id.status === 'ok' ? id.keyId : '-', () => call.ip);
    if (id.status === 'ok') call.meterKey = key;
    const hit = m.counter.hit(key);
    if (hit instanceof Promise) hit.then((h) => settle(m, key, h, call, next), next);
    else settle(m, key, hit, call, next);
  };

  /** The allowance of a key as it stands, without counting a request. */
  const allowance = async (planId: string, keyId: string, ip: string | undefined): Promise<Allowance | undefined> => {
    const m = meters.get(planId);
    if (m === undefined) return undefined;
    const hit = await m.counter.peek(counterKey(m.plan, keyId, () => ip));
    const used = Math.min(hit?.hits ?? 0, m.plan.limit);
    return {
      plan: planId,
      limit: m.plan.limit,
      used,
      remaining: m.plan.limit - used,
      resetAt: hit?.resetAt ?? Date.now() + m.windowSeconds * 1000,
    };
  };

  /**
   * For requests that must not spend the allowance (the usage endpoint): a known key gets the headers of
   * its allowance as it stands; a missing or invalid one is metered like any other, so keys still cannot
   * be guessed at speed there.
   */
  const peekMeter = (call: Call, next: Next) => {
    const id = call.identity!;
    if (id.status !== 'ok') return meter(call, next);
    const m = meters.get(id.plan);
    if (m === undefined) return next(new ApiError('internal', `Unknown plan ${id.plan}`));
    const key = counterKey(m.plan, id.keyId, () => call.ip);
    Promise.resolve(m.counter.peek(key)).then((hit) => {
      writeHeaders(m, key, hit ?? { hits: 0, resetAt: Date.now() + m.windowSeconds * 1000 }, call);
      next();
    }, next);
  };

  /** The usage history's partition of a key: its plan and the counter it counts on. */
  const usageKey = (planId: string, keyId: string, ip: string | undefined): string | undefined => {
    const m = meters.get(planId);
    return (
      m &&
      partitionOf(
        planId,
        counterKey(m.plan, keyId, () => ip),
      )
    );
  };

  return { meter, peekMeter, allowance, usageKey, close: () => meters.forEach((m) => m.counter.close()) };
}
