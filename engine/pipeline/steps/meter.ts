// Per-plan allowances. A plan counted per key counts the keys of one account on one counter, the account's,
// whichever key calls and whatever its plan (a plan change carries the count over); a key without an
// account (the CLI's, API_KEYS_FILE's) counts on its own. Each key of an account also counts its own calls
// beside the account's (the key page tells each key's share), and a key may carry a cap of its own below the
// account's allowance, checked on that count: like the account's, it is kept per window length, not per
// plan, so a plan change neither resets it nor brings an old count back. Invalid or missing keys count on
// one more allowance per client IP.
// Counters live in Redis when configured, otherwise in process and written to the store every second
// (engine/access/stored-counter.ts), so a restart forgets nothing.
// Every response carries the limit headers (the legacy X-RateLimit-* trio and IETF draft 8's RateLimit /
// RateLimit-Policy, as express-rate-limit writes them); a 429 adds Retry-After; 5xx are refunded by the
// error handler through the call's `refund`. This replaces express-rate-limit's middleware, which cost more
// than the rest of a request together (docs/decisions/engine-request-path.md); its counting semantics are kept, and
// rate-limit-redis's layout in Redis.
import { createHash } from 'node:crypto';
import { ipKeyGenerator } from 'express-rate-limit';
import type { PlanSpec } from '../../catalog/load.js';
import { ApiError } from '../../errors.js';
import { parseDuration } from '../../duration.js';
import type { Counter, Hit } from '../../access/counter.js';
import { counterIn, readBack, type CounterHome } from '../../access/counter-home.js';
import type { AccountEvents } from '../../access/account-events.js';
import type { Call } from '../call.js';
import type { Next } from '../chain.js';
import { remembered } from '../../remembered.js';

export const AUTH_FAIL_PLAN = 'auth-fail';

/** Distinct caps whose gauges are kept per plan (each remembers its keys' policy items). */
const MAX_CAPS = 1000;

/** Share of the allowance at which the account is warned (quota.warning); at 100% it is told it is spent. */
const WARN_AT = 0.8;

/** `redis`/`store`: where the counters live (engine/access/counter-home.ts). */
export interface MeterDeps extends CounterHome {
  plans: Record<string, PlanSpec>;
  authFailLimit: number;
  /** Hears an account's allowance reach 80% and 100%. */
  events?: AccountEvents;
}

/** Whose allowance a request spends: a key, the account that holds it, and the key's own cap. */
export interface Subject {
  keyId: string;
  accountId?: string;
  cap?: number;
}

/** One allowance a request counts on: a plan's, or a key's own cap. */
interface Gauge {
  name: string;
  limit: number;
  counter: Counter;
  windowSeconds: number;
  /** Its RateLimit-Policy item for a counter key. */
  policyOf: (key: string) => string;
  /** What the limit headers repeat on every answer, made once: the limit, the quoted name, and the
   * X-RateLimit-Reset of the window last seen (a window ends at the same time for all its requests). */
  limitText: string;
  quotedName: string;
  resetAt: number;
  resetText: string;
}

interface Meter {
  plan: PlanSpec;
  /** Per key, per key and address, or shared, as the plan's keyedBy says. */
  gauge: Gauge;
  /** The accounts' counter, on plans counted per key. */
  accounts?: Gauge;
  /** Where an account's key (or a capped key) counts its own calls, under `key:<id>`: on plans counted per
   * key the accounts' counter, one per window length (so a plan change neither resets a key's count nor
   * gives it back an old one, and a call still costs Redis one script call per turn); else the plan's. */
  keys: Counter;
  /** The gauges of keys' own caps, by cap: counted on the keys' counter. */
  caps: Map<number, Gauge>;
}

/** The draft-8 partition key of a counter: the first 12 hex digits of its SHA-256, as base64. */
const partitionKey = remembered((key) => Buffer.from(createHash('sha256').update(key).digest('hex').slice(0, 12)).toString('base64'));

/** The counter a request counts on: the plan's `keyedBy` decides whether the client IP or the account is part of it. */
export function counterKey(plan: PlanSpec, subject: Subject, ip: () => string | undefined): string {
  switch (plan.keyedBy) {
    case 'shared':
      return 'all';
    case 'key':
      return subject.accountId === undefined ? subject.keyId : `acct:${subject.accountId}`;
    default:
      return `${subject.keyId}:${ipKeyGenerator(ip() ?? '0.0.0.0')}`;
  }
}

/** The usage partition of a plan's counter (plans counted per client IP or shared). */
const partitionOf = (plan: string, counter: string) => `${plan}:${counter}`;

/** Whose allowance a request without a valid key spends (the auth-fail plan's, per client address). */
const NO_KEY: Subject = Object.freeze({ keyId: '-' });

/** The usage partition of a key of a per-key plan (remembered: a request builds no string for it). */
const keyPartition = remembered((keyId) => `key:${keyId}`);

/**
 * The usage history's partition of a request: a key of a per-key plan has its own, whatever its plan, so
 * its history outlives plan changes and the key itself; the others are counted by plan and counter.
 */
function usagePartition(plan: PlanSpec, subject: Subject, ip: () => string | undefined): string {
  return plan.keyedBy === 'key' ? keyPartition(subject.keyId) : partitionOf(plan.id, counterKey(plan, subject, ip));
}

/** A window's numbers, as the X-RateLimit-* headers carry them. */
export interface Allowance {
  plan: string;
  limit: number;
  used: number;
  remaining: number;
  resetAt: number;
}

/** A key's own count in its window, beside its account's allowance; resetAt when a window is open. */
export interface KeyUse {
  used: number;
  cap?: number;
  resetAt?: number;
}

const secondsTo = (at: number) => Math.max(0, Math.ceil((at - Date.now()) / 1000));

function writeHeaders(g: Gauge, hit: Hit, call: Call, policies: string) {
  const remaining = String(Math.max(g.limit - hit.hits, 0));
  if (hit.resetAt !== g.resetAt) {
    g.resetAt = hit.resetAt;
    g.resetText = String(Math.ceil(hit.resetAt / 1000));
  }
  call.header('X-RateLimit-Limit', g.limitText);
  call.header('X-RateLimit-Remaining', remaining);
  call.header('X-RateLimit-Reset', g.resetText);
  call.header('RateLimit', `${g.quotedName}; r=${remaining}; t=${secondsTo(hit.resetAt)}`);
  call.header('RateLimit-Policy', policies);
}

function gauge(name: string, limit: number, windowMs: number, counter: Counter): Gauge {
  const windowSeconds = Math.ceil(windowMs / 1000);
  const policy = `"${name}"; q=${limit}; w=${windowSeconds}; pk=:`;
  return {
    name,
    limit,
    counter,
    windowSeconds,
    policyOf: remembered((key) => `${policy}${partitionKey(key)}:`),
    limitText: String(limit),
    quotedName: `"${name}"`,
    resetAt: NaN,
    resetText: '',
  };
}

export function createMeter(deps: MeterDeps) {
  const plans: Record<string, PlanSpec> = {
    ...deps.plans,
    [AUTH_FAIL_PLAN]: {
      id: AUTH_FAIL_PLAN,
      limit: deps.authFailLimit,
      window: '15m',
      // Stryker disable next-line StringLiteral: 'key+ip' is counterKey's default branch too
      keyedBy: 'key+ip',
      // Stryker disable next-line StringLiteral: a description, shown nowhere for this plan
      description: 'invalid or missing keys, per client IP',
    },
  };
  const counters: Counter[] = [];
  const counterOf = (name: string, windowMs: number): Counter => {
    const c = counterIn(deps, `rl:${name}`, windowMs);
    counters.push(c);
    return c;
  };
  // The accounts' counters, one per window length: plans of equal windows share it, so a plan change
  // carries an account's count over (and its keys' own counts, kept there too).
  const accountCounters = new Map<number, Counter>();
  const meters = new Map<string, Meter>();
  for (const plan of Object.values(plans)) {
    const windowMs = parseDuration(plan.window);
    const own = counterOf(plan.id, windowMs);
    let accounts: Counter | undefined;
    if (plan.keyedBy === 'key') {
      accounts = accountCounters.get(windowMs);
      if (accounts === undefined)
        accountCounters.set(windowMs, (accounts = counterOf(`accounts-${Math.ceil(windowMs / 1000)}s`, windowMs)));
    }
    meters.set(plan.id, {
      plan,
      gauge: gauge(plan.id, plan.limit, windowMs, own),
      accounts: accounts && gauge(plan.id, plan.limit, windowMs, accounts),
      keys: accounts ?? own,
      caps: new Map(),
    });
  }
  const ready = Promise.all(counters.map(readBack)).then(() => undefined);

  /** The gauge and counter key a subject's request counts on under plan `m`. */
  const placeOf = (m: Meter, subject: Subject, ip: () => string | undefined): [Gauge, string] => {
    const key = counterKey(m.plan, subject, ip);
    return [subject.accountId !== undefined && m.accounts ? m.accounts : m.gauge, key];
  };

  /** Tells the account when this request brought its allowance to 80% or to 100%. */
  const crossed = (g: Gauge, subject: Subject, hit: Hit) => {
    if (deps.events === undefined || subject.accountId === undefined) return;
    const type = hit.hits === g.limit ? 'quota.exhausted' : hit.hits === Math.ceil(g.limit * WARN_AT) ? 'quota.warning' : undefined;
    if (type === undefined) return;
    deps.events.emit(type, subject.accountId, {
      plan: g.name,
      limit: g.limit,
      used: hit.hits,
      resetAt: new Date(hit.resetAt).toISOString(),
    });
  };

  /**
   * Writes the limit headers of a counted request and passes it on, or stops it with a 429. `own` is the
   * key's own count (an account's key), with its cap's gauge when it has one.
   */
  const settle = (
    call: Call,
    next: Next,
    g: Gauge,
    key: string,
    hit: Hit,
    own?: { counter: Counter; key: string; hit: Hit; cap?: Gauge },
  ) => {
    const cap = own?.cap && { g: own.cap, key: own.key, hit: own.hit };
    if (!cap) writeHeaders(g, hit, call, g.policyOf(key));
    // The headers tell of whichever allowance is nearer its end: the key's cap or the plan's.
    else if (cap.g.limit - cap.hit.hits < g.limit - hit.hits)
      writeHeaders(cap.g, cap.hit, call, `${g.policyOf(key)}, ${cap.g.policyOf(cap.key)}`);
    else writeHeaders(g, hit, call, `${g.policyOf(key)}, ${cap.g.policyOf(cap.key)}`);
    // Blocked requests count too (as in express-rate-limit): hammering a spent allowance does not refill it.
    const over = hit.hits > g.limit ? hit : cap && cap.hit.hits > cap.g.limit ? cap.hit : undefined;
    if (over !== undefined)
      return next(new ApiError('quota', 'Rate limit exceeded. Try again later.', { 'Retry-After': String(secondsTo(over.resetAt)) }));
    call.refund =
      own === undefined
        ? () => g.counter.refund(key)
        : () => Promise.all([g.counter.refund(key), own.counter.refund(own.key)]).then(() => {});
    next();
  };

  /** The gauge of a key's own cap (none without a cap), counted on the keys' counter. */
  const capGauge = (m: Meter, keys: Counter, cap: number | undefined): Gauge | undefined => {
    if (cap === undefined) return undefined;
    let cg = m.caps.get(cap);
    if (cg === undefined) {
      if (m.caps.size >= MAX_CAPS) m.caps.clear();
      m.caps.set(cap, (cg = gauge('key', cap, m.gauge.windowSeconds * 1000, keys)));
    }
    return cg;
  };

  const meter = (call: Call, next: Next) => {
    const id = call.identity!;
    const ok = id.status === 'ok';
    const planId = ok ? id.plan : AUTH_FAIL_PLAN;
    const m = meters.get(planId);
    if (m === undefined) return next(new ApiError('internal', `Unknown plan ${planId}`));
    const subject: Subject = ok ? id : NO_KEY;
    const ip = () => call.ip;
    const key = counterKey(m.plan, subject, ip);
    const g = subject.accountId !== undefined && m.accounts ? m.accounts : m.gauge;
    if (ok) call.usageKey = m.plan.keyedBy === 'key' ? keyPartition(subject.keyId) : partitionOf(m.plan.id, key);
    const hit = g.counter.hit(key);
    if (subject.accountId === undefined && subject.cap === undefined) {
      if (hit instanceof Promise)
        hit.then((h) => {
          crossed(g, subject, h);
          settle(call, next, g, key, h);
        }, next);
      else {
        crossed(g, subject, hit);
        settle(call, next, g, key, hit);
      }
      return;
    }
    // An account's key, or a capped one, counts on the keys' counter too: its own use, and its cap if any.
    const keys = m.keys;
    const ownKey = keyPartition(subject.keyId);
    const own = keys.hit(ownKey);
    const done = (h: Hit, c: Hit) => {
      crossed(g, subject, h);
      settle(call, next, g, key, h, { counter: keys, key: ownKey, hit: c, cap: capGauge(m, keys, subject.cap) });
    };
    if (hit instanceof Promise || own instanceof Promise) Promise.all([hit, own]).then(([h, c]) => done(h, c), next);
    else done(hit, own);
  };

  /** The allowance of a key as it stands, without counting a request (the account's, for an account's key). */
  const allowance = async (planId: string, subject: Subject, ip: string | undefined): Promise<Allowance | undefined> => {
    const m = meters.get(planId);
    if (m === undefined) return undefined;
    const [g, key] = placeOf(m, subject, () => ip);
    const hit = await g.counter.peek(key);
    const used = Math.min(hit?.hits ?? 0, g.limit);
    return { plan: planId, limit: g.limit, used, remaining: g.limit - used, resetAt: hit?.resetAt ?? Date.now() + g.windowSeconds * 1000 };
  };

  /**
   * An account's key's own use in its open window (the calls it made, 429s included, 5xx refunded) and its
   * cap; undefined for a key without an account.
   */
  const keyUse = async (planId: string, subject: Subject): Promise<KeyUse | undefined> => {
    const keys = meters.get(planId)?.keys;
    if (keys === undefined || subject.accountId === undefined) return undefined;
    const hit = await keys.peek(keyPartition(subject.keyId));
    return { used: hit?.hits ?? 0, ...(subject.cap !== undefined ? { cap: subject.cap } : {}), ...(hit ? { resetAt: hit.resetAt } : {}) };
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
    const [g, key] = placeOf(m, id, () => call.ip);
    Promise.resolve(g.counter.peek(key)).then((hit) => {
      writeHeaders(g, hit ?? { hits: 0, resetAt: Date.now() + g.windowSeconds * 1000 }, call, g.policyOf(key));
      next();
    }, next);
  };

  /**
   * The usage history's partitions of a key: its own, and for a per-key plan the one earlier builds kept
   * under `<plan>:<key id>` (read beside it, so no history is lost).
   */
  const usageKeys = (planId: string, subject: Subject, ip: string | undefined): string[] | undefined => {
    const m = meters.get(planId);
    if (m === undefined) return undefined;
    const own = usagePartition(m.plan, subject, () => ip);
    return m.plan.keyedBy === 'key' ? [own, partitionOf(planId, subject.keyId)] : [own];
  };

  return {
    meter,
    peekMeter,
    allowance,
    keyUse,
    usageKeys,
    /** Settles once the counters kept in the store are read back. */
    ready,
    /** Closes the counters; answers how many windows could not be written (lost at exit). */
    close: () => Promise.all(counters.map(async (c) => c.close())).then((lost) => lost.reduce((a, b) => a + b, 0)),
  };
}
