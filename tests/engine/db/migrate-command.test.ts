// `npm run migrate` as an operator runs it, and the server's refusal to start beside data it would not read:
// an earlier layout's SQLite file, SQLite's tables when DATABASE_URL now names PostgreSQL, hosted blobs'
// metadata in sidecars. After the command, the server starts and what was there works: a fixture account
// signs in, a key answers, every hosted kind is served.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import request from 'supertest';
import { testApp } from '../../helpers/app.js';
import { LogRecords } from '../../../features/request-log/records.js';
import { freshPostgresUrl } from '../../helpers/db.js';
import { legacyDataDir } from '../../helpers/legacy.js';
import { signIn, visitor } from '../../helpers/portal.js';
import { tmpDirs } from '../../helpers/tmp-dirs.js';
import { diskSidecars, expectServedAsBefore, SIDECARS } from '../../helpers/sidecars.js';

const run = promisify(execFile);
const migrate = (env: Record<string, string>) =>
  run(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'scripts/migrate.ts'], { env: { ...process.env, LOG_LEVEL: 'silent', ...env } });
const dirs = tmpDirs('uua-migrate-');

test('an earlier layout is refused until `npm run migrate`, which moves it once; then its accounts sign in', async () => {
  const dataDir = legacyDataDir();
  await expect(testApp({}, { dataDir })).rejects.toThrow(
    /sqlite-docs holds 14 keys and accounts in the earlier layout, not yet in the tables\. Run `npm run migrate`/,
  );
  const first = await migrate({ DATA_DIR: dataDir });
  expect(first.stdout).toMatch(/sqlite-docs: moved\n(.*\n)* {2}accounts: 5 of 5\n(.*\n)* {2}apiKeys: 9 of 9\n/);
  const second = await migrate({ DATA_DIR: dataDir });
  expect(second.stdout).toMatch(/sqlite-docs: moved on .*; nothing read again/);
  const t = await testApp({}, { dataDir });
  try {
    expect((await signIn(visitor(t), 'bob@example.test', 'bobs-password-1')).status).toBe(303);
  } finally {
    await t.close();
  }
}, 90_000);

test('SQLite tables are refused beside a DATABASE_URL until `npm run migrate` copies them; then the key answers', async () => {
  const databaseUrl = await freshPostgresUrl();
  if (!databaseUrl) return;
  const dataDir = dirs();
  const alone = await testApp({ REQUEST_LOG: 'on' }, { dataDir });
  const { key } = await alone.api.keys.issue('premium', 'moved');
  // A call in the request log: SQLite keeps its batch's calls as bytes, PostgreSQL as text in a day's partition.
  const logged = await request(alone.app).get('/api/v1/tools/ccgen').query({ bin: '457173' }).set('X-API-Key', key);
  expect(logged.status).toBe(200);
  await alone.close();
  await expect(testApp({ DATABASE_URL: databaseUrl }, { dataDir })).rejects.toThrow(
    /uua\.sqlite holds 1 accounts and keys that are not in the PostgreSQL of DATABASE_URL\. Run `npm run migrate`/,
  );
  const out = await migrate({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl });
  expect(out.stdout).toMatch(/sqlite-tables: moved\n(.*\n)* {2}api_keys: 1 of 1\n/);
  expect(out.stdout).toMatch(/ {2}request_log_batch: 1 of 1\n/);
  const moved = await testApp({ DATABASE_URL: databaseUrl }, { dataDir });
  try {
    const calls = await new LogRecords(moved.api.database).list({ limit: 10 });
    expect(calls.rows.map((r) => [r.requestId, r.endpoint, r.status])).toEqual([[logged.headers['x-request-id'], 'tools/ccgen', 200]]);
    const res = await request(moved.app).get('/api/v1/tools/ccgen').query({ bin: '457173' }).set('X-API-Key', key);
    expect(res.status).toBe(200);
  } finally {
    await moved.close();
  }
}, 90_000);

test.each([['SQLite'], ['PostgreSQL']])(
  'hosted blobs with sidecars are refused until `npm run migrate` moves them (%s), printing the count; a second run moves none',
  async (engine) => {
    const databaseUrl = engine === 'PostgreSQL' ? await freshPostgresUrl() : undefined;
    if (engine === 'PostgreSQL' && !databaseUrl) return;
    const dataDir = dirs();
    diskSidecars(dataDir);
    const env = { DATA_DIR: dataDir, ...(databaseUrl && { DATABASE_URL: databaseUrl }) };
    await expect(testApp(env, { dataDir })).rejects.toThrow(/hosted-sidecars:disk holds metadata of hosted blobs .* Run `npm run migrate`/);
    const first = await migrate(env);
    expect(first.stdout).toContain(
      `hosted-sidecars:disk: moved\n  hosted: ${SIDECARS.length} of ${SIDECARS.length}\n  1 sidecars that read as no blob (never served) left as they were\n`,
    );
    const second = await migrate(env);
    expect(second.stdout).toContain('hosted-sidecars:disk: nothing to move\n');
    const t = await testApp(env, { dataDir });
    try {
      await expectServedAsBefore(t);
    } finally {
      await t.close();
    }
  },
  90_000,
);
