import { sql } from 'kysely';
import type { Migration } from '../migration.js';

export const keys: Migration = {
  async up(db, engine) {
    // Searched by prefix (the admin's search): in byte order on PostgreSQL too, whatever the database's
    // collation, so a range `>= q and < q || '\uffff'` holds exactly the values that start with q.
    const prefixed = engine === 'postgres' ? sql`text collate "C"` : 'text';
    await db.schema
      .createTable('api_keys')
      .addColumn('hash', 'text', (c) => c.primaryKey())
      .addColumn('id', prefixed, (c) => c.notNull().unique())
      .addColumn('account_id', 'text')
      .addColumn('plan', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('hint', prefixed)
      .addColumn('expires_at', 'text')
      .addColumn('cap', 'integer')
      .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('replaced_by', 'text')
      .addColumn('revoked_at', 'text')
      .execute();
    // The key page: an account's keys, newest first.
    await db.schema.createIndex('api_keys_by_account').on('api_keys').columns(['account_id', 'created_at']).execute();
    // The admin's search by what a key's holder sees of it.
    await db.schema.createIndex('api_keys_by_hint').on('api_keys').column('hint').execute();
    await db.schema
      .createTable('key_last_used')
      .addColumn('key_id', 'text', (c) => c.primaryKey())
      .addColumn('at', 'text', (c) => c.notNull())
      .addColumn('ip', 'text', (c) => c.notNull())
      .execute();
  },
};
