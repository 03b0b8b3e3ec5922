// Upgrade requests without billing, over HTTP: a user asks for a higher plan (with a message) on /account,
// one pending request per account, the request in the admins' queue on /admin, approval moving the account
// and its keys to the plan ('plan.changed' heard), decline with a reason shown to the user, decisions heard
// by onDecided, and the refusals (not an admin, a plan not above, a request decided already).
import crypto from 'node:crypto';
import request from 'supertest';
import { testApp, type TestApp } from '../helpers/app.js';
import { csrfOf, signIn, signUp, submit, visitor, type Agent } from '../helpers/portal.js';
import { Accounts, type Plan } from '../../portal/accounts/accounts.js';
import { UpgradeRequests } from '../../portal/accounts/upgrades.js';
import type { AccountEvent } from '../../engine/access/account-events.js';

const PW = 'correct horse battery';
const ADMIN = 'queue-admin@example.com';
let t: TestApp;
let admin: Agent;
let accounts: Accounts;
const events: AccountEvent[] = [];

beforeAll(async () => {
  t = await testApp({ ADMIN_EMAIL: ADMIN, ADMIN_PASSWORD: PW });
  accounts = new Accounts(t.api.database.db, t.api.keys);
  t.api.keys.events.on((e) => void events.push(e));
  admin = visitor(t);
  expect((await signIn(admin, ADMIN, PW)).status).toBe(303);
});
afterAll(async () => {
  await t.close();
});

async function user(plan: Plan = 'free'): Promise<{ agent: Agent; id: string; email: string }> {
  const agent = visitor(t);
  const email = `up-${crypto.randomUUID().slice(0, 8)}@example.com`;
  expect((await signUp(agent, email, PW)).status).toBe(303);
  const id = (await accounts.byEmail(email))!.id;
  if (plan !== 'free') await accounts.update(id, { plan });
  return { agent, id, email };
}

const ask = (agent: Agent, plan: string, message = '') => submit(agent, '/account', '/account/upgrade', { plan, message });
const decide = (accountId: string, decision: 'approve' | 'decline', reason = '') =>
  submit(admin, '/admin', `/admin/upgrades/${accountId}/${decision}`, { reason });

test('a Free user asks for Premium; one pending request; the admin approves: plan and keys move, plan.changed is heard', async () => {
  const u = await user();
  const page = await u.agent.get('/account');
  expect(page.text).toContain('Request an upgrade');
  expect(page.text).toMatch(/<option value="premium">Premium: 5,000 requests per 24 hours<\/option>/);

  const asked = await ask(u.agent, 'premium', 'For my <b>weather</b> app');
  expect(asked.status).toBe(303);
  expect(asked.headers.location).toBe('/account?done=upgrade#plan');
  const waiting = await u.agent.get('/account');
  expect(waiting.text).toContain('It waits for an administrator');
  expect(waiting.text).not.toContain('<button type="submit">Request an upgrade</button>');
  expect((await u.agent.get('/dashboard')).text).toContain('Your request for the Premium plan waits for an administrator');

  // One pending request per account.
  const again = await ask(u.agent, 'enterprise');
  expect(again.status).toBe(409);
  expect(again.text).toContain('You have asked for an upgrade already');

  // The admins' queue: the account, the plans, the message (escaped).
  const queue = await admin.get('/admin');
  expect(queue.text).toMatch(/Upgrade requests <span class="badge warn">\d+<\/span>/);
  expect(queue.text).toContain(u.email);
  expect(queue.text).toContain('Free → <strong>Premium</strong>');
  expect(queue.text).toContain('For my &lt;b&gt;weather&lt;/b&gt; app');
  expect(queue.text).toContain(`action="/admin/upgrades/${u.id}/approve"`);

  // Only admins decide.
  const byUser = await u.agent
    .post(`/admin/upgrades/${u.id}/approve`)
    .type('form')
    .send({ csrf: csrfOf((await u.agent.get('/account')).text) });
  expect(byUser.status).toBe(403);

  events.length = 0;
  const approved = await decide(u.id, 'approve');
  expect(approved.status).toBe(303);
  expect(approved.headers.location).toBe('/admin?done=approved');
  expect((await accounts.get(u.id))!.plan).toBe('premium');
  expect(events.filter((e) => e.type === 'plan.changed')).toEqual([
    expect.objectContaining({ accountId: u.id, data: { from: 'free', to: 'premium' } }),
  ]);

  const after = await u.agent.get('/account');
  expect(after.text).toMatch(/You asked for <strong>Premium<\/strong> on .*: approved on/);
  expect(after.text).toContain('Request an upgrade'); // Enterprise is still above
  expect((await admin.get('/admin')).text).not.toContain(`action="/admin/upgrades/${u.id}/approve"`);
  // The account holds personal keys now.
  expect((await u.agent.get('/dashboard')).text).toContain('Create a key');

  // Deciding it again: it was decided already.
  const twice = await decide(u.id, 'decline');
  expect(twice.headers.location).toBe('/admin?done=already-decided');
  expect((await accounts.get(u.id))!.plan).toBe('premium');
});

test("approving Premium → Enterprise moves the account's keys: the next answer carries X-RateLimit-Limit 50000", async () => {
  const u = await user('premium');
  const made = await submit(u.agent, '/dashboard', '/dashboard/keys', { name: 'app' });
  const page = await u.agent.get(made.headers.location);
  const key = /data-api-key[^>]*>(uua_[0-9A-Za-z]+)</.exec(page.text)![1];
  const call = () => request(t.app).get('/api/v1/tools/ccgen').query({ bin: '457173' }).set('X-API-Key', key);
  expect((await call()).headers['x-ratelimit-limit']).toBe('5000');
  expect((await ask(u.agent, 'enterprise', 'more calls')).status).toBe(303);
  expect((await decide(u.id, 'approve')).status).toBe(303);
  const deadline = Date.now() + 2000;
  while ((await call()).headers['x-ratelimit-limit'] !== '50000') {
    if (Date.now() > deadline) throw new Error('the key kept its old plan');
    await new Promise((ok) => setTimeout(ok, 50));
  }
  // Enterprise is the top: no form any more.
  const top = await u.agent.get('/account');
  expect(top.text).toContain('This is the highest plan.');
  expect((await ask(u.agent, 'enterprise')).status).toBe(422);
});

test('the admin declines with a reason; the user sees it and may ask again', async () => {
  const u = await user();
  expect((await ask(u.agent, 'enterprise')).status).toBe(303);
  const declined = await decide(u.id, 'decline', 'Tell us about <your> use first');
  expect(declined.headers.location).toBe('/admin?done=declined');
  expect((await accounts.get(u.id))!.plan).toBe('free');
  const page = await u.agent.get('/account');
  expect(page.text).toMatch(
    /You asked for <strong>Enterprise<\/strong> on .*: declined on .*The administrator wrote: “Tell us about &lt;your&gt; use first”/s,
  );
  expect(page.text).toContain('<button type="submit">Request an upgrade</button>');
  expect((await ask(u.agent, 'premium')).status).toBe(303);
  expect((await u.agent.get('/account')).text).toContain('It waits for an administrator');
});

test('onDecided hears every decision (the seam for telling the user); a failing listener changes nothing', async () => {
  const warned: string[] = [];
  const upgrades = new UpgradeRequests(t.api.database.db, accounts, { warn: (_o: unknown, msg: string) => void warned.push(msg) } as never);
  const heard: string[] = [];
  upgrades.onDecided(() => {
    throw new Error('mail server down');
  });
  upgrades.onDecided((r, a) => void heard.push(`${a.email} ${r.status} ${r.to}${r.reason ? ` (${r.reason})` : ''}`));
  const a = (await user()).id;
  const b = (await user()).id;
  for (const id of [a, b]) expect(await upgrades.request((await accounts.get(id))!, 'premium', '')).toMatchObject({ status: 'pending' });
  await upgrades.decide(a, { approve: true, by: 'acc_admin' });
  await upgrades.decide(b, { approve: false, by: 'acc_admin', reason: 'not now' });
  const email = async (id: string) => (await accounts.get(id))!.email;
  expect(heard).toEqual([`${await email(a)} approved premium`, `${await email(b)} declined premium (not now)`]);
  expect(warned).toEqual(['upgrade request: a listener failed', 'upgrade request: a listener failed']);
  expect((await accounts.get(a))!.plan).toBe('premium');
  expect((await upgrades.of(b))!.status).toBe('declined');
});

test('bad requests: a plan not above, an unknown plan, a message too long, a reason too long, an unknown decision', async () => {
  const u = await user('premium');
  expect((await ask(u.agent, 'free')).status).toBe(422);
  expect((await ask(u.agent, 'premium')).status).toBe(422);
  expect((await ask(u.agent, 'platinum')).status).toBe(422);
  const long = await ask(u.agent, 'enterprise', 'x'.repeat(501));
  expect(long.status).toBe(422);
  expect(long.text).toContain('Use at most 500 characters for the message');
  expect((await ask(u.agent, 'enterprise', 'ok')).status).toBe(303);
  expect((await decide(u.id, 'decline', 'y'.repeat(301))).status).toBe(400);
  expect((await submit(admin, '/admin', `/admin/upgrades/${u.id}/maybe`, {})).status).toBe(404);
  expect((await decide('acc_nosuchaccount', 'approve')).headers.location).toBe('/admin?done=already-decided');
  // Without the CSRF token, nothing is asked.
  expect((await u.agent.post('/account/upgrade').type('form').send({ plan: 'enterprise' })).status).toBe(403);
});
