// A full disk is an error, not a loss. SQLite's own SQLITE_FULL, made by capping each connection's
// max_page_count at the pages its file has and filling what room is left: a paste answers 507 storage_full
// with Retry-After, a GET endpoint that stores nothing answers 200, /health says degraded; the counts and the
// usage history made meanwhile stay in memory and are written once there is room; closing while full says
// what it could not keep. A rollback after SQLITE_FULL throws the SQLITE_FULL, not "no transaction is active".
import crypto from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import request from 'supertest';
import { sql, type Kysely } from 'kysely';
import { KEYS, testApp, type TestApp } from '../../helpers/app.js';
import { openDatabase } from '../../../engine/db/open.js';
import { tmpDirs } from '../../helpers/tmp-dirs.js';

const ccgen = '/api/v1/tools/ccgen';
const tmpDir = tmpDirs('uua-full-');

/** Runs inserts of shrinking rows into `table` until each size finds no room: the pages left have none. */
function fill(run: (statement: string) => void, table: string, row: (size: number) => string) {
  for (const size of [4000, 1000, 200, 40, 1]) {
    for (;;) {
      try {
        run(row(size).replace('%TABLE%', table));
      } catch (err) {
        if (!/full/.test((err as Error).message)) throw err;
        break;
      }
    }
  }
}

/** The one value of `pragma page_count` (its column's name goes through the camelCase mapping). */
const pageCount = (r: { rows: Record<string, number>[] }) => Number(Object.values(r.rows[0])[0]);

/** The SQLite connections of a running app: its tables' (through Kysely) and its store's. */
function connections(t: TestApp) {
  return { tables: t.api.database.db as unknown as Kysely<unknown>, store: (t.api.store as unknown as { db: DatabaseSync }).db };
}

async function fillDisk(t: TestApp) {
  const { tables, store } = connections(t);
  const pages = pageCount(await sql<Record<string, number>>`pragma page_count`.execute(tables));
  await sql.raw(`pragma max_page_count = ${pages}`).execute(tables);
  store.exec(`pragma max_page_count = ${pages}`);
  // The hosted table (a paste's row) through the tables' connection, the store's three through its own.
  for (const size of [4000, 1000, 200, 40, 1]) {
    for (;;) {
      try {
        await sql
          .raw(
            `insert into hosted (id, kind, content_type, size, created_at, ready) values ('${crypto.randomUUID()}', 'media', '${'x'.repeat(size)}', 0, 'x', 0)`,
          )
          .execute(tables);
      } catch (err) {
        if (!/full/.test((err as Error).message)) throw err;
        break;
      }
    }
  }
  const far = Date.now() + 86_400_000;
  fill(
    (s) => store.exec(s),
    'lists',
    (n) => `insert into %TABLE% (list, item, expires) values ('filler', '${'x'.repeat(n)}', ${far})`,
  );
  fill(
    (s) => store.exec(s),
    'docs',
    (n) => `insert into %TABLE% (coll, id, body, expires) values ('filler', '${crypto.randomUUID()}', '${'x'.repeat(n)}', ${far})`,
  );
  fill(
    (s) => store.exec(s),
    'counters',
    (n) =>
      `insert into %TABLE% (coll, id, field, value, expires) values ('filler', '${crypto.randomUUID()}', '${'x'.repeat(n)}', 1, ${far})`,
  );
}

function freeDisk(t: TestApp) {
  const { store } = connections(t);
  store.exec(`pragma max_page_count = 1073741823`);
  return sql.raw('pragma max_page_count = 1073741823').execute(connections(t).tables);
}

test('full: a paste answers 507 with Retry-After, a GET 200, /health degraded; the counts are written once there is room', async () => {
  const t = await testApp();
  try {
    expect((await request(t.app).get(ccgen).query({ apikey: KEYS.premium, bin: '457173' })).status).toBe(200);
    await fillDisk(t);

    const paste = await request(t.app)
      .post('/api/v1/cloud-storage/paste-host')
      .send({ apikey: KEYS.premium, paste: 'hello', name: 'full' });
    expect(paste.status).toBe(507);
    expect(paste.body).toMatchObject({ success: false, code: 'storage_full' });
    expect(paste.headers['retry-after']).toBe('60');
    // What stores nothing keeps answering, on a key first seen while full (a new window to write).
    for (let i = 0; i < 3; i++)
      expect((await request(t.app).get(ccgen).query({ apikey: KEYS.enterprise, bin: '457173' })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1500)); // a flush of the counters and the usage history fails
    const health = await request(t.app).get('/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'degraded', storage: 'full' });

    await freeDisk(t);
    await new Promise((r) => setTimeout(r, 2500)); // the next flushes go through
    expect((await request(t.app).get('/health')).body).toMatchObject({ status: 'ok', storage: 'ok' });
    const windows = await t.api.store.tempEntries<{ hits: number }>('rl:enterprise');
    expect(windows.map(([, w]) => w.hits)).toEqual([3]);
    const usage = await request(t.app).get('/api/v1/account/usage').query({ apikey: KEYS.enterprise });
    expect(usage.body.data.hourly.total).toBe(3);
  } finally {
    await t.close().catch(() => {});
  }
}, 30_000);

test('closing while full rejects, naming the counter windows and the seconds of history it could not write', async () => {
  const t = await testApp();
  await fillDisk(t);
  for (let i = 0; i < 2; i++) expect((await request(t.app).get(ccgen).query({ apikey: KEYS.enterprise, bin: '457173' })).status).toBe(200);
  await expect(t.close()).rejects.toThrow(
    /not written at exit \(no space left, or Redis unreachable\): 1 counter windows, 1 seconds of usage history/,
  );
});

test('a transaction that SQLite ends with SQLITE_FULL throws SQLITE_FULL, not a failed rollback', async () => {
  const dir = tmpDir();
  const opened = await openDatabase({ dataDir: dir });
  const { db } = opened;
  try {
    const pages = pageCount(await sql<Record<string, number>>`pragma page_count`.execute(db));
    await sql.raw(`pragma max_page_count = ${pages + 2}`).execute(db);
    const big = 'x'.repeat(3000);
    const failed = await db
      .transaction()
      .execute(async (trx) => {
        for (let i = 0; i < 100; i++)
          await trx
            .insertInto('secrets')
            .values({ name: `s${i}`, value: big })
            .execute();
      })
      .catch((err: Error & { errcode?: number }) => err);
    expect((failed as Error).message).toMatch(/database or disk is full/);
    expect((failed as Error).message).not.toMatch(/rollback/);
    expect(await db.selectFrom('secrets').selectAll().execute()).toEqual([]);
  } finally {
    await opened.close();
  }
});
