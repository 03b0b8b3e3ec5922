// The signed-in account's billing: POST /billing/checkout (a plan sold and above the account's: to Stripe
// Checkout), POST /billing/portal (to Stripe's customer portal), and the pages Checkout returns to,
// /billing/success and /billing/cancel. Mounted only with STRIPE_SECRET_KEY set. An account that pays
// already switches plan in the customer portal (one subscription per account, never two).
import express, { type Router } from 'express';
import { html } from '../../engine/html.js';
import type { PortalContext } from '../context.js';
import { PLANS, type Account } from '../accounts/accounts.js';
import { requireSignedIn } from '../auth/index.js';
import { PageError, posted, queried, wrap } from '../shared/pages.js';
import type { Billing, PaidPlan } from './billing.js';
import { isEntitled } from './records.js';
import { billingSection, cancelledBody, successBody } from './views.js';

const unavailable = () =>
  new PageError(502, 'Billing is not available right now', 'Stripe did not answer. Nothing was charged; try again in a moment.');

/** The account page's (and key page's) billing section for `account`. */
export async function billingFor(billing: Billing, ctx: PortalContext, account: Account, csrf: string | undefined) {
  const [record, prices] = await Promise.all([billing.record(account.id), billing.prices()]);
  return billingSection({ plan: account.plan, plans: ctx.deps.plans, sold: billing.sold, prices, record, csrf });
}

export function billingRoutes(ctx: PortalContext, billing: Billing): Router {
  const { pages, deps } = ctx;
  const r = express.Router();

  r.post(
    '/billing/checkout',
    requireSignedIn,
    wrap(async (req, res) => {
      const account = res.locals.account as Account;
      const plan = posted(req, 'plan', 20) as PaidPlan;
      if (!billing.sold.includes(plan) || PLANS.indexOf(plan) <= PLANS.indexOf(account.plan))
        throw new PageError(
          422,
          'Choose a plan above yours',
          html`Only a plan above the one you have can be bought here. <a href="/account#billing">Back to the plans</a>`,
        );
      if (account.status !== 'active')
        throw new PageError(403, 'Your account is not active', 'An administrator must approve or reactivate it first.');
      const record = await billing.record(account.id);
      if (record?.subscriptionId && isEntitled(record.status))
        throw new PageError(
          409,
          'You have a subscription',
          'Switch plans under Manage billing on your account page, so you are never billed twice.',
        );
      const url = await billing.checkout(account, plan).catch((err: Error) => {
        deps.log.warn({ err: err.message, accountId: account.id }, 'billing: cannot start a checkout');
        throw unavailable();
      });
      res.redirect(303, url);
    }),
  );

  r.post(
    '/billing/portal',
    requireSignedIn,
    wrap(async (req, res) => {
      const account = res.locals.account as Account;
      const record = await billing.record(account.id);
      if (!record)
        throw new PageError(
          404,
          'No billing yet',
          html`Your account has not paid for a plan. <a href="/account#billing">See the plans</a>`,
        );
      const url = await billing.portal(record.customerId).catch((err: Error) => {
        deps.log.warn({ err: err.message, accountId: account.id }, 'billing: cannot open the customer portal');
        throw unavailable();
      });
      res.redirect(303, url);
    }),
  );

  r.get(
    '/billing/success',
    requireSignedIn,
    wrap(async (req, res) => {
      const account = res.locals.account as Account;
      const id = queried(req, 'session_id');
      const session = /^cs_\w{1,200}$/.test(id) ? await billing.session(id, account.id).catch(() => undefined) : undefined;
      const sold = session?.metadata?.plan;
      const plan = billing.sold.find((p) => p === sold);
      pages.send(res, 'Thank you', successBody({ plan, account }));
    }),
  );

  r.get('/billing/cancel', requireSignedIn, (_req, res) => pages.send(res, 'Checkout cancelled', cancelledBody()));

  return r;
}
