// Hosted blobs as the engine uses them: the metadata a row of the `hosted` table (engine/db/tables/hosted.ts),
// the bytes in a ByteStore (the disk, features/hosting/disk.ts, or S3, features/hosting/s3.ts). A blob is
// served only once its row says `ready`, so no order of failures can serve half of one:
//   put     the row first, not ready and due to be swept an hour on (its primary key claims the id: two
//           puts never share one); then the bytes; then the row made ready with the blob's real expiry. A
//           crash anywhere before the last step leaves a row the sweeper removes, with whatever bytes it has.
//   remove  the row hidden first (not ready, due now: the image's delete link answers "deleted" from then
//           on), then the bytes, then the row. A crash between leaves the rest to the sweeper.
//   sweep   asks the expiry index what is due, a batch at a time, and removes the bytes then the row. It
//           never lists the store. With Redis one instance at a time sweeps (features/hosting/sweep-lock.ts);
//           without, two sweeps at once only repeat idempotent deletes.
// Expiry is also checked on every read, so an expired blob is gone at once whatever the sweeper does.
import fsp from 'node:fs/promises';
import type { Logger } from 'pino';
import type { Db } from '../../engine/db/open.js';
import { BLOB_ID, blobUrl, isExpired, newId, newMeta } from './meta.js';
import { expiryMs, metaOf, rowOf } from './records.js';
import type { SweepLock } from './sweep-lock.js';
import type { ByteStore, HostedBlobs, HostedMeta, NewBlob } from './types.js';

/** How long a write may take: a row still not ready after this is an interrupted write, and is swept. */
const WRITE_MS = 60 * 60_000;
/** Rows a sweep takes from the index at a time, and at most how many batches one sweep runs. */
const BATCH = 100;
const MAX_BATCHES = 10;
const ID_TRIES = 6;

export interface HostedBlobOptions {
  db: Db;
  bytes: ByteStore;
  publicUrl: string;
  log: Logger;
  /** With Redis: one instance at a time sweeps. */
  lock?: SweepLock;
  sweepEveryMs?: number;
  /** The time for expiry (tests move it). */
  clock?: () => number;
}

export function createHostedBlobs(o: HostedBlobOptions): HostedBlobs {
  const { db, bytes, publicUrl, log } = o;
  const clock = o.clock ?? (() => Date.now());
  const hosted = () => db.selectFrom('hosted');

  /** A row for a new blob under a fresh id, not yet served. 47 random bits rarely collide; the key makes sure. */
  async function claim(input: NewBlob, size: number): Promise<HostedMeta> {
    for (let i = 1; ; i++) {
      const meta = newMeta(newId(), size, input, clock());
      const made = await db
        .insertInto('hosted')
        .values(rowOf(meta, { ready: 0, expiresAt: Date.parse(meta.createdAt) + WRITE_MS }))
        .onConflict((oc) => oc.column('id').doNothing())
        .executeTakeFirst();
      if (Number(made.numInsertedOrUpdatedRows ?? 0)) return meta;
      if (i >= ID_TRIES) throw new Error('no free blob id after several tries');
    }
  }

  /** The bytes, then the row of a blob no longer served. */
  async function discard(id: string): Promise<void> {
    await bytes.delete(id);
    await db.deleteFrom('hosted').where('id', '=', id).where('ready', '=', 0).execute();
  }

  async function remove(id: string): Promise<boolean> {
    if (!BLOB_ID.test(id)) return false;
    const hidden = await db
      .updateTable('hosted')
      .set({ ready: 0, expiresAt: clock() })
      .where('id', '=', id)
      .where('ready', '=', 1)
      .executeTakeFirst();
    if (!Number(hidden.numUpdatedRows)) return false;
    await discard(id).catch((err: Error) => log.warn({ err: err.message, id }, 'blob removal: the sweeper will finish it'));
    return true;
  }

  async function sweepDue(): Promise<number> {
    const now = clock();
    let expired = 0;
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const due = await hosted().select(['id', 'ready']).where('expiresAt', '<=', now).orderBy('expiresAt').limit(BATCH).execute();
      for (const { id, ready } of due) {
        await bytes.delete(id);
        // Still due: a write that finished meanwhile (its row made ready with a later expiry) is left alone.
        const gone = await db.deleteFrom('hosted').where('id', '=', id).where('expiresAt', '<=', now).executeTakeFirst();
        if (ready === 1 && Number(gone.numDeletedRows)) expired++;
      }
      if (due.length < BATCH) break;
    }
    if (expired) log.info({ removed: expired }, 'blob sweep');
    return expired;
  }

  const store: HostedBlobs = {
    async put(input) {
      const size = input.fromPath ? (await fsp.stat(input.fromPath)).size : (input.bytes?.length ?? 0);
      const meta = await claim(input, size);
      try {
        await bytes.write(meta.id, input);
        const ready = await db
          .updateTable('hosted')
          .set({ ready: 1, expiresAt: expiryMs(meta) })
          .where('id', '=', meta.id)
          .where('ready', '=', 0)
          .where('expiresAt', '>', clock())
          .executeTakeFirst();
        if (!Number(ready.numUpdatedRows)) throw new Error('the blob took longer to write than a write may, and was swept');
        return meta;
      } catch (err) {
        await discard(meta.id).catch(() => {}); // else the sweeper does, once the row is due
        throw err;
      }
    },
    async get(id) {
      if (!BLOB_ID.test(id)) return undefined;
      const row = await hosted().selectAll().where('id', '=', id).where('ready', '=', 1).executeTakeFirst();
      const meta = row && metaOf(row);
      if (!meta) return undefined;
      if (isExpired(meta, clock())) {
        await remove(id);
        return undefined;
      }
      return { meta };
    },
    read: (id, range) => (BLOB_ID.test(id) ? bytes.read(id, range) : Promise.resolve(undefined)),
    url: (meta, suffix) => blobUrl(publicUrl, meta, suffix),
    remove,
    async sweep() {
      return (o.lock ? await o.lock(sweepDue) : await sweepDue()) ?? 0;
    },
    state: () => bytes.state(),
    close() {
      clearInterval(timer);
      clearImmediate(first);
      bytes.close();
    },
  };
  // The timer's sweeps never overlap; one called by hand always runs.
  let sweeping = false;
  const run = () => {
    if (sweeping) return;
    sweeping = true;
    store
      .sweep()
      // The store being down was told once already (state()): the sweep is tried again next time.
      .catch((err: Error) => log[bytes.state().reachable ? 'warn' : 'debug']({ err: err.message }, 'blob sweep failed'))
      .finally(() => {
        sweeping = false;
      });
  };
  const timer = setInterval(run, o.sweepEveryMs ?? 60_000);
  timer.unref();
  const first = setImmediate(run);
  return store;
}
