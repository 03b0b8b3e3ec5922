// Account webhooks: settings, the delivery queue and the attempts shown on the webhooks page
// (portal/webhooks/).
import type { Generated } from 'kysely';

export interface WebhooksTable {
  accountId: string;
  url: string;
  /** JSON array of event types. */
  events: string;
  secret: string;
  previousSecret: string | null;
  previousUntil: string | null;
  createdAt: string;
  updatedAt: string;
  stoppedAt: string | null;
  stoppedReason: string | null;
}

export interface WebhookDeliveriesTable {
  id: string;
  accountId: string;
  type: string;
  body: string;
  attempt: number;
  dueAt: number;
  /** Who is sending it now and until when (a claim that outlives its holder is taken over). */
  claimedBy: string | null;
  claimedUntil: number | null;
}

export interface WebhookAttemptsTable {
  seq: Generated<number>;
  accountId: string;
  deliveryId: string;
  type: string;
  attempt: number;
  attempts: number;
  at: string;
  ms: number;
  status: number | null;
  error: string | null;
  body: string | null;
  outcome: string;
  nextAt: string | null;
}

export interface WebhookTables {
  webhooks: WebhooksTable;
  webhookDeliveries: WebhookDeliveriesTable;
  webhookAttempts: WebhookAttemptsTable;
}
