// The database behind the portal and the keys: SQLite in DATA_DIR (uua.sqlite, beside the counters' tables)
// by default, PostgreSQL when DATABASE_URL is set (for several instances). One typed query layer over both
// (Kysely: docs/decisions); the schema is brought up to date on open.
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { CamelCasePlugin, Kysely, PostgresDialect } from 'kysely';
import { NodeSqliteDialect } from './sqlite-dialect.js';
import { migrateToLatest } from './migrate.js';
import type { Engine } from './migration.js';
import type { Database } from './tables.js';

export type { Engine } from './migration.js';
export type Db = Kysely<Database>;

export interface OpenDatabase {
  db: Db;
  engine: Engine;
  /** Where it lives, for logs and messages (a file path, or the URL without its password). */
  where: string;
  /** SQLite's folder (DATA_DIR): what is kept beside its file, the request log's calls (engine/db/call-files.ts). */
  dir?: string;
  close(): Promise<void>;
}

export const sqliteFile = (dataDir: string) => path.join(dataDir, 'uua.sqlite');

const INT8 = 20;

function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

/**
 * Written beside uua.sqlite once its schema is in place, so that a start finding the file missing, empty or
 * without tables can tell a database that was lost (refused) from a new install (created).
 */
export const installedMarker = (dataDir: string) => path.join(dataDir, 'uua.installed');

/** Opens (and migrates) the database: `databaseUrl` for PostgreSQL, else SQLite in `dataDir`. */
export async function openDatabase(o: { dataDir: string; databaseUrl?: string; migrate?: boolean }): Promise<OpenDatabase> {
  const opened = o.databaseUrl ? await openPostgres(o.databaseUrl) : openSqliteFile(sqliteFile(o.dataDir), o.dataDir);
  if (o.migrate !== false) {
    try {
      await migrateToLatest(opened.db as Kysely<unknown>, opened.engine);
    } catch (err) {
      await opened.close();
      throw err;
    }
    if (opened.engine === 'sqlite' && !fs.existsSync(installedMarker(o.dataDir)))
      fs.writeFileSync(
        installedMarker(o.dataDir),
        `${new Date().toISOString()}: uua.sqlite created here; if it goes missing or empty, the server refuses to start\n`,
      );
  }
  return opened;
}

/**
 * Refuses to start when the SQLite database this DATA_DIR held (its marker says so) is missing, empty or
 * without its tables: starting would make a new, empty one and answer every key 401. Called before anything
 * opens the file (the counters' store shares it).
 */
export function refuseLostDatabase(dataDir: string): void {
  const file = sqliteFile(dataDir);
  const marker = installedMarker(dataDir);
  if (!fs.existsSync(marker)) return;
  const state = !fs.existsSync(file)
    ? 'missing'
    : fs.statSync(file).size === 0
      ? 'empty (0 bytes)'
      : hasSchema(file)
        ? undefined
        : 'without its tables';
  if (state === undefined) return;
  const since = fs.readFileSync(marker, 'utf8').slice(0, 24);
  throw new Error(
    `${file} is ${state}, but this DATA_DIR held a database (${marker}, written ${since}): ` +
      `restore uua.sqlite from a backup (docs/operations.md, "Backups"), or, to start a new install here on purpose, delete ${marker}`,
  );
}

/** True when the file holds the migrations' table (read only: nothing is created). */
function hasSchema(file: string): boolean {
  const raw = new DatabaseSync(file, { readOnly: true });
  try {
    return raw.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() !== undefined;
  } finally {
    raw.close();
  }
}

function openSqliteFile(file: string, dataDir: string): OpenDatabase {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  refuseLostDatabase(dataDir);
  const raw = new DatabaseSync(file);
  raw.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;');
  try {
    fs.chmodSync(file, 0o600);
  } catch {
    /* not ours to change: keep going */
  }
  const db = new Kysely<Database>({ dialect: new NodeSqliteDialect(raw), plugins: [new CamelCasePlugin()] });
  return { db, engine: 'sqlite', where: file, dir: dataDir, close: () => db.destroy() };
}

async function openPostgres(url: string): Promise<OpenDatabase> {
  // Imported here only: a server on SQLite never loads the driver (about 10 MB resident and 30 ms at start,
  // docs/decisions/embedded-memory.md).
  const { default: pg } = await import('pg');
  /** PostgreSQL's bigint (epoch ms, counts) as a JS number: every value kept is below 2^53. */
  const types = new pg.TypeOverrides();
  types.setTypeParser(INT8, 'text', Number);
  const pool = new pg.Pool({ connectionString: url, max: 10, types });
  // An idle client's error (the server restarted) must not end the process: the pool makes a new one.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins: [new CamelCasePlugin()] });
  return { db, engine: 'postgres', where: redactUrl(url), close: () => db.destroy() };
}
