// Plan upgrades without billing: a user asks for a higher plan (with an optional message), an admin approves
// (changePlan moves the account and its keys, records it and announces 'plan.changed') or declines (with an
// optional reason). `upgrade_requests` keeps one row per account: the latest request, pending or decided,
// which is what the user sees; a new request replaces a decided one and is refused while one is pending
// (one upsert that leaves a pending row alone, so two requests at once cannot both go in), and of two
// decisions at once only the one that finds the row still pending counts. Whoever tells the user of a
// decision (email) listens with onDecided; whoever tells the admins of a new request (email, the operator
// alert webhook) with onRequested.
import type { Logger } from 'pino';
import type { Db } from '../../engine/db/open.js';
import type { UpgradeRequestsTable } from '../../engine/db/tables/accounts.js';
import { PLANS, type Account, type Accounts, type Plan } from './accounts.js';
import { changePlan, PlanChanges } from './plan-changes.js';

export interface UpgradeRequest {
  accountId: string;
  from: Plan;
  to: Plan;
  /** What the user wrote to the admins, if anything. */
  message?: string;
  status: 'pending' | 'approved' | 'declined';
  requestedAt: string;
  decidedAt?: string;
  /** The admin's account id. */
  decidedBy?: string;
  /** Why it was declined, if the admin said. */
  reason?: string;
}

export type UpgradeListener = (request: UpgradeRequest, account: Account) => void | Promise<void>;

export const MESSAGE_MAX = 500;
export const REASON_MAX = 300;
/** Pending requests listed at most per page of the admins' queue. */
const PENDING_PAGE = 100;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f]/;

/** The plans above `plan`, lowest first. */
export const higherPlans = (plan: Plan): Plan[] => PLANS.slice(PLANS.indexOf(plan) + 1);

/** Why a message or reason is refused (too long, control characters other than line breaks), or undefined. */
export function textProblem(text: string, max: number, what: string): string | undefined {
  if (text.length > max || CONTROL.test(text)) return `Use at most ${max} characters for the ${what}, without control characters.`;
  return undefined;
}

const requestOf = (r: UpgradeRequestsTable): UpgradeRequest => ({
  accountId: r.accountId,
  from: r.fromPlan as Plan,
  to: r.toPlan as Plan,
  ...(r.message !== null ? { message: r.message } : {}),
  status: r.status as UpgradeRequest['status'],
  requestedAt: r.requestedAt,
  ...(r.decidedAt !== null ? { decidedAt: r.decidedAt } : {}),
  ...(r.decidedBy !== null ? { decidedBy: r.decidedBy } : {}),
  ...(r.reason !== null ? { reason: r.reason } : {}),
});

export class UpgradeRequests {
  private readonly listeners: UpgradeListener[] = [];
  private readonly requestListeners: UpgradeListener[] = [];
  private readonly planChanges: PlanChanges;

  constructor(
    private readonly db: Db,
    private readonly accounts: Accounts,
    private readonly log: Pick<Logger, 'warn'>,
  ) {
    this.planChanges = new PlanChanges(db);
  }

  /** The account's latest request, pending or decided. */
  async of(accountId: string): Promise<UpgradeRequest | undefined> {
    const row = await this.db.selectFrom('upgradeRequests').selectAll().where('accountId', '=', accountId).executeTakeFirst();
    return row && requestOf(row);
  }

  /** Pending requests, oldest first: the admins' queue, a page at a time (`after`: the last one of the page before). */
  async pending(after?: Pick<UpgradeRequest, 'requestedAt' | 'accountId'>): Promise<UpgradeRequest[]> {
    let q = this.db.selectFrom('upgradeRequests').selectAll().where('status', '=', 'pending');
    if (after)
      q = q.where((eb) =>
        eb.or([
          eb('requestedAt', '>', after.requestedAt),
          eb.and([eb('requestedAt', '=', after.requestedAt), eb('accountId', '>', after.accountId)]),
        ]),
      );
    const rows = await q.orderBy('requestedAt').orderBy('accountId').limit(PENDING_PAGE).execute();
    return rows.map(requestOf);
  }

  /** Asks for `to`: 'pending' when one waits already, 'not-higher' when `to` is not above the account's plan. */
  async request(account: Account, to: Plan, message: string): Promise<UpgradeRequest | 'pending' | 'not-higher'> {
    if (!higherPlans(account.plan).includes(to)) return 'not-higher';
    const request: UpgradeRequest = {
      accountId: account.id,
      from: account.plan,
      to,
      ...(message.trim() ? { message: message.trim() } : {}),
      status: 'pending',
      requestedAt: new Date().toISOString(),
    };
    const row = {
      accountId: request.accountId,
      fromPlan: request.from,
      toPlan: request.to,
      message: request.message ?? null,
      status: request.status,
      requestedAt: request.requestedAt,
      decidedAt: null,
      decidedBy: null,
      reason: null,
    };
    const done = await this.db
      .insertInto('upgradeRequests')
      .values(row)
      .onConflict((oc) =>
        oc
          .column('accountId')
          .doUpdateSet((eb) => ({
            fromPlan: eb.ref('excluded.fromPlan'),
            toPlan: eb.ref('excluded.toPlan'),
            message: eb.ref('excluded.message'),
            status: eb.ref('excluded.status'),
            requestedAt: eb.ref('excluded.requestedAt'),
            decidedAt: null,
            decidedBy: null,
            reason: null,
          }))
          .where('upgradeRequests.status', '<>', 'pending'),
      )
      .executeTakeFirst();
    if (Number(done.numInsertedOrUpdatedRows ?? 0) === 0) return 'pending';
    for (const listener of this.requestListeners) this.tell(listener, request, account);
    return request;
  }

  /** Hears every new request (the admins are to be told: email and the operator alert webhook). */
  onRequested(listener: UpgradeListener): void {
    this.requestListeners.push(listener);
  }

  /**
   * Approves or declines the account's pending request; undefined when none is pending (decided meanwhile).
   * Approval moves the account to the requested plan unless it is on that plan or a higher one already
   * (as it is when the move is made), recorded as the admin's (`actor`: their email).
   */
  async decide(
    accountId: string,
    o: { approve: boolean; by: string; actor?: string; reason?: string },
  ): Promise<{ request: UpgradeRequest; account: Account } | undefined> {
    const pending = await this.of(accountId);
    let account = await this.accounts.get(accountId);
    if (pending?.status !== 'pending' || !account) return undefined;
    const request: UpgradeRequest = {
      ...pending,
      status: o.approve ? 'approved' : 'declined',
      decidedAt: new Date().toISOString(),
      decidedBy: o.by,
      ...(!o.approve && o.reason?.trim() ? { reason: o.reason.trim() } : {}),
    };
    // The decision is written first, on the condition that the row is still the pending request read: of
    // two admins deciding at once, one moves the account.
    const decided = await this.db
      .updateTable('upgradeRequests')
      .set({ status: request.status, decidedAt: request.decidedAt!, decidedBy: o.by, reason: request.reason ?? null })
      .where('accountId', '=', accountId)
      .where('status', '=', 'pending')
      .where('requestedAt', '=', pending.requestedAt)
      .executeTakeFirst();
    if (decided.numUpdatedRows === 0n) return undefined;
    if (o.approve) {
      const below = (plan: Plan) => PLANS.indexOf(plan) < PLANS.indexOf(pending.to);
      const cause = { by: 'upgrade' as const, ...(o.actor !== undefined && { actor: o.actor }) };
      try {
        account =
          (await changePlan({ accounts: this.accounts, planChanges: this.planChanges }, accountId, pending.to, cause, below)) ?? account;
      } catch (err) {
        // The account did not move: the request waits again.
        await this.db
          .updateTable('upgradeRequests')
          .set({ status: 'pending', decidedAt: null, decidedBy: null, reason: null })
          .where('accountId', '=', accountId)
          .execute();
        throw err;
      }
    }
    for (const listener of this.listeners) this.tell(listener, request, account);
    return { request, account };
  }

  /** Hears every decision (the user is to be told: email, when configured). */
  onDecided(listener: UpgradeListener): void {
    this.listeners.push(listener);
  }

  /** Forgets the account's request (the account is being deleted). */
  async forget(accountId: string): Promise<void> {
    await this.db.deleteFrom('upgradeRequests').where('accountId', '=', accountId).execute();
  }

  private tell(listener: UpgradeListener, request: UpgradeRequest, account: Account) {
    const warn = (err: Error) => this.log.warn({ err: err.message, accountId: account.id }, 'upgrade request: a listener failed');
    try {
      const done = listener(request, account);
      if (done instanceof Promise) done.catch(warn);
    } catch (err) {
      warn(err as Error);
    }
  }
}
