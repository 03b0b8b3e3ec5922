import type { Migration } from '../migration.js';
import { putRequestIdBytes, REQUEST_ID_BYTES, timeOfRequestId } from '../../request-id.js';
import { callsText, storedCalls } from '../tables/request-log.js';

/** Batches read at a time. */
const PAGE = 200;

/**
 * The request log's batches keep the service's request ids of their calls as bytes beside the calls
 * (`request_ids`, what a look-up by such an id searches), and on SQLite their calls compressed unless short
 * (engine/db/tables/request-log.ts). The batches written before are given both.
 */
export const requestLogCompressed: Migration = {
  async up(db, engine) {
    const pg = engine === 'postgres';
    await db.schema
      .alterTable('request_log_batch')
      .addColumn('request_ids', pg ? 'bytea' : 'blob')
      .execute();
    let after = '';
    for (;;) {
      const rows = (await db
        .selectFrom('request_log_batch')
        .select(['id', 'dropDay', 'calls'])
        .where('id', '>', after)
        .orderBy('id')
        .limit(PAGE)
        .execute()) as { id: string; dropDay: number; calls: string | Uint8Array }[];
      if (!rows.length) break;
      after = rows[rows.length - 1].id;
      for (const r of rows) {
        const text = callsText(r.calls);
        const calls = JSON.parse(text) as [string, string][];
        // Every UUIDv7 among them (a caller's own one too: a look-up checks what it finds).
        const ids = Buffer.alloc(calls.length * REQUEST_ID_BYTES);
        let used = 0;
        for (const c of calls) if (timeOfRequestId(c[1]) !== undefined) used = putRequestIdBytes(ids, used, c[1]);
        await db
          .updateTable('request_log_batch')
          .set({ requestIds: ids.subarray(0, used), ...(pg ? {} : { calls: storedCalls(Buffer.from(text)) }) })
          .where('id', '=', r.id)
          .where('dropDay', '=', r.dropDay)
          .execute();
      }
    }
  },
};
