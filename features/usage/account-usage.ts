// GET /api/v1/account/usage: the caller's own allowance and usage history, for scripts. It does not spend
// the allowance (the meter only peeks), and carries the same numbers as the X-RateLimit-* headers.
import type { Call } from '../../engine/pipeline/call.js';
import { chain, type Fail, type Next, type Step } from '../../engine/pipeline/chain.js';
import type { Route } from '../../engine/pipeline/api.js';
import { authorize } from '../../engine/pipeline/steps/authorize.js';
import { ApiError } from '../../engine/errors.js';
import { sendData } from '../../engine/pipeline/respond.js';
import type { Allowance, KeyUse, Subject } from '../../engine/pipeline/steps/meter.js';
import type { Period, Usage } from './usage.js';

export const ACCOUNT_USAGE_PATH = '/api/v1/account/usage';

export interface AccountUsageDeps {
  serviceName: string;
  usage: Usage;
  allowance(plan: string, subject: Subject, ip: string | undefined): Promise<Allowance | undefined>;
  usageKeys(plan: string, subject: Subject, ip: string | undefined): string[] | undefined;
  /** An account's key's own use in its window, and its cap (the key page's cards). */
  keyUse(plan: string, subject: Subject): Promise<KeyUse | undefined>;
}

/**
 * One key's figures: the allowance it spends now (its account's, for an account's key), hourly (24 h) and
 * daily (30 days) history, the last 50 calls. `of`: whose history, when it is not the key's own (every key
 * of an account, revoked ones included).
 */
export async function keyUsage(
  deps: AccountUsageDeps,
  plan: string,
  subject: Subject,
  ip: string | undefined,
  periods: Period[] = ['hour', 'day'],
  of?: { plan: string; keyId: string }[],
) {
  const own = deps.usageKeys(plan, subject, ip);
  if (!own) throw new ApiError('internal', `Unknown plan ${plan}`);
  const partitions = of ? of.flatMap((k) => deps.usageKeys(k.plan, { keyId: k.keyId }, ip) ?? []) : own;
  const [allowance, recent, ...histories] = await Promise.all([
    deps.allowance(plan, subject, ip),
    deps.usage.recent(partitions),
    ...periods.map((p) => deps.usage.history(partitions, p)),
  ]);
  return {
    key: { id: subject.keyId, plan },
    allowance: allowance && {
      ...allowance,
      resetAt: new Date(allowance.resetAt).toISOString(),
      reset: Math.ceil(allowance.resetAt / 1000),
    },
    ...Object.fromEntries(periods.map((p, i) => [p === 'hour' ? 'hourly' : 'daily', histories[i]])),
    recent,
  };
}

function accountUsageHandler(deps: AccountUsageDeps) {
  return (call: Call, next: Next) => {
    const id = call.identity;
    if (id?.status !== 'ok') return next(new ApiError('invalid_key', 'Invalid apikey'));
    keyUsage(deps, id.plan, id, call.ip).then((data) => {
      sendData(call, deps.serviceName, 'usage', data, false);
    }, next);
  };
}

/** What the route is made of beside the figures: the API's identify step, the meter's peek and the error answer. */
export interface AccountUsageRouteDeps extends AccountUsageDeps {
  identify: Step;
  /** The meter that writes the allowance headers without spending the allowance. */
  peekMeter: Step;
  fail: Fail;
}

/** The API route of the caller's own usage, answered like an endpoint (server/api-routes.ts adds it to the others). */
export function accountUsageRoute(deps: AccountUsageRouteDeps): [string, Route] {
  return [
    ACCOUNT_USAGE_PATH,
    {
      endpoint: 'account/usage',
      method: 'GET',
      run: chain([deps.identify, deps.peekMeter, authorize, accountUsageHandler(deps)], deps.fail),
    },
  ];
}
