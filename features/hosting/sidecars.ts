// Moving the metadata earlier builds kept beside each blob's bytes (a sidecar `<id>.json`, on disk or in
// the bucket) into the `hosted` table, for `npm run migrate`; and the check before the server starts that
// none was left behind. The bytes stay where they are, under the same id, so every link keeps working.
//
// Each sidecar is read through features/hosting/stored-meta.ts (the one place that knows the loose fields
// earlier builds wrote), written as a row (one already there is left as it is), and deleted once its row
// is committed: the table is then the one record of the blob, so a blob deleted or expired later leaves no
// title, file name or delete hash behind on disk, and a second run finds nothing more to move. A sidecar
// that does not read as a blob (cut short, edited by hand) was never served and is left as it was. The
// source is recorded in `legacy_imports` once moved, so a start asks the table, not the store, whether
// it was; a start beside a store that holds no sidecar at all records that too.
import type { Logger } from 'pino';
import type { Db } from '../../engine/db/open.js';
import type { ImportResult } from '../../engine/db/legacy/import.js';
import { expiryMs, rowOf } from './records.js';
import { parseStoredMeta } from './stored-meta.js';
import type { HostedMeta, SidecarSource } from './types.js';

/** Sidecars read or deleted at once (S3: one request each). */
const READS_AT_ONCE = 32;

async function readPage(source: SidecarSource, ids: string[]): Promise<{ metas: HostedMeta[]; unreadable: number }> {
  const metas: HostedMeta[] = [];
  let unreadable = 0;
  for (let at = 0; at < ids.length; at += READS_AT_ONCE) {
    const texts = await Promise.all(ids.slice(at, at + READS_AT_ONCE).map((id) => source.read(id)));
    texts.forEach((text, i) => {
      const id = ids[at + i];
      const meta = text === undefined ? undefined : parseStoredMeta(text, id);
      if (meta) metas.push(meta);
      else if (text !== undefined) unreadable++;
    });
  }
  return { metas, unreadable };
}

async function record(db: Db, source: string, counts: ImportResult['counts']) {
  const row = { source, at: new Date().toISOString(), counts: JSON.stringify(counts) };
  await db
    .insertInto('legacyImports')
    .values(row)
    .onConflict((oc) => oc.column('source').doUpdateSet({ at: row.at, counts: row.counts }))
    .execute();
}

/** Moves every sidecar in `source` into the table; safe to run again (what was moved is gone from the store). */
export async function importSidecars(source: SidecarSource, db: Db): Promise<ImportResult> {
  let read = 0;
  let written = 0;
  let unreadable = 0;
  for await (const ids of source.pages()) {
    const page = await readPage(source, ids);
    unreadable += page.unreadable;
    if (!page.metas.length) continue;
    const made = await db
      .insertInto('hosted')
      .values(page.metas.map((m) => rowOf(m, { ready: 1, expiresAt: expiryMs(m) })))
      .onConflict((oc) => oc.column('id').doNothing())
      .executeTakeFirst();
    read += page.metas.length;
    written += Number(made.numInsertedOrUpdatedRows ?? 0);
    for (let at = 0; at < page.metas.length; at += READS_AT_ONCE) {
      await Promise.all(page.metas.slice(at, at + READS_AT_ONCE).map((m) => source.remove(m.id)));
    }
  }
  const markers = await source.dropMarkers();
  const counts: ImportResult['counts'] = read ? { hosted: { read, written } } : {};
  await record(db, source.name, counts);
  const notes = [
    ...(unreadable ? [`${unreadable} sidecars that read as no blob (never served) left as they were`] : []),
    ...(markers ? [`${markers} expiry markers of the earlier sweeper removed`] : []),
  ];
  return { source: source.name, counts, ...(notes.length && { notes }) };
}

/**
 * Says what to do when the store still holds sidecars never moved into the table; undefined when none. A
 * store that does not answer is not refused (hosting answers 503 until it does; the next start asks again).
 */
export async function sidecarsLeftBehind(source: SidecarSource, db: Db, log: Logger): Promise<string | undefined> {
  if (await db.selectFrom('legacyImports').select('source').where('source', '=', source.name).executeTakeFirst()) return undefined;
  let found: boolean;
  try {
    found = await source.any();
  } catch (err) {
    log.warn({ err: (err as Error).message, source: source.name }, 'could not look for hosted blobs of an earlier layout');
    return undefined;
  }
  if (!found) {
    await record(db, source.name, {});
    return undefined;
  }
  return (
    `${source.name} holds metadata of hosted blobs beside their bytes (<id>.json), not yet in the tables. ` +
    "Run `npm run migrate` (with this deployment's DATA_DIR, S3_* and DATABASE_URL) to move it, then start again."
  );
}
