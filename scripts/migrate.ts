// `npm run migrate`: brings the database's schema up to date and moves an earlier layout's data (documents
// in DATA_DIR/uua.sqlite, and in Redis when REDIS_URL is set) into the tables, and, when DATABASE_URL names
// PostgreSQL, the tables of DATA_DIR/uua.sqlite too; then the metadata hosted blobs kept beside their bytes
// (DATA_DIR/blobs, or the S3_BUCKET), printing what it moved. Run with the deployment's own DATA_DIR,
// REDIS_URL, REDIS_PREFIX, DATABASE_URL and S3_*; safe to run again.
import { loadConfig } from '../server/config.js';
import { openDatabase, sqliteFile } from '../engine/db/open.js';
import { migrateToLatest } from '../engine/db/migrate.js';
import { importLegacy, type ImportResult } from '../engine/db/legacy/import.js';
import { redisSource, sqliteSource, type LegacySource } from '../engine/db/legacy/source.js';
import { copySqliteTables } from '../engine/db/legacy/sqlite-tables.js';
import { openSidecars } from '../features/hosting/blobs.js';
import { importSidecars } from '../features/hosting/sidecars.js';
import { createLogger } from '../engine/infra/logger.js';

const config = loadConfig();
const database = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, migrate: false });
const closers: (() => Promise<unknown>)[] = [() => database.close()];

function report(r: ImportResult) {
  if (r.importedBefore) {
    console.log(`${r.source}: moved on ${r.importedBefore}; nothing read again`);
    return;
  }
  const lines = Object.entries(r.counts).map(
    ([table, c]) => `  ${table}: ${c.written} of ${c.read}${c.written < c.read ? ' (the rest were there already)' : ''}`,
  );
  console.log(`${r.source}: ${lines.length ? 'moved' : 'nothing to move'}`);
  for (const l of [...lines, ...(r.notes ?? [])]) console.log(l.startsWith('  ') ? l : `  ${l}`);
}

try {
  const ran = await migrateToLatest(database.db as never, database.engine);
  console.log(`schema of ${database.where}: ${ran.length ? `ran ${ran.join(', ')}` : 'up to date'}`);
  const sources: LegacySource[] = [];
  const local = sqliteSource(sqliteFile(config.dataDir));
  if (local) sources.push(local);
  if (config.redisUrl) {
    const { createClient } = await import('redis');
    const client = createClient({ url: config.redisUrl });
    await client.connect();
    closers.push(() => client.close());
    sources.push(redisSource(client as never, config.redisPrefix));
  }
  for (const source of sources) {
    closers.push(() => source.close());
    report(await importLegacy(source, database.db));
  }
  // Moving from one machine's SQLite to PostgreSQL: the tables themselves come along.
  const tables = config.databaseUrl ? await copySqliteTables(sqliteFile(config.dataDir), database.db) : undefined;
  if (tables) report(tables);
  if (!sources.length && !tables) console.log('no earlier layout found: nothing to move');
  // After the tables: a copy from SQLite to PostgreSQL brings the rows of sidecars moved on SQLite before.
  const sidecars = openSidecars(config, createLogger(config.logLevel));
  closers.push(async () => sidecars.close());
  report(await importSidecars(sidecars, database.db));
} catch (err) {
  console.error(`migrate: ${(err as Error).message}`);
  process.exitCode = 1;
} finally {
  for (const close of closers.reverse()) await close();
}
