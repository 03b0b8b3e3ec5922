// Versioned migrations, run in name order by Kysely's Migrator at every start (and by `npm run migrate`):
// each runs once per database, under the Migrator's lock, so instances starting together run it once.
import { Migrator, type MigrationResultSet } from 'kysely/migration';
import { sql, type Kysely } from 'kysely';
import { keys } from './migrations/0001-keys.js';
import { accounts } from './migrations/0002-accounts.js';
import { webhooks } from './migrations/0003-webhooks.js';
import { billing } from './migrations/0004-billing.js';
import { health } from './migrations/0005-health.js';
import { shared } from './migrations/0006-shared.js';
import { hosted } from './migrations/0007-hosted.js';
import { accountCounts } from './migrations/0008-account-counts.js';
import { twoFactor } from './migrations/0009-two-factor.js';
import { requestLog } from './migrations/0010-request-log.js';
import { requestLogBatches } from './migrations/0011-request-log-batches.js';
import { requestLogCallFiles } from './migrations/0012-request-log-call-files.js';
import { requestLogCallBytes } from './migrations/0013-request-log-call-bytes.js';
import type { Engine, Migration } from './migration.js';

/** Every migration, by its name; a new one is added at the end, never renamed or changed once released. */
export const MIGRATIONS: Record<string, Migration> = {
  '0001-keys': keys,
  '0002-accounts': accounts,
  '0003-webhooks': webhooks,
  '0004-billing': billing,
  '0005-health': health,
  '0006-shared': shared,
  '0007-hosted': hosted,
  '0008-account-counts': accountCounts,
  '0009-two-factor': twoFactor,
  '0010-request-log': requestLog,
  '0011-request-log-batches': requestLogBatches,
  '0012-request-log-call-files': requestLogCallFiles,
  '0013-request-log-call-bytes': requestLogCallBytes,
};

/** Runs the migrations this database has not run yet; returns their names. Throws with the one that failed. */
export async function migrateToLatest(db: Kysely<unknown>, engine: Engine): Promise<string[]> {
  // The Migrator looks for its tables in `public` unless told: on PostgreSQL, the schema of the search path.
  const schema = engine === 'postgres' ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s : undefined;
  const migrator = new Migrator({
    ...(schema && { migrationTableSchema: schema }),
    db,
    provider: {
      getMigrations: async () =>
        Object.fromEntries(Object.entries(MIGRATIONS).map(([name, m]) => [name, { up: (d: Kysely<unknown>) => m.up(d, engine) }])),
    },
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
  });
  const { error, results }: MigrationResultSet = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error) throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? String(error)}`);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
