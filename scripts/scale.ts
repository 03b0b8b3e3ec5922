// The portal and the API at 1,000, 10,000 and 100,000 accounts (two keys each), on SQLite and on PostgreSQL:
// seeds the tables in bulk, starts the server on them, and measures each operation a user or an admin makes,
// as the median of several runs over HTTP. Run by hand or by the bench:
//   npm run scale                                     # both engines, 1,000 / 10,000 / 100,000 accounts
//   npm run scale -- --engines sqlite --sizes 1000,10000 --runs 9
// PostgreSQL: SCALE_DATABASE_URL (default postgres://postgres:postgres@127.0.0.1:5432/test); each size gets a
// schema of its own, dropped afterwards.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createApp, type App } from '../server/app.js';
import { openDatabase } from '../engine/db/open.js';
import { hashKey, newKey } from '../engine/access/keystore.js';
import { hashPassword } from '../portal/accounts/passwords.js';
import { browser } from './portal-visitor.js';

const { values: opts } = parseArgs({
  options: {
    engines: { type: 'string', default: 'sqlite,postgres' },
    sizes: { type: 'string', default: '1000,10000,100000' },
    runs: { type: 'string', default: '15' },
  },
});
const ENGINES = opts.engines.split(',') as ('sqlite' | 'postgres')[];
const SIZES = opts.sizes.split(',').map(Number);
const RUNS = Number(opts.runs);
const PG_URL = process.env.SCALE_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/test';
const PASSWORD = 'scale-password-1';
const CHUNK = 500;

interface Place {
  dataDir: string;
  databaseUrl?: string;
  drop(): Promise<void>;
}

async function place(engine: 'sqlite' | 'postgres'): Promise<Place> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-scale-'));
  const dropDir = () => fs.rmSync(dataDir, { recursive: true, force: true });
  if (engine === 'sqlite') return { dataDir, drop: async () => dropDir() };
  const schema = `scale_${crypto.randomBytes(5).toString('hex')}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    await c.query(sql);
    await c.end();
  };
  await admin(`CREATE SCHEMA ${schema}`);
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    dataDir,
    databaseUrl: url.toString(),
    drop: async () => {
      await admin(`DROP SCHEMA ${schema} CASCADE`);
      dropDir();
    },
  };
}

/** `n` accounts with two keys each, in bulk; the first is the measured user, the second an admin. */
async function seed(p: Place, n: number): Promise<{ email: string; adminEmail: string; key: string }> {
  const database = await openDatabase({ dataDir: p.dataDir, databaseUrl: p.databaseUrl });
  const { db } = database;
  const passwordHash = await hashPassword(PASSWORD);
  const key = newKey();
  const start = Date.parse('2026-01-01T00:00:00Z');
  try {
    for (let at = 0; at < n; at += CHUNK) {
      const accounts = [];
      const keys = [];
      for (let i = at; i < Math.min(n, at + CHUNK); i++) {
        const id = `acc_scale${String(i).padStart(7, '0')}`;
        const email = `user${i}@scale.example`;
        const createdAt = new Date(start + i * 1000).toISOString();
        accounts.push({
          id,
          email,
          emailKey: email,
          name: `User ${i}`,
          passwordHash,
          role: i === 1 ? 'admin' : 'user',
          plan: i % 3 === 0 && i > 1 ? 'free' : 'premium',
          status: 'active',
          createdAt,
          lastSignInAt: null,
          quotaAlerts: null,
        });
        // A free account's keys are kept but off (no FREE_PERSONAL_KEYS), as the portal leaves them.
        const free = i % 3 === 0 && i > 1;
        for (let k = 0; k < 2; k++) {
          const hash = i === 0 && k === 0 ? hashKey(key) : crypto.randomBytes(32).toString('hex');
          keys.push({
            hash,
            id: hash.slice(0, 12),
            accountId: id,
            plan: free ? 'free' : 'premium',
            disabled: free ? 1 : 0,
            name: `key ${k + 1}`,
            createdAt,
            hint: `uua_${hash.slice(0, 4)}…${hash.slice(-4)}`,
            expiresAt: null,
            cap: null,
            replacedBy: null,
            revokedAt: null,
          });
        }
      }
      await db.insertInto('accounts').values(accounts).execute();
      await db.insertInto('apiKeys').values(keys).execute();
    }
    // As a deployment that has started before: the key policy's setting applied already.
    await db.insertInto('settings').values({ name: 'free-personal-keys', value: 'false' }).execute();
  } finally {
    await database.close();
  }
  return { email: 'user0@scale.example', adminEmail: 'user1@scale.example', key };
}

/** Stops the run when an operation did not do what it is timed for (a figure of a refusal would mislead). */
function expectStatus(what: string, res: { status: number }, status: number) {
  if (res.status !== status) throw new Error(`${what}: ${res.status}, not ${status}`);
}

const keyIdsOn = (page: string) => [...page.matchAll(/\/dashboard\/keys\/([0-9a-f]{12})\/revoke/g)].map((m) => m[1]);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timed(runs: number, op: (i: number) => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await op(i);
    ms.push(performance.now() - t);
  }
  return median(ms);
}

async function measure(engine: 'sqlite' | 'postgres', n: number) {
  const p = await place(engine);
  try {
    const seedStart = performance.now();
    const who = await seed(p, n);
    const seeded = performance.now() - seedStart;
    const bootStart = performance.now();
    const app: App = await createApp({
      ...process.env,
      DATA_DIR: p.dataDir,
      ...(p.databaseUrl && { DATABASE_URL: p.databaseUrl }),
      LOG_LEVEL: 'silent',
      PUBLIC_URL: 'http://127.0.0.1',
      SIGNIN_LIMIT: '1000000',
      SIGNUP_LIMIT: '1000000',
      UPSTREAM_POLICIES: 'off',
    });
    const server = http.createServer(app.app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await app.ready();
    const boot = performance.now() - bootStart;
    try {
      const api = () => fetch(`${base}/api/v1/tools/ccgen?bin=457173`, { headers: { 'x-api-key': who.key } }).then((r) => r.text());
      await api();
      const user = browser(base);
      // Each sign-in by a new visitor (a signed-in one is sent on from /login), timed with its form's GET.
      const signIn = await timed(Math.min(RUNS, 7), async () =>
        expectStatus('a sign-in', await browser(base).submit('/login', '/login', { email: who.email, password: PASSWORD }), 303),
      );
      expectStatus('the sign-in', await user.submit('/login', '/login', { email: who.email, password: PASSWORD }), 303);
      const keyPage = await timed(RUNS, () => user.get('/dashboard'));
      const page = await user.get('/dashboard');
      expectStatus('the key page, signed in', page, 200);
      const token = user.csrf(page.text);
      const keyId = /\/dashboard\/keys\/([0-9a-f]{12})\/rename/.exec(page.text)?.[1] ?? '';
      const rename = await timed(RUNS, async (i) =>
        expectStatus('a rename', await user.post(`/dashboard/keys/${keyId}/rename`, token, { name: `renamed ${i}` }), 303),
      );
      // A key made through the page before each run (untimed), then revoked (timed).
      const revokes: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const before = new Set(keyIdsOn((await user.get('/dashboard')).text));
        await user.post('/dashboard/keys', token, { name: `spare ${i}` });
        const made = keyIdsOn((await user.get('/dashboard')).text).find((id) => !before.has(id));
        const t = performance.now();
        expectStatus('a revoke', await user.post(`/dashboard/keys/${made}/revoke`, token, {}), 303);
        revokes.push(performance.now() - t);
      }
      const revoke = median(revokes);
      const usage = await timed(RUNS, () => user.get('/dashboard/usage'));
      const apiAlone = await timed(RUNS * 3, api);
      const admin = browser(base);
      expectStatus('the admin sign-in', await admin.submit('/login', '/login', { email: who.adminEmail, password: PASSWORD }), 303);
      expectStatus('the admin page', await admin.get('/admin'), 200);
      const adminPage = await timed(Math.min(RUNS, 7), () => admin.get('/admin'));
      const adminBytes = (await admin.get('/admin')).bytes;
      // API calls beside a browser reloading the key page without pause.
      let reloading = true;
      const reloads = (async () => {
        while (reloading) await user.get('/dashboard');
      })();
      // 50 calls a second: each timed alone, with a pause after it that is not.
      const beside: number[] = [];
      for (let i = 0; i < RUNS * 3; i++) {
        beside.push(await timed(1, api));
        await new Promise((r) => setTimeout(r, 20));
      }
      const apiBeside = median(beside);
      reloading = false;
      await reloads;
      return {
        engine,
        n,
        seededMs: seeded,
        bootMs: boot,
        apiAlone,
        apiBeside,
        signIn,
        keyPage,
        rename,
        revoke,
        usage,
        adminPage,
        adminBytes,
      };
    } finally {
      server.closeAllConnections();
      server.close();
      await app.close();
    }
  } finally {
    await p.drop();
  }
}

const rows: Awaited<ReturnType<typeof measure>>[] = [];
for (const engine of ENGINES) {
  for (const n of SIZES) {
    const r = await measure(engine, n);
    rows.push(r);
    console.error(`${engine} ${n}: ${JSON.stringify(r)}`);
  }
}
const f = (ms: number) => (ms >= 100 ? `${Math.round(ms)} ms` : `${ms.toFixed(1)} ms`);
const header = ['operation', ...rows.map((r) => `${r.engine} ${r.n.toLocaleString('en')}`)];
const line = (name: string, pick: (r: (typeof rows)[number]) => string) => `| ${name} | ${rows.map(pick).join(' | ')} |`;
console.log(`| ${header.join(' | ')} |`);
console.log(`|---|${rows.map(() => '---:').join('|')}|`);
console.log(line('API call with a key', (r) => f(r.apiAlone)));
console.log(line('API call beside key-page reloads', (r) => f(r.apiBeside)));
console.log(line('sign-in', (r) => f(r.signIn)));
console.log(line('key page', (r) => f(r.keyPage)));
console.log(line('rename a key', (r) => f(r.rename)));
console.log(line('revoke a key', (r) => f(r.revoke)));
console.log(line('usage page', (r) => f(r.usage)));
console.log(line('admin page (first 50)', (r) => `${f(r.adminPage)}, ${Math.round(r.adminBytes / 1024)} KB`));
console.log(line('boot until the portal answers', (r) => f(r.bootMs)));
