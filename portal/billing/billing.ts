// Selling the paid plans through the operator's Stripe account (the official SDK): the plans' prices read
// from Stripe, a Checkout Session in subscription mode for an upgrade, a customer-portal session to manage
// the subscription, and the events of the webhook. An event is handled once (BillingRecords.claim) and
// never trusted for state: the subscription it concerns is read again from Stripe, and the account is set
// from what Stripe says now, so events that arrive late, twice or out of order leave it right. The plan
// moves through changePlan (accounts/plan-changes.ts), the path every plan change takes: keys follow on every
// instance within a second, 'plan.changed' is announced, and the change is recorded with its event.
import type Stripe from 'stripe';
import type { Logger } from 'pino';
import type { BillingConfig } from '../../engine/config.js';
import type { Account, Accounts, Plan } from '../accounts/accounts.js';
import { changePlan, type PlanChanges } from '../accounts/plan-changes.js';
import type { Mailer } from '../mail/mailer.js';
import { planName } from '../shared/format.js';
import { BillingRecords, isEntitled, type BillingRecord } from './records.js';

/** How far ahead of this server's clock a webhook's signature may be dated (clock skew). */
const FUTURE_TOLERANCE_S = 60;

export type PaidPlan = 'premium' | 'enterprise';

/** A plan's price as Stripe holds it, and as people read it ("$20.00 per month"). */
export interface PriceInfo {
  id: string;
  amount: string;
  interval: string;
}

export interface BillingDeps {
  accounts: Accounts;
  planChanges: PlanChanges;
  records: BillingRecords;
  publicUrl: string;
  log: Pick<Logger, 'info' | 'warn'>;
  /** Warns of failed payments by email (SMTP_URL). */
  mail?: Mailer;
}

export type Outcome = 'handled' | 'duplicate' | 'busy' | 'ignored';

const PRICE_TTL_MS = 10 * 60_000;
const iso = (epochSeconds: number | null | undefined) => (epochSeconds ? new Date(epochSeconds * 1000).toISOString() : undefined);

/** An amount in the currency's smallest unit as people read it: 2000 usd → "$20.00", 500 jpy → "¥500". */
function money(minor: number, currency: string): string {
  const f = new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() });
  return f.format(minor / 10 ** (f.resolvedOptions().maximumFractionDigits ?? 2));
}

function priceInfo(p: Stripe.Price): PriceInfo {
  const amount = p.unit_amount !== null ? money(p.unit_amount, p.currency) : 'a price set at checkout';
  const r = p.recurring;
  const interval = r ? (r.interval_count === 1 ? `per ${r.interval}` : `every ${r.interval_count} ${r.interval}s`) : 'once';
  return { id: p.id, amount, interval };
}

/** The subscription id an invoice is for (API versions from 2025 name it under `parent`). */
const invoiceSubscription = (i: Stripe.Invoice) => {
  const s = i.parent?.subscription_details?.subscription;
  return typeof s === 'string' ? s : s?.id;
};

const idOf = (v: string | { id: string } | null | undefined) => (typeof v === 'string' ? v : v?.id);

export class Billing {
  /** The SDK, imported when billing is configured (its resident cost: docs/decisions/embedded-memory.md): a server without Stripe never loads it. */
  private readonly sdk: Promise<Stripe>;
  private readonly byPrice: Map<string, PaidPlan>;
  private priceCache?: { at: number; prices: Promise<Partial<Record<PaidPlan, PriceInfo>>> };

  constructor(
    readonly config: BillingConfig,
    private readonly d: BillingDeps,
  ) {
    this.sdk = import('stripe').then(
      ({ default: Sdk }) =>
        new Sdk(config.secretKey, {
          ...(config.api ?? {}),
          maxNetworkRetries: 2,
          timeout: 15_000,
          appInfo: { name: 'unified-utility-api' },
        }),
    );
    // A failed import is thrown by the first call that needs the SDK, not left unhandled meanwhile.
    void this.sdk.catch(() => {});
    this.byPrice = new Map(Object.entries(config.prices).map(([plan, price]) => [price, plan as PaidPlan]));
  }

  /** The plans for sale, lowest first. */
  get sold(): PaidPlan[] {
    return (['premium', 'enterprise'] as const).filter((p) => this.config.prices[p]);
  }

  /** Where the browser is sent to pay or manage (Stripe's own pages, or the double's): the pages' form-action allows it. */
  get redirectOrigins(): string[] {
    const api = this.config.api;
    return api
      ? [`${api.protocol}://${api.host.includes(':') ? `[${api.host}]` : api.host}:${api.port}`]
      : ['https://checkout.stripe.com', 'https://billing.stripe.com'];
  }

  /** Each sold plan's price, read from Stripe (kept ten minutes); a plan whose price cannot be read now is left out. */
  prices(): Promise<Partial<Record<PaidPlan, PriceInfo>>> {
    if (this.priceCache && Date.now() - this.priceCache.at < PRICE_TTL_MS) return this.priceCache.prices;
    const prices = Promise.all(
      this.sold.map(async (plan) => {
        try {
          // A page waits for this: a short bound, no retry (the next page asks again).
          const stripe = await this.sdk;
          const price = await stripe.prices.retrieve(this.config.prices[plan]!, {}, { timeout: 3000, maxNetworkRetries: 0 });
          return [plan, priceInfo(price)] as const;
        } catch (err) {
          this.d.log.warn({ err: (err as Error).message, plan }, 'billing: cannot read the price from Stripe');
          return [plan, undefined] as const;
        }
      }),
    ).then((pairs) => {
      const out: Partial<Record<PaidPlan, PriceInfo>> = {};
      for (const [plan, info] of pairs) if (info) out[plan] = info;
      // A failed read is tried again at the next page, not ten minutes later.
      if (pairs.some(([, info]) => !info)) this.priceCache = undefined;
      return out;
    });
    this.priceCache = { at: Date.now(), prices };
    return prices;
  }

  record(accountId: string): Promise<BillingRecord | undefined> {
    return this.d.records.of(accountId);
  }

  /** The records of these accounts, by account id (the admins' list, for the accounts it shows). */
  records(accountIds: string[]): Promise<Map<string, BillingRecord>> {
    return this.d.records.forAccounts(accountIds);
  }

  /**
   * The account is being deleted: its live subscription is cancelled at once (nobody would be left to use
   * what Stripe bills for) and its records forgotten. Throws when Stripe cannot be told: the deletion waits.
   */
  async forget(accountId: string): Promise<void> {
    const record = await this.d.records.of(accountId);
    if (record?.subscriptionId && isEntitled(record.status)) {
      const stripe = await this.sdk;
      await stripe.subscriptions.cancel(record.subscriptionId);
      this.d.log.info({ accountId, subscription: record.subscriptionId }, 'billing: subscription cancelled with its account');
    }
    await this.d.records.forget(accountId);
  }

  /** The account's Stripe customer, made on its first checkout (named by the account's id, so events find it). */
  private async customerOf(account: Account): Promise<string> {
    const known = await this.d.records.of(account.id);
    if (known) return known.customerId;
    const stripe = await this.sdk;
    const customer = await stripe.customers.create({
      email: account.email,
      name: account.name,
      metadata: { account_id: account.id },
    });
    await this.d.records.put({ accountId: account.id, customerId: customer.id, updatedAt: new Date().toISOString() });
    return customer.id;
  }

  /** A Checkout Session for `plan`: the URL of Stripe's payment page. */
  async checkout(account: Account, plan: PaidPlan): Promise<string> {
    const price = this.config.prices[plan];
    if (!price) throw new Error(`${plan} is not sold`);
    const customer = await this.customerOf(account);
    const base = this.d.publicUrl;
    const stripe = await this.sdk;
    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price, quantity: 1 }],
      customer,
      client_reference_id: account.id,
      success_url: `${base}/billing/success?session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${base}/billing/cancel`,
      subscription_data: { metadata: { account_id: account.id } },
      metadata: { account_id: account.id, plan },
    });
    if (!session.url) throw new Error('Stripe answered a Checkout Session without a URL');
    this.d.log.info({ accountId: account.id, plan, session: session.id }, 'billing: checkout started');
    return session.url;
  }

  /** The Checkout Session a success page names, when it belongs to `accountId`. */
  async session(id: string, accountId: string): Promise<Stripe.Checkout.Session | undefined> {
    const stripe = await this.sdk;
    const s = await stripe.checkout.sessions.retrieve(id);
    return s.client_reference_id === accountId ? s : undefined;
  }

  /** A customer-portal session (card, invoices, cancel, switch plan): the URL of Stripe's page. */
  async portal(customerId: string): Promise<string> {
    const stripe = await this.sdk;
    const s = await stripe.billingPortal.sessions.create({ customer: customerId, return_url: `${this.d.publicUrl}/account#billing` });
    return s.url;
  }

  /**
   * Checks the signature on the raw body and reads the event (throws Stripe's signature error when it is
   * wrong). The SDK refuses a signature older than 5 minutes but not one dated ahead: a signed event from the
   * future could be replayed until its date came, so one dated more than a minute ahead is refused too.
   */
  async verify(raw: Buffer, signature: string | undefined): Promise<Stripe.Event> {
    const stripe = await this.sdk;
    const event = stripe.webhooks.constructEvent(raw, signature ?? '', this.config.webhookSecret);
    const signedAt = Number(/(?:^|,)\s*t=(\d+)/.exec(signature ?? '')?.[1]);
    if (!(signedAt <= Date.now() / 1000 + FUTURE_TOLERANCE_S)) throw new Error('The signature is dated in the future');
    return event;
  }

  /** Handles one verified event, once. A failure gives the event back (Stripe retries it) and is thrown. */
  async handle(event: Stripe.Event): Promise<Outcome> {
    const claim = await this.d.records.claim(event.id, event.type);
    if (claim === 'done') return 'duplicate';
    if (claim === 'busy') return 'busy';
    try {
      const handled = await this.apply(event);
      await this.d.records.handled(event.id, event.type);
      return handled ? 'handled' : 'ignored';
    } catch (err) {
      await this.d.records.release(event.id);
      throw err;
    }
  }

  private async apply(event: Stripe.Event): Promise<boolean> {
    const cause = { id: event.id, type: event.type };
    switch (event.type) {
      case 'checkout.session.completed': {
        const s = event.data.object;
        const subscription = idOf(s.subscription);
        if (s.mode !== 'subscription' || !subscription) return false;
        return this.syncSubscription(subscription, cause, s.client_reference_id ?? undefined);
      }
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
      case 'customer.subscription.deleted':
      case 'customer.subscription.paused':
      case 'customer.subscription.resumed':
        return this.syncSubscription(event.data.object.id, cause);
      case 'invoice.paid':
      case 'invoice.payment_failed': {
        const subscription = invoiceSubscription(event.data.object);
        if (!subscription) return false;
        return this.syncSubscription(subscription, cause, undefined, event);
      }
      default:
        return false;
    }
  }

  /**
   * Reads the subscription from Stripe and sets the account from it: its record, and its plan (the price's
   * plan while the subscription is paid, on trial or in Stripe's payment retries; Free once it has ended).
   * An invoice event also marks a failed payment (and warns the owner) or clears the mark once paid.
   */
  private async syncSubscription(
    id: string,
    cause: { id: string; type: string },
    accountHint?: string,
    invoiceEvent?: Stripe.InvoicePaidEvent | Stripe.InvoicePaymentFailedEvent,
  ): Promise<boolean> {
    const stripe = await this.sdk;
    const sub = await stripe.subscriptions.retrieve(id).catch((err: { statusCode?: number }) => {
      // A subscription Stripe does not know (another integration's, or deleted in test mode): nothing to set.
      if (err.statusCode === 404) return undefined;
      throw err;
    });
    if (!sub) {
      this.d.log.warn({ subscription: id, event: cause.id }, 'billing: an event for a subscription Stripe does not know');
      return false;
    }
    const customerId = idOf(sub.customer)!;
    const accountId = sub.metadata?.account_id || accountHint || (await this.d.records.accountOfCustomer(customerId));
    const account = accountId ? await this.d.accounts.get(accountId) : undefined;
    if (!account) {
      this.d.log.warn({ subscription: id, customer: customerId, event: cause.id }, 'billing: an event for no account of this service');
      return false;
    }
    const before = await this.d.records.of(account.id);
    // An ended subscription does not undo another that is live (a user who left and subscribed again).
    if (before?.subscriptionId && before.subscriptionId !== sub.id && isEntitled(before.status) && !isEntitled(sub.status)) {
      this.d.log.info(
        { accountId: account.id, subscription: id, event: cause.id },
        'billing: an older subscription ended; the live one stays',
      );
      return false;
    }
    const item = sub.items.data[0];
    const priceId = item?.price.id;
    const plan = priceId ? this.byPrice.get(priceId) : undefined;
    const periodEnd = iso(item?.current_period_end);
    const ending = sub.cancel_at ?? (sub.cancel_at_period_end ? item?.current_period_end : null);
    const live = isEntitled(sub.status);
    const record: BillingRecord = {
      accountId: account.id,
      customerId,
      subscriptionId: sub.id,
      status: sub.status,
      ...(priceId ? { priceId } : {}),
      ...(plan ? { plan } : {}),
      ...(ending && live ? { cancelAt: iso(ending) } : {}),
      ...(item ? { periodStart: iso(item.current_period_start), periodEnd } : {}),
      ...(live && !ending && periodEnd ? { nextInvoiceAt: periodEnd } : {}),
      ...this.paymentMarks(before, sub, invoiceEvent),
      updatedAt: new Date().toISOString(),
      lastEvent: cause,
    };
    await this.d.records.put(record);

    if (live && !plan)
      this.d.log.warn(
        { accountId: account.id, price: priceId },
        'billing: the subscription is for a price no plan is sold at (STRIPE_PRICE_*)',
      );
    const to: Plan | undefined = live ? plan : sub.status === 'incomplete' ? undefined : 'free';
    if (to) await changePlan(this.d, account.id, to, { by: 'stripe', event: cause });
    this.d.log.info(
      { accountId: account.id, subscription: sub.id, status: sub.status, plan: to, event: cause.id },
      'billing: subscription read',
    );

    if (invoiceEvent?.type === 'invoice.payment_failed' && live) await this.warnOfFailure(account, record, invoiceEvent.data.object);
    return true;
  }

  /** The failed-payment marks the record keeps: set by a failure, cleared by a payment or the subscription's end. */
  private paymentMarks(
    before: BillingRecord | undefined,
    sub: Stripe.Subscription,
    invoiceEvent: Stripe.InvoicePaidEvent | Stripe.InvoicePaymentFailedEvent | undefined,
  ): Pick<BillingRecord, 'paymentFailedAt' | 'nextRetryAt'> {
    if (invoiceEvent?.type === 'invoice.payment_failed')
      return {
        paymentFailedAt: iso(invoiceEvent.created),
        ...(invoiceEvent.data.object.next_payment_attempt ? { nextRetryAt: iso(invoiceEvent.data.object.next_payment_attempt) } : {}),
      };
    if (invoiceEvent?.type === 'invoice.paid' || sub.status !== 'past_due' || before?.subscriptionId !== sub.id) return {};
    return {
      ...(before.paymentFailedAt ? { paymentFailedAt: before.paymentFailedAt } : {}),
      ...(before.nextRetryAt ? { nextRetryAt: before.nextRetryAt } : {}),
    };
  }

  private async warnOfFailure(account: Account, record: BillingRecord, invoice: Stripe.Invoice) {
    this.d.log.warn({ accountId: account.id, invoice: invoice.id }, "billing: a payment failed; the plan is kept through Stripe's retries");
    if (!this.d.mail || !record.plan) return;
    // Not awaited: Stripe's delivery is answered without waiting for the SMTP exchange (the mailer logs a failure).
    void this.d.mail.send('payment-failed', account.email, {
      name: account.name,
      plan: planName(record.plan),
      ...(record.nextRetryAt ? { nextRetryAt: record.nextRetryAt } : {}),
      ...(invoice.hosted_invoice_url ? { invoiceUrl: invoice.hosted_invoice_url } : {}),
    });
  }
}
