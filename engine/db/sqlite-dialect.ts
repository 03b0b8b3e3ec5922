// Kysely over node:sqlite (shipped with Node 24: no native build, no dependency). Kysely's own SqliteDialect
// expects better-sqlite3's statements, which tell whether they return rows (`reader`) and take their
// parameters as one array; node:sqlite's take them spread and tell it by their columns. A transaction
// begins IMMEDIATE, so it holds the write lock from its first statement: a deferred one that read first
// could not write after another connection of this file (the counters' store) had (SQLITE_BUSY_SNAPSHOT).
// That lock is waited for without holding the event loop, and row locks (FOR UPDATE) are left out: the
// transaction holds the whole file already, so code that locks rows on PostgreSQL runs here unchanged.
import type { DatabaseSync, StatementSync, SQLInputValue } from 'node:sqlite';
import {
  CompiledQuery,
  SqliteDialect,
  SqliteDriver,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Driver,
  type QueryCompiler,
  type SelectModifierNode,
  type SqliteDatabase,
  type SqliteDialectConfig,
} from 'kysely';
import { whenFree } from './sqlite-busy.js';

/** Prepared statements kept per SQL text (a builder makes the same few texts again and again). */
const KEPT_STATEMENTS = 500;
/** PostgreSQL's row locks, which SQLite has no syntax for. */
const ROW_LOCKS = new Set<SelectModifierNode['modifier']>([
  'ForUpdate',
  'ForNoKeyUpdate',
  'ForShare',
  'ForKeyShare',
  'NoWait',
  'SkipLocked',
]);

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
  constructor(
    config: SqliteDialectConfig,
    private readonly busyTimeoutMs: number,
    private readonly raw: DatabaseSync,
  ) {
    super(config);
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // SQLite may have ended the transaction itself (SQLITE_FULL, SQLITE_IOERR): Kysely would then throw
    // "cannot rollback - no transaction is active" in place of the error that ended it.
    if (this.raw.isTransaction) await super.rollbackTransaction(connection);
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    // Another connection of this process (the counters' store, another open of the file) may hold the
    // write lock across awaits: SQLite's own busy wait would block the event loop that lets it finish, so
    // the lock is asked for without waiting, again every few milliseconds, as long as busy_timeout says.
    const run = (sql: string) => connection.executeQuery(CompiledQuery.raw(sql));
    await run('pragma busy_timeout = 0');
    try {
      await whenFree(() => run('begin immediate'), this.busyTimeoutMs);
    } finally {
      await run(`pragma busy_timeout = ${this.busyTimeoutMs}`);
    }
  }
}

class NodeSqliteQueryCompiler extends SqliteQueryCompiler {
  protected override visitSelectModifier(node: SelectModifierNode): void {
    if (node.modifier && ROW_LOCKS.has(node.modifier)) return;
    super.visitSelectModifier(node);
  }
}

export class NodeSqliteDialect extends SqliteDialect {
  private readonly database: SqliteDatabase;
  private readonly busyTimeoutMs: number;
  constructor(private readonly raw: DatabaseSync) {
    const database = asKyselyDatabase(raw);
    super({ database });
    this.database = database;
    // The connection's own setting (engine/db/open.ts), kept for the waits of its transactions.
    this.busyTimeoutMs = Number((raw.prepare('pragma busy_timeout').get() as { timeout?: number } | undefined)?.timeout ?? 0);
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver({ database: this.database }, this.busyTimeoutMs, this.raw);
  }
  override createQueryCompiler(): QueryCompiler {
    return new NodeSqliteQueryCompiler();
  }
}
