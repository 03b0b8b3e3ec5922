// The request inspector: an account sees its own calls and never another's, by its page, its exports, a
// call's page (an id guessed or taken from another account) or the API; an operator finds any call by its
// request id in one search on /admin/requests; a call's page shows the providers tried and its Replay in
// Try it link carries the parameters sent, never a redacted one.
import request from 'supertest';
import { appForTests, testApp } from '../helpers/app.js';
import { signIn, submit, visitor } from '../helpers/portal.js';
import { Accounts } from '../../portal/accounts/accounts.js';
import { LogRecords } from '../../features/request-log/records.js';

const t = appForTests({ UPSTREAM_POKEAPI_URL: 'http://127.0.0.1:9' });
const PW = 'correct horse battery';

async function member(email: string, role: 'user' | 'admin' = 'user') {
  const accounts = new Accounts(t.api.database.db, t.api.keys);
  const account = (await accounts.create({ email, name: email, password: PW, role }))!;
  await accounts.update(account.id, { plan: 'premium' });
  const { key, record } = await t.api.keys.issue('premium', `${email} key`, account.id);
  const agent = visitor(t);
  expect((await signIn(agent, email, PW)).status).toBe(303);
  return { account, key, keyId: record.id, agent };
}

const call = (key: string, query: Record<string, string>) => request(t.app).get('/api/v1/tools/ccgen').query(query).set('X-API-Key', key);

test("one account never sees another's calls: page, exports, call page, id guess, API", async () => {
  const alice = await member('alice-log@example.com');
  const bob = await member('bob-log@example.com');
  const aliceId = (await call(alice.key, { bin: '411111' })).headers['x-request-id'];
  const bobId = (await call(bob.key, { bin: '522222' })).headers['x-request-id'];
  await t.api.requestLog!.flush();

  const page = await alice.agent.get('/dashboard/requests');
  expect(page.status).toBe(200);
  expect(page.text).toContain(aliceId);
  expect(page.text).not.toContain(bobId);
  for (const kind of ['csv', 'json']) {
    const out = await alice.agent.get(`/dashboard/requests.${kind}`);
    expect(out.status).toBe(200);
    expect(out.text).toContain(aliceId);
    expect(out.text).toContain('411111');
    expect(out.text).not.toContain(bobId);
    expect(out.text).not.toContain('522222');
  }
  // Filters go with the export: a filter that matches nothing exports nothing.
  expect(JSON.parse((await alice.agent.get('/dashboard/requests.json?status=5xx')).text)).toEqual([]);
  // Bob's request id, asked for by Alice: as if it did not exist.
  expect((await alice.agent.get(`/dashboard/requests/${bobId}`)).status).toBe(404);
  const searched = await alice.agent.get(`/dashboard/requests?requestId=${bobId}`);
  expect(searched.status).toBe(200);
  expect(searched.text).toContain('No calls match');
  expect((await request(t.app).get(`/api/v1/account/requests/${bobId}`).set('X-API-Key', alice.key)).status).toBe(404);
  const api = await request(t.app).get('/api/v1/account/requests').set('X-API-Key', alice.key);
  expect(JSON.stringify(api.body)).not.toContain(bobId);
  // Not an admin: the operators' inspector is refused.
  expect((await alice.agent.get('/admin/requests')).status).toBe(403);
  expect((await alice.agent.get('/admin/requests.csv')).status).toBe(403);
  // Signed out: sent to sign in.
  expect((await visitor(t).get('/dashboard/requests.json')).status).toBe(303);
});

test("a request id search opens the call's page: providers tried, and Replay in Try it without secrets", async () => {
  const carol = await member('carol-log@example.com');
  const failed = await request(t.app)
    .get('/api/v1/anime/creature-data')
    .query({ resource: 'pokemon', id: '25', token: 'tok-never-replayed' })
    .set('X-API-Key', carol.key);
  expect(failed.status).toBe(502);
  const id = failed.headers['x-request-id'];
  await t.api.requestLog!.flush();

  const search = await carol.agent.get(`/dashboard/requests?requestId=${id}`);
  expect(search.status).toBe(303);
  expect(search.headers.location).toBe(`/dashboard/requests/${id}`);
  const page = await carol.agent.get(search.headers.location);
  expect(page.status).toBe(200);
  expect(page.text).toContain('Providers tried');
  expect(page.text).toMatch(/<li>\s*<strong>pokeapi<\/strong> <span class="status s5xx">502<\/span> <code>upstream_failed<\/code>/);
  const replay = /<a class="button" href="([^"]+)">Replay in Try it<\/a>/.exec(page.text)![1].replace(/&amp;/g, '&');
  const url = new URL(replay, 'http://x');
  expect(url.pathname).toBe('/docs/anime');
  expect(url.searchParams.get('try')).toBe('/api/v1/anime/creature-data');
  expect(url.searchParams.get('p.resource')).toBe('pokemon');
  expect(url.searchParams.get('p.id')).toBe('25');
  expect(replay).not.toContain('token');
  expect(replay).not.toContain(carol.key);
  // The reference opens that operation's Try it, filled in.
  const docs = await carol.agent.get(replay.split('#')[0]);
  expect(docs.text).toMatch(
    /<details class="try" open><summary>Try it<\/summary>\s*<form class="try-form" data-method="GET" data-path="\/api\/v1\/anime\/creature-data"/,
  );
  expect(docs.text).toMatch(/name="id" value="25"/);
});

test('an operator finds any call by its request id in one search, and filters by account', async () => {
  const dave = await member('dave-log@example.com');
  const ops = await member('ops-log@example.com', 'admin');
  const id = (await call(dave.key, { bin: '433333' })).headers['x-request-id'];
  await t.api.requestLog!.flush();

  const found = await ops.agent.get(`/admin/requests?requestId=${id}`);
  expect(found.status).toBe(303);
  const page = await ops.agent.get(found.headers.location);
  expect(page.status).toBe(200);
  expect(page.text).toContain(id);
  expect(page.text).toContain(dave.account.id);
  const byAccount = await ops.agent.get(`/admin/requests?account=${encodeURIComponent('dave-log@example.com')}`);
  expect(byAccount.text).toContain(id);
  const other = await ops.agent.get(`/admin/requests?account=${encodeURIComponent('ops-log@example.com')}`);
  expect(other.text).not.toContain(id);
  expect((await ops.agent.get('/admin/requests.csv')).text).toContain(id);
  expect((await ops.agent.get('/admin/requests?account=nobody@example.com')).status).toBe(404);
  expect((await ops.agent.get('/admin/requests?status=9xx')).status).toBe(400);
});

test('pages follow with a cursor, keeping the filter', async () => {
  const erin = await member('erin-log@example.com');
  const ids: string[] = [];
  for (let i = 0; i < 55; i++) ids.push((await call(erin.key, { bin: '457173' })).headers['x-request-id']);
  await t.api.requestLog!.flush();
  const first = await erin.agent.get('/dashboard/requests?endpoint=tools/ccgen');
  expect(first.text).toContain(ids[54]);
  expect(first.text).not.toContain(ids[4]);
  const next = /<a href="([^"]+)" rel="next">Older calls<\/a>/.exec(first.text)![1].replace(/&amp;/g, '&');
  expect(next).toContain('endpoint=tools%2Fccgen');
  const second = await erin.agent.get(next);
  for (const id of ids.slice(0, 5)) expect(second.text).toContain(id);
  expect(second.text).not.toContain(ids[5]);
});

test('an account deleted by its owner takes its calls with it', async () => {
  const fay = await member('fay-log@example.com');
  const id = (await call(fay.key, { bin: '466666' })).headers['x-request-id'];
  await t.api.requestLog!.flush();
  const rows = async () => (await new LogRecords(t.api.database).list({ requestId: id, limit: 5 })).rows;
  expect(await rows()).toHaveLength(1);
  const deleted = await submit(fay.agent, '/account', '/account/delete', { password: PW });
  expect(deleted.status).toBe(303);
  expect(await rows()).toHaveLength(0);
});

test('with REQUEST_LOG=off (the default) no call is recorded, and the inspectors say the log is off', async () => {
  const off = await testApp({ REQUEST_LOG: 'off' });
  try {
    expect(off.api.requestLog).toBeUndefined();
    const email = 'off-log@example.com';
    const accounts = new Accounts(off.api.database.db, off.api.keys);
    const account = (await accounts.create({ email, name: email, password: PW, role: 'admin' }))!;
    const { key } = await off.api.keys.issue('premium', 'off key', account.id);
    const id = (await request(off.app).get('/api/v1/tools/ccgen').query({ bin: '411111' }).set('X-API-Key', key)).headers['x-request-id'];
    const agent = visitor(off);
    expect((await signIn(agent, email, PW)).status).toBe(303);
    for (const page of ['/dashboard/requests', '/admin/requests']) {
      const text = (await agent.get(page)).text;
      expect(text).toContain('The request log is off on this server');
      expect(text).not.toContain(id);
    }
    const api = await request(off.app).get('/api/v1/account/requests').set('X-API-Key', key);
    expect(api.status).toBe(200);
    expect(api.body.data.items).toEqual([]);
  } finally {
    await off.close();
  }
});
