import { sql } from 'kysely';
import type { Migration } from '../migration.js';

/**
 * How many accounts there are of each plan, status and verification, kept by triggers on `accounts` so the
 * admin's totals read a handful of rows instead of counting the table, and no write path can forget them.
 * On PostgreSQL a row's two changes (one group down, another up) take the groups' locks in one order, so
 * two plan changes crossing each other cannot deadlock.
 */
export const accountCounts: Migration = {
  async up(db, engine) {
    await db.schema
      .createTable('account_counts')
      .addColumn('plan', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('unverified', 'integer', (c) => c.notNull())
      .addColumn('n', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('account_counts_pk', ['plan', 'status', 'unverified'])
      .execute();
    await sql`insert into account_counts (plan, status, unverified, n)
      select plan, status, unverified, count(*) from accounts group by plan, status, unverified`.execute(db);

    if (engine === 'sqlite') {
      const up = (row: 'new' | 'old') =>
        `insert into account_counts (plan, status, unverified, n) values (${row}.plan, ${row}.status, ${row}.unverified, 1)
         on conflict (plan, status, unverified) do update set n = n + 1;`;
      const down = (row: 'new' | 'old') =>
        `update account_counts set n = n - 1 where plan = ${row}.plan and status = ${row}.status and unverified = ${row}.unverified;`;
      await sql.raw(`create trigger account_counts_insert after insert on accounts begin ${up('new')} end`).execute(db);
      await sql.raw(`create trigger account_counts_delete after delete on accounts begin ${down('old')} end`).execute(db);
      await sql
        .raw(
          `create trigger account_counts_update after update of plan, status, unverified on accounts begin ${down('old')} ${up('new')} end`,
        )
        .execute(db);
      return;
    }
    await sql
      .raw(
        `create function account_counts_keep() returns trigger language plpgsql as $$
        declare
          old_first boolean := tg_op = 'DELETE' or (tg_op = 'UPDATE' and (old.plan, old.status, old.unverified) <= (new.plan, new.status, new.unverified));
        begin
          if old_first then
            update account_counts set n = n - 1 where plan = old.plan and status = old.status and unverified = old.unverified;
          end if;
          if tg_op <> 'DELETE' then
            insert into account_counts (plan, status, unverified, n) values (new.plan, new.status, new.unverified, 1)
              on conflict (plan, status, unverified) do update set n = account_counts.n + 1;
          end if;
          if tg_op = 'UPDATE' and not old_first then
            update account_counts set n = n - 1 where plan = old.plan and status = old.status and unverified = old.unverified;
          end if;
          return null;
        end $$`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger account_counts_keep after insert or delete or update of plan, status, unverified on accounts
         for each row execute function account_counts_keep()`,
      )
      .execute(db);
  },
};
