// Opens the store of counters, throttles, capped lists and the change bus the configuration asks for: Redis
// when REDIS_URL is set (shared by every instance), else SQLite in DATA_DIR (uua.sqlite, beside the tables).
import type { RedisClientType } from 'redis';
import type { Logger } from 'pino';
import { SqliteStore } from './sqlite.js';
import { RedisStore } from './redis.js';
import { sqliteFile } from '../db/open.js';

export type { Store } from './types.js';

export function openSqlite(dataDir: string): SqliteStore {
  return new SqliteStore(sqliteFile(dataDir));
}

export async function openRedisStore(redis: RedisClientType, prefix: string, url: string, log?: Logger): Promise<RedisStore> {
  const store = new RedisStore(redis, prefix, url.replace(/\/\/[^@/]*@/, '//'), log);
  await store.listen().catch((err: Error) => log?.warn({ err: err.message }, 'store: cannot hear other instances yet'));
  return store;
}
