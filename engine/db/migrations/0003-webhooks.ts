import type { Migration } from '../migration.js';

export const webhooks: Migration = {
  async up(db, engine) {
    await db.schema
      .createTable('webhooks')
      .addColumn('account_id', 'text', (c) => c.primaryKey())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('events', 'text', (c) => c.notNull())
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('previous_secret', 'text')
      .addColumn('previous_until', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('stopped_at', 'text')
      .addColumn('stopped_reason', 'text')
      .execute();
    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('due_at', 'bigint', (c) => c.notNull())
      .addColumn('claimed_by', 'text')
      .addColumn('claimed_until', 'bigint')
      .execute();
    await db.schema.createIndex('webhook_deliveries_by_due').on('webhook_deliveries').column('due_at').execute();
    await db.schema.createIndex('webhook_deliveries_by_account').on('webhook_deliveries').column('account_id').execute();
    await db.schema
      .createTable('webhook_attempts')
      .addColumn('seq', engine === 'postgres' ? 'bigint' : 'integer', (c) =>
        engine === 'postgres' ? c.primaryKey().generatedAlwaysAsIdentity() : c.primaryKey().autoIncrement(),
      )
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('delivery_id', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('at', 'text', (c) => c.notNull())
      .addColumn('ms', 'integer', (c) => c.notNull())
      .addColumn('status', 'integer')
      .addColumn('error', 'text')
      .addColumn('body', 'text')
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('next_at', 'text')
      .execute();
    await db.schema.createIndex('webhook_attempts_by_account').on('webhook_attempts').columns(['account_id', 'seq']).execute();
  },
};
