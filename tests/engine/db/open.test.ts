// The database layer on both engines: migrations once and in order, typed rows through the camelCase
// mapping, big integers as numbers, transactions that roll back, and the one-open-incident index.
import { sql, type Kysely } from 'kysely';
import { describeEngines, engineTest } from '../../helpers/db.js';
import { migrateToLatest, MIGRATIONS } from '../../../engine/db/migrate.js';
import type { Database } from '../../../engine/db/tables.js';

describeEngines('database', (engine, open) => {
  engineTest('migrations run once, in order, and a second run does nothing', async () => {
    const { db } = await open();
    const ran = await sql<{ name: string }>`select name from schema_migrations order by name`.execute(db);
    expect(ran.rows.map((r) => r.name)).toEqual(Object.keys(MIGRATIONS).sort());
    expect(await migrateToLatest(db as Kysely<unknown>, engine)).toEqual([]);
  });

  engineTest('rows go in and come back typed, with camelCase names and epoch milliseconds as numbers', async () => {
    const { db } = await open();
    const expiresAt = Date.UTC(2040, 0, 1);
    await db
      .insertInto('sessions')
      .values({ hash: 'h1', csrf: 'c', accountId: 'acc_1', gen: 0, createdAt: 1, seenAt: 2, expiresAt })
      .execute();
    const row = await db.selectFrom('sessions').selectAll().where('hash', '=', 'h1').executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      hash: 'h1',
      csrf: 'c',
      accountId: 'acc_1',
      gen: 0,
      createdAt: 1,
      seenAt: 2,
      expiresAt,
      pendingUntil: null,
    });
    const { n } = await db
      .selectFrom('sessions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(n)).toBe(1);
  });

  engineTest('a transaction that throws leaves nothing behind', async () => {
    const { db } = await open();
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto('secrets').values({ name: 'a', value: '1' }).execute();
        throw new Error('stop');
      }),
    ).rejects.toThrow('stop');
    expect(await db.selectFrom('secrets').selectAll().execute()).toEqual([]);
  });

  engineTest('one open incident per endpoint; closed ones as many as happened', async () => {
    const { db } = await open();
    const incident = (id: string, closedAt: string | null) => ({
      id,
      endpoint: 'tools/ccgen',
      state: 'down',
      openedAt: id,
      closedAt,
      updates: '[]',
    });
    await db.insertInto('incidents').values(incident('1', '2026-01-01')).execute();
    await db.insertInto('incidents').values(incident('2', '2026-01-02')).execute();
    await db.insertInto('incidents').values(incident('3', null)).execute();
    await expect(db.insertInto('incidents').values(incident('4', null)).execute()).rejects.toThrow();
  });

  engineTest('one plan-change record per billing event and account', async () => {
    const { db } = await open();
    const change = (id: string) => ({
      id,
      accountId: 'acc_1',
      at: id,
      fromPlan: 'free',
      toPlan: 'premium',
      by: 'stripe',
      actor: null,
      eventId: 'evt_1',
      eventType: 'x',
    });
    await db.insertInto('planChanges').values(change('1')).execute();
    await expect(db.insertInto('planChanges').values(change('2')).execute()).rejects.toThrow();
  });
});

// Kept typed: a query against a table the schema does not have fails to compile.
export type Checked = Kysely<Database>;

test('a transaction of the tables open across awaits never blocks a counters write to the same file (SQLite)', async () => {
  const { freshDatabase } = await import('../../helpers/db.js');
  const { SqliteStore } = await import('../../../engine/store/sqlite.js');
  const { sqliteFile } = await import('../../../engine/db/open.js');
  const { db, dataDir } = await freshDatabase('sqlite');
  const store = new SqliteStore(sqliteFile(dataDir));
  try {
    let written = false;
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('secrets').values({ name: 'x', value: '1' }).execute();
      // The counters' write finds the file locked: it must wait without holding the event loop.
      void store.write([{ kind: 'add', coll: 'c', id: 'k', add: { n: 1 }, ttlMs: 60_000 }]).then(() => (written = true));
      await new Promise((r) => setTimeout(r, 30));
      await trx.insertInto('secrets').values({ name: 'y', value: '2' }).execute();
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(written).toBe(true);
    expect(await store.counters('c', 'k')).toEqual({ n: 1 });
  } finally {
    await store.close();
  }
});
