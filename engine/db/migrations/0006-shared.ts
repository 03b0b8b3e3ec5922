import type { Migration } from '../migration.js';

export const shared: Migration = {
  async up(db) {
    await db.schema
      .createTable('claims')
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('note', 'text')
      .addPrimaryKeyConstraint('claims_pk', ['scope', 'id'])
      .execute();
    await db.schema.createIndex('claims_by_expiry').on('claims').column('expires_at').execute();
    await db.schema
      .createTable('secrets')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('settings')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('legacy_imports')
      .addColumn('source', 'text', (c) => c.primaryKey())
      .addColumn('at', 'text', (c) => c.notNull())
      .addColumn('counts', 'text', (c) => c.notNull())
      .execute();
  },
};
