import type { Migration } from '../migration.js';

/**
 * A batch's calls as bytes in its row (engine/db/tables/request-log-calls.ts): PostgreSQL's writer keeps them
 * here (SQLite's in a file beside the table). Null in the rows written before, whose calls are JSON in `calls`.
 */
export const requestLogCallBytes: Migration = {
  async up(db, engine) {
    await db.schema
      .alterTable('request_log_batch')
      .addColumn('calls_bin', engine === 'postgres' ? 'bytea' : 'blob')
      .execute();
  },
};
