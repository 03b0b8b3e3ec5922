import type { Migration } from '../migration.js';

/**
 * Where a batch's calls are when they are kept beside the table (engine/db/call-files.ts: SQLite's writer
 * appends them to a file of their drop day): the file, the offset of their first byte and their length. Null
 * when the row holds its calls itself (PostgreSQL's rows, and SQLite's written before).
 */
export const requestLogCallFiles: Migration = {
  async up(db) {
    await db.schema.alterTable('request_log_batch').addColumn('calls_file', 'text').execute();
    await db.schema.alterTable('request_log_batch').addColumn('calls_at', 'bigint').execute();
    await db.schema.alterTable('request_log_batch').addColumn('calls_bytes', 'integer').execute();
  },
};
