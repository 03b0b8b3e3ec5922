// Opens the store the configuration asks for, and carries an installation's data over when it changes: an
// installation that moves to Redis with data in its SQLite file is refused until `npm run keys -- migrate`
// has copied it (never dropped quietly).
import fs from 'node:fs';
import path from 'node:path';
import type { RedisClientType } from 'redis';
import type { Logger } from 'pino';
import { SqliteStore } from './sqlite.js';
import { RedisStore } from './redis.js';
import type { Store } from './types.js';

export type { Store } from './types.js';

/** Collections copied by a migration: everything that is not short-lived or rebuilt by use. */
const DURABLE = [
  'keys',
  'accounts',
  'account-emails',
  'invites',
  'key-last-used',
  'webhooks',
  'plan-changes',
  'billing',
  'billing-customers',
  'billing-events',
];
const MIGRATED = 'migrated-from';

export const sqlitePath = (dataDir: string) => path.join(dataDir, 'uua.sqlite');

export function openSqlite(dataDir: string): SqliteStore {
  return new SqliteStore(sqlitePath(dataDir));
}

export async function openRedisStore(
  redis: RedisClientType,
  prefix: string,
  url: string,
  dataDir: string,
  log?: Logger,
): Promise<RedisStore> {
  const store = new RedisStore(redis, prefix, url.replace(/\/\/[^@/]*@/, '//'), log);
  if (redis.isReady) await refuseUnmigrated(store, dataDir);
  await store.listen().catch((err: Error) => log?.warn({ err: err.message }, 'store: cannot hear other instances yet'));
  return store;
}

async function refuseUnmigrated(store: RedisStore, dataDir: string) {
  const file = sqlitePath(dataDir);
  if (!fs.existsSync(file)) return;
  const local = new SqliteStore(file);
  try {
    let held = 0;
    for (const coll of ['keys', 'accounts']) held += await local.count(coll);
    if (!held) return;
    if (await store.get(MIGRATED, file)) return;
    throw new Error(
      `${file} holds ${held} keys and accounts that are not in Redis. ` +
        'Run `REDIS_URL=… npm run keys -- migrate` to copy them to Redis (or move the file away to start empty).',
    );
  } finally {
    await local.close();
  }
}

/** Copies every durable document from one store to another; returns how many. */
export async function migrate(from: Store, to: Store): Promise<number> {
  let n = 0;
  for (const coll of DURABLE) {
    const docs = await from.entries(coll);
    if (!docs.length) continue;
    await to.write(docs.map(([id, doc]) => ({ kind: 'put' as const, coll, id, doc })));
    n += docs.length;
  }
  await to.put(MIGRATED, from.where, { at: new Date().toISOString(), documents: n });
  await to.announce('keys');
  return n;
}
