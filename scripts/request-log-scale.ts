// The request log at millions of calls: seeds the batches table with `--rows` calls (default 5,000,000) over
// the last 30 days, a fifth of them one enterprise account's and the rest spread over 999 others, then starts
// the server on it and times, as the median and the slowest of `--runs` over HTTP, what the inspector asks:
// the account's first page through the API and the portal (plain, by status class, by endpoint, by code), the
// next page by cursor, and a request-id look-up (the API, the portal, and the operators' search across every
// account), each for an id the service made (a UUIDv7, found by its time) and for a caller's own X-Request-Id
// (every tenth call: searched at any time).
//   npm run request-log-scale                                # SQLite, 5,000,000 calls
//   npm run request-log-scale -- --engine postgres --rows 1000000
//   npm run request-log-scale -- --busy                      # the account's calls in bursts of --burst (100)
// The calls are grouped as the log's writer groups them (features/request-log/request-log.ts): per owner, a
// batch closes when a call comes more than 100 ms after its first one, at 500 calls, or when the drop day
// changes. At 5,000,000 calls in 30 days (about two a second over 1,000 owners) almost every batch holds one
// call: the most rows the table can have for these calls, the worst case for its reads and its size. With
// --busy the measured account sends its calls in bursts within 100 ms, so its batches hold --burst calls each.
// PostgreSQL: SCALE_DATABASE_URL (default postgres://postgres:postgres@127.0.0.1:5432/test), in a schema of
// its own, dropped afterwards. The batches are written in bulk (node:sqlite's prepared statement in large
// transactions, PostgreSQL's `unnest` of column arrays), not through the log's writer: what is measured is
// reading them.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { createApp } from '../server/app.js';
import { openDatabase, sqliteFile } from '../engine/db/open.js';
import { CallFiles } from '../engine/db/call-files.js';
import { makeDayPartition } from '../engine/db/partitions.js';
import {
  CallBatch,
  CallClock,
  type CallRecord,
  type RequestLogBatchTable,
  type RequestLogNamedTable,
} from '../engine/db/tables/request-log.js';
import { timeOrderedId } from '../engine/request-id.js';
import { hashKey, newKey } from '../engine/access/keystore.js';
import { hashPassword } from '../portal/accounts/passwords.js';
import { DAY_MS, dayOf } from '../features/request-log/records.js';
import { browser } from './portal-visitor.js';

const { values: opts } = parseArgs({
  options: {
    engine: { type: 'string', default: 'sqlite' },
    rows: { type: 'string', default: '5000000' },
    runs: { type: 'string', default: '21' },
    busy: { type: 'boolean', default: false },
    burst: { type: 'string', default: '100' },
  },
});
const ENGINE = opts.engine as 'sqlite' | 'postgres';
const ROWS = Number(opts.rows);
const RUNS = Number(opts.runs);
const BUSY = opts.busy;
const BURST = Number(opts.burst);
if (ENGINE !== 'sqlite' && ENGINE !== 'postgres') throw new Error(`--engine: sqlite or postgres, not ${opts.engine}`);
if (!(ROWS >= 1000) || !(RUNS >= 1) || !(BURST >= 1 && BURST <= 500)) throw new Error('--rows ≥ 1000, --runs ≥ 1, --burst 1 to 500');
const PG_URL = process.env.SCALE_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/test';
const PASSWORD = 'scale-password-1';
const ACCOUNT = 'acc_scale0000000';
const ADMIN = 'acc_scale0000001';
const OWNERS = 1000;
const ENDPOINTS = [
  'tools/ccgen',
  'utilities/wth',
  'utilities/ip',
  'ai/chat',
  'downloaders/tiktok',
  'tts/generate',
  'quotes/random',
  'books/bible',
];
const SPAN_MS = 30 * DAY_MS;
/**
 * The calls of one owner within it share a batch: the writer's flush when these figures were first taken
 * (it writes every second now, so its batches are as full or fuller: this seed has as many rows or more).
 */
const WINDOW_MS = 100;
/** The enterprise plan keeps 30 days: a call's batch goes the day after its 30th. */
const dropDayOf = (at: number) => dayOf(at) + 31;

const started = Date.now();
const now = started;

function log(...words: unknown[]) {
  console.log(`[${((Date.now() - started) / 1000).toFixed(0)} s]`, ...words);
}

/** The time of the i-th call when calls come evenly, oldest first. */
const evenTime = (i: number) => now - SPAN_MS + Math.floor((i / ROWS) * SPAN_MS);
/** With --busy, how far apart the calls of one burst come: all of them within the window, before the next call. */
const BURST_STEP_MS = Math.min(WINDOW_MS, SPAN_MS / ROWS) / BURST;

/**
 * The i-th seeded call: its owner, time, endpoint and answer, all from i. Every fifth call is the measured
 * account's; with --busy its calls come BURST at a time, at the time of the burst's first.
 */
function callOf(i: number) {
  const mine = i % 5 === 0;
  const owner = mine ? ACCOUNT : `acc_scale${String(2 + (i % (OWNERS - 1))).padStart(7, '0')}`;
  let at = evenTime(i);
  if (mine && BUSY) {
    const k = i / 5;
    at = evenTime(5 * (k - (k % BURST))) + Math.floor((k % BURST) * BURST_STEP_MS);
  }
  const r = (i * 2654435761) % 1000;
  const status = r < 30 ? 502 : r < 100 ? 400 : 200;
  return { owner, at, endpoint: ENDPOINTS[i % ENDPOINTS.length], status };
}

/** Every tenth call (of each owner) carries the caller's own X-Request-Id; the others the service's UUIDv7. */
const callersOwn = (i: number) => Math.floor(i / 5) % 10 === 1;
const requestIdOf = (i: number, at: number) =>
  callersOwn(i) ? `seed-${i.toString(36).padStart(8, '0')}-${(i * 7919).toString(16)}` : timeOrderedId(at);

/** Calls looked up by request id, spread over the 30 days: the measured account's (`of` 0) or another's (1). */
function sampleCalls(of: 0 | 1, own: boolean): number[] {
  return Array.from({ length: RUNS }, (_, n) => {
    let k = Math.floor(((n + 1) * Math.floor(ROWS / 5)) / (RUNS + 1));
    if (callersOwn(5 * k) !== own) k = own ? k - (k % 10) + 1 : k + 1;
    return 5 * k + of;
  });
}
const SAMPLES = {
  mine: sampleCalls(0, false),
  mineOwn: sampleCalls(0, true),
  other: sampleCalls(1, false),
  otherOwn: sampleCalls(1, true),
};
/** The request ids the samples were given (UUIDv7s are random past their time), filled as they are seeded. */
const requestIds = new Map<number, string>(Object.values(SAMPLES).flatMap((l) => l.map((i) => [i, ''] as const)));

/** What the seeding made: batches, and the measured account's. */
const made = { batches: 0, accountBatches: 0, accountCalls: 0, largest: 0 };

/**
 * The batch rows of the ROWS calls, as the writer would have written them: per owner, a batch takes the
 * calls within WINDOW_MS of its first, at most 500 (CallBatch.takes), of one drop day. Rows come roughly in
 * time order (as a batch closes).
 */
function* batchRows(files: CallFiles | undefined): Generator<{ row: RequestLogBatchTable; names: RequestLogNamedTable[] }> {
  // The open batches by owner; a Map keeps them in the order they were opened, so the oldest come first.
  const open = new Map<string, { batch: CallBatch; firstAt: number }>();
  // Call ids as the log's writer makes them.
  const clock = new CallClock();
  const close = (owner: string, batch: CallBatch) => {
    open.delete(owner);
    // SQLite's calls go to their day's file as the writer's do; PostgreSQL's rows are gathered by the
    // thousand, their calls in them.
    const row = batch.row(files ? files.append(batch.dropDay, [batch.bytes()])[0] : 'bytes');
    const names = batch.names();
    batch.release();
    made.batches++;
    made.largest = Math.max(made.largest, row.size);
    if (owner === ACCOUNT) {
      made.accountBatches++;
      made.accountCalls += row.size;
    }
    return { row, names };
  };
  for (let i = 0; i < ROWS; i++) {
    const mine = i % 5 === 0;
    // With --busy, the account's calls come with the first of their burst.
    if (mine && BUSY && (i / 5) % BURST !== 0) continue;
    const last = mine && BUSY ? Math.min(ROWS - 1, i + 5 * (BURST - 1)) : i;
    for (let j = i; j <= last; j += 5) {
      const c = callOf(j);
      // The flushes since the oldest open batches began: those batches are written.
      for (const [owner, o] of open) {
        if (c.at - o.firstAt <= WINDOW_MS) break;
        yield close(owner, o.batch);
      }
      const dropDay = dropDayOf(c.at);
      let o = open.get(c.owner);
      if (o && (o.batch.dropDay !== dropDay || !o.batch.takes(c.at))) {
        yield close(c.owner, o.batch);
        o = undefined;
      }
      if (!o) {
        o = { batch: new CallBatch(c.owner, dropDay, clock.tag), firstAt: c.at };
        open.set(c.owner, o);
      }
      const requestId = requestIdOf(j, c.at);
      if (requestIds.has(j)) requestIds.set(j, requestId);
      o.batch.add(recordOf(j, c, clock.next(c.at), requestId), callersOwn(j));
    }
  }
  for (const [owner, o] of open) yield close(owner, o.batch);
}

/** What the log keeps of the j-th call, as the writer hands it to its batch. */
function recordOf(j: number, c: ReturnType<typeof callOf>, seq: number, requestId: string): CallRecord {
  const failed = c.status >= 500;
  return {
    at: c.at,
    seq,
    requestId,
    keyId: `key${c.owner.slice(-6)}`,
    plan: 'enterprise',
    endpoint: c.endpoint,
    method: 'GET',
    status: c.status,
    code: failed ? 'upstream_failed' : c.status === 400 ? 'bad_input' : null,
    ms: (j % 900) + 0.5,
    source: failed ? null : 'upstream',
    providers: [{ upstream: 'upstream', status: failed ? 502 : 200, ms: (j % 900) + 0.3, ...(failed ? { code: 'upstream_failed' } : {}) }],
    cached: false,
    bytesOut: failed ? 80 : 1200,
    ip: '203.0.113.0',
    params: { apikey: '[redacted]', q: `query number ${j}` },
    uploads: null,
    error: failed ? 'The upstream service failed' : null,
  };
}

const COLUMNS = [
  'id',
  'first_id',
  'drop_day',
  'owner',
  'size',
  'keys',
  'endpoints',
  'codes',
  'statuses',
  'calls',
  'calls_bin',
  'calls_file',
  'calls_at',
  'calls_bytes',
] as const;
const valuesOf = (b: RequestLogBatchTable) => [
  b.id,
  b.firstId,
  b.dropDay,
  b.owner,
  b.size,
  b.keys,
  b.endpoints,
  b.codes,
  b.statuses,
  b.calls,
  b.callsBin,
  b.callsFile,
  b.callsAt,
  b.callsBytes,
];

function progress(engine: string, batches: number) {
  if (batches % 500_000 === 0) log(`${engine}: ${batches.toLocaleString('en-US')} batches`);
}

async function seedSqlite(dataDir: string) {
  const db = new DatabaseSync(sqliteFile(dataDir));
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF; PRAGMA cache_size = -1048576;');
  // A bulk load: the indexes made again once the rows are in (sorted once, not grown row by row).
  const indexes = db
    .prepare("select name, sql from sqlite_master where type = 'index' and tbl_name = 'request_log_batch' and sql is not null")
    .all() as { name: string; sql: string }[];
  for (const i of indexes) db.exec(`drop index ${i.name}`);
  const insert = db.prepare(`insert into request_log_batch (${COLUMNS.join(', ')}) values (${COLUMNS.map(() => '?').join(', ')})`);
  const insertName = db.prepare('insert into request_log_named (request_id, batch_id, owner, drop_day) values (?, ?, ?, ?)');
  const TRANSACTION = 20_000;
  db.exec('BEGIN');
  const files = new CallFiles(path.join(dataDir, 'request-log'));
  for (const { row: b, names } of batchRows(files)) {
    insert.run(...valuesOf(b));
    for (const n of names) insertName.run(n.requestId, n.batchId, n.owner, n.dropDay);
    if (made.batches % TRANSACTION === 0) {
      db.exec('COMMIT');
      db.exec('BEGIN');
    }
    progress('sqlite', made.batches);
  }
  db.exec('COMMIT');
  files.close();
  for (const i of indexes) {
    db.exec(i.sql);
    log(`sqlite: index ${i.name} made`);
  }
  db.exec('ANALYZE');
  db.close();
}

async function seedPostgres(url: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const indexes = (
      await c.query<{ name: string; def: string }>(
        "select indexname as name, indexdef as def from pg_indexes where tablename = 'request_log_batch' and schemaname = current_schema() and indexname <> 'request_log_batch_pk'",
      )
    ).rows;
    for (const i of indexes) await c.query(`drop index ${i.name}`);
    const types = ['text', 'text', 'int', 'text', 'int', 'text', 'text', 'text', 'text', 'text', 'bytea', 'text', 'bigint', 'int'];
    const insert = `insert into request_log_batch (${COLUMNS.join(', ')}) select * from unnest(${types.map((t, n) => `$${n + 1}::${t}[]`).join(', ')})`;
    const STATEMENT = 2000;
    const insertNames =
      'insert into request_log_named (request_id, batch_id, owner, drop_day) select * from unnest($1::text[], $2::text[], $3::text[], $4::int[])';
    let columns: unknown[][] = COLUMNS.map(() => []);
    let named: unknown[][] = [[], [], [], []];
    // One statement in flight while the next is made; the loop lets the event loop send it every few rows.
    let sending: Promise<unknown> | undefined;
    const send = async () => {
      await sending;
      sending = Promise.all([c.query(insert, columns), named[0].length ? c.query(insertNames, named) : undefined]);
      columns = COLUMNS.map(() => []);
      named = [[], [], [], []];
    };
    for (const { row: b, names } of batchRows(undefined)) {
      valuesOf(b).forEach((v, n) => columns[n].push(v));
      for (const n of names) [n.requestId, n.batchId, n.owner, n.dropDay].forEach((v, k) => named[k].push(v));
      if (columns[0].length === STATEMENT) await send();
      else if (columns[0].length % 250 === 0) await new Promise((r) => setImmediate(r));
      progress('postgres', made.batches);
    }
    if (columns[0].length) await send();
    await sending;
    for (const i of indexes) {
      // pg_indexes gives a partitioned table's index as `ON ONLY` (the parent alone): made on every partition here.
      await c.query(i.def.replace(' ON ONLY ', ' ON '));
      log(`postgres: index ${i.name} made`);
    }
    await c.query('analyze request_log_batch');
  } finally {
    await c.end();
  }
}

/** The measured user (enterprise, one key) and an admin, as the portal keeps them; on PostgreSQL the log's day partitions. */
async function seedAccounts(dataDir: string, databaseUrl: string | undefined): Promise<string> {
  const database = await openDatabase({ dataDir, databaseUrl });
  const key = newKey();
  const passwordHash = await hashPassword(PASSWORD);
  const createdAt = new Date(now - SPAN_MS).toISOString();
  try {
    for (const [id, role] of [
      [ACCOUNT, 'user'],
      [ADMIN, 'admin'],
    ] as const) {
      const email = `${role}@scale.example`;
      await database.db
        .insertInto('accounts')
        .values({
          id,
          email,
          emailKey: email,
          name: role,
          passwordHash,
          role,
          plan: 'enterprise',
          status: 'active',
          createdAt,
          lastSignInAt: null,
          quotaAlerts: null,
        })
        .execute();
      const hash = id === ACCOUNT ? hashKey(key) : crypto.randomBytes(32).toString('hex');
      await database.db
        .insertInto('apiKeys')
        .values({
          hash,
          id: `key${id.slice(-6)}`,
          accountId: id,
          plan: 'enterprise',
          disabled: 0,
          name: 'scale',
          createdAt,
          hint: null,
          expiresAt: null,
          cap: null,
          replacedBy: null,
          revokedAt: null,
        })
        .execute();
    }
    if (database.engine === 'postgres')
      for (let d = dropDayOf(now - SPAN_MS); d <= dropDayOf(now); d++) await makeDayPartition(database.db, 'request_log_batch', d);
  } finally {
    await database.close();
  }
  return key;
}

/** The request log's bytes on disk, its indexes included (SQLite: the whole file, the rest of it small). */
async function sizeOf(dataDir: string, databaseUrl: string | undefined): Promise<number> {
  if (!databaseUrl) {
    const files = path.join(dataDir, 'request-log');
    return fs.readdirSync(files).reduce((n, f) => n + fs.statSync(path.join(files, f)).size, fs.statSync(sqliteFile(dataDir)).size);
  }
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    const { rows } = await c.query<{ n: string }>(
      "select coalesce(sum(pg_total_relation_size(inhrelid)), 0) as n from pg_inherits where inhparent = to_regclass('request_log_batch')",
    );
    return Number(rows[0].n);
  } finally {
    await c.end();
  }
}

/** A visitor signed in as `email`. */
async function signedIn(base: string, email: string) {
  const v = browser(base);
  const res = await v.submit('/login', '/login', { email, password: PASSWORD });
  if (res.status !== 303) throw new Error(`sign-in of ${email}: ${res.status}`);
  return v;
}

async function timed(what: string, op: (i: number) => Promise<{ status: number }>, status = 200) {
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    if (!(i % 5)) log(`${what}: run ${i + 1}`);
    const t = performance.now();
    const res = await op(i);
    ms.push(performance.now() - t);
    if (res.status !== status) throw new Error(`${what}: ${res.status}, not ${status}`);
  }
  ms.sort((a, b) => a - b);
  return { what, median: ms[Math.floor(ms.length / 2)], max: ms[ms.length - 1] };
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-log-scale-'));
  let databaseUrl: string | undefined;
  let dropSchema = async () => {};
  if (ENGINE === 'postgres') {
    const schema = `logscale_${crypto.randomBytes(5).toString('hex')}`;
    const admin = async (q: string) => {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(q);
      await c.end();
    };
    await admin(`create schema ${schema}`);
    const url = new URL(PG_URL);
    url.searchParams.set('options', `-c search_path=${schema}`);
    databaseUrl = url.toString();
    dropSchema = () => admin(`drop schema ${schema} cascade`);
  }
  try {
    const key = await seedAccounts(dataDir, databaseUrl);
    const seedStart = performance.now();
    if (databaseUrl) await seedPostgres(databaseUrl);
    else await seedSqlite(dataDir);
    const seedS = (performance.now() - seedStart) / 1000;
    const count = (n: number) => n.toLocaleString('en-US');
    const shape =
      `${count(ROWS)} calls in ${count(made.batches)} batches (at most ${made.largest} calls in one); the measured account's ` +
      `${count(made.accountCalls)} in ${count(made.accountBatches)}${BUSY ? `, in bursts of ${BURST}` : ''}`;
    log(`seeded ${shape} in ${seedS.toFixed(0)} s`);
    const bytes = await sizeOf(dataDir, databaseUrl);
    const size = `${(bytes / 1024 ** 3).toFixed(2)} GiB, ${Math.round(bytes / ROWS)} bytes a call`;
    log(`the table with its indexes (and on SQLite the calls' files): ${size}`);

    const app = await createApp({
      ...process.env,
      DATA_DIR: dataDir,
      REQUEST_LOG: 'on',
      ...(databaseUrl && { DATABASE_URL: databaseUrl }),
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
      PUBLIC_URL: 'http://127.0.0.1',
      SIGNIN_LIMIT: '1000000',
      UPSTREAM_POLICIES: 'off',
    });
    const server = http.createServer(app.app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await app.ready();
    try {
      const api = (q: string) => fetch(`${base}/api/v1/account/requests${q}`, { headers: { 'x-api-key': key } });
      const first = (await (await api('?limit=50')).json()) as { data: { nextCursor: string } };
      const user = await signedIn(base, 'user@scale.example');
      const admin = await signedIn(base, 'admin@scale.example');
      // Request ids from all over the 30 days: the measured account's and another's, the service's and the callers' own.
      const idsOf = (l: number[]) => l.map((i) => encodeURIComponent(requestIds.get(i)!));
      const [mine, mineOwn, other, otherOwn] = [SAMPLES.mine, SAMPLES.mineOwn, SAMPLES.other, SAMPLES.otherOwn].map(idsOf);
      const one = (id: string) => fetch(`${base}/api/v1/account/requests/${id}`, { headers: { 'x-api-key': key } });
      const results = [
        await timed('API: first page (50)', () => api('?limit=50')),
        await timed('API: first page, status 5xx', () => api('?status=5xx')),
        await timed('API: first page, one endpoint', () => api('?endpoint=utilities/wth')),
        await timed('API: first page, code bad_input, last 7 days', () => api(`?code=bad_input&from=${now - 7 * DAY_MS}`)),
        await timed('API: the next page by cursor', () => api(`?cursor=${first.data.nextCursor}`)),
        await timed('API: one call by request id (UUIDv7)', (i) => one(mine[i])),
        await timed("API: one call by the caller's own request id", (i) => one(mineOwn[i])),
        await timed('portal: /dashboard/requests', () => user.get('/dashboard/requests')),
        await timed('portal: request-id search (UUIDv7)', (i) => user.get(`/dashboard/requests?requestId=${mine[i]}`), 303),
        await timed("portal: request-id search (caller's own id)", (i) => user.get(`/dashboard/requests?requestId=${mineOwn[i]}`), 303),
        await timed('admin: /admin/requests (every account)', () => admin.get('/admin/requests')),
        await timed("admin: another account's request id (UUIDv7)", (i) => admin.get(`/admin/requests?requestId=${other[i]}`), 303),
        await timed(
          "admin: another account's request id (caller's own)",
          (i) => admin.get(`/admin/requests?requestId=${otherOwn[i]}`),
          303,
        ),
      ];
      console.log(`\n${ENGINE}, ${shape}, seeded in ${seedS.toFixed(0)} s; ${size}; ${RUNS} runs each:`);
      console.log('| operation | median ms | slowest ms |\n|---|---|---|');
      for (const r of results) console.log(`| ${r.what} | ${r.median.toFixed(1)} | ${r.max.toFixed(1)} |`);
    } finally {
      server.close();
      await app.close();
    }
  } finally {
    await dropSchema();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
