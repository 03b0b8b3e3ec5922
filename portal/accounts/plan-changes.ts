// Every change of an account's plan, with who or what made it, when, and from which event: an admin on
// /admin (by hand, or approving an upgrade request) or Stripe (a webhook event, by its id). changePlan is
// the one way the portal moves an account to another plan, in one transaction that holds the account (its
// row locked on PostgreSQL; SQLite's transaction holds the file): the plan is read again there, and the
// account, its keys and the record are written together or not at all. Of changes at once (instances
// handling one Stripe event, two admins), each finds the plan the one before it left, so every record's
// `from` is the plan it moved the account from, and a billing event is recorded (and applied) once per
// account: a unique index. Only the one that committed a change announces it ('keys', 'plan.changed').
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
   * `trx`: within the transaction of the change it records.
   */
  async record(accountId: string, change: PlanChange, trx: Db = this.db): Promise<string | undefined> {
    // The list is in time order, so a change that follows the account's last one within its millisecond
    // (or after the clock went back) is placed 1 ms after it: the caller holds the account, so the last
    // record read here is the one this change follows.
    const last = await trx
      .selectFrom('planChanges')
      .select('at')
      .where('accountId', '=', accountId)
      .orderBy('at', 'desc')
      .limit(1)
      .executeTakeFirst();
    const at = last && last.at >= change.at ? new Date(Date.parse(last.at) + 1).toISOString() : change.at;
    const id = `${Date.now().toString(36).padStart(9, '0')}${crypto.randomBytes(8).toString('hex')}`;
    const done = await trx
      .insertInto('planChanges')
      .values({
        id,
        accountId,
        at,
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
}

/**
 * Moves the account to `plan` (a no-op when it is on it, or when `when` refuses the plan it is on) and
 * records why; undefined when there is no such account. Answers with the account as it is once done. A
 * billing event applied to the account already (recorded) is not applied again, even after another change
 * moved the account since.
 */
export async function changePlan(
  o: { accounts: Pick<Accounts, 'db' | 'lock' | 'setPlan' | 'planMoved'>; planChanges: PlanChanges },
  accountId: string,
  plan: Plan,
  cause: PlanCause,
  when: (current: Plan) => boolean = () => true,
): Promise<Account | undefined> {
  let moved = undefined as { from: Plan; keysMoved: number } | undefined;
  const account = await o.accounts.db.transaction().execute(async (trx) => {
    const held = await o.accounts.lock(accountId, trx);
    if (!held || held.plan === plan || !when(held.plan)) return held;
    // The record first: when the event is recorded already, nothing has been written and nothing is.
    const change = { at: new Date().toISOString(), from: held.plan, to: plan, ...cause };
    if (!(await o.planChanges.record(accountId, change, trx))) return held;
    const done = await o.accounts.setPlan(held, plan, trx);
    moved = { from: held.plan, keysMoved: done.keysMoved };
    return done.account;
  });
  if (moved) await o.accounts.planMoved(accountId, moved.from, plan, moved.keysMoved);
  return account;
}
