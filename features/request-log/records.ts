// The request log's table (engine/db/tables/request-log.ts): calls written in batches, read by owner and
// filter newest first with a cursor, one call found by its request id, and old days dropped. A page reads the
// owner's batches newest first by index, skips by their sets of keys, endpoints, codes and statuses the ones
// that hold no call the filter asks for, and unpacks the rest. Batches of several writers (instances) may
// overlap in time, so a call is handed out only once no batch left to read can hold a newer one.
import crypto from 'node:crypto';
import { sql, type Expression, type SqlBool } from 'kysely';
import type { Db, Engine } from '../../engine/db/open.js';
import { timeOfRequestId } from '../../engine/request-id.js';
import { dayPartitions, dropDayPartition, makeDayPartition } from '../../engine/db/partitions.js';
import {
  atOfId,
  BATCH_SPAN_MS,
  callsOf,
  type CallBatch,
  type LogRow,
  type RequestLogBatchTable,
} from '../../engine/db/tables/request-log.js';

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
/** Rows deleted per statement on SQLite: the sweep lets the requests waiting go between two. */
const SWEEP_CHUNK = 500;
/** The longest a call may run: a request id's time (UUIDv7) to its answer, which names the call's id. */
const LONGEST_CALL_MS = 10 * 60_000;
export const DAY_MS = 86_400_000;
export const dayOf = (ms: number) => Math.floor(ms / DAY_MS);

/** The first 9 characters of the ids of calls recorded at `ms` (the time order of ids). */
const idAt = (ms: number) => Math.max(0, Math.floor(ms)).toString(36).padStart(9, '0');

/**
 * A writer's maker of call ids: the call's time (idAt), its place within the millisecond (2 characters), then
 * the writer's own random tag (unique across instances and restarts), so ids keep the calls' order.
 */
export function callIds(): (at: number) => string {
  const tag = crypto.randomBytes(6).toString('base64url');
  let lastMs = -1;
  let lastPrefix = '';
  let seq = 0;
  return (at) => {
    if (at === lastMs) seq++;
    else {
      seq = 0;
      lastMs = at;
      lastPrefix = idAt(at);
    }
    return `${lastPrefix}${seq < 36 ? `0${seq.toString(36)}` : Math.min(seq, 1295).toString(36)}${tag}`;
  };
}

const TABLE = 'request_log_batch';
type Batch = Pick<RequestLogBatchTable, 'id' | 'owner' | 'dropDay' | 'calls'>;

export class LogRecords {
  /** PostgreSQL partitions known to exist. */
  private readonly made = new Set<number>();

  constructor(
    private readonly db: Db,
    readonly engine: Engine,
  ) {}

  /** Writes batches, each one row (one statement each, so the pages' reads go between two on SQLite). */
  async insert(batches: CallBatch[]): Promise<void> {
    for (const b of batches) {
      if (this.engine === 'postgres' && !this.made.has(b.dropDay)) {
        await makeDayPartition(this.db, TABLE, b.dropDay);
        this.made.add(b.dropDay);
      }
      // A batch written before a failure is not written twice: its id is taken.
      const row = b.row(this.engine === 'postgres');
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
      for (const r of callsOf(next.value)) if (wanted(r)) held.push(r);
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
    const has = (column: 'keys' | 'endpoints' | 'codes' | 'statuses' | 'calls', text: string): Expression<SqlBool> =>
      this.engine === 'postgres'
        ? sql<SqlBool>`strpos(${sql.ref(column)}, ${text}) > 0`
        : sql<SqlBool>`instr(${sql.ref(column)}, ${text}) > 0`;
    if (q.requestId !== undefined && (!byIdTime || timeOfRequestId(q.requestId) === undefined)) {
      // A caller's own id: its batches by the index of such ids.
      let named = this.db.selectFrom('requestLogNamed').select('batchId').where('requestId', '=', q.requestId);
      if (q.owner !== undefined) named = named.where('owner', '=', q.owner);
      const ids = (await named.execute()).map((r) => r.batchId);
      if (!ids.length) return;
      yield* await this.db
        .selectFrom('requestLogBatch')
        .select(['id', 'owner', 'dropDay', 'calls'])
        .where('id', 'in', ids)
        .orderBy('id', 'desc')
        .execute();
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
      let s = this.db.selectFrom('requestLogBatch').select(['id', 'owner', 'dropDay', 'calls']);
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
      if (q.requestId !== undefined) s = s.where(has('calls', JSON.stringify(q.requestId)));
      const rows = await s.orderBy('id', 'desc').limit(READ).execute();
      yield* rows;
      if (rows.length < READ) return;
      before = rows[rows.length - 1].id;
    }
  }

  /** One call by its own id (the operators' call page). */
  async byId(id: string): Promise<LogRow | undefined> {
    const at = atOfId(id);
    if (!Number.isFinite(at)) return undefined;
    const batches = await this.db
      .selectFrom('requestLogBatch')
      .select(['id', 'owner', 'dropDay', 'calls'])
      .where('id', '>=', id)
      .where('id', '<', idAt(at + BATCH_SPAN_MS + 1))
      .where('firstId', '<=', id)
      .execute();
    for (const b of batches) {
      const found = callsOf(b).find((r) => r.id === id);
      if (found) return found;
    }
    return undefined;
  }

  /** Deletes every call of an owner (an account deleted by its owner: the calls hold what it sent). */
  async forget(owner: string): Promise<void> {
    await this.db.deleteFrom('requestLogBatch').where('owner', '=', owner).execute();
    await this.db.deleteFrom('requestLogNamed').where('owner', '=', owner).execute();
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
      if (n < SWEEP_CHUNK) return gone;
      await pause();
    }
  }
}
