// GET /api/v1/account/usage: the caller's own allowance and usage history, for scripts. It does not spend
// the allowance (the meter only peeks), and carries the same numbers as the X-RateLimit-* headers.
import type { Call } from '../pipeline/call.js';
import type { Next } from '../pipeline/chain.js';
import { ApiError } from '../errors.js';
import { sendData } from '../pipeline/respond.js';
import type { Allowance, Subject } from '../pipeline/steps/meter.js';
import type { Period, Usage } from './usage.js';

export interface AccountUsageDeps {
  serviceName: string;
  usage: Usage;
  allowance(plan: string, subject: Subject, ip: string | undefined): Promise<Allowance | undefined>;
  usageKeys(plan: string, subject: Subject, ip: string | undefined): string[] | undefined;
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

export function accountUsageHandler(deps: AccountUsageDeps) {
  return (call: Call, next: Next) => {
    const id = call.identity;
    if (id?.status !== 'ok') return next(new ApiError('invalid_key', 'Invalid apikey'));
    keyUsage(deps, id.plan, id, call.ip).then((data) => {
      sendData(call, deps.serviceName, 'usage', data, false);
    }, next);
  };
}
