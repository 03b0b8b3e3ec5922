// A test double of Stripe on a loopback port, for the official SDK pointed at it (STRIPE_API_URL). It speaks
// the endpoints the service uses, form-encoded as Stripe takes them and answering objects in the shapes of
// Stripe's OpenAPI description (stripe/openapi, fixtures3.json, API 2025+: a subscription's period on its
// items, an invoice's subscription under `parent`): prices, customers, Checkout Sessions, subscriptions
// (read and cancel) and customer-portal sessions, with Stripe's error envelope and a Bearer secret key.
// Its Checkout page is a real page a browser can pay on: paying makes the customer's subscription, completes
// the session, sends the signed `checkout.session.completed` to the webhook and returns to success_url.
// Tests drive the rest of a subscription's life (update, cancel at period end, deletion, failed payment)
// and deliver events, signed by the SDK's generateTestHeaderString, in any order and as often as they like.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import qs from 'qs';
import Stripe from 'stripe';

type Obj = Record<string, unknown>;
type Sub = Stripe.Subscription;

export interface FakePrice {
  id: string;
  unit_amount: number;
  currency: string;
  interval?: 'month' | 'year';
}

/** The prices the billing tests configure (STRIPE_PRICE_*): one per paid plan. */
export const PRICES = { premium: 'price_premium0001', enterprise: 'price_enterprise01' };
/** Those prices as the fake serves them. */
export const PLAN_PRICES: FakePrice[] = [
  { id: PRICES.premium, unit_amount: 2000, currency: 'usd' },
  { id: PRICES.enterprise, unit_amount: 15000, currency: 'usd' },
];

export interface Delivered {
  status: number;
  body: Obj;
}

const now = () => Math.floor(Date.now() / 1000);
const rid = (prefix: string) => `${prefix}_${crypto.randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;
const DAY = 86400;

function priceObject(p: FakePrice): Stripe.Price {
  return {
    id: p.id,
    object: 'price',
    active: true,
    billing_scheme: 'per_unit',
    created: now() - 30 * DAY,
    currency: p.currency,
    custom_unit_amount: null,
    livemode: false,
    lookup_key: null,
    metadata: {},
    nickname: null,
    product: `prod_${p.id.slice(6)}`,
    recurring: { interval: p.interval ?? 'month', interval_count: 1, meter: null, usage_type: 'licensed', trial_period_days: null },
    tax_behavior: 'unspecified',
    tiers_mode: null,
    transform_quantity: null,
    type: 'recurring',
    unit_amount: p.unit_amount,
    unit_amount_decimal: String(p.unit_amount),
  } as unknown as Stripe.Price;
}

export interface FakeStripe {
  /** http://127.0.0.1:<port>: STRIPE_API_URL, and the origin of its Checkout and portal pages. */
  url: string;
  secretKey: string;
  webhookSecret: string;
  /** Where events go (the app's POST /billing/webhook); set once the app listens. */
  webhookUrl: string;
  /** Every API request, in order: method, path and the form-decoded body. */
  requests: { method: string; path: string; body: Obj }[];
  /** Answers every API call with 500 while true (Stripe down). */
  failing: boolean;
  customers: Map<string, Obj>;
  sessions: Map<string, Obj>;
  subscriptions: Map<string, Sub>;
  /** The environment that points the service at this double. */
  env(prices: Record<'premium' | 'enterprise', string>): Record<string, string>;
  /** A Stripe event of `type` about `object`, as Stripe would send it (not sent yet). */
  event(type: string, object: unknown, previous?: Obj): Stripe.Event;
  /** Posts an event to the webhook, signed (or with `signature` as given); the app's answer. */
  deliver(event: Stripe.Event, o?: { signature?: string; body?: string }): Promise<Delivered>;
  /** Pays a Checkout Session as the page's button does (makes the subscription); the completed event, not sent. */
  pay(sessionId: string): Stripe.Event;
  /** Changes a subscription as Stripe would after a portal action; the `customer.subscription.updated` event, not sent. */
  update(subId: string, change: Partial<Pick<Sub, 'status' | 'cancel_at_period_end' | 'cancel_at'>> & { price?: string }): Stripe.Event;
  /** Ends a subscription now (the period ended after a cancellation, or retries ran out); the deleted event, not sent. */
  end(subId: string): Stripe.Event;
  /** A renewal's payment fails: the subscription goes past_due; the `invoice.payment_failed` event, not sent. */
  failPayment(subId: string): Stripe.Event;
  close(): Promise<void>;
}

export async function fakeStripe(prices: FakePrice[]): Promise<FakeStripe> {
  const secretKey = `sk_test_${crypto.randomBytes(12).toString('hex')}`;
  const webhookSecret = `whsec_${crypto.randomBytes(16).toString('hex')}`;
  const signer = new Stripe(secretKey);
  const priceById = new Map(prices.map((p) => [p.id, priceObject(p)]));
  const customers = new Map<string, Obj>();
  const sessions = new Map<string, Obj>();
  const subscriptions = new Map<string, Sub>();
  const requests: FakeStripe['requests'] = [];
  let base = '';

  const error = (res: http.ServerResponse, status: number, message: string, param?: string, code?: string) => {
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': rid('req') });
    res.end(
      JSON.stringify({
        error: {
          type: status === 401 ? 'invalid_request_error' : status >= 500 ? 'api_error' : 'invalid_request_error',
          message,
          ...(param ? { param } : {}),
          ...(code ? { code } : {}),
        },
      }),
    );
  };
  const json = (res: http.ServerResponse, body: unknown) => {
    res.writeHead(200, { 'content-type': 'application/json', 'request-id': rid('req') });
    res.end(JSON.stringify(body));
  };
  const page = (res: http.ServerResponse, status: number, title: string, body: string) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main>${body}</main></body></html>`,
    );
  };

  function subscriptionOf(session: Obj): Sub {
    const price = priceById.get(((session.line_items as Obj[])[0] as { price: string }).price)!;
    const id = rid('sub');
    const start = now();
    const sub = {
      id,
      object: 'subscription',
      application: null,
      application_fee_percent: null,
      automatic_tax: { enabled: false, liability: null, disabled_reason: null },
      billing_cycle_anchor: start,
      billing_cycle_anchor_config: null,
      billing_mode: { type: 'classic' },
      cancel_at: null,
      cancel_at_period_end: false,
      canceled_at: null,
      cancellation_details: { comment: null, feedback: null, reason: null },
      collection_method: 'charge_automatically',
      created: start,
      currency: price.currency,
      customer: session.customer as string,
      days_until_due: null,
      default_payment_method: rid('pm'),
      default_source: null,
      description: null,
      discounts: [],
      ended_at: null,
      invoice_settings: { account_tax_ids: null, issuer: { type: 'self' } },
      items: { object: 'list', data: [itemOf(id, price, start)], has_more: false, url: `/v1/subscription_items?subscription=${id}` },
      latest_invoice: rid('in'),
      livemode: false,
      metadata: ((session.subscription_data as Obj | undefined)?.metadata as Obj | undefined) ?? {},
      next_pending_invoice_item_invoice: null,
      on_behalf_of: null,
      pause_collection: null,
      payment_settings: { payment_method_options: null, payment_method_types: null, save_default_payment_method: 'off' },
      pending_invoice_item_interval: null,
      pending_setup_intent: null,
      pending_update: null,
      schedule: null,
      start_date: start,
      status: 'active',
      test_clock: null,
      transfer_data: null,
      trial_end: null,
      trial_settings: { end_behavior: { missing_payment_method: 'create_invoice' } },
      trial_start: null,
    } as unknown as Sub;
    subscriptions.set(id, sub);
    return sub;
  }

  function itemOf(subId: string, price: Stripe.Price, start: number) {
    return {
      id: rid('si'),
      object: 'subscription_item',
      created: start,
      current_period_start: start,
      current_period_end: start + (price.recurring?.interval === 'year' ? 365 : 30) * DAY,
      discounts: [],
      metadata: {},
      price,
      quantity: 1,
      subscription: subId,
      tax_rates: [],
    };
  }

  const clone = <T>(v: T): T => structuredClone(v);

  function event(type: string, object: unknown, previous?: Obj): Stripe.Event {
    return {
      id: rid('evt'),
      object: 'event',
      api_version: Stripe.API_VERSION,
      created: now(),
      data: { object: clone(object), ...(previous ? { previous_attributes: previous } : {}) },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    } as unknown as Stripe.Event;
  }

  async function deliver(e: Stripe.Event, o: { signature?: string; body?: string } = {}): Promise<Delivered> {
    const payload = o.body ?? JSON.stringify(e, null, 2);
    const signature = o.signature ?? signer.webhooks.generateTestHeaderString({ payload, secret: webhookSecret });
    const res = await fetch(fake.webhookUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'stripe-signature': signature,
        'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
      },
      body: payload,
    });
    return { status: res.status, body: (await res.json()) as Obj };
  }

  function pay(sessionId: string): Stripe.Event {
    const s = sessions.get(sessionId);
    if (!s) throw new Error(`no session ${sessionId}`);
    const sub = subscriptionOf(s);
    Object.assign(s, {
      status: 'complete',
      payment_status: 'paid',
      subscription: sub.id,
      url: null,
      amount_total: sub.items.data[0].price.unit_amount,
    });
    return event('checkout.session.completed', s);
  }

  const subOrThrow = (id: string) => {
    const sub = subscriptions.get(id);
    if (!sub) throw new Error(`no subscription ${id}`);
    return sub;
  };

  function end(subId: string): Stripe.Event {
    const sub = subOrThrow(subId);
    Object.assign(sub, { status: 'canceled', ended_at: now(), canceled_at: sub.canceled_at ?? now() });
    return event('customer.subscription.deleted', sub);
  }

  const readBody = (req: http.IncomingMessage) =>
    new Promise<string>((resolve, reject) => {
      let data = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (data += c));
      req.on('end', () => resolve(data));
      req.on('error', reject);
    });

  async function api(req: http.IncomingMessage, res: http.ServerResponse, path: string, body: Obj) {
    if (req.headers.authorization !== `Bearer ${secretKey}`)
      return error(res, 401, 'Invalid API Key provided: the double knows one secret key');
    if (fake.failing) return error(res, 500, 'An unknown error occurred');
    // /v1/<resource>[/<id>], where a resource may be namespaced (checkout/sessions, billing_portal/sessions).
    const parts = path.split('/').slice(2);
    const resource = ['checkout', 'billing_portal'].includes(parts[0]) ? parts.splice(0, 2).join('/') : parts.shift()!;
    const id = parts.shift() ?? '';
    const key = `${req.method} ${resource}${id ? '/:id' : ''}${parts.length ? `/${parts.join('/')}` : ''}`;
    switch (key) {
      case 'GET prices/:id': {
        const p = priceById.get(id);
        return p ? json(res, p) : error(res, 404, `No such price: '${id}'`, 'id', 'resource_missing');
      }
      case 'POST customers': {
        const c = {
          id: rid('cus'),
          object: 'customer',
          address: null,
          balance: 0,
          created: now(),
          currency: null,
          default_source: null,
          delinquent: false,
          description: null,
          email: (body.email as string) ?? null,
          invoice_prefix: crypto.randomBytes(4).toString('hex').toUpperCase(),
          invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
          livemode: false,
          metadata: (body.metadata as Obj) ?? {},
          name: (body.name as string) ?? null,
          next_invoice_sequence: 1,
          phone: null,
          preferred_locales: [],
          shipping: null,
          tax_exempt: 'none',
          test_clock: null,
        };
        customers.set(c.id, c);
        return json(res, c);
      }
      case 'GET customers/:id':
        return customers.has(id) ? json(res, customers.get(id)) : error(res, 404, `No such customer: '${id}'`, 'id', 'resource_missing');
      case 'POST checkout/sessions': {
        const items = body.line_items as { price?: string; quantity?: string }[] | undefined;
        if (body.mode !== 'subscription') return error(res, 400, 'The double sells subscriptions only', 'mode');
        if (!items?.length || !priceById.has(items[0].price ?? ''))
          return error(res, 400, `No such price: '${items?.[0]?.price}'`, 'line_items[0][price]', 'resource_missing');
        if (typeof body.success_url !== 'string' || typeof body.cancel_url !== 'string')
          return error(res, 400, 'Missing required param: success_url.', 'success_url');
        if (body.customer && !customers.has(body.customer as string))
          return error(res, 400, `No such customer: '${String(body.customer)}'`, 'customer', 'resource_missing');
        const sid = `cs_test_${crypto.randomBytes(24).toString('hex')}`;
        const s = {
          id: sid,
          object: 'checkout.session',
          after_expiration: null,
          allow_promotion_codes: null,
          amount_subtotal: priceById.get(items[0].price!)!.unit_amount,
          amount_total: priceById.get(items[0].price!)!.unit_amount,
          billing_address_collection: null,
          cancel_url: body.cancel_url,
          client_reference_id: (body.client_reference_id as string) ?? null,
          created: now(),
          currency: priceById.get(items[0].price!)!.currency,
          customer: (body.customer as string) ?? null,
          customer_details: null,
          customer_email: (body.customer_email as string) ?? null,
          expires_at: now() + DAY,
          invoice: null,
          livemode: false,
          locale: null,
          metadata: (body.metadata as Obj) ?? {},
          mode: 'subscription',
          payment_intent: null,
          payment_method_types: ['card'],
          payment_status: 'unpaid',
          status: 'open',
          submit_type: null,
          subscription: null,
          success_url: body.success_url,
          ui_mode: 'hosted',
          url: `${base}/c/pay/${sid}`,
          line_items: items,
          subscription_data: body.subscription_data,
        };
        sessions.set(sid, s);
        const { line_items: _l, subscription_data: _d, ...shown } = s;
        return json(res, shown);
      }
      case 'GET checkout/sessions/:id': {
        const s = sessions.get(id);
        if (!s) return error(res, 404, `No such checkout.session: '${id}'`, 'session', 'resource_missing');
        const { line_items: _l, subscription_data: _d, ...shown } = s;
        return json(res, shown);
      }
      case 'GET subscriptions/:id': {
        const sub = subscriptions.get(id);
        return sub ? json(res, sub) : error(res, 404, `No such subscription: '${id}'`, 'id', 'resource_missing');
      }
      case 'DELETE subscriptions/:id': {
        if (!subscriptions.has(id)) return error(res, 404, `No such subscription: '${id}'`, 'id', 'resource_missing');
        end(id);
        return json(res, subscriptions.get(id));
      }
      case 'POST billing_portal/sessions': {
        if (!customers.has(body.customer as string))
          return error(res, 400, `No such customer: '${String(body.customer)}'`, 'customer', 'resource_missing');
        const pid = rid('bps');
        return json(res, {
          id: pid,
          object: 'billing_portal.session',
          configuration: rid('bpc'),
          created: now(),
          customer: body.customer,
          flow: null,
          livemode: false,
          locale: null,
          on_behalf_of: null,
          return_url: body.return_url ?? null,
          url: `${base}/p/session/${pid}?return=${encodeURIComponent(String(body.return_url ?? ''))}`,
        });
      }
      default:
        return error(res, 404, `Unrecognized request URL (${req.method}: ${path}).`);
    }
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', base);
    readBody(req)
      .then(async (raw) => {
        if (url.pathname.startsWith('/v1/')) {
          const body = qs.parse(raw, { depth: 5 }) as Obj;
          requests.push({ method: req.method!, path: url.pathname, body });
          return api(req, res, url.pathname, body);
        }
        const checkout = /^\/c\/pay\/(cs_test_\w+)$/.exec(url.pathname);
        const s = checkout && sessions.get(checkout[1]);
        if (checkout && !s) return page(res, 404, 'Not found', '<h1>No such checkout session</h1>');
        if (s && req.method === 'GET') {
          const price = priceById.get((s.line_items as { price: string }[])[0].price)!;
          const email = s.customer ? customers.get(s.customer as string)?.email : s.customer_email;
          return page(
            res,
            200,
            'Test checkout',
            `<h1>Test checkout</h1><p>Subscribe for <strong id="amount">${(price.unit_amount! / 100).toFixed(2)} ${price.currency.toUpperCase()}</strong> per ${price.recurring!.interval}.</p><p>Email: <span id="email">${String(email ?? '')}</span></p><form method="post"><button type="submit">Pay</button></form><p><a href="${s.cancel_url as string}">Cancel</a></p>`,
          );
        }
        if (s && req.method === 'POST') {
          if (s.status !== 'open') return page(res, 409, 'Paid already', '<h1>This session is complete</h1>');
          const completed = pay(s.id as string);
          const delivered = await deliver(completed);
          if (delivered.status !== 200) return page(res, 502, 'Webhook refused', `<h1>The webhook answered ${delivered.status}</h1>`);
          res.writeHead(303, { location: (s.success_url as string).replace('{CHECKOUT_SESSION_ID}', s.id as string) });
          return res.end();
        }
        const portal = /^\/p\/session\/bps_\w+$/.exec(url.pathname);
        if (portal)
          return page(
            res,
            200,
            'Test billing portal',
            `<h1>Test billing portal</h1><p><a href="${url.searchParams.get('return') ?? '/'}">Return</a></p>`,
          );
        page(res, 404, 'Not found', '<h1>Not found</h1>');
      })
      .catch((err: Error) => {
        if (!res.headersSent) error(res, 500, err.message);
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const fake: FakeStripe = {
    url: base,
    secretKey,
    webhookSecret,
    webhookUrl: '',
    requests,
    failing: false,
    customers,
    sessions,
    subscriptions,
    env: (p) => ({
      STRIPE_SECRET_KEY: secretKey,
      STRIPE_WEBHOOK_SECRET: webhookSecret,
      STRIPE_PRICE_PREMIUM: p.premium,
      STRIPE_PRICE_ENTERPRISE: p.enterprise,
      STRIPE_API_URL: base,
    }),
    event,
    deliver,
    pay,
    update(subId, change) {
      const sub = subOrThrow(subId);
      const previous: Obj = {};
      const { price, ...rest } = change;
      for (const k of Object.keys(rest)) previous[k] = (sub as unknown as Obj)[k];
      Object.assign(sub, rest);
      if (rest.cancel_at_period_end) Object.assign(sub, { canceled_at: now(), cancel_at: sub.items.data[0].current_period_end });
      if (rest.cancel_at_period_end === false) Object.assign(sub, { canceled_at: null, cancel_at: null });
      if (price) {
        const p = priceById.get(price);
        if (!p) throw new Error(`no price ${price}`);
        previous.items = clone(sub.items);
        const item = sub.items.data[0];
        sub.items.data[0] = { ...item, price: p };
      }
      return event('customer.subscription.updated', sub, previous);
    },
    end,
    failPayment(subId) {
      const sub = subOrThrow(subId);
      sub.status = 'past_due';
      const item = sub.items.data[0];
      const invoice = {
        id: rid('in'),
        object: 'invoice',
        amount_due: item.price.unit_amount,
        amount_paid: 0,
        amount_remaining: item.price.unit_amount,
        attempt_count: 1,
        attempted: true,
        auto_advance: true,
        billing_reason: 'subscription_cycle',
        collection_method: 'charge_automatically',
        created: now(),
        currency: item.price.currency,
        customer: sub.customer,
        customer_email: (customers.get(sub.customer as string)?.email as string) ?? null,
        hosted_invoice_url: `${base}/i/${rid('inv')}`,
        livemode: false,
        next_payment_attempt: now() + 3 * DAY,
        parent: {
          type: 'subscription_details',
          quote_details: null,
          subscription_details: { metadata: sub.metadata, subscription: sub.id },
        },
        period_end: item.current_period_start,
        period_start: item.current_period_start - 30 * DAY,
        status: 'open',
      };
      return event('invoice.payment_failed', invoice);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}
