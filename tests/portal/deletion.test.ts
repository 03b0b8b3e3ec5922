// Deleting one's account on /account: confirmed with the password; its keys refused at once, its sessions
// ended, its personal data erased (account, email index, upgrade request, last-use addresses), its usage
// kept for the operator's totals without the link to the person; the last admin cannot delete itself.
import crypto from 'node:crypto';
import request from 'supertest';
import { testApp, type TestApp } from '../helpers/app.js';
import { signIn, signUp, submit, visitor, type Agent } from '../helpers/portal.js';
import { Accounts } from '../../portal/accounts/accounts.js';
import type { AccountEvent } from '../../engine/access/account-events.js';
import { eventually } from '../helpers/eventually.js';

const PW = 'correct horse battery';
const ADMIN = 'only-admin@example.com';
let t: TestApp;
let accounts: Accounts;
beforeAll(async () => {
  t = await testApp({ ADMIN_EMAIL: ADMIN, ADMIN_PASSWORD: PW });
  accounts = new Accounts(t.api.database.db, t.api.keys);
});
afterAll(async () => {
  await t.close();
});

const call = (key: string) => request(t.app).get('/api/v1/tools/ccgen').query({ bin: '457173' }).set('X-API-Key', key);

async function premiumWithKey(): Promise<{ agent: Agent; email: string; id: string; key: string; keyId: string }> {
  const agent = visitor(t);
  const email = `gone-${crypto.randomUUID().slice(0, 8)}@example.com`;
  expect((await signUp(agent, email, PW)).status).toBe(303);
  const id = (await accounts.byEmail(email))!.id;
  await accounts.update(id, { plan: 'premium' });
  const made = await submit(agent, '/dashboard', '/dashboard/keys', { name: 'to be deleted' });
  const key = /data-api-key[^>]*>(uua_[0-9A-Za-z]+)</.exec((await agent.get(made.headers.location)).text)![1];
  return { agent, email, id, key, keyId: crypto.hash('sha256', key).slice(0, 12) };
}

/** The admin page's line of deleted accounts' requests, as [24 h, 30 days]. */
async function erasedFigures(admin: Agent): Promise<[number, number] | undefined> {
  const m = /Deleted accounts \(\d+, anonymised\): (\d+) requests in 24 h, (\d+) in 30 days/.exec((await admin.get('/admin')).text);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

test('delete: a wrong password changes nothing; the right one revokes keys at once, ends sessions, erases the person, keeps the counts', async () => {
  const admin = visitor(t);
  expect((await signIn(admin, ADMIN, PW)).status).toBe(303);
  const before = (await erasedFigures(admin)) ?? [0, 0];

  const u = await premiumWithKey();
  const elsewhere = visitor(t);
  expect((await signIn(elsewhere, u.email, PW)).status).toBe(303);
  for (let i = 0; i < 3; i++) expect((await call(u.key)).status).toBe(200);
  await eventually(async () => (await t.api.keys.lastUsed([u.keyId])).has(u.keyId));
  expect((await submit(u.agent, '/account', '/account/upgrade', { plan: 'enterprise' })).status).toBe(303);

  const page = await u.agent.get('/account');
  expect(page.text).toContain('Delete my account');
  const wrong = await submit(u.agent, '/account', '/account/delete', { password: 'not my password' });
  expect(wrong.status).toBe(422);
  expect(wrong.text).toContain('Your current password is not right.');
  expect(await accounts.get(u.id)).toBeDefined();
  expect((await call(u.key)).status).toBe(200);

  const events: AccountEvent[] = [];
  t.api.keys.events.on((e) => void events.push(e));
  const deleted = await submit(u.agent, '/account', '/account/delete', { password: PW });
  expect(deleted.status).toBe(303);
  expect(deleted.headers.location).toBe('/account/deleted');
  const cookies = ([] as string[]).concat(deleted.headers['set-cookie'] ?? []);
  expect(cookies.some((c) => /^uua_session=;.*Max-Age=0/.test(c))).toBe(true);
  expect((await u.agent.get('/account/deleted')).text).toContain('Your account is deleted');

  // Keys refused at once; the revocation is announced with its reason.
  expect((await call(u.key)).status).toBe(401);
  expect(events).toContainEqual(
    expect.objectContaining({ type: 'key.revoked', accountId: u.id, data: expect.objectContaining({ reason: 'account-deleted' }) }),
  );
  // Every session ended, this one and the other browser's.
  expect((await u.agent.get('/account')).status).toBe(303);
  expect((await elsewhere.get('/dashboard')).status).toBe(303);
  // Sign-in fails as for any unknown email.
  const again = await signIn(visitor(t), u.email, PW);
  expect(again.status).toBe(401);
  expect(again.text).toContain('Wrong email or password');

  // The person is erased: account (its address too), upgrade request, last-use address; no key names the account.
  expect(await accounts.get(u.id)).toBeUndefined();
  const db = t.api.database.db;
  expect(await db.selectFrom('accounts').select('id').where('emailKey', '=', u.email.toLowerCase()).executeTakeFirst()).toBeUndefined();
  expect(await db.selectFrom('upgradeRequests').selectAll().where('accountId', '=', u.id).executeTakeFirst()).toBeUndefined();
  expect((await t.api.keys.lastUsed([u.keyId])).size).toBe(0);
  expect(await t.api.keys.list({ accountId: u.id })).toEqual([]);
  const erased = JSON.stringify(await db.selectFrom('erasedUsage').selectAll().execute());
  for (const personal of [u.id, u.email, 'to be deleted']) expect(erased).not.toContain(personal);
  expect((await admin.get('/admin')).text).not.toContain(u.email);

  // The calls still count in the operator's totals: the three above and the one after the wrong password.
  const after = (await erasedFigures(admin))!;
  expect(after).toEqual([before[0] + 4, before[1] + 4]);

  // The email is free again.
  expect((await signUp(visitor(t), u.email, PW)).status).toBe(303);
});

test('the last admin cannot delete their account; with a second admin they can', async () => {
  const admin = visitor(t);
  expect((await signIn(admin, ADMIN, PW)).status).toBe(303);
  const refused = await submit(admin, '/account', '/account/delete', { password: PW });
  expect(refused.status).toBe(409);
  expect(refused.text).toContain('You are the last admin');
  expect(await accounts.byEmail(ADMIN)).toBeDefined();

  const second = await premiumWithKey();
  await accounts.update(second.id, { role: 'admin' });
  // A suspended admin does not count: nobody could act as it.
  await accounts.update(second.id, { status: 'suspended' });
  expect((await submit(admin, '/account', '/account/delete', { password: PW })).status).toBe(409);
  await accounts.update(second.id, { status: 'active' });
  expect((await submit(admin, '/account', '/account/delete', { password: PW })).status).toBe(303);
  expect(await accounts.byEmail(ADMIN)).toBeUndefined();
});

test('deletion needs the CSRF token and a signed-in visitor', async () => {
  const u = await premiumWithKey();
  expect((await u.agent.post('/account/delete').type('form').send({ password: PW })).status).toBe(403);
  expect((await request(t.app).post('/account/delete').type('form').send({ password: PW })).status).toBe(403);
  expect(await accounts.get(u.id)).toBeDefined();
  expect((await call(u.key)).status).toBe(200);
});
