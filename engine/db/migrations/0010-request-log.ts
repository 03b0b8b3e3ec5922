import { sql } from 'kysely';
import type { Migration } from '../migration.js';

/**
 * The request log (engine/db/tables/request-log.ts). On PostgreSQL a table partitioned by range of
 * `drop_day`: its partitions, one a day, are made ahead by the log's writer and dropped whole by its sweep.
 * The indexes are the inspector's: an owner's newest calls, by key, endpoint, status class or code, and a
 * request id (an operator's search across every account).
 */
export const requestLog: Migration = {
  async up(db, engine) {
    const pg = engine === 'postgres';
    await db.schema
      .createTable('request_log')
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('drop_day', 'integer', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('request_id', 'text', (c) => c.notNull())
      .addColumn('owner', 'text')
      .addColumn('key_id', 'text')
      .addColumn('plan', 'text')
      .addColumn('endpoint', 'text', (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('status', 'integer', (c) => c.notNull())
      .addColumn('status_class', 'integer', (c) => c.notNull())
      .addColumn('code', 'text')
      .addColumn('ms', pg ? 'double precision' : 'real', (c) => c.notNull())
      .addColumn('source', 'text')
      .addColumn('providers', 'text')
      .addColumn('cached', 'integer', (c) => c.notNull())
      .addColumn('bytes_out', 'integer', (c) => c.notNull())
      .addColumn('ip', 'text')
      .addColumn('params', 'text')
      .addColumn('uploads', 'text')
      .addColumn('error', 'text')
      // A partitioned table's key holds its partition key.
      .addPrimaryKeyConstraint('request_log_pk', pg ? ['id', 'drop_day'] : ['id'])
      .$call((b) => (pg ? b.modifyEnd(sql`partition by range (drop_day)`) : b))
      .execute();
    const index = (name: string, columns: string[]) => db.schema.createIndex(name).on('request_log').columns(columns).execute();
    await index('request_log_by_owner', ['owner', 'id']);
    await index('request_log_by_key', ['owner', 'key_id', 'id']);
    await index('request_log_by_endpoint', ['owner', 'endpoint', 'id']);
    await index('request_log_by_class', ['owner', 'status_class', 'id']);
    await index('request_log_by_code', ['owner', 'code', 'id']);
    await index('request_log_by_request_id', ['request_id', 'id']);
    // The sweep's look-up on SQLite (PostgreSQL drops partitions).
    if (!pg) await index('request_log_by_drop_day', ['drop_day']);
  },
};
