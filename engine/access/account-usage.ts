// GET /api/v1/account/usage: the caller's own allowance and usage history, for scripts. It does not spend
// the allowance (the meter only peeks), and carries the same numbers as the X-RateLimit-* headers.
import type { Call } from '../pipeline/call.js';
import type { Next } from '../pipeline/chain.js';
import { ApiError } from '../errors.js';
import { sendData } from '../pipeline/respond.js';
import type { Allowance } from './meter.js';
import type { Period, Usage } from './usage.js';

export interface AccountUsageDeps {
  serviceName: string;
  usage: Usage;
  allowance(plan: string, keyId: string, ip: string | undefined): Promise<Allowance | undefined>;
  usageKey(plan: string, keyId: string, ip: string | undefined): string | undefined;
}

/** One key's figures: allowance now, hourly (24 h) and daily (30 days) history, the last 50 calls. */
export async function keyUsage(
  deps: AccountUsageDeps,
  plan: string,
  keyId: string,
  ip: string | undefined,
  periods: Period[] = ['hour', 'day'],
) {
  const partition = deps.usageKey(plan, keyId, ip);
  if (!partition) throw new ApiError('internal', `Unknown plan ${plan}`);
  const [allowance, recent, ...histories] = await Promise.all([
    deps.allowance(plan, keyId, ip),
    deps.usage.recent(partition),
    ...periods.map((p) => deps.usage.history(partition, p)),
  ]);
  return {
    key: { id: keyId, plan },
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
    keyUsage(deps, id.plan, id.keyId, call.ip).then((data) => {
      sendData(call, deps.serviceName, 'usage', data, false);
    }, next);
  };
}
