// Databases for tests: a fresh SQLite file, or a fresh database on the PostgreSQL of TEST_DATABASE_URL
// (default postgres://postgres:postgres@127.0.0.1:5432/test, Debian's postgresql that .ci/run starts), dropped after the file's
// last test. Under CI=true a PostgreSQL that does not answer is a failure; elsewhere its tests are skipped.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client, ClientConfig } from 'pg';
import { openDatabase, type Engine, type OpenDatabase } from '../../engine/db/open.js';

const BASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/test';
let reachable: Promise<boolean> | undefined;
// What the file's tests made, undone after its last test (registered here, as a test may not add hooks).
const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

/** A client of the driver, imported when first needed: a test of a server on SQLite never loads it. */
const client = async (config: ClientConfig): Promise<Client> => new (await import('pg')).default.Client(config);

/**
 * Runs `undo` after the file's tests, before what was made earlier is undone (cleanups run newest first): an app
 * on a fresh PostgreSQL database is closed before its database is dropped. A file's own afterAll runs after
 * this module's (hooks run in the order they were declared), too late for that.
 */
export function undoFirst(undo: () => unknown): void {
  cleanups.push(undo);
}

/** Whether PostgreSQL answers at TEST_DATABASE_URL; under CI=true its absence is a failure. */
function postgresAvailable(): Promise<boolean> {
  reachable ??= (async () => {
    const c = await client({ connectionString: BASE_URL, connectionTimeoutMillis: 1000 });
    c.on('error', () => {});
    try {
      await c.connect();
      await c.end();
      return true;
    } catch {
      if (process.env.CI === 'true') throw new Error(`PostgreSQL is required under CI=true but ${BASE_URL} does not answer`);
      console.warn(`PostgreSQL at ${BASE_URL} does not answer: PostgreSQL tests skipped`);
      return false;
    }
  })();
  return reachable;
}

async function admin<T>(run: (c: Client) => Promise<T>): Promise<T> {
  const c = await client({ connectionString: BASE_URL });
  await c.connect();
  try {
    return await run(c);
  } finally {
    await c.end();
  }
}

/**
 * A URL of a new, empty database on the test server, dropped after the file's last test: what DATABASE_URL
 * is set to for a test app or a child process. A database, not a schema: schema migrations read the
 * server's catalog, which another file's schema dropped at that moment would break. Undefined when
 * PostgreSQL is not there.
 */
export async function freshPostgresUrl(): Promise<string | undefined> {
  if (!(await postgresAvailable())) return undefined;
  const name = `t_${crypto.randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  cleanups.push(() => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)));
  const url = new URL(BASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A migrated database of the engine, in a directory or database of its own (closed and dropped after the file's tests). */
export async function freshDatabase(engine: Engine): Promise<OpenDatabase & { dataDir: string; url?: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-db-'));
  cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const url = engine === 'postgres' ? await freshPostgresUrl() : undefined;
  const opened = await openDatabase({ dataDir, databaseUrl: url });
  cleanups.push(() => opened.close());
  return { ...opened, dataDir, url };
}

/**
 * Runs a describe block once per engine: SQLite always; PostgreSQL where it answers (always under CI).
 * `open` gives a fresh migrated database of that engine.
 */
export function describeEngines(title: string, body: (engine: Engine, open: () => Promise<OpenDatabase>) => void): void {
  describe.each(['sqlite', 'postgres'] as const)(`${title} (%s)`, (engine) => {
    let skip = false;
    beforeAll(async () => {
      skip = engine === 'postgres' && !(await postgresAvailable());
    });
    body(engine, async () => {
      if (skip) throw new SkipEngine();
      return freshDatabase(engine);
    });
  });
}

/** Thrown by describeEngines' `open` when PostgreSQL is not there outside CI: `engineTest` passes quietly on it. */
class SkipEngine extends Error {}

/** A test that passes without running when its engine is not available (outside CI only). */
export function engineTest(name: string, fn: () => Promise<void>, timeout?: number): void {
  test(
    name,
    async () => {
      try {
        await fn();
      } catch (err) {
        if (err instanceof SkipEngine) return;
        throw err;
      }
    },
    timeout,
  );
}
