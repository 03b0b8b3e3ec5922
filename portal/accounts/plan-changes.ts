// Every change of an account's plan, with who or what made it, when, and from which event: an admin on
// /admin (by hand, or approving an upgrade request) or Stripe (a webhook event, by its id). changePlan is
// the one way the portal moves an account to another plan: Accounts.update carries the plan to the keys
// (every instance forgets its cached identities within a second) and announces 'plan.changed'; the record
// is written only when the plan did change. `plan_changes` keeps one row per change; a billing event is
// recorded once per account (a unique index), so an event that reaches several instances at once moves
// the account, and announces it, once.
import crypto from 'node:crypto';
import type { Db } from '../../engine/db/open.js';
import type { PlanChangesTable } from '../../engine/db/tables/accounts.js';
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

/** Changes listed at most (newest first). */
const LISTED = 50;

const changeOf = (r: PlanChangesTable): PlanChange => ({
  at: r.at,
  from: r.fromPlan as Plan,
  to: r.toPlan as Plan,
  by: r.by as PlanChange['by'],
  ...(r.actor !== null ? { actor: r.actor } : {}),
  ...(r.eventId !== null ? { event: { id: r.eventId, type: r.eventType ?? '' } } : {}),
});

export class PlanChanges {
  constructor(private readonly db: Db) {}

  /** The account's changes, newest first (the newest LISTED). */
  async of(accountId: string): Promise<PlanChange[]> {
    const rows = await this.db
      .selectFrom('planChanges')
      .selectAll()
      .where('accountId', '=', accountId)
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(LISTED)
      .execute();
    return rows.map(changeOf);
  }

  /**
   * Records a change; with an event, only when that event is not recorded for the account yet. Returns the
   * new record's id, or undefined when the event was recorded already (by this instance or another).
   */
  async record(accountId: string, change: PlanChange): Promise<string | undefined> {
    // Sortable by time within one millisecond too: the list's order is the order of the records.
    const id = `${Date.now().toString(36).padStart(9, '0')}${crypto.randomBytes(8).toString('hex')}`;
    const done = await this.db
      .insertInto('planChanges')
      .values({
        id,
        accountId,
        at: change.at,
        fromPlan: change.from,
        toPlan: change.to,
        by: change.by,
        actor: change.actor ?? null,
        eventId: change.event?.id ?? null,
        eventType: change.event?.type ?? null,
      })
      .onConflict((oc) => oc.columns(['accountId', 'eventId']).doNothing())
      .executeTakeFirst();
    return Number(done.numInsertedOrUpdatedRows ?? 0) > 0 ? id : undefined;
  }

  /** Forgets the account's records (the account is being deleted). */
  async forget(accountId: string): Promise<void> {
    await this.db.deleteFrom('planChanges').where('accountId', '=', accountId).execute();
  }

  /** Takes back a record whose change could not be made, so the event that asked for it can be tried again. */
  async unrecord(id: string): Promise<void> {
    await this.db.deleteFrom('planChanges').where('id', '=', id).execute();
  }
}

/**
 * Moves the account to `plan` (a no-op when it is on it) and records why; undefined when there is no such
 * account. The record goes in first and only its writer moves the account: of callers handling one billing
 * event at once, one changes the plan (and announces 'plan.changed'), the others find the event recorded
 * and answer with the account as it is then (the first may still be moving it).
 */
export async function changePlan(
  o: { accounts: Pick<Accounts, 'get' | 'update'>; planChanges: PlanChanges },
  accountId: string,
  plan: Plan,
  cause: PlanCause,
): Promise<Account | undefined> {
  const before = await o.accounts.get(accountId);
  if (!before) return undefined;
  if (before.plan === plan) return before;
  const recorded = await o.planChanges.record(accountId, { at: new Date().toISOString(), from: before.plan, to: plan, ...cause });
  if (!recorded) return o.accounts.get(accountId);
  try {
    return await o.accounts.update(accountId, { plan });
  } catch (err) {
    await o.planChanges.unrecord(recorded);
    throw err;
  }
}
