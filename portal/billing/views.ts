// What billing adds to the pages: the plan table (each plan's allowance and Stripe price, Upgrade for a plan
// sold and above the account's), the subscription's card (status, period, next invoice, a failed payment,
// Manage billing), the history of plan changes, the pages Checkout returns to, and the admins' pieces (a
// subscription's state, the confirmation of a manual plan change on a subscribed account).
import { html, type Safe } from '../../engine/html.js';
import type { PlanSpec } from '../../engine/catalog/load.js';
import { PLANS, type Account, type Plan } from '../accounts/accounts.js';
import type { PlanChange } from '../accounts/plan-changes.js';
import { csrfField, notice } from '../shared/forms.js';
import { count, planName, time, windowText } from '../shared/format.js';
import type { PaidPlan, PriceInfo } from './billing.js';
import { isEntitled, type BillingRecord } from './records.js';

export interface PlanTable {
  plan: Plan;
  plans: Record<string, PlanSpec>;
  /** The plans sold, with their price when Stripe answered. */
  sold: PaidPlan[];
  prices: Partial<Record<PaidPlan, PriceInfo>>;
  record?: BillingRecord;
  csrf?: string;
}

const STATUS: Record<string, string> = {
  active: 'Active',
  trialing: 'Trial',
  past_due: 'Payment overdue',
  unpaid: 'Unpaid',
  canceled: 'Ended',
  incomplete: 'Awaiting first payment',
  incomplete_expired: 'Expired before payment',
  paused: 'Paused',
};

const statusText = (status: string | undefined) => (status ? (STATUS[status] ?? status) : 'None');
const statusBadge = (r: BillingRecord) =>
  html`<span class="badge${r.status === 'past_due' || r.status === 'unpaid' ? ' danger' : r.cancelAt || !isEntitled(r.status) ? ' warn' : ' ok'}">${statusText(r.status)}${r.cancelAt && isEntitled(r.status) ? ', ending' : ''}</span>`;

const allowance = (p: PlanSpec | undefined) => (p ? `${count(p.limit)} requests per ${windowText(p.window)}` : '');
const subscribed = (r: BillingRecord | undefined) => Boolean(r?.subscriptionId && isEntitled(r.status));

function action(t: PlanTable, plan: Plan): Safe | string {
  if (plan === t.plan) return html`<span class="badge ok">Your plan</span>`;
  if (PLANS.indexOf(plan) < PLANS.indexOf(t.plan)) return '';
  if (!t.sold.includes(plan as PaidPlan)) return html`<a href="/account#plan">Ask an administrator</a>`;
  if (subscribed(t.record)) return html`<span class="small muted">Switch under Manage billing</span>`;
  if (!t.prices[plan as PaidPlan]) return html`<span class="small muted">Not available right now</span>`;
  return html`<form method="post" action="/billing/checkout" class="inline">${csrfField(t.csrf)}<input type="hidden" name="plan" value="${plan}"><button type="submit" aria-label="Upgrade to ${planName(plan)}">Upgrade</button></form>`;
}

function price(t: PlanTable, plan: Plan): Safe | string {
  if (plan === 'free') return 'Free';
  const p = t.prices[plan];
  if (p) return html`<strong>${p.amount}</strong> <span class="muted small">${p.interval}</span>`;
  return t.sold.includes(plan) ? html`<span class="muted">—</span>` : html`<span class="muted small">on request</span>`;
}

/** The plans as cards (side by side on wide screens, stacked on a phone): allowance, price, what the account can do. */
function planTable(t: PlanTable): Safe {
  return html`<ul class="grid plans" role="list">${PLANS.map(
    (plan) => html`<li class="card"${plan === t.plan ? html` aria-current="true"` : ''} aria-labelledby="plan-${plan}">
<h3 id="plan-${plan}">${planName(plan)}</h3>
<p class="stat">${price(t, plan)}</p>
<p>${allowance(t.plans[plan])}${plan === 'free' ? html`<br><span class="muted small">on the shared free key, per client address</span>` : ''}</p>
<p>${action(t, plan)}</p></li>`,
  )}</ul>`;
}

/** The subscription's state for its owner: status, period, next invoice, an ending or a failed payment. */
function subscriptionFacts(r: BillingRecord): Safe {
  return html`<dl class="facts" id="subscription">
  <div><dt>Subscription</dt><dd>${statusBadge(r)}${r.plan ? html` ${planName(r.plan)}` : ''}</dd></div>
  ${r.periodStart && r.periodEnd ? html`<div><dt>Current period</dt><dd>${time(r.periodStart, 'day')} to ${time(r.periodEnd, 'day')}</dd></div>` : ''}
  <div><dt>Next invoice</dt><dd>${r.nextInvoiceAt ? time(r.nextInvoiceAt, 'day') : html`<span class="muted">none</span>`}</dd></div>
  ${r.cancelAt && isEntitled(r.status) ? html`<div><dt>Ends</dt><dd>${time(r.cancelAt, 'day')}</dd></div>` : ''}
</dl>`;
}

/** The billing part of the account and key pages: the subscription, its warnings, Manage billing, the plans. */
export function billingSection(t: PlanTable): Safe {
  const r = t.record;
  return html`<section aria-label="Billing" class="billing" id="billing">
${
  r?.paymentFailedAt && isEntitled(r.status)
    ? notice(
        'error',
        html`Your last payment failed on ${time(r.paymentFailedAt)}. Your plan is kept while Stripe tries again${r.nextRetryAt ? html` (next attempt ${time(r.nextRetryAt)})` : ''}: update your card under Manage billing.`,
      )
    : ''
}
${r?.cancelAt && isEntitled(r.status) ? notice('info', html`Your subscription is cancelled: your plan stays ${planName(r.plan ?? t.plan)} until ${time(r.cancelAt)}, then returns to Free.`) : ''}
${r?.subscriptionId ? subscriptionFacts(r) : ''}
${planTable(t)}
${
  r
    ? html`<form method="post" action="/billing/portal" class="row">${csrfField(t.csrf)}<button type="submit" class="secondary">Manage billing</button>
<span class="small muted">Stripe's billing portal: card, invoices, switch plan, cancel.</span></form>`
    : html`<p class="small muted">Prices from Stripe. Payment by card through Stripe, billed until you cancel; cancel at any time and keep the plan to the end of the period paid for.</p>`
}
</section>`;
}

const BY: Record<PlanChange['by'], string> = {
  admin: 'an administrator',
  upgrade: 'an administrator (upgrade request)',
  stripe: 'billing',
};

/** The account's plan changes, newest first; admins also see who and which event. */
export function planHistory(changes: PlanChange[], admin = false): Safe {
  if (!changes.length) return html`<p class="muted small">No plan changes recorded.</p>`;
  return html`<div class="table-wrap"><table class="plan-history">
<thead><tr><th scope="col">When</th><th scope="col">Change</th><th scope="col">By</th>${admin ? html`<th scope="col">Event</th>` : ''}</tr></thead>
<tbody>${changes.map(
    (c) => html`<tr><td>${time(c.at)}</td><td>${planName(c.from)} → <strong>${planName(c.to)}</strong></td>
<td>${BY[c.by]}${admin && c.actor ? html`<br><span class="muted small">${c.actor}</span>` : ''}</td>${admin ? html`<td class="mono small">${c.event ? html`${c.event.type}<br>${c.event.id}` : '—'}</td>` : ''}</tr>`,
  )}</tbody>
</table></div>`;
}

/** Where Checkout returns after a payment: the plan changes once Stripe's event arrives (seconds). */
export function successBody(o: { plan?: Plan; account: Account }): Safe {
  const arrived = o.plan && o.account.plan === o.plan;
  return html`<h1>Thank you</h1>
${notice('ok', html`Your payment for ${o.plan ? planName(o.plan) : 'the plan'} went through.`)}
<p>${
    arrived
      ? html`Your account is on <strong>${planName(o.plan!)}</strong> now, and so are its keys.`
      : html`Your account moves to ${o.plan ? planName(o.plan) : 'the new plan'} as soon as Stripe confirms the payment to this service, usually within seconds. Reload this page, or open your keys.`
  }</p>
<p class="actions"><a class="button" href="/dashboard">Your API keys</a><a href="/account#billing">Billing</a></p>`;
}

export const cancelledBody = (): Safe =>
  html`<h1>Checkout cancelled</h1>
${notice('info', 'Nothing was charged and your plan is unchanged.')}
<p class="actions"><a class="button" href="/account#billing">Back to the plans</a><a href="/dashboard">Your API keys</a></p>`;

/** The subscription in the admins' list: its status, or nothing. */
export const adminStatusCell = (r: BillingRecord | undefined): Safe | string =>
  r?.subscriptionId
    ? html`${statusBadge(r)}${r.plan ? html` <span class="muted small">${r.plan}</span>` : ''}`
    : html`<span class="muted">—</span>`;

/** The subscription on an account's admin page. */
export function adminSubscription(r: BillingRecord | undefined, price: PriceInfo | undefined): Safe {
  if (!r) return html`<p class="muted">No Stripe customer: this account has never started a checkout.</p>`;
  return html`<div class="card">
<p class="muted small">Stripe customer <span class="mono">${r.customerId}</span>${r.subscriptionId ? html` · subscription <span class="mono">${r.subscriptionId}</span>` : ''}${r.lastEvent ? html` · last event ${r.lastEvent.type} (<span class="mono">${r.lastEvent.id}</span>)` : ''}</p>
${r.subscriptionId ? subscriptionFacts(r) : html`<p>No subscription yet.</p>`}
${price && subscribed(r) ? html`<p class="small">Billed ${price.amount} ${price.interval}.</p>` : ''}
${r.paymentFailedAt && isEntitled(r.status) ? notice('error', html`A payment failed on ${time(r.paymentFailedAt)}; Stripe retries${r.nextRetryAt ? html` (next ${time(r.nextRetryAt)})` : ''}.`) : ''}
</div>`;
}

/** Asks an admin to confirm a manual plan change on an account that pays through Stripe. */
export function confirmPlanBody(o: { account: Account; to: Plan; record: BillingRecord; price?: PriceInfo; csrf?: string }): Safe {
  const { account: a, record: r } = o;
  const paid = r.plan ? planName(r.plan) : 'its plan';
  const billing = o.price ? `${o.price.amount} ${o.price.interval}` : 'the subscription’s price';
  return html`<p><a href="/admin/accounts/${a.id}">← ${a.name}</a></p>
<h1>Change the plan of a paying account?</h1>
<div class="card">
<p><strong>${a.email}</strong> pays for <strong>${paid}</strong> through Stripe (subscription <span class="mono">${r.subscriptionId ?? ''}</span>, ${statusText(r.status)}${r.nextInvoiceAt ? html`, next invoice ${time(r.nextInvoiceAt, 'day')}` : ''}).</p>
<p>Changing the plan here to <strong>${planName(o.to)}</strong> does not change the subscription: <strong>Stripe keeps billing ${billing} for ${paid}</strong> until the subscription is cancelled, by the user under Manage billing or by you in Stripe's Dashboard. The next event Stripe sends about this subscription sets the plan back to ${paid}.</p>
<form method="post" action="/admin/accounts/${a.id}/plan" class="actions">${csrfField(o.csrf)}
  <input type="hidden" name="plan" value="${o.to}"><input type="hidden" name="confirm" value="yes">
  <button type="submit" class="danger">Change to ${planName(o.to)} anyway</button>
  <a class="button secondary" href="/admin/accounts/${a.id}">Cancel</a>
</form>
</div>`;
}
