// The deliveries waiting to be sent: the `webhook_deliveries` table, which every instance's worker reads,
// so pending retries survive a restart and any instance may make them. A worker takes an attempt with a
// conditional UPDATE that only one claimer can win (its affected-row count says who did), for a lease: a
// claim whose holder died is taken over once the lease has run out.
import type { Selectable } from 'kysely';
import type { Db } from '../../engine/db/open.js';
import type { WebhookDeliveriesTable } from '../../engine/db/tables/webhooks.js';

export interface Delivery {
  /** The webhook-id of every attempt (msg_…). */
  id: string;
  accountId: string;
  type: string;
  /** The payload as sent: the same bytes at every attempt. */
  body: string;
  /** The attempt to make next, from 1. */
  attempt: number;
  /** When it is due, in epoch ms. */
  dueAt: number;
}

const deliveryOf = (row: Selectable<WebhookDeliveriesTable>): Delivery => ({
  id: row.id,
  accountId: row.accountId,
  type: row.type,
  body: row.body,
  attempt: row.attempt,
  dueAt: row.dueAt,
});

export class DeliveryQueue {
  constructor(private readonly db: Db) {}

  async add(d: Delivery): Promise<void> {
    await this.db.insertInto('webhookDeliveries').values(d).execute();
  }

  /**
   * Up to `limit` deliveries due at `now` that nobody holds, taken in turns across accounts: each account's
   * longest waiting first, then each one's second, and so on, at most `perAccount` of one account. One account
   * with a full queue therefore never stands in front of another's single delivery.
   */
  async due(now: number, limit: number, perAccount = limit): Promise<Delivery[]> {
    const ranked = this.db
      .selectFrom('webhookDeliveries')
      .selectAll()
      .select((eb) =>
        eb.fn
          .agg<number>('row_number')
          .over((ob) => ob.partitionBy('accountId').orderBy('dueAt').orderBy('id'))
          .as('turn'),
      )
      .where('dueAt', '<=', now)
      .where((eb) => eb.or([eb('claimedUntil', 'is', null), eb('claimedUntil', '<', now)]));
    const rows = await this.db
      .selectFrom(ranked.as('d'))
      .selectAll()
      .where('turn', '<=', perAccount)
      .orderBy('turn')
      .orderBy('dueAt')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(deliveryOf);
  }

  /** How many deliveries of the account wait (by the account_id index), and whether one is of `type`. */
  async waiting(accountId: string, type: string): Promise<{ count: number; ofType: boolean }> {
    const row = await this.db
      .selectFrom('webhookDeliveries')
      .select((eb) => [
        eb.fn.countAll<number>().as('count'),
        eb.fn.sum<number>(eb.case().when('type', '=', type).then(1).else(0).end()).as('ofType'),
      ])
      .where('accountId', '=', accountId)
      .executeTakeFirstOrThrow();
    return { count: Number(row.count), ofType: Number(row.ofType ?? 0) > 0 };
  }

  /** When the next delivery not due at `now` falls due (by the due_at index). */
  async nextDue(now: number): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('webhookDeliveries')
      .select('dueAt')
      .where('dueAt', '>', now)
      .orderBy('dueAt')
      .limit(1)
      .executeTakeFirst();
    return row?.dueAt;
  }

  /**
   * Takes the delivery's attempt for `holder` until `now + leaseMs`: true for the one claimer that wins.
   * False when another holds it, or when the attempt was made (or the delivery ended) since it was read.
   */
  async claim(d: Pick<Delivery, 'id' | 'attempt'>, holder: string, now: number, leaseMs: number): Promise<boolean> {
    const r = await this.db
      .updateTable('webhookDeliveries')
      .set({ claimedBy: holder, claimedUntil: now + leaseMs })
      .where('id', '=', d.id)
      .where('attempt', '=', d.attempt)
      .where((eb) => eb.or([eb('claimedUntil', 'is', null), eb('claimedUntil', '<', now)]))
      .executeTakeFirst();
    return r.numUpdatedRows === 1n;
  }

  /** Lets go of a claim without making the attempt: any worker makes it next. */
  async release(id: string, holder: string): Promise<void> {
    await this.db
      .updateTable('webhookDeliveries')
      .set({ claimedBy: null, claimedUntil: null })
      .where('id', '=', id)
      .where('claimedBy', '=', holder)
      .execute();
  }

  /** The attempt was made: the next one is due at `dueAt`, whoever makes it. */
  async retryAt(id: string, holder: string, dueAt: number): Promise<void> {
    await this.db
      .updateTable('webhookDeliveries')
      .set((eb) => ({ attempt: eb('attempt', '+', 1), dueAt, claimedBy: null, claimedUntil: null }))
      .where('id', '=', id)
      .where('claimedBy', '=', holder)
      .execute();
  }

  /** The delivery has ended (delivered, given up, or no longer wanted). */
  async end(id: string, holder: string): Promise<void> {
    await this.db.deleteFrom('webhookDeliveries').where('id', '=', id).where('claimedBy', '=', holder).execute();
  }
}
