// A plan belongs to the account: every key of a Premium or Enterprise account spends the
// account's one allowance, through the API as a caller meets it. Plans set small through configuration.
import request from 'supertest';
import { appForTests, KEYS } from '../helpers/app.js';
import { Accounts } from '../../portal/accounts/accounts.js';

const t = appForTests({ PLAN_PREMIUM_LIMIT: '3', PLAN_ENTERPRISE_LIMIT: '6' });
const ccgen = '/api/v1/tools/ccgen';
const call = (key: string) => request(t.app).get(ccgen).query({ bin: '457173' }).set('X-API-Key', key);

async function premiumAccount(email: string) {
  const accounts = new Accounts(t.api.database.db, t.api.keys);
  const account = (await accounts.create({ email, name: 'Shared', password: 'a long enough password 1', plan: 'premium' }))!;
  const one = await t.api.keys.issue('premium', 'one', account.id);
  const two = await t.api.keys.issue('premium', 'two', account.id);
  return { accounts, account, one, two };
}

test('two keys of one account share one allowance; the call past it is 429 whichever key makes it', async () => {
  const { one, two } = await premiumAccount('shared@example.com');
  const seen = [];
  for (const key of [one.key, two.key, one.key]) {
    const res = await call(key);
    expect(res.status).toBe(200);
    seen.push(res.headers['x-ratelimit-remaining']);
  }
  expect(seen).toEqual(['2', '1', '0']);
  for (const key of [one.key, two.key]) {
    const res = await call(key);
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ success: false, error: 'Rate limit exceeded. Try again later.', code: 'quota' });
  }
  // A key without an account (API_KEYS_FILE's) keeps its own.
  expect((await call(KEYS.premium)).headers['x-ratelimit-remaining']).toBe('2');
});

test('a rotated key continues the count, and a plan change carries it over', async () => {
  const { accounts, account, one } = await premiumAccount('rotates@example.com');
  await call(one.key);
  await call(one.key);
  const fresh = (await t.api.keys.rotate(one.record.id, 0))!;
  expect((await call(one.key)).status).toBe(401); // the old key is refused at once
  const res = await call(fresh.key);
  expect(res.status).toBe(200);
  expect(res.headers['x-ratelimit-remaining']).toBe('0'); // 3 - (2 + 1): no fresh allowance
  expect((await call(fresh.key)).status).toBe(429); // the 4th counted

  await accounts.update(account.id, { plan: 'enterprise' });
  const after = await call(fresh.key);
  expect(after.status).toBe(200);
  expect(after.headers['x-ratelimit-limit']).toBe('6');
  expect(after.headers['x-ratelimit-remaining']).toBe('1'); // 6 - (4 + 1)
});

test("the account's usage through the API: the key's own calls, the account's allowance", async () => {
  const { one, two } = await premiumAccount('usage@example.com');
  await call(one.key);
  await call(two.key);
  await new Promise((r) => setTimeout(r, 1_100));
  const res = await request(t.app).get('/api/v1/account/usage').set('X-API-Key', one.key);
  expect(res.status).toBe(200);
  expect(res.body.data.allowance).toMatchObject({ limit: 3, used: 2, remaining: 1 });
  expect(res.body.data.daily.total).toBe(1);
});
