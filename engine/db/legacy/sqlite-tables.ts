// An installation that outgrows one machine moves from SQLite's tables (DATA_DIR/uua.sqlite) to PostgreSQL
// (DATABASE_URL): every table is copied as it is, rows already there left alone, once (recorded in
// `legacy_imports` as 'sqlite-tables'). Identity columns are left to PostgreSQL to number.
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { CallFiles } from '../call-files.js';
import type { Db } from '../open.js';
import type { Database } from '../tables.js';
import type { ImportResult } from './import.js';
import { makeDayPartition } from '../partitions.js';
import { FORMAT } from '../tables/request-log-calls.js';

const SOURCE = 'sqlite-tables';
/** The counters' store and the migrations' own tables stay behind. */
const NOT_COPIED = new Set([
  'docs',
  'counters',
  'lists',
  'announcements',
  'schema_migrations',
  'schema_migrations_lock',
  'legacy_imports',
  'sqlite_sequence',
]);
/** Columns PostgreSQL numbers itself (GENERATED ALWAYS AS IDENTITY). */
const NUMBERED: Record<string, string> = { webhook_attempts: 'seq' };
/** Tables PostgreSQL partitions by a day column: each row's partition is made before it is written. */
const BY_DAY: Record<string, string> = { request_log_batch: 'drop_day' };
/**
 * Rows as PostgreSQL keeps them: the request log's calls in the row, their bytes in `calls_bin` and the JSON
 * of rows written before as text (SQLite keeps them in a file beside the table, or in the row). Undefined:
 * its calls are gone (their file dropped or lost).
 */
const AS_POSTGRES: Record<string, (r: Record<string, unknown>, files: CallFiles) => Record<string, unknown> | undefined> = {
  request_log_batch(r, files) {
    let calls = r.calls_bin ?? r.calls;
    if (typeof r.calls_file === 'string') calls = files.read({ file: r.calls_file, at: Number(r.calls_at), bytes: Number(r.calls_bytes) });
    if (calls === undefined) return undefined;
    const bytes = calls instanceof Uint8Array && calls[0] === FORMAT;
    return {
      ...r,
      calls: bytes ? '' : calls instanceof Uint8Array ? Buffer.from(calls).toString('utf8') : calls,
      calls_bin: bytes ? calls : null,
      calls_file: null,
      calls_at: null,
      calls_bytes: null,
    };
  },
};
const CHUNK = 200;

function openFile(file: string): DatabaseSync | undefined {
  if (!fs.existsSync(file)) return undefined;
  return new DatabaseSync(file, { readOnly: true });
}

const tablesOf = (db: DatabaseSync) =>
  (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[])
    .map((r) => r.name)
    .filter((n) => !NOT_COPIED.has(n));

/** How many accounts and keys the SQLite file's tables hold (0 when it has none, or no such tables). */
function held(file: string): number {
  const db = openFile(file);
  if (!db) return 0;
  try {
    const tables = new Set(tablesOf(db));
    let n = 0;
    for (const t of ['accounts', 'api_keys'])
      if (tables.has(t)) n += Number((db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n);
    return n;
  } finally {
    db.close();
  }
}

/** Says what to do when DATABASE_URL is set and the SQLite file's tables hold records never copied. */
export async function tablesLeftBehind(file: string, to: Db): Promise<string | undefined> {
  const n = held(file);
  if (!n) return undefined;
  if (await to.selectFrom('legacyImports').select('source').where('source', '=', SOURCE).executeTakeFirst()) return undefined;
  return (
    `${file} holds ${n} accounts and keys that are not in the PostgreSQL of DATABASE_URL. ` +
    "Run `npm run migrate` (with this deployment's DATA_DIR and DATABASE_URL) to copy them, then start again."
  );
}

export async function copySqliteTables(file: string, to: Db): Promise<ImportResult | undefined> {
  const from = openFile(file);
  if (!from) return undefined;
  const files = new CallFiles(path.join(path.dirname(file), 'request-log'));
  try {
    const before = await to.selectFrom('legacyImports').select('at').where('source', '=', SOURCE).executeTakeFirst();
    if (before) return { source: SOURCE, importedBefore: before.at, counts: {} };
    const raw = to.withoutPlugins();
    const counts: Record<string, { read: number; written: number }> = {};
    await raw.transaction().execute(async (trx) => {
      for (const table of tablesOf(from)) {
        const numbered = NUMBERED[table];
        const byDay = BY_DAY[table];
        const asPostgres = AS_POSTGRES[table];
        const days = new Set<number>();
        let read = 0;
        let written = 0;
        const write = async (chunk: Record<string, unknown>[]) => {
          const r = await trx
            .insertInto(table as never)
            .values(chunk)
            .onConflict((oc) => oc.doNothing())
            .executeTakeFirst();
          written += Number(r.numInsertedOrUpdatedRows ?? 0);
        };
        // Read a chunk at a time: the request log alone may hold millions of rows.
        let chunk: Record<string, unknown>[] = [];
        for (const row of from.prepare(`SELECT * FROM ${table}`).iterate() as Iterable<Record<string, unknown>>) {
          read++;
          let r = row;
          if (numbered) {
            const { [numbered]: _dropped, ...rest } = r;
            r = rest;
          }
          if (asPostgres) {
            const moved = asPostgres(r, files);
            if (!moved) continue;
            r = moved;
          }
          if (byDay && !days.has(Number(r[byDay]))) {
            days.add(Number(r[byDay]));
            await makeDayPartition<Database>(trx, table, Number(r[byDay]));
          }
          chunk.push(r);
          if (chunk.length === CHUNK) {
            await write(chunk);
            chunk = [];
          }
        }
        if (chunk.length) await write(chunk);
        if (read) counts[table] = { read, written };
      }
      await trx
        .insertInto('legacy_imports' as never)
        .values({ source: SOURCE, at: new Date().toISOString(), counts: JSON.stringify(counts) })
        .execute();
    });
    return { source: SOURCE, counts: counts };
  } finally {
    files.close();
    from.close();
  }
}
