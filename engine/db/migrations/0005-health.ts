import { sql } from 'kysely';
import type { Migration } from '../migration.js';

export const health: Migration = {
  async up(db) {
    await db.schema
      .createTable('probes')
      .addColumn('endpoint', 'text', (c) => c.primaryKey())
      .addColumn('at', 'text', (c) => c.notNull())
      .addColumn('status', 'integer', (c) => c.notNull())
      .addColumn('code', 'text')
      .addColumn('ms', 'integer', (c) => c.notNull())
      .addColumn('source', 'text')
      .addColumn('verdict', 'text', (c) => c.notNull())
      .addColumn('fails', 'integer', (c) => c.notNull())
      .addColumn('oks', 'integer', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('incidents')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('endpoint', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('opened_at', 'text', (c) => c.notNull())
      .addColumn('closed_at', 'text')
      .addColumn('updates', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('incidents_by_opening').on('incidents').columns(['opened_at', 'id']).execute();
    // One open incident per endpoint, whichever instance opens it first.
    await db.schema
      .createIndex('incidents_open_once')
      .on('incidents')
      .column('endpoint')
      .unique()
      .where(sql.ref('closed_at'), 'is', null)
      .execute();
  },
};
