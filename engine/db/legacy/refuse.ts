// What the server checks before it serves: that no data of an earlier layout, or of SQLite's tables when
// DATABASE_URL now names PostgreSQL, is left where it would no longer be read. It refuses to start, saying to
// run `npm run migrate`, rather than start on an empty database beside the real one.
import type { RedisClientType } from 'redis';
import { sqliteFile, type Db } from '../open.js';
import { unmigrated } from './import.js';
import { redisSource, sqliteSource } from './source.js';
import { tablesLeftBehind } from './sqlite-tables.js';

export async function dataLeftBehind(o: {
  db: Db;
  dataDir: string;
  databaseUrl?: string;
  redis?: { client: RedisClientType; prefix: string };
}): Promise<string | undefined> {
  const local = sqliteSource(sqliteFile(o.dataDir));
  if (local) {
    try {
      const problem = await unmigrated(local, o.db);
      if (problem) return problem;
    } finally {
      await local.close();
    }
  }
  if (o.redis?.client.isReady) {
    const problem = await unmigrated(redisSource(o.redis.client, o.redis.prefix), o.db);
    if (problem) return problem;
  }
  return o.databaseUrl ? tablesLeftBehind(sqliteFile(o.dataDir), o.db) : undefined;
}
