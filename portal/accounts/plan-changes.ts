// Every change of an account's plan, with who or what made it, when, and from which event: an admin on
// /admin (by hand, or approving an upgrade request) or Stripe (a webhook event, by its id). changePlan is
// the one way the portal moves an account to another plan: Accounts.update carries the plan to the keys
// (every instance forgets its cached identities within a second) and announces 'plan.changed'; the record
// is written only when the plan did change. The store keeps the newest RECORDS_MAX changes per account
// ('plan-changes', keyed by the account's id).
import type { Store } from '../../engine/store/index.js';
import type { Account, Accounts, Plan } from './accounts.js';

export interface PlanChange {
  at: string;
  from: Plan;
  to: Plan;
  /** 'admin': by hand on /admin; 'upgrade': an admin approved a request; 'stripe': a billing event. */
  by: 'admin' | 'upgrade' | 'stripe';
  /** The admin's email (admin, upgrade). */
  actor?: string;
  /** The Stripe event's id and type (stripe). */
  event?: { id: string; type: string };
}

export type PlanCause = Omit<PlanChange, 'at' | 'from' | 'to'>;

const COLL = 'plan-changes';
const RECORDS_MAX = 50;

export class PlanChanges {
  constructor(private readonly store: Store) {}

  /** The account's changes, newest first. */
  async of(accountId: string): Promise<PlanChange[]> {
    return [...((await this.store.get<PlanChange[]>(COLL, accountId)) ?? [])].reverse();
  }

  async record(accountId: string, change: PlanChange): Promise<void> {
    const kept = (await this.store.get<PlanChange[]>(COLL, accountId)) ?? [];
    await this.store.put(COLL, accountId, [...kept, change].slice(-RECORDS_MAX));
  }

  /** Forgets the account's records (the account is being deleted). */
  async forget(accountId: string): Promise<void> {
    await this.store.del(COLL, accountId);
  }
}

/** Moves the account to `plan` (a no-op when it is on it) and records why; undefined when there is no such account. */
export async function changePlan(
  o: { accounts: Accounts; planChanges: PlanChanges },
  accountId: string,
  plan: Plan,
  cause: PlanCause,
): Promise<Account | undefined> {
  const before = await o.accounts.get(accountId);
  if (!before) return undefined;
  if (before.plan === plan) return before;
  const after = await o.accounts.update(accountId, { plan });
  if (after) await o.planChanges.record(accountId, { at: new Date().toISOString(), from: before.plan, to: plan, ...cause });
  return after;
}
