// Kysely over node:sqlite (shipped with Node 24: no native build, no dependency). Kysely's own SqliteDialect
// expects better-sqlite3's statements, which tell whether they return rows (`reader`) and take their
// parameters as one array; node:sqlite's take them spread and tell it by their columns. A transaction
// begins IMMEDIATE, so it holds the write lock from its first statement: a deferred one that read first
// could not write after another connection of this file (the counters' store) had (SQLITE_BUSY_SNAPSHOT).
import type { DatabaseSync, StatementSync, SQLInputValue } from 'node:sqlite';
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDatabase } from 'kysely';

/** Prepared statements kept per SQL text (a builder makes the same few texts again and again). */
const KEPT_STATEMENTS = 500;

function asKyselyDatabase(db: DatabaseSync): SqliteDatabase {
  const kept = new Map<string, StatementSync>();
  const statement = (sql: string) => {
    let s = kept.get(sql);
    if (s === undefined) {
      if (kept.size >= KEPT_STATEMENTS) kept.clear();
      s = db.prepare(sql);
      kept.set(sql, s);
    }
    return s;
  };
  return {
    close: () => {
      if (db.isOpen) db.close();
    },
    prepare(sql) {
      const s = statement(sql);
      const args = (p: ReadonlyArray<unknown>) => p as SQLInputValue[];
      return {
        reader: s.columns().length > 0,
        all: (p) => s.all(...args(p)),
        run: (p) => s.run(...args(p)),
        iterate: (p) => s.iterate(...args(p)),
      };
    },
  };
}

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

export class NodeSqliteDialect extends SqliteDialect {
  private readonly database: SqliteDatabase;
  constructor(db: DatabaseSync) {
    const database = asKyselyDatabase(db);
    super({ database });
    this.database = database;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver({ database: this.database });
  }
}
