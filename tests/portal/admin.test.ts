// /admin: only for admins; list and search accounts, change a plan (the account's keys carry it from
// their next request), suspend and reactivate (its sessions end, its keys are refused at once), approve
// pending accounts, revoke keys, one-time invite links; everything a user typed shown escaped.
import crypto from 'node:crypto';
import request from 'supertest';
import { testApp, type TestApp } from '../helpers/app.js';
import { csrfOf, signIn, signUp, submit, visitor, type Agent } from '../helpers/portal.js';
import { Accounts, type Account } from '../../portal/accounts/accounts.js';

const PW = 'correct horse battery';
const ADMIN = 'admin@example.com';
const ccgen = '/api/v1/tools/ccgen';
let t: TestApp;
let admin: Agent;
let accounts: Accounts;
beforeAll(async () => {
  t = await testApp({ ADMIN_EMAIL: ADMIN, ADMIN_PASSWORD: PW, SIGNUP: 'approval' });
  accounts = new Accounts(t.api.database.db, t.api.keys);
  admin = visitor(t);
  expect((await signIn(admin, ADMIN, PW)).status).toBe(303);
});
afterAll(async () => {
  await t.close();
});

const email = () => `user-${crypto.randomUUID().slice(0, 8)}@example.com`;

/** An active user (made by an invite-free sign-up, then approved directly). */
async function user(name = 'Test User'): Promise<{ agent: Agent; account: Account }> {
  const mail = email();
  await signUp(visitor(t), mail, PW, name);
  const account = (await accounts.update((await accounts.byEmail(mail))!.id, { status: 'active' }))!;
  const agent = visitor(t);
  expect((await signIn(agent, mail, PW)).status).toBe(303);
  return { agent, account };
}

const post = (path: string, fields: Record<string, string>) => submit(admin, '/admin', path, fields);
const call = (key: string) => request(t.app).get(ccgen).query({ apikey: key, bin: '457173' });

test('only admins: anonymous visitors are sent to sign in, users get 403', async () => {
  const anon = await request(t.app).get('/admin');
  expect(anon.status).toBe(303);
  expect(anon.headers.location).toBe('/login?next=%2Fadmin');
  const { agent } = await user();
  const refused = await agent.get('/admin');
  expect(refused.status).toBe(403);
  expect(refused.text).toContain('Admins only');
  expect((await agent.get('/admin/invites')).status).toBe(403);
  const csrf = csrfOf((await agent.get('/account')).text);
  expect((await agent.post('/admin/invites').type('form').send({ csrf, plan: 'premium', days: '7' })).status).toBe(403);
  expect((await admin.get('/admin')).status).toBe(200);
  // The admin's top bar links the admin pages; a user's does not.
  expect((await admin.get('/account')).text).toContain('href="/admin"');
  expect((await agent.get('/account')).text).not.toContain('href="/admin"');
});

test('list and search accounts by email, status and plan; names shown escaped', async () => {
  const evil = '<script>alert(1)</script>';
  const { account } = await user(evil);
  const pendingMail = email();
  await signUp(visitor(t), pendingMail, PW, 'Waiting Walter');

  const list = await admin.get('/admin');
  expect(list.text).toContain(account.email);
  expect(list.text).not.toContain(evil);
  expect(list.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  expect(list.text).toMatch(/accounts? wait[s]? for approval/);

  const byPrefix = await admin.get('/admin').query({ q: pendingMail.slice(0, 13) });
  expect(byPrefix.text).toContain(pendingMail);
  expect(byPrefix.text).not.toContain(account.email);
  const byEmail = await admin.get('/admin').query({ q: account.email.slice(0, 12).toUpperCase() });
  expect(byEmail.text).toContain(account.email);
  const pending = await admin.get('/admin').query({ status: 'pending' });
  expect(pending.text).toContain(pendingMail);
  expect(pending.text).not.toContain(account.email);
  const premium = await admin.get('/admin').query({ plan: 'premium', q: account.email });
  expect(premium.text).toContain('No accounts match');
  // A search typed with markup comes back escaped in the search field.
  expect((await admin.get('/admin').query({ q: '"><b>x' })).text).toContain('value="&quot;&gt;&lt;b&gt;x"');

  const detail = await admin.get(`/admin/accounts/${account.id}`);
  expect(detail.status).toBe(200);
  expect(detail.text).not.toContain(evil);
  expect(detail.text).toContain('&lt;script&gt;');
  expect((await admin.get('/admin/accounts/acc_nope')).status).toBe(404);
});

test("search by a key's id or hint finds the account holding it; the unverified filter", async () => {
  const { account } = await user();
  const { account: other } = await user();
  await post(`/admin/accounts/${account.id}/plan`, { plan: 'premium' });
  const { record } = await t.api.keys.issue('premium', 'findable', account.id);
  for (const q of [record.id, record.id.slice(0, 6), record.hint!, record.hint!.slice(0, 10)]) {
    const found = await admin.get('/admin').query({ q });
    expect(found.text).toContain(account.email);
    expect(found.text).not.toContain(other.email);
  }
  const unconfirmed = email();
  await accounts.create({ email: unconfirmed, name: 'Not Yet', password: PW, unverified: true });
  const unverified = await admin.get('/admin').query({ status: 'unverified' });
  expect(unverified.text).toContain(unconfirmed);
  expect(unverified.text).not.toContain(account.email);
  // Listed as unconfirmed, not as active.
  expect(unverified.text).toMatch(
    new RegExp(`${unconfirmed}</a></td><td>Not Yet</td><td>free</td><td><span class="badge warn">unconfirmed</span>`),
  );
});

test('the list comes a page of 50 at a time: next and previous pages, none twice, none missed, totals counted', async () => {
  const tag = `page-${crypto.randomUUID().slice(0, 6)}`;
  const db = t.api.database.db;
  const made: string[] = [];
  // Three creation times for 120 accounts: the id orders accounts made at the same moment.
  for (let i = 0; i < 120; i++) {
    const mail = `${tag}-${String(i).padStart(3, '0')}@example.com`;
    made.push(mail);
    await db
      .insertInto('accounts')
      .values({
        id: `acc_${crypto.randomBytes(9).toString('base64url')}`,
        email: mail,
        emailKey: mail,
        name: 'Paged',
        passwordHash: 'x',
        role: 'user',
        plan: 'enterprise',
        status: 'active',
        createdAt: `2020-01-0${1 + (i % 3)}T00:00:00.000Z`,
        lastSignInAt: null,
      })
      .execute();
  }
  const emailsOn = (text: string) => [...text.matchAll(new RegExp(`>(${tag}-\\d{3}@example\\.com)<`, 'g'))].map((m) => m[1]);
  const linkOn = (text: string, rel: 'next' | 'prev') => {
    const href = new RegExp(`<a href="([^"]+)" rel="${rel}">`).exec(text)?.[1];
    return href?.replace(/&amp;/g, '&');
  };
  const pages: string[][] = [];
  let page = await admin.get('/admin').query({ q: tag, plan: 'enterprise' });
  expect(page.text).toContain('50 shown of 120 matching');
  expect(linkOn(page.text, 'prev')).toBeUndefined();
  for (;;) {
    pages.push(emailsOn(page.text));
    const next = linkOn(page.text, 'next');
    if (!next) break;
    expect(next).toContain(`q=${tag}`);
    expect(next).toContain('plan=enterprise');
    page = await admin.get(next);
  }
  expect(pages.map((p) => p.length)).toEqual([50, 50, 20]);
  const seen = pages.flat();
  expect(new Set(seen).size).toBe(120);
  expect([...seen].sort()).toEqual([...made].sort());
  // Back from the last page: the same pages, in the same order.
  const back: string[][] = [];
  for (let prev = linkOn(page.text, 'prev'); prev; prev = linkOn(page.text, 'prev')) {
    page = await admin.get(prev);
    back.unshift(emailsOn(page.text));
  }
  expect(back).toEqual(pages.slice(0, 2));
  // Filters narrow the count as well as the page.
  expect((await admin.get('/admin').query({ q: tag, plan: 'premium' })).text).toContain('0 shown of 0 matching');
  expect(await accounts.count({ q: tag })).toBe(120);
  expect(await accounts.count()).toBeGreaterThanOrEqual(120);
});

test('approve a pending account: it can sign in', async () => {
  const mail = email();
  await signUp(visitor(t), mail, PW);
  expect((await signIn(visitor(t), mail, PW)).status).toBe(403);
  const pending = (await accounts.byEmail(mail))!;
  const page = await admin.get(`/admin/accounts/${pending.id}`);
  expect(page.text).toContain('Approve');
  const approved = await post(`/admin/accounts/${pending.id}/status`, { status: 'active' });
  expect(approved.status).toBe(303);
  expect((await signIn(visitor(t), mail, PW)).status).toBe(303);
});

test("plan to premium: the user's key gets X-RateLimit-Limit 5000 at once; suspension makes it 401 at once", async () => {
  const { agent, account } = await user();
  expect((await post(`/admin/accounts/${account.id}/plan`, { plan: 'enterprise' })).status).toBe(303);
  const { key, record } = await t.api.keys.issue('enterprise', 'ci', account.id);
  const before = await call(key);
  expect(before.status).toBe(200);
  expect(before.headers['x-ratelimit-limit']).toBe('50000');

  const changed = await post(`/admin/accounts/${account.id}/plan`, { plan: 'premium' });
  expect(changed.status).toBe(303);
  expect(changed.headers.location).toBe(`/admin/accounts/${account.id}?done=plan`);
  const after = await call(key);
  expect(after.status).toBe(200);
  expect(after.headers['x-ratelimit-limit']).toBe('5000');
  expect((await accounts.get(account.id))!.plan).toBe('premium');

  expect((await post(`/admin/accounts/${account.id}/status`, { status: 'suspended' })).status).toBe(303);
  expect((await call(key)).status).toBe(401);
  // The suspended user's session ended, and signing in is refused.
  expect((await agent.get('/account')).status).toBe(303);
  expect((await signIn(visitor(t), account.email, PW)).status).toBe(403);

  expect((await post(`/admin/accounts/${account.id}/status`, { status: 'active' })).status).toBe(303);
  expect((await call(key)).status).toBe(200);
  // The free plan uses the shared free key: personal keys are refused.
  expect((await post(`/admin/accounts/${account.id}/plan`, { plan: 'free' })).status).toBe(303);
  expect((await call(key)).status).toBe(401);
  expect((await t.api.keys.get(record.id))!.disabled).toBe(true);
  expect((await post(`/admin/accounts/${account.id}/plan`, { plan: 'gold' })).status).toBe(400);
});

test("list an account's keys and revoke one: refused on the API at once", async () => {
  const { account } = await user();
  await post(`/admin/accounts/${account.id}/plan`, { plan: 'premium' });
  const kept = await t.api.keys.issue('premium', 'kept key', account.id);
  const gone = await t.api.keys.issue('premium', 'doomed <b>key</b>', account.id);
  expect((await call(gone.key)).status).toBe(200);
  const page = await admin.get(`/admin/accounts/${account.id}`);
  expect(page.text).toContain(gone.record.hint!);
  expect(page.text).toContain('doomed &lt;b&gt;key&lt;/b&gt;');
  expect(page.text).not.toContain(gone.key);
  const revoked = await post(`/admin/accounts/${account.id}/keys/${gone.record.id}/revoke`, {});
  expect(revoked.status).toBe(303);
  expect((await call(gone.key)).status).toBe(401);
  expect((await call(kept.key)).status).toBe(200);
  // A key of another account is not revoked through this one.
  const { account: other } = await user();
  expect((await post(`/admin/accounts/${other.id}/keys/${kept.record.id}/revoke`, {})).status).toBe(404);
  expect((await call(kept.key)).status).toBe(200);
});

test('usage per account: requests of its keys in 24 hours and 30 days', async () => {
  const { account } = await user();
  await post(`/admin/accounts/${account.id}/plan`, { plan: 'premium' });
  const { key } = await t.api.keys.issue('premium', 'counted', account.id);
  for (let i = 0; i < 3; i++) expect((await call(key)).status).toBe(200);
  // The recorder writes once a second.
  let page = await admin.get(`/admin/accounts/${account.id}`);
  for (let i = 0; i < 40 && !page.text.includes('<div class="stat">3</div>'); i++) {
    await new Promise((r) => setTimeout(r, 100));
    page = await admin.get(`/admin/accounts/${account.id}`);
  }
  expect(page.text).toMatch(/<div class="stat">3<\/div><div class="muted">requests in 24 hours/);
  const list = await admin.get('/admin').query({ q: account.email });
  expect(list.text).toMatch(/<td>3 <span class="muted small">\/ 3 in 30 d<\/span><\/td>/);
});

test('an admin cannot suspend their own account', async () => {
  const self = (await accounts.byEmail(ADMIN))!;
  const page = await admin.get(`/admin/accounts/${self.id}`);
  expect(page.text).toContain('This is your own account');
  expect((await post(`/admin/accounts/${self.id}/status`, { status: 'suspended' })).status).toBe(400);
  expect((await accounts.get(self.id))!.status).toBe('active');
});

test('admin forms need the CSRF token', async () => {
  const { account } = await user();
  expect((await admin.post(`/admin/accounts/${account.id}/plan`).type('form').send({ plan: 'enterprise' })).status).toBe(403);
  expect((await admin.post('/admin/invites').type('form').send({ plan: 'enterprise', days: '7' })).status).toBe(403);
  expect((await accounts.get(account.id))!.plan).toBe('free');
});

test('invite links: shown once as a full URL, one account each, plan preset, withdrawable', async () => {
  const made = await submit(admin, '/admin/invites', '/admin/invites', { plan: 'enterprise', days: '1' });
  expect(made.status).toBe(200);
  expect(made.headers['cache-control']).toBe('no-store');
  const url = /<code id="invite-url">([^<]+)<\/code>/.exec(made.text)![1];
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:3999\/signup\?invite=[\w-]{43}$/);
  const token = new URL(url).searchParams.get('invite')!;
  const listed = await admin.get('/admin/invites');
  expect(listed.text).not.toContain(token);
  expect(listed.text).toContain('enterprise');

  // Invited: active at once even though SIGNUP=approval, on the preset plan.
  const mail = email();
  const invited = await signUp(visitor(t), mail, PW, 'Invited', token);
  expect(invited.status).toBe(303);
  expect(await accounts.byEmail(mail)).toMatchObject({ plan: 'enterprise', status: 'active' });
  expect((await visitor(t).get(`/signup?invite=${token}`)).status).toBe(410);

  const second = await submit(admin, '/admin/invites', '/admin/invites', { plan: 'free', days: '7' });
  const secondToken = /invite=([\w-]{43})/.exec(second.text)![1];
  const id = /action="\/admin\/invites\/([0-9a-f]{12})\/withdraw"/.exec(second.text)![1];
  expect((await post(`/admin/invites/${id}/withdraw`, {})).status).toBe(303);
  expect((await visitor(t).get(`/signup?invite=${secondToken}`)).status).toBe(410);
  expect((await post('/admin/invites', { plan: 'free', days: '3650' })).status).toBe(400);
});
