// History that outlives keys: the usage page and /admin keep the calls of revoked and rotated
// keys, listed as such; the account's keys together are shown on the account's one allowance, and the CSV
// export includes every key's calls. Calls given back after a 5xx are named beside the allowance.
import request from 'supertest';
import { appForTests } from '../helpers/app.js';
import { signIn, signUp, visitor } from '../helpers/portal.js';
import { Accounts } from '../../portal/accounts/accounts.js';
import { eventually } from '../helpers/eventually.js';

// PokéAPI on a closed port: its endpoint answers 502, which is given back to the allowance.
const t = appForTests({ PLAN_PREMIUM_LIMIT: '50', UPSTREAM_POKEAPI_URL: 'http://127.0.0.1:9' });
const PW = 'correct horse battery';
const call = (key: string) => request(t.app).get('/api/v1/tools/ccgen').query({ bin: '457173' }).set('X-API-Key', key);

test("a revoked key's calls stay on the usage page, in the CSV and on /admin", async () => {
  const agent = visitor(t);
  const email = 'history@example.com';
  expect((await signUp(agent, email, PW)).status).toBe(303);
  const accounts = new Accounts(t.api.database.db, t.api.keys);
  const account = (await accounts.update((await accounts.byEmail(email))!.id, { plan: 'premium' }))!;
  const kept = await t.api.keys.issue('premium', 'kept key', account.id);
  const gone = await t.api.keys.issue('premium', 'gone key', account.id);
  for (let i = 0; i < 2; i++) expect((await call(kept.key)).status).toBe(200);
  for (let i = 0; i < 3; i++) expect((await call(gone.key)).status).toBe(200);
  await eventually(async () => (await agent.get('/dashboard/usage.csv?key=all&period=hour')).text.includes(',5,'));
  await t.api.keys.revoke(gone.record.id);
  expect((await call(gone.key)).status).toBe(401);

  // All keys together is the page's first view: 5 calls, on the account's allowance (5 of 50, and the 401 not counted).
  const all = await agent.get('/dashboard/usage');
  expect(all.status).toBe(200);
  expect(all.text).toContain('All keys of your account (revoked ones included)');
  expect(all.text).toMatch(/<option value="[0-9a-f]{12}">gone key \(uua_[0-9A-Za-z]{4}…[0-9A-Za-z]{4}\) — revoked<\/option>/);
  const csv = (await agent.get('/dashboard/usage.csv?key=all&period=hour')).text;
  expect(csv.split('\n').filter((l) => /,5,/.test(l))).toHaveLength(1);

  // The revoked key by itself: its 3 calls, said to be revoked.
  const one = await agent.get(`/dashboard/usage?key=${gone.record.id}`);
  expect(one.status).toBe(200);
  expect(one.text).toContain('This key was revoked on');
  expect((await agent.get(`/dashboard/usage.csv?key=${gone.record.id}&period=day`)).text.split('\n').some((l) => /,3,/.test(l))).toBe(true);

  // The operator's totals keep them too, the key listed as revoked.
  const admin = visitor(t);
  await accounts.create({ email: 'ops@example.com', name: 'Ops', password: PW, role: 'admin' });
  expect((await signIn(admin, 'ops@example.com', PW)).status).toBe(303);
  const detail = await admin.get(`/admin/accounts/${account.id}`);
  expect(detail.text).toMatch(/<div class="stat">5<\/div><div class="muted">requests in 24 hours/);
  expect(detail.text).toMatch(/gone key<\/td>.*badge danger">revoked/s);
});

test('a call given back after a 5xx is named beside the allowance it is not counted in', async () => {
  const agent = visitor(t);
  const email = 'refunded@example.com';
  expect((await signUp(agent, email, PW)).status).toBe(303);
  const accounts = new Accounts(t.api.database.db, t.api.keys);
  const account = (await accounts.update((await accounts.byEmail(email))!.id, { plan: 'premium' }))!;
  const { key } = await t.api.keys.issue('premium', 'refunds', account.id);
  for (let i = 0; i < 3; i++) expect((await call(key)).status).toBe(200);
  const failed = await request(t.app).get('/api/v1/anime/creature-data').query({ resource: 'pokemon', id: '1' }).set('X-API-Key', key);
  expect(failed.status).toBe(502);
  expect(failed.headers['x-ratelimit-remaining']).toBe('46'); // counted while it ran, given back after
  await eventually(async () => (await agent.get('/dashboard/usage.csv?key=all&period=hour')).text.includes(',4,'));
  const page = (await agent.get('/dashboard/usage')).text;
  expect(page).toMatch(/<dt>Used in this window<\/dt><dd><span class="num">3<\/span> of 50<\/dd>/);
  expect(page).toContain(
    "1 call in the last 24 hours failed on the service's side (5xx) and was given back: listed below, not counted as used.",
  );
});
