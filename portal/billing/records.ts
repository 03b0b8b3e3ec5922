// What the service keeps of an account's billing: `billing_subscriptions` (one row per account: its Stripe
// customer and the state of its subscription as last read from Stripe), `billing_customers` (Stripe customer
// id → account id, for events that name only the customer) and `billing_events` (Stripe event id → whether
// it is being handled or done: each event is handled once, whichever instance it reaches and however often
// Stripe sends it).
import type { Selectable } from 'kysely';
import type { Db } from '../../engine/db/open.js';
import type { BillingSubscriptionsTable } from '../../engine/db/tables/billing.js';
import type { Plan } from '../accounts/accounts.js';

export interface BillingRecord {
  accountId: string;
  customerId: string;
  /** The account's subscription, once there is one; its state below is Stripe's as last read. */
  subscriptionId?: string;
  /** Stripe's status: active, trialing, past_due, unpaid, canceled, incomplete, incomplete_expired, paused. */
  status?: string;
  priceId?: string;
  /** The plan the subscription's price sells. */
  plan?: Plan;
  /** When the subscription ends (a cancellation at the period's end, or at a date). */
  cancelAt?: string;
  periodStart?: string;
  periodEnd?: string;
  /** When Stripe bills next: the period's end, unless the subscription is ending. */
  nextInvoiceAt?: string;
  /** The last payment failed then; Stripe retries (next at nextRetryAt) and the plan is kept meanwhile. */
  paymentFailedAt?: string;
  nextRetryAt?: string;
  updatedAt: string;
  /** The event that last changed this record. */
  lastEvent?: { id: string; type: string };
}

/** Statuses under which the subscription's plan is the account's: paid, on trial, or in Stripe's retries. */
const ENTITLED = ['active', 'trialing', 'past_due'];
export const isEntitled = (status: string | undefined) => status !== undefined && ENTITLED.includes(status);

/** An event claimed by an instance that then died is taken up again after this long (Stripe sends it again). */
const CLAIM_MS = 5 * 60_000;

/** The columns that hold a value: a record reads back as it was written, its absent fields absent. */
function present<T extends object>(o: T): { [K in keyof T]?: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null)) as { [K in keyof T]?: Exclude<T[K], null> };
}

function recordOf(row: Selectable<BillingSubscriptionsTable>): BillingRecord {
  const { accountId, customerId, updatedAt, plan, lastEventId, lastEventType, ...rest } = row;
  return {
    accountId,
    customerId,
    updatedAt,
    ...present(rest),
    ...(plan !== null && { plan: plan as Plan }),
    ...(lastEventId !== null && { lastEvent: { id: lastEventId, type: lastEventType ?? '' } }),
  };
}

function rowOf(r: BillingRecord): BillingSubscriptionsTable {
  return {
    accountId: r.accountId,
    customerId: r.customerId,
    subscriptionId: r.subscriptionId ?? null,
    status: r.status ?? null,
    priceId: r.priceId ?? null,
    plan: r.plan ?? null,
    cancelAt: r.cancelAt ?? null,
    periodStart: r.periodStart ?? null,
    periodEnd: r.periodEnd ?? null,
    nextInvoiceAt: r.nextInvoiceAt ?? null,
    paymentFailedAt: r.paymentFailedAt ?? null,
    nextRetryAt: r.nextRetryAt ?? null,
    updatedAt: r.updatedAt,
    lastEventId: r.lastEvent?.id ?? null,
    lastEventType: r.lastEvent?.type ?? null,
  };
}

export class BillingRecords {
  constructor(private readonly db: Db) {}

  async of(accountId: string): Promise<BillingRecord | undefined> {
    const row = await this.db.selectFrom('billingSubscriptions').selectAll().where('accountId', '=', accountId).executeTakeFirst();
    return row && recordOf(row);
  }

  /** The records of these accounts (the ones a page shows), by account id. */
  async forAccounts(accountIds: string[]): Promise<Map<string, BillingRecord>> {
    if (!accountIds.length) return new Map();
    const rows = await this.db.selectFrom('billingSubscriptions').selectAll().where('accountId', 'in', accountIds).execute();
    return new Map(rows.map((row) => [row.accountId, recordOf(row)]));
  }

  async put(record: BillingRecord): Promise<void> {
    const row = rowOf(record);
    const { accountId: _, ...changed } = row;
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('billingCustomers')
        .values({ customerId: record.customerId, accountId: record.accountId })
        .onConflict((oc) => oc.column('customerId').doUpdateSet({ accountId: record.accountId }))
        .execute();
      await trx
        .insertInto('billingSubscriptions')
        .values(row)
        .onConflict((oc) => oc.column('accountId').doUpdateSet(changed))
        .execute();
    });
  }

  async accountOfCustomer(customerId: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('billingCustomers').select('accountId').where('customerId', '=', customerId).executeTakeFirst();
    return row?.accountId;
  }

  /**
   * Takes an event for handling: 'mine' (handle it, then call handled or release), 'done' (handled already),
   * or 'busy' (another instance is handling it now).
   */
  async claim(id: string, type: string): Promise<'mine' | 'done' | 'busy'> {
    const now = Date.now();
    const at = new Date(now).toISOString();
    const inserted = await this.db
      .insertInto('billingEvents')
      .values({ id, type, at, done: 0 })
      .onConflict((oc) => oc.column('id').doNothing())
      .executeTakeFirst();
    if (inserted.numInsertedOrUpdatedRows === 1n) return 'mine';
    // A stale claim is taken over by one claimer only: the first whose UPDATE still finds it stale.
    const taken = await this.db
      .updateTable('billingEvents')
      .set({ type, at })
      .where('id', '=', id)
      .where('done', '=', 0)
      .where('at', '<', new Date(now - CLAIM_MS).toISOString())
      .executeTakeFirst();
    if (taken.numUpdatedRows === 1n) return 'mine';
    const held = await this.db.selectFrom('billingEvents').select('done').where('id', '=', id).executeTakeFirst();
    // Released between the two statements: the next delivery of the event takes it.
    return held?.done ? 'done' : 'busy';
  }

  async handled(id: string, type: string): Promise<void> {
    const at = new Date().toISOString();
    await this.db
      .insertInto('billingEvents')
      .values({ id, type, at, done: 1 })
      .onConflict((oc) => oc.column('id').doUpdateSet({ type, at, done: 1 }))
      .execute();
  }

  /** Gives a claimed event back (its handling failed): Stripe's next delivery of it is handled afresh. */
  async release(id: string): Promise<void> {
    await this.db.deleteFrom('billingEvents').where('id', '=', id).where('done', '=', 0).execute();
  }

  /** Forgets the account's record and its customer's index entry (the account is being deleted). */
  async forget(accountId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('billingCustomers').where('accountId', '=', accountId).execute();
      await trx.deleteFrom('billingSubscriptions').where('accountId', '=', accountId).execute();
    });
  }
}
