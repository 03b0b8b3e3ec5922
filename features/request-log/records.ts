// The request log's table (engine/db/tables/request-log.ts): calls written in batches, read by owner and
// filter newest first with a cursor, one call found by its request id, and old days dropped. A page reads the
// owner's batches newest first by index, skips by their sets of keys, endpoints, codes and statuses the ones
// that hold no call the filter asks for, and unpacks the rest. Batches of several writers (instances) may
// overlap in time, so a call is handed out only once no batch left to read can hold a newer one. On SQLite a
// batch's calls are in a file beside the table (engine/db/call-files.ts), read when the batch is unpacked.
import path from 'node:path';
import { sql, type Expression, type SqlBool } from 'kysely';
import { CallFiles, type CallsPlace } from '../../engine/db/call-files.js';
import type { Db, Engine, OpenDatabase } from '../../engine/db/open.js';
import { timeOfRequestId } from '../../engine/request-id.js';
import { dayPartitions, dropDayPartition, makeDayPartition } from '../../engine/db/partitions.js';
import {
  atOfId,
  BATCH_SPAN_MS,
  callsOf,
  idAt,
  type CallBatch,
  type LogRow,
  type RequestLogBatchTable,
} from '../../engine/db/tables/request-log.js';
import { FORMAT, requestIdBytes } from '../../engine/db/tables/request-log-calls.js';

export type { LogRow };

/** What the inspector asks for: every field optional but the owner (undefined: every owner, for operators). */
export interface LogQuery {
  /** An account's id, `key:<id>`; undefined: every call (operators only). */
  owner?: string;
  keyId?: string;
  endpoint?: string;
  /** A status class (2 for 2xx) or an exact status. */
  statusClass?: number;
  status?: number;
  code?: string;
  requestId?: string;
  /** Epoch ms: from (inclusive) and to (exclusive). */
  from?: number;
  to?: number;
  /** The id of the last row of the page before (rows older than it follow). */
  after?: string;
  limit: number;
}

/** Batches read at a time while a page fills. */
const READ = 8;
/**
 * Batches read at a time in a search by request id on SQLite: every batch of the id's minutes is read from its
 * file and searched, most of them holding nothing (PostgreSQL's query skips those itself).
 */
const SEARCH = 256;
/** Rows deleted per statement on SQLite: the sweep lets the requests waiting go between two. */
const SWEEP_CHUNK = 500;
/** The longest a call may run: a request id's time (UUIDv7) to its answer, which names the call's id. */
const LONGEST_CALL_MS = 10 * 60_000;
export const DAY_MS = 86_400_000;
export const dayOf = (ms: number) => Math.floor(ms / DAY_MS);

const TABLE = 'request_log_batch';
/** A batch as read: its calls in the row, or where a file holds them. */
const READ_COLUMNS = ['id', 'owner', 'dropDay', 'calls', 'callsBin', 'callsFile', 'callsAt', 'callsBytes'] as const;
type Batch = Pick<RequestLogBatchTable, (typeof READ_COLUMNS)[number]>;
/** Rows in one insert on SQLite (its statements take at most 32,766 values). */
const ROWS_AT_ONCE = 500;
/** Where a row's calls are in its file. */
const placeOf = (file: string, r: Pick<RequestLogBatchTable, 'callsAt' | 'callsBytes'>): CallsPlace => ({
  file,
  at: Number(r.callsAt),
  bytes: Number(r.callsBytes),
});
/** Rows written ROWS_AT_ONCE at a time. */
async function inChunks<T>(rows: T[], write: (chunk: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_AT_ONCE) await write(rows.slice(i, i + ROWS_AT_ONCE));
}

export class LogRecords {
  private readonly db: Db;
  readonly engine: Engine;
  /** PostgreSQL partitions known to exist. */
  private readonly made = new Set<number>();
  /** SQLite's: the files its batches' calls are in. */
  private readonly files: CallFiles | undefined;
  /** Where each batch's calls went, until its row is written (a failed insert does not write them twice). */
  private readonly placed = new WeakMap<CallBatch, CallsPlace>();

  constructor(database: Pick<OpenDatabase, 'db' | 'engine' | 'dir'>) {
    this.db = database.db;
    this.engine = database.engine;
    if (this.engine === 'sqlite') {
      if (database.dir === undefined) throw new Error('the request log on SQLite needs the folder of its file');
      this.files = new CallFiles(path.join(database.dir, 'request-log'));
    }
  }

  /**
   * Writes batches. SQLite: their calls appended to their days' files first, then their rows in one
   * transaction. PostgreSQL: a row each, its calls in it.
   */
  async insert(batches: CallBatch[]): Promise<void> {
    if (this.files) return this.insertBeside(this.files, batches);
    for (const b of batches) {
      if (!this.made.has(b.dropDay)) {
        await makeDayPartition(this.db, TABLE, b.dropDay);
        this.made.add(b.dropDay);
      }
      // A batch written before a failure is not written twice: its id is taken.
      const row = b.row('bytes');
      if (!b.named.length)
        await this.db
          .insertInto('requestLogBatch')
          .values(row)
          .onConflict((c) => c.doNothing())
          .execute();
      else
        await this.db.transaction().execute(async (t) => {
          await t
            .insertInto('requestLogBatch')
            .values(row)
            .onConflict((c) => c.doNothing())
            .execute();
          await t
            .insertInto('requestLogNamed')
            .values(b.names())
            .onConflict((c) => c.doNothing())
            .execute();
        });
    }
  }

  private async insertBeside(files: CallFiles, batches: CallBatch[]): Promise<void> {
    const byDay = new Map<number, CallBatch[]>();
    for (const b of batches)
      if (!this.placed.has(b)) {
        const day = byDay.get(b.dropDay);
        if (day) day.push(b);
        else byDay.set(b.dropDay, [b]);
      }
    for (const [day, list] of byDay) {
      const places = files.append(
        day,
        list.map((b) => b.bytes()),
      );
      list.forEach((b, i) => this.placed.set(b, places[i]));
    }
    const rows = batches.map((b) => b.row(this.placed.get(b)!));
    const named = batches.flatMap((b) => b.names());
    await this.db.transaction().execute(async (t) => {
      await inChunks(rows, (chunk) =>
        t
          .insertInto('requestLogBatch')
          .values(chunk)
          .onConflict((c) => c.doNothing())
          .execute(),
      );
      await inChunks(named, (chunk) =>
        t
          .insertInto('requestLogNamed')
          .values(chunk)
          .onConflict((c) => c.doNothing())
          .execute(),
      );
    });
    for (const b of batches) this.placed.delete(b);
  }

  /** A batch's calls, or none when they are gone (its file dropped or lost); `requestId`: none unless they may hold it. */
  private callsIn(b: Batch, requestId?: string): LogRow[] {
    const calls = b.callsFile !== null ? this.files?.read(placeOf(b.callsFile, b)) : (b.callsBin ?? b.calls);
    if (calls === undefined) return [];
    if (requestId !== undefined) {
      const found =
        typeof calls === 'string'
          ? calls.includes(JSON.stringify(requestId))
          : Buffer.from(calls.buffer, calls.byteOffset, calls.byteLength).includes(
              calls[0] === FORMAT ? requestIdBytes(requestId) : JSON.stringify(requestId),
            );
      if (!found) return [];
    }
    return callsOf({ owner: b.owner, dropDay: b.dropDay, calls });
  }

  /** One page, newest first: `limit` rows and whether more follow. */
  async list(q: LogQuery): Promise<{ rows: LogRow[]; more: boolean }> {
    const page = await this.page(q, true);
    // A UUIDv7 of another clock (a caller's own X-Request-Id) may lie about its time: a caller's own is indexed.
    if (!page.rows.length && q.requestId !== undefined && timeOfRequestId(q.requestId) !== undefined) return this.page(q, false);
    return page;
  }

  private async page(q: LogQuery, byIdTime: boolean): Promise<{ rows: LogRow[]; more: boolean }> {
    const wanted = (r: LogRow) =>
      (q.keyId === undefined || r.keyId === q.keyId) &&
      (q.endpoint === undefined || r.endpoint === q.endpoint) &&
      (q.statusClass === undefined || r.statusClass === q.statusClass) &&
      (q.status === undefined || r.status === q.status) &&
      (q.code === undefined || r.code === q.code) &&
      (q.requestId === undefined || r.requestId === q.requestId) &&
      (q.from === undefined || r.at >= q.from) &&
      (q.to === undefined || r.at < q.to) &&
      (q.after === undefined || r.id < q.after);
    const batches = this.batches(q, byIdTime);
    const out: LogRow[] = [];
    // Calls read but not handed out yet, newest first: a batch not read yet may hold a newer one.
    let held: LogRow[] = [];
    let next = await batches.next();
    while (!next.done) {
      // SQLite's query cannot search the calls in their files: they are searched here, before they are unpacked.
      for (const r of this.callsIn(next.value, this.files && q.requestId)) if (wanted(r)) held.push(r);
      next = await batches.next();
      const bound = next.done ? '' : next.value.id;
      held.sort((a, b) => (a.id < b.id ? 1 : -1));
      let i = 0;
      while (i < held.length && held[i].id > bound) {
        out.push(held[i++]);
        if (out.length > q.limit) {
          await batches.return(undefined);
          return { rows: out.slice(0, q.limit), more: true };
        }
      }
      held = held.slice(i);
    }
    return { rows: out, more: false };
  }

  /** The batches that may hold a call of the query, newest first (by their newest call). */
  private async *batches(q: LogQuery, byIdTime: boolean): AsyncGenerator<Batch, void, undefined> {
    const has = (column: 'keys' | 'endpoints' | 'codes' | 'statuses', text: string): Expression<SqlBool> =>
      this.engine === 'postgres'
        ? sql<SqlBool>`strpos(${sql.ref(column)}, ${text}) > 0`
        : sql<SqlBool>`instr(${sql.ref(column)}, ${text}) > 0`;
    if (q.requestId !== undefined && (!byIdTime || timeOfRequestId(q.requestId) === undefined)) {
      // A caller's own id: its batches by the index of such ids.
      let named = this.db.selectFrom('requestLogNamed').select('batchId').where('requestId', '=', q.requestId);
      if (q.owner !== undefined) named = named.where('owner', '=', q.owner);
      const ids = (await named.execute()).map((r) => r.batchId);
      if (!ids.length) return;
      yield* await this.db.selectFrom('requestLogBatch').select(READ_COLUMNS).where('id', 'in', ids).orderBy('id', 'desc').execute();
      return;
    }
    // Time bounds on the newest call (the index) from bounds on the calls: a batch spans at most BATCH_SPAN_MS.
    let newestFrom = q.from;
    let newestTo = q.to === undefined ? undefined : q.to + BATCH_SPAN_MS;
    if (q.after !== undefined) {
      const t = atOfId(q.after) + BATCH_SPAN_MS + 1;
      newestTo = newestTo === undefined ? t : Math.min(newestTo, t);
    }
    const made = q.requestId === undefined ? undefined : timeOfRequestId(q.requestId);
    if (made !== undefined) {
      newestFrom = Math.max(newestFrom ?? 0, made);
      const t = made + LONGEST_CALL_MS + BATCH_SPAN_MS;
      newestTo = newestTo === undefined ? t : Math.min(newestTo, t);
    }
    let before: string | undefined;
    for (;;) {
      let s = this.db.selectFrom('requestLogBatch').select(READ_COLUMNS);
      if (q.owner !== undefined) s = s.where('owner', '=', q.owner);
      if (newestFrom !== undefined) s = s.where('id', '>=', idAt(newestFrom));
      if (newestTo !== undefined) s = s.where('id', '<', idAt(newestTo));
      if (before !== undefined) s = s.where('id', '<', before);
      if (q.after !== undefined) s = s.where('firstId', '<', q.after);
      if (q.to !== undefined) s = s.where('firstId', '<', idAt(q.to));
      if (q.keyId !== undefined) s = s.where(has('keys', ` ${q.keyId} `));
      if (q.endpoint !== undefined) s = s.where(has('endpoints', ` ${q.endpoint} `));
      if (q.code !== undefined) s = s.where(has('codes', ` ${q.code} `));
      if (q.status !== undefined) s = s.where(has('statuses', ` ${q.status} `));
      if (q.statusClass !== undefined) s = s.where(has('statuses', ` ${q.statusClass}`));
      // SQLite's calls are in files: their batches are searched as they are read (callsIn).
      if (q.requestId !== undefined && !this.files) {
        const [json, bytes] = [JSON.stringify(q.requestId), requestIdBytes(q.requestId)];
        s = s.where(sql<SqlBool>`(strpos(calls, ${json}) > 0 or position(${bytes} in calls_bin) > 0)`);
      }
      const read = q.requestId !== undefined && this.files ? SEARCH : READ;
      const rows = await s.orderBy('id', 'desc').limit(read).execute();
      yield* rows;
      if (rows.length < read) return;
      before = rows[rows.length - 1].id;
    }
  }

  /** One call by its own id (the operators' call page). */
  async byId(id: string): Promise<LogRow | undefined> {
    const at = atOfId(id);
    if (!Number.isFinite(at)) return undefined;
    const batches = await this.db
      .selectFrom('requestLogBatch')
      .select(READ_COLUMNS)
      .where('id', '>=', id)
      .where('id', '<', idAt(at + BATCH_SPAN_MS + 1))
      .where('firstId', '<=', id)
      .execute();
    for (const b of batches) {
      const found = this.callsIn(b).find((r) => r.id === id);
      if (found) return found;
    }
    return undefined;
  }

  /** Deletes every call of an owner (an account deleted by its owner: the calls hold what it sent). */
  async forget(owner: string): Promise<void> {
    if (this.files) {
      const inFiles = await this.db
        .selectFrom('requestLogBatch')
        .select(['callsFile', 'callsAt', 'callsBytes'])
        .where('owner', '=', owner)
        .where('callsFile', 'is not', null)
        .execute();
      for (const p of inFiles) this.files.erase(placeOf(p.callsFile!, p));
    }
    await this.db.deleteFrom('requestLogBatch').where('owner', '=', owner).execute();
    await this.db.deleteFrom('requestLogNamed').where('owner', '=', owner).execute();
  }

  /** Closes the files it holds open. */
  close(): void {
    this.files?.close();
  }

  /** Drops the calls whose day has come: whole partitions on PostgreSQL. Answers how many days or batches went. */
  async sweep(today: number, pause: () => Promise<void> = () => Promise.resolve()): Promise<number> {
    await this.db.deleteFrom('requestLogNamed').where('dropDay', '<=', today).execute();
    if (this.engine === 'postgres') {
      let dropped = 0;
      for (const day of await dayPartitions(this.db, TABLE)) {
        if (day > today) continue;
        await dropDayPartition(this.db, TABLE, day);
        this.made.delete(day);
        dropped++;
      }
      return dropped;
    }
    let gone = 0;
    for (;;) {
      const r = await this.db
        .deleteFrom('requestLogBatch')
        .where('id', 'in', (d) => d.selectFrom('requestLogBatch').select('id').where('dropDay', '<=', today).limit(SWEEP_CHUNK))
        .executeTakeFirst();
      const n = Number(r.numDeletedRows);
      gone += n;
      if (n < SWEEP_CHUNK) {
        this.files?.drop(today);
        return gone;
      }
      await pause();
    }
  }
}
