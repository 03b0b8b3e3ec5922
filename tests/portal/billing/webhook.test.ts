// Billing through Stripe over HTTP, with the official SDK pointed at the loopback double
// (tests/helpers/fake-stripe.ts) and events signed by the SDK's generateTestHeaderString: the plan table's
// prices read from Stripe, the Checkout Session an upgrade opens, the webhook's signature (a bad one is a
// 400 and changes nothing), an event handled once however often it comes, `updated` before `completed`, a
// cancellation at the period's end, the deletion, a failed payment (the plan kept, the owner warned by
// email), the records (status, period, next invoice, every plan change with its event), the admins'
// confirmation on a paying account, Stripe down, and billing off changing nothing.
import crypto from 'node:crypto';
import request from 'supertest';
import { listen, testApp, type TestApp } from '../../helpers/app.js';
import { signIn, signUp, submit, visitor, type Agent } from '../../helpers/portal.js';
import { smtpServer, type Mailbox } from '../../helpers/smtp.js';
import { fakeStripe, PLAN_PRICES, PRICES, type FakeStripe } from '../../helpers/fake-stripe.js';
import { Accounts } from '../../../portal/accounts/accounts.js';
import { PlanChanges } from '../../../portal/accounts/plan-changes.js';
import { BillingRecords } from '../../../portal/billing/records.js';

const PW = 'correct horse battery';
const ADMIN = 'billing-admin@example.com';
let stripe: FakeStripe;
let mailbox: Mailbox;
let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let accounts: Accounts;
let changes: PlanChanges;
let records: BillingRecords;
let admin: Agent;

beforeAll(async () => {
  stripe = await fakeStripe(PLAN_PRICES);
  mailbox = await smtpServer();
  t = await testApp({ ...stripe.env(PRICES), ADMIN_EMAIL: ADMIN, ADMIN_PASSWORD: PW, SMTP_URL: mailbox.url, FREE_PERSONAL_KEYS: 'true' });
  server = await listen(t.app);
  stripe.webhookUrl = `${server.url}/billing/webhook`;
  accounts = new Accounts(t.api.database.db, t.api.keys);
  changes = new PlanChanges(t.api.database.db);
  records = new BillingRecords(t.api.database.db);
  admin = visitor(t);
  expect((await signIn(admin, ADMIN, PW)).status).toBe(303);
});
afterAll(async () => {
  await server?.close();
  await t?.close();
  await mailbox?.close();
  await stripe?.close();
});

interface User {
  agent: Agent;
  id: string;
  email: string;
}

async function user(): Promise<User> {
  const agent = visitor(t);
  const email = `bill-${crypto.randomUUID().slice(0, 8)}@example.com`;
  expect((await signUp(agent, email, PW)).status).toBe(303);
  const account = (await accounts.byEmail(email))!;
  // With SMTP set, a new address is confirmed by a mailed link: confirmed here directly, then signed in.
  await accounts.update(account.id, { unverified: undefined });
  expect((await signIn(agent, email, PW)).status).toBe(303);
  return { agent, id: account.id, email };
}

/** Upgrades through Checkout as far as Stripe's page: the session's id. */
async function checkout(u: User, plan = 'premium'): Promise<string> {
  const res = await submit(u.agent, '/account', '/billing/checkout', { plan });
  expect(res.status).toBe(303);
  const url = new URL(res.headers.location);
  expect(url.origin).toBe(stripe.url);
  return url.pathname.split('/').pop()!;
}

/** Upgrades and pays: the subscription's id and the completed event (not yet sent). */
async function paid(u: User, plan = 'premium') {
  const completed = stripe.pay(await checkout(u, plan));
  const sub = (completed.data.object as { subscription: string }).subscription;
  return { sub, completed };
}

const planOf = async (id: string) => (await accounts.get(id))!.plan;

test('the plan table shows the prices read from Stripe, and Upgrade opens a Checkout Session for the account', async () => {
  const u = await user();
  const page = await u.agent.get('/account');
  expect(page.status).toBe(200);
  expect(page.text).toContain('<strong>$20.00</strong> <span class="muted small">per month</span>');
  expect(page.text).toContain('<strong>$150.00</strong>');
  expect(page.text).toContain('aria-label="Upgrade to Premium"');
  // Plans sold through Stripe are bought, not requested.
  expect(page.text).not.toContain('Request an upgrade');
  // The page's forms may lead to Stripe's pages.
  expect(page.headers['content-security-policy']).toContain(`form-action 'self' ${stripe.url}`);
  expect((await u.agent.get('/dashboard')).text).toContain('aria-label="Upgrade to Enterprise"');

  const id = await checkout(u);
  const made = stripe.requests.filter((r) => r.method === 'POST' && r.path === '/v1/checkout/sessions').pop()!.body;
  expect(made).toMatchObject({
    mode: 'subscription',
    client_reference_id: u.id,
    line_items: [{ price: PRICES.premium, quantity: '1' }],
    success_url: 'http://127.0.0.1:3999/billing/success?session_id={CHECKOUT_SESSION_ID}',
    cancel_url: 'http://127.0.0.1:3999/billing/cancel',
    subscription_data: { metadata: { account_id: u.id } },
  });
  // The customer is made once for the account, with its email prefilled at Checkout.
  expect(stripe.customers.get(made.customer as string)).toMatchObject({ email: u.email, metadata: { account_id: u.id } });
  expect(stripe.sessions.get(id)!.client_reference_id).toBe(u.id);
  await checkout(u);
  expect(
    stripe.requests.filter((r) => r.path === '/v1/customers' && (r.body.metadata as { account_id: string }).account_id === u.id),
  ).toHaveLength(1);

  // Nothing changes before Stripe says the payment went through.
  expect(await planOf(u.id)).toBe('free');
  expect((await u.agent.get('/billing/cancel')).text).toContain('Nothing was charged');
});

test('a plan not above the account’s, or not sold, is refused; the form needs its CSRF token', async () => {
  const u = await user();
  expect((await submit(u.agent, '/account', '/billing/checkout', { plan: 'free' })).status).toBe(422);
  expect((await submit(u.agent, '/account', '/billing/checkout', { plan: 'gold' })).status).toBe(422);
  expect((await u.agent.post('/billing/checkout').type('form').send({ plan: 'premium' })).status).toBe(403);
  expect((await request(t.app).post('/billing/checkout').type('form').send({ plan: 'premium' })).status).toBe(403);
});

test('a bad signature is a 400 and changes nothing', async () => {
  const u = await user();
  const { completed } = await paid(u);
  const { default: Stripe } = await import('stripe');
  const signer = new Stripe(stripe.secretKey).webhooks;
  const bad = [
    await stripe.deliver(completed, { signature: 't=1,v1=deadbeef' }),
    await stripe.deliver(completed, { signature: '' }),
    // Signed with another secret, or too long ago (a replay).
    await stripe.deliver(completed, {
      signature: signer.generateTestHeaderString({ payload: JSON.stringify(completed, null, 2), secret: 'whsec_other' }),
    }),
    await stripe.deliver(completed, {
      signature: signer.generateTestHeaderString({
        payload: JSON.stringify(completed, null, 2),
        secret: stripe.webhookSecret,
        timestamp: Math.floor(Date.now() / 1000) - 3600,
      }),
    }),
    // Dated ahead of the server's clock: it could be kept and replayed until then.
    await stripe.deliver(completed, {
      signature: signer.generateTestHeaderString({
        payload: JSON.stringify(completed, null, 2),
        secret: stripe.webhookSecret,
        timestamp: Math.floor(Date.now() / 1000) + 3600,
      }),
    }),
  ];
  for (const r of bad) {
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, error: 'Invalid or missing Stripe-Signature' });
  }
  expect(await planOf(u.id)).toBe('free');
  expect((await records.of(u.id))?.subscriptionId).toBeUndefined();
  expect(await changes.of(u.id)).toEqual([]);
  // The same event, rightly signed, goes through.
  expect((await stripe.deliver(completed)).body).toEqual({ received: true, outcome: 'handled' });
  expect(await planOf(u.id)).toBe('premium');
});

test('a body over the limit is a 413 in the JSON envelope, not an HTML page', async () => {
  const res = await request(t.app)
    .post('/billing/webhook')
    .set('content-type', 'application/json')
    .set('accept', 'application/json')
    .send('x'.repeat(2 * 1024 * 1024));
  expect(res.status).toBe(413);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body).toEqual({ success: false, error: 'Request body is too large', code: 'payload_too_large' });
});

test('a valid signature over a body changed after signing is refused', async () => {
  const u = await user();
  const { completed } = await paid(u);
  const payload = JSON.stringify(completed);
  const { default: Stripe } = await import('stripe');
  const signature = new Stripe(stripe.secretKey).webhooks.generateTestHeaderString({ payload, secret: stripe.webhookSecret });
  const forged = payload.replace(u.id, 'acc_someoneelse');
  expect((await stripe.deliver(completed, { body: forged, signature })).status).toBe(400);
  expect((await stripe.deliver(completed, { body: payload, signature })).status).toBe(200);
});

test('checkout.session.completed moves the account and its keys to Premium; the same event twice is handled once', async () => {
  const u = await user();
  const { key } = await t.api.keys.issue('free-personal', 'script', u.id);
  const before = await request(t.app).get('/api/v1/tools/ccgen?bin=457173').set('X-API-Key', key);
  expect(before.headers['x-ratelimit-limit']).toBe('200');

  const { sub, completed } = await paid(u);
  // Two deliveries of one event at once: one handles it, the other is told so (busy now, or done).
  const both = await Promise.all([stripe.deliver(completed), stripe.deliver(completed)]);
  const outcomes = both.map((r) => (r.status === 409 ? 'busy' : r.body.outcome)).sort();
  expect(outcomes).toEqual(outcomes.includes('busy') ? ['busy', 'handled'] : ['duplicate', 'handled']);
  expect(await planOf(u.id)).toBe('premium');
  const after = await request(t.app).get('/api/v1/tools/ccgen?bin=457173').set('X-API-Key', key);
  expect(after.headers['x-ratelimit-limit']).toBe('5000');

  const history = await changes.of(u.id);
  expect(history).toEqual([
    expect.objectContaining({ from: 'free', to: 'premium', by: 'stripe', event: { id: completed.id, type: 'checkout.session.completed' } }),
  ]);
  expect(await records.of(u.id)).toMatchObject({ subscriptionId: sub, status: 'active', plan: 'premium', priceId: PRICES.premium });

  // Stripe delivers at least once: the second delivery is answered and not handled again.
  expect((await stripe.deliver(completed)).body).toEqual({ received: true, outcome: 'duplicate' });
  expect(await changes.of(u.id)).toHaveLength(1);
  // The subscription is read from Stripe, never taken from the event.
  expect(stripe.requests.filter((r) => r.method === 'GET' && r.path === `/v1/subscriptions/${sub}`)).toHaveLength(1);

  // The account page: status, the current period, the next invoice; the plan change recorded.
  const page = (await u.agent.get('/account')).text;
  const end = stripe.subscriptions.get(sub)!.items.data[0].current_period_end;
  const day = new Date(end * 1000).toISOString().slice(0, 10);
  expect(page).toMatch(/<dt>Subscription<\/dt><dd><span class="badge ok">Active<\/span> Premium<\/dd>/);
  expect(page).toMatch(new RegExp(`<dt>Current period</dt><dd><time[^>]*>\\d{4}-\\d\\d-\\d\\d</time> to <time[^>]*>${day}</time>`));
  expect(page).toMatch(new RegExp(`<dt>Next invoice</dt><dd><time[^>]*>${day}</time>`));
  expect(page).toContain('Free → <strong>Premium</strong>');
  expect(page).toContain('Manage billing');
  // A paying account switches plan in the customer portal, never through a second Checkout.
  expect((await submit(u.agent, '/account', '/billing/checkout', { plan: 'enterprise' })).status).toBe(409);
  const portal = await submit(u.agent, '/account', '/billing/portal', {});
  expect(portal.status).toBe(303);
  expect(portal.headers.location).toMatch(new RegExp(`^${stripe.url}/p/session/bps_`));
  expect(stripe.requests.pop()!.body).toEqual({
    customer: stripe.subscriptions.get(sub)!.customer,
    return_url: 'http://127.0.0.1:3999/account#billing',
  });
});

test('customer.subscription.updated before checkout.session.completed leaves the account right', async () => {
  const u = await user();
  const { sub, completed } = await paid(u);
  // The user switches to Enterprise at once; Stripe's events arrive newest first.
  const updated = stripe.update(sub, { price: PRICES.enterprise });
  expect((await stripe.deliver(updated)).body).toEqual({ received: true, outcome: 'handled' });
  expect(await planOf(u.id)).toBe('enterprise');
  // The older event's session speaks of Premium: the subscription as Stripe has it now says Enterprise.
  expect((await stripe.deliver(completed)).body).toEqual({ received: true, outcome: 'handled' });
  expect(await planOf(u.id)).toBe('enterprise');
  expect((await changes.of(u.id)).map((c) => `${c.from}>${c.to}`)).toEqual(['free>enterprise']);
  expect(await records.of(u.id)).toMatchObject({ plan: 'enterprise', priceId: PRICES.enterprise, lastEvent: { id: completed.id } });
});

test('a cancellation takes effect at the period’s end; the deletion returns the account to Free', async () => {
  const u = await user();
  const { sub, completed } = await paid(u);
  await stripe.deliver(completed);
  const cancelled = stripe.update(sub, { cancel_at_period_end: true });
  expect((await stripe.deliver(cancelled)).status).toBe(200);
  expect(await planOf(u.id)).toBe('premium');
  const end = new Date(stripe.subscriptions.get(sub)!.items.data[0].current_period_end * 1000).toISOString();
  expect(await records.of(u.id)).toMatchObject({ status: 'active', cancelAt: end });
  expect((await records.of(u.id))!.nextInvoiceAt).toBeUndefined();
  const page = (await u.agent.get('/account')).text;
  expect(page).toContain('Your subscription is cancelled: your plan stays Premium until');
  expect(page).toMatch(/<dt>Next invoice<\/dt><dd><span class="muted">none<\/span>/);
  expect(page).toMatch(/<dt>Ends<\/dt><dd><time datetime="[^"]+"/);

  const deleted = stripe.end(sub);
  expect((await stripe.deliver(deleted)).body).toEqual({ received: true, outcome: 'handled' });
  expect(await planOf(u.id)).toBe('free');
  expect(await records.of(u.id)).toMatchObject({ status: 'canceled' });
  // The cancellation's event delivered again late (a retry) does not bring the plan back.
  const late = { ...cancelled, id: `${cancelled.id}x` };
  expect((await stripe.deliver(late)).status).toBe(200);
  expect(await planOf(u.id)).toBe('free');
  expect((await changes.of(u.id)).map((c) => [c.to, c.event?.type])).toEqual([
    ['free', 'customer.subscription.deleted'],
    ['premium', 'checkout.session.completed'],
  ]);
  // Free again, the account can subscribe anew.
  expect((await u.agent.get('/account')).text).toContain('aria-label="Upgrade to Premium"');
});

test('a failed payment keeps the plan through Stripe’s retries and warns the owner by email', async () => {
  const u = await user();
  const { sub, completed } = await paid(u);
  await stripe.deliver(completed);
  const failed = stripe.failPayment(sub);
  expect((await stripe.deliver(failed)).body).toEqual({ received: true, outcome: 'handled' });
  expect(await planOf(u.id)).toBe('premium');
  expect(await records.of(u.id)).toMatchObject({
    status: 'past_due',
    paymentFailedAt: expect.any(String),
    nextRetryAt: expect.any(String),
  });
  const mail = await mailbox.next(u.email, /payment for Premium failed/);
  expect(mail.text).toContain('Your plan stays as it is while the payment is tried again (next attempt:');
  expect(mail.text).toContain('http://127.0.0.1:3999/account#billing');
  expect((await u.agent.get('/account')).text).toContain('Your last payment failed on');
  // Once: the same event again sends no second message.
  expect((await stripe.deliver(failed)).body.outcome).toBe('duplicate');
  await new Promise((ok) => setTimeout(ok, 300));
  expect(mailbox.waiting(u.email).filter((m) => /failed/.test(m.mail.subject ?? ''))).toHaveLength(0);
  // Retries ran out: Stripe ends the subscription.
  await stripe.deliver(stripe.end(sub));
  expect(await planOf(u.id)).toBe('free');
});

test('/admin shows each subscription; a manual plan change on a paying account asks first and says what Stripe keeps billing', async () => {
  const u = await user();
  const { sub, completed } = await paid(u);
  await stripe.deliver(completed);
  const list = await admin.get(`/admin?q=${u.email}`);
  expect(list.text).toContain('<th scope="col">Subscription</th>');
  expect(list.text).toMatch(/<span class="badge ok">Active<\/span> <span class="muted small">premium<\/span>/);
  const detail = await admin.get(`/admin/accounts/${u.id}`);
  expect(detail.text).toContain(sub);
  expect(detail.text).toContain('Billed $20.00 per month.');
  expect(detail.text).toContain(completed.id);

  const asked = await submit(admin, `/admin/accounts/${u.id}`, `/admin/accounts/${u.id}/plan`, { plan: 'enterprise' });
  expect(asked.status).toBe(409);
  expect(asked.text).toContain('Change the plan of a paying account?');
  expect(asked.text).toContain('Stripe keeps billing $20.00 per month for Premium</strong>');
  expect(await planOf(u.id)).toBe('premium');
  const done = await submit(admin, `/admin/accounts/${u.id}`, `/admin/accounts/${u.id}/plan`, { plan: 'enterprise', confirm: 'yes' });
  expect(done.status).toBe(303);
  expect(await planOf(u.id)).toBe('enterprise');
  expect((await changes.of(u.id))[0]).toMatchObject({ from: 'premium', to: 'enterprise', by: 'admin', actor: ADMIN });
  // An account without a subscription changes at once, as before.
  const other = await user();
  expect((await submit(admin, `/admin/accounts/${other.id}`, `/admin/accounts/${other.id}/plan`, { plan: 'premium' })).status).toBe(303);
  expect(await planOf(other.id)).toBe('premium');
});

test('deleting an account cancels its subscription at Stripe first', async () => {
  const u = await user();
  const { sub, completed } = await paid(u);
  await stripe.deliver(completed);
  const res = await submit(u.agent, '/account', '/account/delete', { password: PW });
  expect(res.status).toBe(303);
  expect(stripe.requests.some((r) => r.method === 'DELETE' && r.path === `/v1/subscriptions/${sub}`)).toBe(true);
  expect(stripe.subscriptions.get(sub)!.status).toBe('canceled');
  expect(await records.of(u.id)).toBeUndefined();
  // Its deletion event, arriving after the account is gone, is answered and changes nothing.
  expect((await stripe.deliver(stripe.event('customer.subscription.deleted', stripe.subscriptions.get(sub)))).body.outcome).toBe('ignored');
});

test('Stripe down: the pages still render, an upgrade is a 502 page, an event is given back for Stripe to retry', async () => {
  const u = await user();
  const { sub, completed } = await paid(u);
  stripe.failing = true;
  try {
    const checkoutRes = await submit(u.agent, '/account', '/billing/checkout', { plan: 'premium' });
    expect(checkoutRes.status).toBe(502);
    expect(checkoutRes.text).toContain('Nothing was charged');
    expect((await u.agent.get('/account')).status).toBe(200);
    expect((await u.agent.get('/dashboard')).status).toBe(200);
    const failed = await stripe.deliver(completed);
    expect(failed.status).toBe(500);
    expect(await planOf(u.id)).toBe('free');
  } finally {
    stripe.failing = false;
  }
  // Stripe's retry of the same event is handled in full.
  expect((await stripe.deliver(completed)).body.outcome).toBe('handled');
  expect((await records.of(u.id))!.subscriptionId).toBe(sub);
});

test('an event for a subscription Stripe does not know, or of a kind not used, is answered and ignored', async () => {
  const unknown = stripe.event('customer.subscription.updated', { id: 'sub_unknown', object: 'subscription' });
  expect((await stripe.deliver(unknown)).body).toEqual({ received: true, outcome: 'ignored' });
  expect((await stripe.deliver(stripe.event('charge.refunded', { id: 'ch_1', object: 'charge' }))).body).toEqual({
    received: true,
    outcome: 'ignored',
  });
});

test('prices Stripe cannot give now: the page renders, those plans cannot be bought until it can', async () => {
  const fresh = await testApp(stripe.env(PRICES));
  try {
    const agent = visitor(fresh);
    expect((await signUp(agent, `np-${crypto.randomUUID().slice(0, 8)}@example.com`, PW)).status).toBe(303);
    stripe.failing = true;
    const page = await agent.get('/account');
    stripe.failing = false;
    expect(page.status).toBe(200);
    expect(page.text).toContain('Not available right now');
    expect(page.text).not.toContain('aria-label="Upgrade to Premium"');
    // A failed read is not kept: the next page asks Stripe again.
    expect((await agent.get('/account')).text).toContain('aria-label="Upgrade to Premium"');
  } finally {
    stripe.failing = false;
    await fresh.close();
  }
});

describe('billing off (no STRIPE_SECRET_KEY)', () => {
  let off: TestApp;
  beforeAll(async () => {
    off = await testApp();
  });
  afterAll(async () => {
    await off.close();
  });

  test('nothing of billing shows, and the upgrade request queue works as before', async () => {
    const agent = visitor(off);
    expect((await signUp(agent, `off-${crypto.randomUUID().slice(0, 8)}@example.com`, PW)).status).toBe(303);
    const page = await agent.get('/account');
    expect(page.text).not.toMatch(/Billing|Upgrade to|Manage billing|Plan history/);
    expect(page.text).toContain('Request an upgrade');
    expect(page.headers['content-security-policy']).toContain("form-action 'self';");
    expect((await agent.get('/dashboard')).text).not.toContain('Upgrade to');
    expect((await request(off.app).post('/billing/webhook').send('{}')).status).toBe(404);
    expect((await submit(agent, '/account', '/billing/checkout', { plan: 'premium' })).status).toBe(404);
    expect((await submit(agent, '/account', '/account/upgrade', { plan: 'premium', message: '' })).status).toBe(303);
  });
});
