import { sql } from 'kysely';
import type { Migration } from '../migration.js';
import { makeDayPartition } from '../partitions.js';
import { timeOfRequestId } from '../../request-id.js';
import { atOfId, CallBatch, type CallRecord, type LogRow } from '../tables/request-log.js';

/** Rows of the one-row-a-call table read at a time while they move into batches. */
const PAGE = 5000;

/**
 * The request log in batches (engine/db/tables/request-log.ts): one row holds the calls of one owner and drop
 * day recorded within a moment, so a call costs its writer no index entry. On PostgreSQL partitioned by range
 * of `drop_day` like the table before it. Beside it, the callers' own request ids and their batches. The calls of the one-row-a-call table are moved into batches, oldest
 * first, and that table dropped.
 */
export const requestLogBatches: Migration = {
  async up(db, engine) {
    const pg = engine === 'postgres';
    await db.schema
      .createTable('request_log_batch')
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('first_id', 'text', (c) => c.notNull())
      .addColumn('drop_day', 'integer', (c) => c.notNull())
      .addColumn('owner', 'text')
      .addColumn('size', 'integer', (c) => c.notNull())
      .addColumn('keys', 'text', (c) => c.notNull())
      .addColumn('endpoints', 'text', (c) => c.notNull())
      .addColumn('codes', 'text', (c) => c.notNull())
      .addColumn('statuses', 'text', (c) => c.notNull())
      .addColumn('calls', 'text', (c) => c.notNull())
      // A partitioned table's key holds its partition key.
      .addPrimaryKeyConstraint('request_log_batch_pk', pg ? ['id', 'drop_day'] : ['id'])
      .$call((b) => (pg ? b.modifyEnd(sql`partition by range (drop_day)`) : b))
      .execute();
    await db.schema.createIndex('request_log_batch_by_owner').on('request_log_batch').columns(['owner', 'id']).execute();
    // The sweep's look-up on SQLite (PostgreSQL drops partitions).
    if (!pg) await db.schema.createIndex('request_log_batch_by_drop_day').on('request_log_batch').column('drop_day').execute();
    // The callers' own request ids (few): deleted by their drop day on both engines.
    await db.schema
      .createTable('request_log_named')
      .addColumn('request_id', 'text', (c) => c.notNull())
      .addColumn('batch_id', 'text', (c) => c.notNull())
      .addColumn('owner', 'text')
      .addColumn('drop_day', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('request_log_named_pk', ['request_id', 'batch_id'])
      .execute();
    await db.schema.createIndex('request_log_named_by_drop_day').on('request_log_named').column('drop_day').execute();

    const made = new Set<number>();
    let after = '';
    for (;;) {
      const rows = (await db.selectFrom('request_log').selectAll().where('id', '>', after).orderBy('id').limit(PAGE).execute()) as LogRow[];
      if (!rows.length) break;
      after = rows[rows.length - 1].id;
      const open = new Map<string, CallBatch>();
      const full: CallBatch[] = [];
      for (const r of rows) {
        const group = `${r.owner ?? ''}\n${r.dropDay}`;
        let batch = open.get(group);
        if (!batch?.takes(atOfId(r.id))) {
          if (batch) full.push(batch);
          batch = new CallBatch(r.owner, r.dropDay, '');
          open.set(group, batch);
        }
        // The earlier version's own ids were random UUIDs: like a caller's, they carry no time.
        batch.add(recordOf(r), timeOfRequestId(r.requestId) === undefined);
      }
      for (const b of [...full, ...open.values()]) {
        if (pg && !made.has(b.dropDay)) {
          await makeDayPartition(db, 'request_log_batch', b.dropDay);
          made.add(b.dropDay);
        }
        // The columns of 0012 and 0013 (a file's place of the calls, their bytes) are not there yet: the calls
        // are in the row as JSON.
        const { callsFile: _f, callsAt: _a, callsBytes: _b, callsBin: _c, ...row } = b.row('json');
        await db.insertInto('request_log_batch').values(row).execute();
        if (b.named.length) await db.insertInto('request_log_named').values(b.names()).execute();
      }
    }
    await db.schema.dropTable('request_log').execute();
  },
};

/** An earlier row as a call of a batch: its id kept whole (it names no writer's clock). */
const recordOf = (r: LogRow): CallRecord => ({
  at: atOfId(r.id),
  seq: 0,
  idTail: r.id.slice(9),
  requestId: r.requestId,
  keyId: r.keyId,
  plan: r.plan,
  endpoint: r.endpoint,
  method: r.method,
  status: r.status,
  code: r.code,
  ms: r.ms,
  source: r.source,
  providers: r.providers ? (JSON.parse(r.providers) as object[]) : null,
  cached: r.cached === 1,
  bytesOut: r.bytesOut,
  ip: r.ip,
  params: r.params ? (JSON.parse(r.params) as Record<string, unknown>) : null,
  uploads: r.uploads ? (JSON.parse(r.uploads) as object[]) : null,
  error: r.error,
});
