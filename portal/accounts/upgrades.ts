// Plan upgrades without billing: a user asks for a higher plan (with an optional message), an admin approves
// (Accounts.update moves the account and its keys, and announces 'plan.changed') or declines (with an
// optional reason). The store keeps one request per account ('upgrade-requests', keyed by the account's
// id): the latest, pending or decided, which is what the user sees; a new request replaces a decided one
// and is refused while one is pending. Whoever tells the user of a decision (email) listens with onDecided.
import type { Logger } from 'pino';
import type { Store } from '../../engine/store/index.js';
import { PLANS, type Account, type Accounts, type Plan } from './accounts.js';

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
const COLL = 'upgrade-requests';
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f]/;

/** The plans above `plan`, lowest first. */
export const higherPlans = (plan: Plan): Plan[] => PLANS.slice(PLANS.indexOf(plan) + 1);

/** Why a message or reason is refused (too long, control characters other than line breaks), or undefined. */
export function textProblem(text: string, max: number, what: string): string | undefined {
  if (text.length > max || CONTROL.test(text)) return `Use at most ${max} characters for the ${what}, without control characters.`;
  return undefined;
}

export class UpgradeRequests {
  private readonly listeners: UpgradeListener[] = [];

  constructor(
    private readonly store: Store,
    private readonly accounts: Accounts,
    private readonly log: Pick<Logger, 'warn'>,
  ) {}

  /** The account's latest request, pending or decided. */
  of(accountId: string): Promise<UpgradeRequest | undefined> {
    return this.store.get<UpgradeRequest>(COLL, accountId);
  }

  /** Pending requests, oldest first: the admins' queue. */
  async pending(): Promise<UpgradeRequest[]> {
    return (await this.store.list<UpgradeRequest>(COLL))
      .filter((r) => r.status === 'pending')
      .sort((a, b) => a.requestedAt.localeCompare(b.requestedAt));
  }

  /** Asks for `to`: 'pending' when one waits already, 'not-higher' when `to` is not above the account's plan. */
  async request(account: Account, to: Plan, message: string): Promise<UpgradeRequest | 'pending' | 'not-higher'> {
    if (!higherPlans(account.plan).includes(to)) return 'not-higher';
    if ((await this.of(account.id))?.status === 'pending') return 'pending';
    const request: UpgradeRequest = {
      accountId: account.id,
      from: account.plan,
      to,
      ...(message.trim() ? { message: message.trim() } : {}),
      status: 'pending',
      requestedAt: new Date().toISOString(),
    };
    await this.store.put(COLL, account.id, request);
    return request;
  }

  /**
   * Approves or declines the account's pending request; undefined when none is pending (decided meanwhile).
   * Approval moves the account to the requested plan unless it is on that plan or a higher one already.
   */
  async decide(
    accountId: string,
    o: { approve: boolean; by: string; reason?: string },
  ): Promise<{ request: UpgradeRequest; account: Account } | undefined> {
    const pending = await this.of(accountId);
    let account = await this.accounts.get(accountId);
    if (pending?.status !== 'pending' || !account) return undefined;
    if (o.approve && PLANS.indexOf(account.plan) < PLANS.indexOf(pending.to))
      account = (await this.accounts.update(accountId, { plan: pending.to }))!;
    const request: UpgradeRequest = {
      ...pending,
      status: o.approve ? 'approved' : 'declined',
      decidedAt: new Date().toISOString(),
      decidedBy: o.by,
      ...(!o.approve && o.reason?.trim() ? { reason: o.reason.trim() } : {}),
    };
    await this.store.put(COLL, accountId, request);
    for (const listener of this.listeners) this.tell(listener, request, account);
    return { request, account };
  }

  /** Hears every decision (the user is to be told: email, when configured). */
  onDecided(listener: UpgradeListener): void {
    this.listeners.push(listener);
  }

  /** Forgets the account's request (the account is being deleted). */
  async forget(accountId: string): Promise<void> {
    await this.store.del(COLL, accountId);
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
