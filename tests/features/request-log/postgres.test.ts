// The request log on PostgreSQL (DATABASE_URL): calls written into the day partitions, read back by the API
// newest first by cursor and by request id; skipped where PostgreSQL does not answer (a failure under CI).
import request from 'supertest';
import { sql } from 'kysely';
import { freshPostgresUrl, undoFirst } from '../../helpers/db.js';
import { testApp, KEYS, type TestApp } from '../../helpers/app.js';

let t: TestApp | undefined;
beforeAll(async () => {
  const url = await freshPostgresUrl();
  if (!url) return;
  const app = (t = await testApp({ DATABASE_URL: url }));
  undoFirst(() => app.close());
});

test('calls are written to day partitions and read back by cursor and by request id', async () => {
  if (!t) return;
  const app = t.app;
  const ids: string[] = [];
  for (let i = 0; i < 3; i++)
    ids.push(
      (await request(app).get('/api/v1/tools/ccgen').query({ bin: '457173' }).set('X-API-Key', KEYS.premium)).headers['x-request-id'],
    );
  await t.api.requestLog!.flush();
  const parts = await sql<{ name: string }>`
    select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = to_regclass('request_log_batch')`.execute(
    t.api.database.db,
  );
  // The premium plan's calls of today are dropped on the 8th day from now: their one partition.
  expect(parts.rows.map((r) => r.name)).toEqual([`request_log_batch_d${Math.floor(Date.now() / 86_400_000) + 8}`]);
  const first = await request(app).get('/api/v1/account/requests').query({ limit: '2' }).set('X-API-Key', KEYS.premium);
  expect(first.body.data.items.map((c: { requestId: string }) => c.requestId)).toEqual([ids[2], ids[1]]);
  const rest = await request(app)
    .get('/api/v1/account/requests')
    .query({ cursor: first.body.data.nextCursor })
    .set('X-API-Key', KEYS.premium);
  expect(rest.body.data.items.map((c: { requestId: string }) => c.requestId)).toEqual([ids[0]]);
  const one = await request(app).get(`/api/v1/account/requests/${ids[1]}`).set('X-API-Key', KEYS.premium);
  expect(one.body.data).toMatchObject({ requestId: ids[1], status: 200, params: { bin: '457173' } });
});
