import { sql } from 'kysely';
import type { Migration } from '../migration.js';

export const accounts: Migration = {
  async up(db, engine) {
    await db.schema
      .createTable('accounts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('email', 'text', (c) => c.notNull())
      // Searched by prefix: in byte order on PostgreSQL too, whatever the database's collation.
      .addColumn('email_key', engine === 'postgres' ? sql`text collate "C"` : 'text', (c) => c.notNull().unique())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('password_hash', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('plan', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('last_sign_in_at', 'text')
      .addColumn('session_gen', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('unverified', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('quota_alerts', 'integer')
      .execute();
    // The admin's list: by creation, filtered by plan and status.
    await db.schema.createIndex('accounts_by_created').on('accounts').columns(['created_at', 'id']).execute();
    await db.schema.createIndex('accounts_by_plan').on('accounts').columns(['plan', 'status', 'created_at']).execute();
    // "Is there another active admin": a handful of rows, never the whole table.
    await db.schema.createIndex('accounts_by_role').on('accounts').columns(['role', 'status']).execute();

    await db.schema
      .createTable('sessions')
      .addColumn('hash', 'text', (c) => c.primaryKey())
      .addColumn('csrf', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text')
      .addColumn('gen', 'integer')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('seen_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sessions_by_account').on('sessions').column('account_id').execute();
    await db.schema.createIndex('sessions_by_expiry').on('sessions').column('expires_at').execute();

    await db.schema
      .createTable('link_tokens')
      .addColumn('hash', 'text', (c) => c.primaryKey())
      .addColumn('purpose', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('gen', 'integer')
      .addColumn('mailed', 'integer')
      .addColumn('from_email', 'text')
      .addColumn('to_email', 'text')
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('link_tokens_by_account').on('link_tokens').columns(['account_id', 'purpose']).execute();
    await db.schema.createIndex('link_tokens_by_expiry').on('link_tokens').column('expires_at').execute();

    await db.schema
      .createTable('invites')
      .addColumn('hash', 'text', (c) => c.primaryKey())
      .addColumn('id', 'text', (c) => c.notNull().unique())
      .addColumn('plan', 'text')
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('invites_by_expiry').on('invites').column('expires_at').execute();
    // The admin's list: the newest open ones.
    await db.schema.createIndex('invites_by_created').on('invites').columns(['created_at', 'hash']).execute();

    await db.schema
      .createTable('fresh_keys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('iv', 'text', (c) => c.notNull())
      .addColumn('data', 'text', (c) => c.notNull())
      .addColumn('tag', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('fresh_keys_by_expiry').on('fresh_keys').column('expires_at').execute();

    await db.schema
      .createTable('upgrade_requests')
      .addColumn('account_id', 'text', (c) => c.primaryKey())
      .addColumn('from_plan', 'text', (c) => c.notNull())
      .addColumn('to_plan', 'text', (c) => c.notNull())
      .addColumn('message', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('requested_at', 'text', (c) => c.notNull())
      .addColumn('decided_at', 'text')
      .addColumn('decided_by', 'text')
      .addColumn('reason', 'text')
      .execute();
    await db.schema.createIndex('upgrade_requests_by_status').on('upgrade_requests').columns(['status', 'requested_at']).execute();

    await db.schema
      .createTable('plan_changes')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('at', 'text', (c) => c.notNull())
      .addColumn('from_plan', 'text', (c) => c.notNull())
      .addColumn('to_plan', 'text', (c) => c.notNull())
      .addColumn('by', 'text', (c) => c.notNull())
      .addColumn('actor', 'text')
      .addColumn('event_id', 'text')
      .addColumn('event_type', 'text')
      .execute();
    await db.schema.createIndex('plan_changes_by_account').on('plan_changes').columns(['account_id', 'at']).execute();
    await db.schema.createIndex('plan_changes_once_per_event').on('plan_changes').columns(['account_id', 'event_id']).unique().execute();

    await db.schema
      .createTable('erased_usage')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('erased_at', 'text', (c) => c.notNull())
      .addColumn('partitions', 'text', (c) => c.notNull())
      .execute();
    // The sweep of lists older than the history they point to.
    await db.schema.createIndex('erased_usage_by_time').on('erased_usage').column('erased_at').execute();
  },
};
