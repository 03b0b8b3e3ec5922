// What the service keeps of an account's billing, in the store: 'billing' (account id → BillingRecord: its
// Stripe customer and the state of its subscription as last read from Stripe), 'billing-customers' (Stripe
// customer id → account id, for events that name only the customer) and 'billing-events' (Stripe event id →
// when it was handled: each event is handled once, whichever instance it reaches and however often Stripe
// sends it).
import type { Store } from '../../engine/store/index.js';
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

const RECORDS = 'billing';
const CUSTOMERS = 'billing-customers';
const EVENTS = 'billing-events';
/** An event claimed by an instance that then died is taken up again after this long (Stripe sends it again). */
const CLAIM_MS = 5 * 60_000;

interface EventMark {
  type: string;
  at: string;
  done?: boolean;
}

export class BillingRecords {
  constructor(private readonly store: Store) {}

  of(accountId: string): Promise<BillingRecord | undefined> {
    return this.store.get<BillingRecord>(RECORDS, accountId);
  }

  /** Every account's record, by account id (the admins' list). */
  async all(): Promise<Map<string, BillingRecord>> {
    return new Map(await this.store.entries<BillingRecord>(RECORDS));
  }

  async put(record: BillingRecord): Promise<void> {
    await this.store.put(CUSTOMERS, record.customerId, { accountId: record.accountId });
    await this.store.put(RECORDS, record.accountId, record);
  }

  async accountOfCustomer(customerId: string): Promise<string | undefined> {
    return (await this.store.get<{ accountId: string }>(CUSTOMERS, customerId))?.accountId;
  }

  /**
   * Takes an event for handling: 'mine' (handle it, then call handled or release), 'done' (handled already),
   * or 'busy' (another instance is handling it now).
   */
  async claim(id: string, type: string): Promise<'mine' | 'done' | 'busy'> {
    const mark: EventMark = { type, at: new Date().toISOString() };
    if (await this.store.insert(EVENTS, id, mark)) return 'mine';
    const held = await this.store.get<EventMark>(EVENTS, id);
    if (held?.done) return 'done';
    if (held && Date.now() - Date.parse(held.at) < CLAIM_MS) return 'busy';
    await this.store.put(EVENTS, id, mark);
    return 'mine';
  }

  async handled(id: string, type: string): Promise<void> {
    await this.store.put(EVENTS, id, { type, at: new Date().toISOString(), done: true } satisfies EventMark);
  }

  /** Gives a claimed event back (its handling failed): Stripe's next delivery of it is handled afresh. */
  async release(id: string): Promise<void> {
    await this.store.del(EVENTS, id);
  }

  /** Forgets the account's record and its customer's index entry (the account is being deleted). */
  async forget(accountId: string): Promise<void> {
    const record = await this.of(accountId);
    if (record) await this.store.del(CUSTOMERS, record.customerId);
    await this.store.del(RECORDS, accountId);
  }
}
