// The request log's table (engine/db/tables/request-log.ts): rows written in batches, read by owner and
// filter newest first with a cursor, one call found by its request id, and old days dropped. On PostgreSQL
// the table is partitioned by the day its rows are dropped: each day's partition is made before its first
// row and dropped whole once the day comes.
import { sql, type Insertable, type Selectable } from 'kysely';
import type { Db, Engine } from '../../engine/db/open.js';
import type { RequestLogTable } from '../../engine/db/tables/request-log.js';

export type LogRow = Selectable<RequestLogTable>;

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

/** Rows per INSERT: powers of two only, so SQLite's statement cache holds a few texts (engine/db/sqlite-dialect.ts). */
const CHUNK = 64;
/** Rows deleted per statement on SQLite: the sweep lets the requests waiting go between two. */
const SWEEP_CHUNK = 5000;
export const DAY_MS = 86_400_000;
export const dayOf = (ms: number) => Math.floor(ms / DAY_MS);

/** The first 9 characters of the ids of rows recorded at `ms` (the time order of ids). */
export const idAt = (ms: number) => Math.max(0, Math.floor(ms)).toString(36).padStart(9, '0');

const partition = (day: number) => `request_log_d${day}`;

export class LogRecords {
  /** PostgreSQL partitions known to exist. */
  private readonly made = new Set<number>();

  constructor(
    private readonly db: Db,
    readonly engine: Engine,
  ) {}

  async insert(rows: Insertable<RequestLogTable>[]): Promise<void> {
    if (this.engine === 'postgres') await this.makePartitions(new Set(rows.map((r) => r.dropDay)));
    let i = 0;
    while (i < rows.length) {
      let n = CHUNK;
      while (n > rows.length - i) n >>= 1;
      await this.db
        .insertInto('requestLog')
        .values(rows.slice(i, i + n))
        .onConflict((c) => c.doNothing())
        .execute();
      i += n;
    }
  }

  /** Makes the partitions of these drop days that are not there yet (another instance may make one at once). */
  private async makePartitions(days: Set<number>): Promise<void> {
    for (const day of days) {
      if (this.made.has(day)) continue;
      const create = sql`create table if not exists ${sql.id(partition(day))} partition of request_log for values from (${sql.lit(day)}) to (${sql.lit(day + 1)})`;
      await create.execute(this.db).catch(async (err: Error) => {
        // Two instances making it at once: the loser's error, and the partition is there.
        const there = await sql<{ t: string | null }>`select to_regclass(${partition(day)})::text as t`.execute(this.db);
        if (!there.rows[0]?.t) throw err;
      });
      this.made.add(day);
    }
  }

  /** One page, newest first: `limit` rows and whether more follow. */
  async list(q: LogQuery): Promise<{ rows: LogRow[]; more: boolean }> {
    let s = this.db.selectFrom('requestLog').selectAll();
    if (q.owner !== undefined) s = s.where('owner', '=', q.owner);
    if (q.keyId !== undefined) s = s.where('keyId', '=', q.keyId);
    if (q.endpoint !== undefined) s = s.where('endpoint', '=', q.endpoint);
    if (q.statusClass !== undefined) s = s.where('statusClass', '=', q.statusClass);
    if (q.status !== undefined) s = s.where('status', '=', q.status);
    if (q.code !== undefined) s = s.where('code', '=', q.code);
    if (q.requestId !== undefined) s = s.where('requestId', '=', q.requestId);
    if (q.from !== undefined) s = s.where('id', '>=', idAt(q.from));
    if (q.to !== undefined) s = s.where('id', '<', idAt(q.to));
    if (q.after !== undefined) s = s.where('id', '<', q.after);
    const rows = await s
      .orderBy('id', 'desc')
      .limit(q.limit + 1)
      .execute();
    return { rows: rows.slice(0, q.limit), more: rows.length > q.limit };
  }

  /** One row by its own id (the operators' call page). */
  async byId(id: string): Promise<LogRow | undefined> {
    return this.db.selectFrom('requestLog').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Deletes every call of an owner (an account deleted by its owner: the calls hold what it sent). */
  async forget(owner: string): Promise<void> {
    await this.db.deleteFrom('requestLog').where('owner', '=', owner).execute();
  }

  /** Drops the rows whose day has come: whole partitions on PostgreSQL. Answers how many days or rows went. */
  async sweep(today: number, pause: () => Promise<void> = () => Promise.resolve()): Promise<number> {
    if (this.engine === 'postgres') {
      const { rows } = await sql<{ name: string }>`
        select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = to_regclass('request_log')`.execute(this.db);
      let dropped = 0;
      for (const { name } of rows) {
        const day = Number(/^request_log_d(\d+)$/.exec(name)?.[1] ?? NaN);
        if (!(day <= today)) continue;
        await sql`drop table if exists ${sql.id(name)}`.execute(this.db);
        this.made.delete(day);
        dropped++;
      }
      return dropped;
    }
    let gone = 0;
    for (;;) {
      const r = await this.db
        .deleteFrom('requestLog')
        .where('id', 'in', (d) => d.selectFrom('requestLog').select('id').where('dropDay', '<=', today).limit(SWEEP_CHUNK))
        .executeTakeFirst();
      const n = Number(r.numDeletedRows);
      gone += n;
      if (n < SWEEP_CHUNK) return gone;
      await pause();
    }
  }
}
