// The embedded store: one SQLite file under DATA_DIR through node:sqlite (in Node 24, no native build, no
// dependency), in WAL mode so the server and the CLI can use it at once. Another process's announcement is
// a row's count it raises; noticed through PRAGMA data_version, polled four times a second, then that count,
// and told as '*'. Other commits are not told: the request log and the counters write to this file many
// times a second, and each would make every process forget the keys it remembers (engine/access/identify.ts).
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { Store, WriteOp } from './types.js';
import { rollBack, whenFree } from '../db/sqlite-busy.js';
import { isStorageFull, storage } from '../infra/storage-full.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS docs (coll TEXT NOT NULL, id TEXT NOT NULL, body TEXT NOT NULL, expires INTEGER, PRIMARY KEY (coll, id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS counters (coll TEXT NOT NULL, id TEXT NOT NULL, field TEXT NOT NULL, value INTEGER NOT NULL, expires INTEGER NOT NULL, PRIMARY KEY (coll, id, field)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS lists (seq INTEGER PRIMARY KEY AUTOINCREMENT, list TEXT NOT NULL, item TEXT NOT NULL, expires INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS lists_by_name ON lists (list, seq);
CREATE TABLE IF NOT EXISTS announcements (topic TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
`;
// Short-lived documents live under a name space of their own ('~<coll>'), apart from the records an earlier
// layout kept in this table (read only by `npm run migrate`, engine/db/legacy/).
const TEMP = '~';
/** How long a write waits for a lock another connection holds. */
const BUSY_GIVE_UP_MS = 10_000;

export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  private readonly db: DatabaseSync;
  private readonly s: Record<string, StatementSync>;
  private readonly listeners: ((topic: string) => void)[] = [];
  private readonly poll: NodeJS.Timeout;
  private readonly sweep: NodeJS.Timeout;
  private version: number;
  /** The announcements made so far by every process (their counts' sum). */
  private announced: number;

  constructor(readonly where: string) {
    fs.mkdirSync(path.dirname(where), { recursive: true });
    this.db = new DatabaseSync(where);
    // No busy wait here: the tables' connection to this file (engine/db/open.ts) may hold the write lock
    // across awaits of a transaction, and a synchronous wait would hold the very event loop that ends it.
    // A write that finds the file locked tries again a little later (write, below).
    this.db.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 0; PRAGMA synchronous = NORMAL;');
    this.db.exec(SCHEMA);
    try {
      fs.chmodSync(where, 0o600);
    } catch {
      /* not ours to change: keep going */
    }
    const p = (sql: string) => this.db.prepare(sql);
    this.s = {
      put: p(
        'INSERT INTO docs (coll, id, body, expires) VALUES (?, ?, ?, ?) ON CONFLICT (coll, id) DO UPDATE SET body = excluded.body, expires = excluded.expires',
      ),
      listLive: p('SELECT id, body FROM docs WHERE coll = ? AND expires > ?'),
      add: p(
        'INSERT INTO counters (coll, id, field, value, expires) VALUES (?, ?, ?, ?, ?) ON CONFLICT (coll, id, field) DO UPDATE SET value = value + excluded.value, expires = excluded.expires',
      ),
      counters: p('SELECT field, value FROM counters WHERE coll = ? AND id = ? AND expires > ?'),
      push: p('INSERT INTO lists (list, item, expires) VALUES (?, ?, ?)'),
      trim: p('DELETE FROM lists WHERE list = ? AND seq NOT IN (SELECT seq FROM lists WHERE list = ? ORDER BY seq DESC LIMIT ?)'),
      recent: p('SELECT item FROM lists WHERE list = ? AND expires > ? ORDER BY seq DESC LIMIT ?'),
      version: p('PRAGMA data_version'),
      announce: p('INSERT INTO announcements (topic, n) VALUES (?, 1) ON CONFLICT (topic) DO UPDATE SET n = n + 1'),
      announced: p('SELECT coalesce(sum(n), 0) AS n FROM announcements'),
    };
    this.version = this.dataVersion();
    this.announced = this.announcements();
    this.poll = setInterval(() => {
      let v: number;
      let n: number;
      try {
        v = this.dataVersion();
        if (v === this.version) return;
        n = this.announcements();
      } catch {
        return; // see dropExpired
      }
      this.version = v;
      if (n !== this.announced) {
        this.announced = n;
        this.emit('*');
      }
    }, 250);
    this.poll.unref();
    this.sweep = setInterval(() => this.dropExpired(), 60_000);
    this.sweep.unref();
    this.dropExpired();
  }

  async tempEntries<T>(coll: string) {
    return (this.s.listLive.all(TEMP + coll, Date.now()) as { id: string; body: string }[]).map((r): [string, T] => [
      r.id,
      JSON.parse(r.body) as T,
    ]);
  }

  async write(ops: WriteOp[]) {
    if (!ops.length) return;
    try {
      await whenFree(() => this.writeNow(ops), BUSY_GIVE_UP_MS);
    } catch (err) {
      if (isStorageFull(err)) storage.refused();
      throw err;
    }
    storage.written();
  }

  private writeNow(ops: WriteOp[]) {
    const now = Date.now();
    this.db.exec('BEGIN IMMEDIATE');
    try {
      for (const op of ops) {
        if (op.kind === 'add') {
          for (const [field, by] of Object.entries(op.add)) this.s.add.run(op.coll, op.id, field, by, now + op.ttlMs);
        } else if (op.kind === 'push') {
          for (const item of op.items) this.s.push.run(op.list, item, now + op.ttlMs);
          this.s.trim.run(op.list, op.list, op.cap);
        } else {
          this.s.put.run(TEMP + op.coll, op.id, JSON.stringify(op.doc), now + op.ttlMs);
        }
      }
      this.db.exec('COMMIT');
    } catch (err) {
      rollBack(this.db);
      throw err;
    }
  }
  async counters(coll: string, id: string) {
    const out: Record<string, number> = {};
    for (const r of this.s.counters.all(coll, id, Date.now()) as { field: string; value: number }[]) out[r.field] = Number(r.value);
    return out;
  }
  async countersMany(coll: string, ids: string[]) {
    return Promise.all(ids.map((id) => this.counters(coll, id)));
  }
  async recent(list: string, n: number) {
    return (this.s.recent.all(list, Date.now(), n) as { item: string }[]).map((r) => r.item);
  }

  async announce(topic: string) {
    // Our own commits do not change our data_version: this process's listeners are told directly.
    this.emit(topic);
    try {
      await whenFree(() => {
        this.s.announce.run(topic);
        // Counted with ours: whatever was announced before it, this process's listeners were just told.
        this.announced = this.announcements();
      }, BUSY_GIVE_UP_MS);
    } catch (err) {
      // Unheard elsewhere: the other processes look a key up again within identify.ts's LOOKUP_TTL_MS.
      if (isStorageFull(err)) storage.refused();
    }
  }
  onAnnounce(listener: (topic: string) => void) {
    this.listeners.push(listener);
  }
  async close() {
    clearInterval(this.poll);
    clearInterval(this.sweep);
    if (this.db.isOpen) this.db.close();
  }

  private announcements(): number {
    return Number((this.s.announced.get() as { n: number | bigint }).n);
  }

  private emit(topic: string) {
    for (const l of this.listeners) l(topic);
  }
  private dataVersion(): number {
    return Number((this.s.version.get() as { data_version: number }).data_version);
  }
  // A timer's throw would end the process: a file that is locked, full or damaged is left to the next sweep,
  // while the requests that meet the same fault answer and log it.
  private dropExpired() {
    try {
      this.dropExpiredNow();
    } catch {
      /* the next sweep drops them */
    }
  }
  private dropExpiredNow() {
    const now = Date.now();
    this.db.prepare('DELETE FROM docs WHERE expires IS NOT NULL AND expires <= ?').run(now);
    this.db.prepare('DELETE FROM counters WHERE expires <= ?').run(now);
    this.db.prepare('DELETE FROM lists WHERE expires <= ?').run(now);
  }
}
