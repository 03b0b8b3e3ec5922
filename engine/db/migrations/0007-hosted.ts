import { sql } from 'kysely';
import type { Migration } from '../migration.js';

export const hosted: Migration = {
  async up(db) {
    await db.schema
      .createTable('hosted')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('content_type', 'text', (c) => c.notNull())
      .addColumn('size', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'bigint')
      .addColumn('ready', 'integer', (c) => c.notNull())
      .addColumn('name', 'text')
      .addColumn('format', 'text')
      .addColumn('private', 'integer')
      .addColumn('expire', 'text')
      .addColumn('file_name', 'text')
      .addColumn('ext', 'text')
      .addColumn('width', 'integer')
      .addColumn('height', 'integer')
      .addColumn('delete_hash', 'text')
      .addColumn('file_id', 'text')
      .addColumn('md5', 'text')
      .addCheckConstraint('hosted_kind', sql`kind in ('paste', 'image', 'file', 'media')`)
      .addCheckConstraint('hosted_ready', sql`ready in (0, 1)`)
      // A CHECK passes on null: each field is tested `is not null` before its value.
      .addCheckConstraint(
        'hosted_paste',
        sql`kind <> 'paste' or (name is not null and format is not null and "private" is not null and "private" in (0, 1) and expire is not null)`,
      )
      .addCheckConstraint('hosted_image', sql`kind <> 'image' or (file_name is not null and ext is not null and delete_hash is not null)`)
      .addCheckConstraint('hosted_file', sql`kind <> 'file' or (file_name is not null and file_id is not null and md5 is not null)`)
      .execute();
    // The sweeper's look-up: what is due, oldest first, a batch at a time.
    await db.schema.createIndex('hosted_by_expiry').on('hosted').column('expires_at').execute();
  },
};
