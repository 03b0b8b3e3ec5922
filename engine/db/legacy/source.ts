// Where the data of the earlier layout lives: documents in named collections, in the `docs` table of
// DATA_DIR/uua.sqlite (short-lived ones under a collection name starting with '~', with an expiry), or in
// Redis (a collection is the hash `<prefix><coll>`, a short-lived document the string `<prefix><coll>:<id>`).
// Read only: the importer copies, it never deletes what it read.
import fs from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import type { RedisClientType } from 'redis';

export interface LegacyDoc<T = unknown> {
  id: string;
  doc: T;
  /** Epoch ms when a short-lived document expires. */
  expiresAt?: number;
}

export interface LegacySource {
  /** Names the source in the imports table and in messages: 'sqlite-docs' or 'redis:<prefix>'. */
  readonly name: string;
  docs<T>(coll: string): Promise<LegacyDoc<T>[]>;
  /** Short-lived documents that have not expired. */
  tempDocs<T>(coll: string): Promise<LegacyDoc<T>[]>;
  /** How many keys and accounts it holds: what makes an unmigrated deployment worth refusing. */
  held(): Promise<number>;
  close(): Promise<void>;
}

const SQLITE_SOURCE = 'sqlite-docs';

/** The earlier layout's table in a SQLite file, or undefined when the file has none. `now`: what has expired. */
export function sqliteSource(file: string, now = Date.now): LegacySource | undefined {
  if (!fs.existsSync(file)) return undefined;
  const db = new DatabaseSync(file, { readOnly: true });
  const hasDocs = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'docs'").get();
  if (!hasDocs) {
    db.close();
    return undefined;
  }
  const rows = (coll: string, live: boolean) =>
    (
      db
        .prepare(`SELECT id, body, expires FROM docs WHERE coll = ?${live ? ' AND expires > ?' : ''}`)
        .all(...(live ? [coll, now()] : [coll])) as {
        id: string;
        body: string;
        expires: number | null;
      }[]
    ).map((r) => ({ id: r.id, doc: JSON.parse(r.body) as never, ...(r.expires !== null && { expiresAt: Number(r.expires) }) }));
  return {
    name: SQLITE_SOURCE,
    docs: async (coll) => rows(coll, false),
    tempDocs: async (coll) => rows(`~${coll}`, true),
    held: async () => Number((db.prepare("SELECT count(*) AS n FROM docs WHERE coll IN ('keys', 'accounts')").get() as { n: number }).n),
    close: async () => db.close(),
  };
}

export function redisSource(redis: RedisClientType, prefix: string): LegacySource {
  const k = (coll: string) => prefix + coll;
  return {
    name: `redis:${prefix}`,
    async docs(coll) {
      return Object.entries(await redis.hGetAll(k(coll))).map(([id, v]) => ({ id, doc: JSON.parse(v) as never }));
    },
    async tempDocs(coll) {
      const head = `${k(coll)}:`;
      const out: LegacyDoc<never>[] = [];
      for await (const batch of redis.scanIterator({ MATCH: `${head.replace(/[*?[\]\\]/g, '\\$&')}*`, COUNT: 500 })) {
        for (const key of batch) {
          const [value, ttl] = await Promise.all([redis.get(key), redis.pTTL(key)]);
          if (value && ttl > 0) out.push({ id: key.slice(head.length), doc: JSON.parse(value) as never, expiresAt: Date.now() + ttl });
        }
      }
      return out;
    },
    held: async () => (await redis.hLen(k('keys'))) + (await redis.hLen(k('accounts'))),
    close: async () => {},
  };
}
