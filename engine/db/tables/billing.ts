// Billing: each account's subscription as last read from Stripe, customers, and the events handled
// (portal/billing/).
export interface BillingSubscriptionsTable {
  accountId: string;
  customerId: string;
  subscriptionId: string | null;
  status: string | null;
  priceId: string | null;
  plan: string | null;
  cancelAt: string | null;
  periodStart: string | null;
  periodEnd: string | null;
  nextInvoiceAt: string | null;
  paymentFailedAt: string | null;
  nextRetryAt: string | null;
  updatedAt: string;
  lastEventId: string | null;
  lastEventType: string | null;
}

export interface BillingCustomersTable {
  customerId: string;
  accountId: string;
}

export interface BillingEventsTable {
  id: string;
  type: string;
  at: string;
  /** 0 while being handled (a claim), 1 once done. */
  done: number;
}

export interface BillingTables {
  billingSubscriptions: BillingSubscriptionsTable;
  billingCustomers: BillingCustomersTable;
  billingEvents: BillingEventsTable;
}
