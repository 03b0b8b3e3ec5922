import type { Migration } from '../migration.js';

export const keys: Migration = {
  async up(db) {
    await db.schema
      .createTable('api_keys')
      .addColumn('hash', 'text', (c) => c.primaryKey())
      .addColumn('id', 'text', (c) => c.notNull().unique())
      .addColumn('account_id', 'text')
      .addColumn('plan', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('hint', 'text')
      .addColumn('expires_at', 'text')
      .addColumn('cap', 'integer')
      .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('replaced_by', 'text')
      .addColumn('revoked_at', 'text')
      .execute();
    // The key page: an account's keys, newest first.
    await db.schema.createIndex('api_keys_by_account').on('api_keys').columns(['account_id', 'created_at']).execute();
    await db.schema
      .createTable('key_last_used')
      .addColumn('key_id', 'text', (c) => c.primaryKey())
      .addColumn('at', 'text', (c) => c.notNull())
      .addColumn('ip', 'text', (c) => c.notNull())
      .execute();
  },
};
