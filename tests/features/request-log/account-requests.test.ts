// GET /api/v1/account/requests and /api/v1/account/requests/{requestId}: a key reads its account's calls,
// filtered and a page at a time by cursor, one call by the request id its answer carried; neither request
// spends the allowance; a shared key has no log to read; bad filters are 400s in the envelope.
import request from 'supertest';
import { appForTests, KEYS } from '../../helpers/app.js';
import { Accounts } from '../../../portal/accounts/accounts.js';

const t = appForTests({ UPSTREAM_POKEAPI_URL: 'http://127.0.0.1:9' });
const ccgen = (key: string, bin = '457173') => request(t.app).get('/api/v1/tools/ccgen').query({ bin }).set('X-API-Key', key);
const requests = (key: string, query: Record<string, string> = {}) =>
  request(t.app).get('/api/v1/account/requests').query(query).set('X-API-Key', key);

async function accountKey(email: string) {
  const accounts = new Accounts(t.api.database.db, t.api.keys);
  const account = (await accounts.create({ email, name: 'Log', password: 'correct horse battery', role: 'user' }))!;
  await accounts.update(account.id, { plan: 'premium' });
  const a = await t.api.keys.issue('premium', 'first', account.id);
  const b = await t.api.keys.issue('premium', 'second', account.id);
  return { account, a, b };
}

test("a key reads its account's calls across its keys, newest first, by cursor, filtered", async () => {
  const { a, b } = await accountKey('api-log@example.com');
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await ccgen(a.key)).headers['x-request-id']);
  ids.push((await ccgen(b.key)).headers['x-request-id']);
  const failed = await request(t.app).get('/api/v1/anime/creature-data').query({ resource: 'pokemon', id: '1' }).set('X-API-Key', b.key);
  expect(failed.status).toBe(502);
  ids.push(failed.headers['x-request-id']);
  await t.api.requestLog!.flush();

  const first = await requests(a.key, { limit: '2' });
  expect(first.status).toBe(200);
  expect(first.body.data.items.map((c: { requestId: string }) => c.requestId)).toEqual([ids[4], ids[3]]);
  const second = await requests(a.key, { limit: '2', cursor: first.body.data.nextCursor });
  expect(second.body.data.items.map((c: { requestId: string }) => c.requestId)).toEqual([ids[2], ids[1]]);
  const third = await requests(a.key, { limit: '2', cursor: second.body.data.nextCursor });
  expect(third.body.data.items.map((c: { requestId: string }) => c.requestId)).toEqual([ids[0]]);
  expect(third.body.data.nextCursor).toBeNull();

  const errors = await requests(a.key, { status: '5xx' });
  expect(errors.body.data.items).toHaveLength(1);
  expect(errors.body.data.items[0]).toMatchObject({
    requestId: ids[4],
    status: 502,
    code: 'upstream_failed',
    endpoint: 'anime/creature-data',
  });
  expect(errors.body.data.items[0].providers).toEqual([
    expect.objectContaining({ upstream: 'pokeapi', status: 502, code: 'upstream_failed' }),
  ]);
  expect((await requests(a.key, { key: b.record.id })).body.data.items).toHaveLength(2);
  expect((await requests(a.key, { endpoint: 'tools/ccgen', code: 'upstream_failed' })).body.data.items).toHaveLength(0);
  expect((await requests(a.key, { from: new Date(Date.now() + 60_000).toISOString() })).body.data.items).toHaveLength(0);

  const one = await request(t.app).get(`/api/v1/account/requests/${ids[0]}`).set('X-API-Key', b.key);
  expect(one.status).toBe(200);
  expect(one.body.data).toMatchObject({
    requestId: ids[0],
    endpoint: 'tools/ccgen',
    status: 200,
    source: 'embedded',
    params: { bin: '457173' },
  });
  expect(one.body.metadata.requestId).toBe(one.headers['x-request-id']);
});

test('reading the log does not spend the allowance', async () => {
  const { a } = await accountKey('not-metered@example.com');
  const before = Number((await ccgen(a.key)).headers['x-ratelimit-remaining']);
  for (let i = 0; i < 3; i++) expect((await requests(a.key)).status).toBe(200);
  expect((await request(t.app).get('/api/v1/account/requests/nothing-here').set('X-API-Key', a.key)).status).toBe(404);
  expect(Number((await ccgen(a.key)).headers['x-ratelimit-remaining'])).toBe(before - 1);
});

test('a shared key has no log to read; no key is a 401; bad filters are 400s that name them', async () => {
  for (const key of [KEYS.free, KEYS.anonymous]) {
    const res = await requests(key);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ success: false, code: 'forbidden' });
  }
  expect((await request(t.app).get('/api/v1/account/requests')).status).toBe(401);
  for (const [name, value] of [
    ['status', '6xx'],
    ['limit', '0'],
    ['from', 'yesterday'],
    ['cursor', "x' or 1=1"],
    ['endpoint', '../etc'],
  ]) {
    const res = await requests(KEYS.premium, { [name]: value });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(`Invalid value for ${name}`);
  }
  const bad = await request(t.app).get('/api/v1/account/requests/%E0%A4%A').set('X-API-Key', KEYS.premium);
  expect(bad.status).toBe(400);
});

test('a personal key of no account reads its own calls', async () => {
  const id = (await ccgen(KEYS.enterprise)).headers['x-request-id'];
  await t.api.requestLog!.flush();
  const own = await requests(KEYS.enterprise);
  expect(own.body.data.items.map((c: { requestId: string }) => c.requestId)).toContain(id);
  const other = await requests(KEYS.premium);
  expect(other.body.data.items.map((c: { requestId: string }) => c.requestId)).not.toContain(id);
});
