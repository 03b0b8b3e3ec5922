// `npm run migrate`'s importer against data made by the earlier key-value layout's own code (SQLite file
// and Redis keys, tests/fixtures/legacy/): every record accounted for, in both engines; a second run moves
// nothing; the sources are left as they were.
import { createClient, type RedisClientType } from 'redis';
import { describeEngines, engineTest } from '../../helpers/db.js';
import { redisAvailable } from '../../helpers/app.js';
import { expected, legacyDataDir, loadLegacyRedis } from '../../helpers/legacy.js';
import { importLegacy } from '../../../engine/db/legacy/import.js';
import { redisSource, sqliteSource, type LegacySource } from '../../../engine/db/legacy/source.js';
import { sqliteFile, type Db } from '../../../engine/db/open.js';

/** Each table and the earlier collection its rows come from, with how the row names the document's id. */
const TABLES = [
  ['accounts', 'accounts', 'id'],
  ['apiKeys', 'keys', 'hash'],
  ['keyLastUsed', 'key-last-used', 'keyId'],
  ['invites', 'invites', 'hash'],
  ['upgradeRequests', 'upgrade-requests', 'accountId'],
  ['erasedUsage', 'erased-usage', 'id'],
  ['webhooks', 'webhooks', 'accountId'],
  ['webhookDeliveries', 'webhook-queue', 'id'],
  ['billingSubscriptions', 'billing', 'accountId'],
  ['billingCustomers', 'billing-customers', 'customerId'],
  ['billingEvents', 'billing-events', 'id'],
  ['probes', 'health-probe', 'endpoint'],
  ['incidents', 'health-incidents', 'id'],
  ['secrets', 'portal-secrets', 'name'],
  ['sessions', 'sessions', 'hash'],
  ['linkTokens', 'link-tokens', 'hash'],
] as const;

async function accountedFor(db: Db, collections: (typeof expected)['sqlite']['collections']) {
  for (const [table, coll, idColumn] of TABLES) {
    const rows = (await db.selectFrom(table).select(idColumn).execute()) as Record<string, string>[];
    expect({ table, ids: rows.map((r) => r[idColumn]).sort() }).toEqual({ table, ids: [...collections[coll].ids].sort() });
  }
  const changes = await db.selectFrom('planChanges').select('accountId').execute();
  expect(changes).toHaveLength(expected.counts['plan-changes']);
  expect([...new Set(changes.map((c) => c.accountId))].sort()).toEqual([...collections['plan-changes'].ids].sort());
}

async function importTwice(source: LegacySource, db: Db) {
  const first = await importLegacy(source, db);
  expect(first.importedBefore).toBeUndefined();
  expect(first.counts.accounts).toEqual({ read: 5, written: 5 });
  expect(first.counts.apiKeys).toEqual({ read: 9, written: 9 });
  const second = await importLegacy(source, db);
  expect(second.importedBefore).toEqual(expect.any(String));
  expect(second.counts).toEqual({});
}

let redis: RedisClientType | undefined;
beforeAll(async () => {
  const url = await redisAvailable();
  if (url) {
    redis = createClient({ url });
    await redis.connect();
  }
});
afterAll(async () => {
  await redis?.close();
});

describeEngines('the earlier layout moved into the tables', (_engine, open) => {
  engineTest('from its SQLite file: every record, once', async () => {
    const { db } = await open();
    const dir = legacyDataDir();
    // Its short-lived documents (sessions, links) were live when it was made.
    const source = sqliteSource(sqliteFile(dir), () => Date.parse(expected.generatedAt))!;
    try {
      await importTwice(source, db);
      await accountedFor(db, expected.sqlite.collections);
      const bob = await db.selectFrom('accounts').selectAll().where('emailKey', '=', 'bob@example.test').executeTakeFirstOrThrow();
      expect(bob).toMatchObject({ email: 'bob@example.test', plan: expect.any(String), status: 'active', unverified: 0 });
      expect(bob.passwordHash).toMatch(/^\$argon2id\$/);
    } finally {
      await source.close();
    }
  });

  engineTest('from its Redis: every record, once, and Redis left as it was', async () => {
    if (!redis) return;
    const { db } = await open();
    const prefix = await loadLegacyRedis(redis);
    const before = (await redis.keys(`${prefix}*`)).length;
    const source = redisSource(redis, prefix);
    await importTwice(source, db);
    await accountedFor(db, expected.redis.collections);
    expect((await redis.keys(`${prefix}*`)).length).toBe(before);
    for (const key of await redis.keys(`${prefix}*`)) await redis.del(key);
  });
});
