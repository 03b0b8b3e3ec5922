// PostgreSQL's day partitions of a table partitioned by range of a day column (days since the epoch): made
// before the first row of their day, listed and dropped whole when the day comes.
import { sql, type Kysely } from 'kysely';

const name = (table: string, day: number) => `${table}_d${day}`;

/** Makes the partition of `day` unless it is there (two instances making it at once: the loser finds it made). */
export async function makeDayPartition<DB>(db: Kysely<DB>, table: string, day: number): Promise<void> {
  const create = sql`create table if not exists ${sql.id(name(table, day))} partition of ${sql.id(table)} for values from (${sql.lit(day)}) to (${sql.lit(day + 1)})`;
  await create.execute(db).catch(async (err: Error) => {
    const there = await sql<{ t: string | null }>`select to_regclass(${name(table, day)})::text as t`.execute(db);
    if (!there.rows[0]?.t) throw err;
  });
}

/** The days whose partitions the table has. */
export async function dayPartitions<DB>(db: Kysely<DB>, table: string): Promise<number[]> {
  const { rows } = await sql<{ name: string }>`
    select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = to_regclass(${table})`.execute(db);
  const day = new RegExp(`^${table}_d(\\d+)$`);
  return rows.flatMap((r) => {
    const m = day.exec(r.name);
    return m ? [Number(m[1])] : [];
  });
}

export async function dropDayPartition<DB>(db: Kysely<DB>, table: string, day: number): Promise<void> {
  await sql`drop table if exists ${sql.id(name(table, day))}`.execute(db);
}
