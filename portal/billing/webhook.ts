// POST /billing/webhook: Stripe's events. Mounted before every body parser of the portal, so the SDK checks
// the signature on the body exactly as Stripe sent it. Answers in the JSON envelope: 400 for a body whose
// signature is missing or wrong (nothing is read from it), 200 once handled (or handled before), 409 while
// another instance handles the same event, 500 when it could not be handled now (Stripe sends it again).
import express, { type Router } from 'express';
import type { Logger } from 'pino';
import type Stripe from 'stripe';
import type { Billing } from './billing.js';

export function webhookRoutes(billing: Billing, log: Pick<Logger, 'warn' | 'error'>): Router {
  const r = express.Router();
  r.post('/billing/webhook', express.raw({ type: () => true, limit: '1mb' }), async (req, res) => {
    let event: Stripe.Event;
    try {
      event = await billing.verify(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0), req.get('stripe-signature'));
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'billing: a webhook call with a bad signature');
      res.status(400).json({ success: false, error: 'Invalid or missing Stripe-Signature' });
      return;
    }
    billing.handle(event).then(
      (outcome) =>
        outcome === 'busy'
          ? res.status(409).json({ success: false, error: 'This event is being handled by another instance' })
          : res.json({ received: true, outcome }),
      (err: Error) => {
        log.error({ err: err.message, event: event.id, type: event.type }, 'billing: an event could not be handled');
        res.status(500).json({ success: false, error: 'The event could not be handled now' });
      },
    );
  });
  return r;
}
