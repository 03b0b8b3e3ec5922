import type { Migration } from '../migration.js';

export const billing: Migration = {
  async up(db) {
    await db.schema
      .createTable('billing_subscriptions')
      .addColumn('account_id', 'text', (c) => c.primaryKey())
      .addColumn('customer_id', 'text', (c) => c.notNull())
      .addColumn('subscription_id', 'text')
      .addColumn('status', 'text')
      .addColumn('price_id', 'text')
      .addColumn('plan', 'text')
      .addColumn('cancel_at', 'text')
      .addColumn('period_start', 'text')
      .addColumn('period_end', 'text')
      .addColumn('next_invoice_at', 'text')
      .addColumn('payment_failed_at', 'text')
      .addColumn('next_retry_at', 'text')
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('last_event_id', 'text')
      .addColumn('last_event_type', 'text')
      .execute();
    await db.schema
      .createTable('billing_customers')
      .addColumn('customer_id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('billing_customers_by_account').on('billing_customers').column('account_id').execute();
    await db.schema
      .createTable('billing_events')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('at', 'text', (c) => c.notNull())
      .addColumn('done', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
