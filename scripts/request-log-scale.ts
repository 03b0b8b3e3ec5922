// The request log at millions of rows: seeds the table with `--rows` calls (default 5,000,000) over the
// last 30 days, a fifth of them one enterprise account's and the rest spread over 999 others, then starts the
// server on it and times, as the median and the slowest of `--runs` over HTTP, what the inspector asks:
// the account's first page through the API and the portal (plain, by status class, by endpoint), the next
// page by cursor, a request-id look-up (the API, and the operators' search across every account).
//   npm run request-log-scale                                # SQLite, 5,000,000 rows
//   npm run request-log-scale -- --engine postgres --rows 1000000
// PostgreSQL: SCALE_DATABASE_URL (default postgres://postgres:postgres@127.0.0.1:5432/test), in a schema of
// its own, dropped afterwards. The rows are written in bulk (node:sqlite's prepared statement, PostgreSQL's
// generate_series), not through the log's writer: what is measured is reading them.
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
import { hashKey, newKey } from '../engine/access/keystore.js';
import { hashPassword } from '../portal/accounts/passwords.js';
import { DAY_MS, dayOf, idAt } from '../features/request-log/records.js';
import { browser } from './portal-visitor.js';

const { values: opts } = parseArgs({
  options: {
    engine: { type: 'string', default: 'sqlite' },
    rows: { type: 'string', default: '5000000' },
    runs: { type: 'string', default: '21' },
  },
});
const ENGINE = opts.engine as 'sqlite' | 'postgres';
const ROWS = Number(opts.rows);
const RUNS = Number(opts.runs);
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

const started = Date.now();
const now = started;

function log(...words: unknown[]) {
  console.log(`[${((Date.now() - started) / 1000).toFixed(0)} s]`, ...words);
}

/** The i-th seeded call: its owner, time (oldest first), endpoint and answer, all from i. */
function callOf(i: number) {
  const owner = i % 5 === 0 ? ACCOUNT : `acc_scale${String(2 + (i % (OWNERS - 1))).padStart(7, '0')}`;
  const at = now - SPAN_MS + Math.floor((i / ROWS) * SPAN_MS);
  const r = (i * 2654435761) % 1000;
  const status = r < 30 ? 502 : r < 100 ? 400 : 200;
  return { owner, at, endpoint: ENDPOINTS[i % ENDPOINTS.length], status };
}

const requestIdOf = (i: number) => `seed-${i.toString(36).padStart(8, '0')}-${(i * 7919).toString(16)}`;

async function seedSqlite(dataDir: string) {
  const db = new DatabaseSync(sqliteFile(dataDir));
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF; PRAGMA cache_size = -1048576;');
  // A bulk load: the indexes made again once the rows are in (sorted once, not grown row by row).
  const indexes = db
    .prepare("select name, sql from sqlite_master where type = 'index' and tbl_name = 'request_log' and sql is not null")
    .all() as {
    name: string;
    sql: string;
  }[];
  for (const i of indexes) db.exec(`drop index ${i.name}`);
  const insert = db.prepare(
    `insert into request_log (id, drop_day, at, request_id, owner, key_id, plan, endpoint, method, status, status_class, code, ms, source, providers, cached, bytes_out, ip, params, uploads, error)
     values (?, ?, ?, ?, ?, ?, 'enterprise', ?, 'GET', ?, ?, ?, ?, ?, ?, 0, ?, '203.0.113.0', ?, null, ?)`,
  );
  const BATCH = 20_000;
  for (let start = 0; start < ROWS; start += BATCH) {
    db.exec('BEGIN');
    for (let i = start; i < Math.min(ROWS, start + BATCH); i++) {
      const c = callOf(i);
      const failed = c.status >= 500;
      insert.run(
        `${idAt(c.at)}${(i % 1296).toString(36).padStart(2, '0')}${crypto.randomBytes(6).toString('base64url')}`,
        dayOf(c.at) + 31,
        c.at,
        requestIdOf(i),
        c.owner,
        `key${c.owner.slice(-6)}`,
        c.endpoint,
        c.status,
        Math.floor(c.status / 100),
        failed ? 'upstream_failed' : c.status === 400 ? 'bad_input' : null,
        (i % 900) + 0.5,
        failed ? null : 'upstream',
        JSON.stringify([
          { upstream: 'upstream', status: failed ? 502 : 200, ms: (i % 900) + 0.3, ...(failed ? { code: 'upstream_failed' } : {}) },
        ]),
        failed ? 80 : 1200,
        JSON.stringify({ apikey: '[redacted]', q: `query number ${i}` }),
        failed ? 'The upstream service failed' : null,
      );
    }
    db.exec('COMMIT');
    if (start % 500_000 === 0) log(`sqlite: ${start.toLocaleString('en-US')} rows`);
  }
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
        "select indexname as name, indexdef as def from pg_indexes where tablename = 'request_log' and schemaname = current_schema() and indexname <> 'request_log_pk'",
      )
    ).rows;
    for (const i of indexes) await c.query(`drop index ${i.name}`);
    for (let d = dayOf(now - SPAN_MS) + 31; d <= dayOf(now) + 31; d++)
      await c.query(`create table if not exists request_log_d${d} partition of request_log for values from (${d}) to (${d + 1})`);
    const BATCH = 500_000;
    for (let start = 0; start < ROWS; start += BATCH) {
      // The same calls as callOf(i), computed by the server.
      await c.query(
        `insert into request_log (id, drop_day, at, request_id, owner, key_id, plan, endpoint, method, status, status_class, code, ms, source, providers, cached, bytes_out, ip, params, uploads, error)
         select lpad(to_base36(t.at), 9, '0') || lpad(to_base36(i % 1296), 2, '0') || substr(md5(i::text), 1, 8),
                floor(t.at / ${DAY_MS})::int + 31, t.at, 'seed-' || lpad(to_base36(i), 8, '0') || '-' || to_hex(i * 7919),
                t.owner, 'key' || right(t.owner, 6), 'enterprise', (array[${ENDPOINTS.map((e) => `'${e}'`).join(',')}])[i % ${ENDPOINTS.length} + 1],
                'GET', t.status, t.status / 100,
                case when t.status >= 500 then 'upstream_failed' when t.status = 400 then 'bad_input' end,
                (i % 900) + 0.5, case when t.status < 500 then 'upstream' end,
                '[{"upstream":"upstream","status":' || case when t.status >= 500 then 502 else 200 end || ',"ms":' || ((i % 900) + 0.3) || '}]',
                0, case when t.status >= 500 then 80 else 1200 end, '203.0.113.0',
                '{"apikey":"[redacted]","q":"query number ' || i || '"}', null,
                case when t.status >= 500 then 'The upstream service failed' end
         from generate_series($1::bigint, $2::bigint) as i,
         lateral (select case when i % 5 = 0 then '${ACCOUNT}' else 'acc_scale' || lpad((2 + i % ${OWNERS - 1})::text, 7, '0') end as owner,
                         ${now - SPAN_MS}::bigint + floor(i::numeric / ${ROWS} * ${SPAN_MS})::bigint as at,
                         case when (i * 2654435761) % 1000 < 30 then 502 when (i * 2654435761) % 1000 < 100 then 400 else 200 end as status) t`,
        [start, Math.min(ROWS, start + BATCH) - 1],
      );
      log(`postgres: ${Math.min(ROWS, start + BATCH).toLocaleString('en-US')} rows`);
    }
    for (const i of indexes) {
      // pg_indexes gives a partitioned table's index as `ON ONLY` (the parent alone): made on every partition here.
      await c.query(i.def.replace(' ON ONLY ', ' ON '));
      log(`postgres: index ${i.name} made`);
    }
    await c.query('analyze request_log');
  } finally {
    await c.end();
  }
}

/** The measured user (enterprise, one key) and an admin, as the portal keeps them. */
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
  } finally {
    await database.close();
  }
  return key;
}

/** The request log's bytes on disk, its indexes included (SQLite: the whole file, the rest of it small). */
async function sizeOf(dataDir: string, databaseUrl: string | undefined): Promise<number> {
  if (!databaseUrl) return fs.statSync(sqliteFile(dataDir)).size;
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    const { rows } = await c.query<{ n: string }>(
      "select coalesce(sum(pg_total_relation_size(inhrelid)), 0) as n from pg_inherits where inhparent = to_regclass('request_log')",
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
    // base 36, as the ids are written (idAt in features/request-log/records.ts).
    await admin(`create or replace function ${schema}.to_base36(n bigint) returns text language plpgsql immutable as $$
      declare s text := ''; m bigint := n;
      begin
        loop
          s := substr('0123456789abcdefghijklmnopqrstuvwxyz', (m % 36)::int + 1, 1) || s;
          m := m / 36;
          exit when m = 0;
        end loop;
        return s;
      end $$`);
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
    log(`seeded ${ROWS.toLocaleString('en-US')} rows in ${((performance.now() - seedStart) / 1000).toFixed(0)} s`);
    const bytes = await sizeOf(dataDir, databaseUrl);
    log(`the table with its indexes: ${(bytes / 1024 ** 3).toFixed(2)} GiB, ${Math.round(bytes / ROWS)} bytes a call`);

    const app = await createApp({
      ...process.env,
      DATA_DIR: dataDir,
      REQUEST_LOG: 'on',
      ...(databaseUrl && { DATABASE_URL: databaseUrl }),
      LOG_LEVEL: 'silent',
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
      // Request ids of the measured account, from all over the 30 days.
      const ids = Array.from({ length: RUNS }, (_, i) => requestIdOf(5 * Math.floor(((i + 1) * ROWS) / (RUNS + 1) / 5)));
      const otherIds = Array.from({ length: RUNS }, (_, i) => requestIdOf(5 * Math.floor(((i + 1) * ROWS) / (RUNS + 1) / 5) + 1));
      const results = [
        await timed('API: first page (50)', () => api('?limit=50')),
        await timed('API: first page, status 5xx', () => api('?status=5xx')),
        await timed('API: first page, one endpoint', () => api('?endpoint=utilities/wth')),
        await timed('API: first page, code bad_input, last 7 days', () => api(`?code=bad_input&from=${now - 7 * DAY_MS}`)),
        await timed('API: the next page by cursor', () => api(`?cursor=${first.data.nextCursor}`)),
        await timed('API: one call by request id', (i) =>
          fetch(`${base}/api/v1/account/requests/${ids[i]}`, { headers: { 'x-api-key': key } }),
        ),
        await timed('portal: /dashboard/requests', () => user.get('/dashboard/requests')),
        await timed('portal: request-id search', (i) => user.get(`/dashboard/requests?requestId=${ids[i]}`), 303),
        await timed('admin: /admin/requests (every account)', () => admin.get('/admin/requests')),
        await timed("admin: another account's request id", (i) => admin.get(`/admin/requests?requestId=${otherIds[i]}`), 303),
      ];
      console.log(
        `\n${ENGINE}, ${ROWS.toLocaleString('en-US')} rows (${((ROWS / 5) | 0).toLocaleString('en-US')} of the measured account), ${RUNS} runs each:`,
      );
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
