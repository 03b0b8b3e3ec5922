// The key page's post/redirect/get: creating or rotating a key answers 303, the page after it shows the new
// key once (focused), a second look (a reload) shows it no more and makes no key; a ticket is its account's
// only. And the last use's address: recorded even when the caller hangs up at once, and where it is missing
// or a private address without TRUST_PROXY, the page says why.
import crypto from 'node:crypto';
import http from 'node:http';
import { appForTests, listen } from '../helpers/app.js';
import { type Agent, signUp, submit, visitor } from '../helpers/portal.js';
import { Accounts } from '../../portal/accounts/accounts.js';
import { eventually } from '../helpers/eventually.js';

const PW = 'correct horse battery';
const t = appForTests();
const keyOf = (page: string) => /<code id="new-key" data-api-key[^>]*>(uua_[0-9A-Za-z]+)<\/code>/.exec(page)?.[1];

async function premium(): Promise<{ agent: Agent; id: string }> {
  const agent = visitor(t);
  const email = `prg-${crypto.randomUUID().slice(0, 8)}@example.com`;
  expect((await signUp(agent, email, PW)).status).toBe(303);
  const accounts = new Accounts(t.api.database.db, t.api.keys);
  const id = (await accounts.byEmail(email))!.id;
  await accounts.update(id, { plan: 'premium' });
  return { agent, id };
}

/** Posts a dashboard form with the CSRF token of the key page. */
const post = (agent: Agent, action: string, fields: Record<string, string> = {}) => submit(agent, '/dashboard', action, fields);

test('POST create answers 303; the GET after it shows the key once, focused; a second GET does not; no second key exists', async () => {
  const { agent, id } = await premium();
  const created = await post(agent, '/dashboard/keys', { name: 'prg app' });
  expect(created.status).toBe(303);
  const location = created.headers.location;
  expect(location).toMatch(/^\/dashboard\?new=[A-Za-z0-9_-]{43}$/);
  expect(created.text).not.toMatch(/uua_[0-9A-Za-z]{36}/);

  const first = await agent.get(location);
  expect(first.status).toBe(200);
  expect(first.headers['cache-control']).toBe('no-store');
  const key = keyOf(first.text)!;
  expect(key).toMatch(/^uua_[0-9A-Za-z]{36}$/);
  expect(first.text).toMatch(/<code id="new-key" data-api-key data-key-id="[0-9a-f]+" tabindex="-1" autofocus aria-label="Your new key">/);

  // A reload of that page: no key shown, none made, a word on why.
  const reload = await agent.get(location);
  expect(reload.status).toBe(200);
  expect(reload.text).not.toContain(key);
  expect(keyOf(reload.text)).toBeUndefined();
  expect(reload.text).toContain('That new key was shown once already');
  expect(await t.api.keys.list({ accountId: id })).toHaveLength(1);
  expect((await agent.get('/dashboard')).text).not.toContain(key);
});

test('rotate answers 303 and shows the new key once, with the key it replaced', async () => {
  const { agent, id } = await premium();
  const page = await agent.get((await post(agent, '/dashboard/keys', { name: 'rotating' })).headers.location);
  const old = keyOf(page.text)!;
  const oldId = crypto.hash('sha256', old).slice(0, 12);
  const rotated = await post(agent, `/dashboard/keys/${oldId}/rotate`, { grace: 'none' });
  expect(rotated.status).toBe(303);
  const shown = await agent.get(rotated.headers.location);
  const fresh = keyOf(shown.text)!;
  expect(fresh).not.toBe(old);
  expect(shown.text).toContain(`It replaces <code>${old.slice(0, 8)}…${old.slice(-4)}</code>, which was revoked at once.`);
  expect(keyOf((await agent.get(rotated.headers.location)).text)).toBeUndefined();
  expect((await t.api.keys.list({ accountId: id })).map((k) => k.id)).toEqual([crypto.hash('sha256', fresh).slice(0, 12)]);

  const graced = await post(agent, `/dashboard/keys/${crypto.hash('sha256', fresh).slice(0, 12)}/rotate`, { grace: '1h' });
  const third = await agent.get(graced.headers.location);
  expect(third.text).toMatch(/which keeps working until <time/);
});

test('a ticket shows the key to its own account only, and never to a visitor', async () => {
  const owner = await premium();
  const location = (await post(owner.agent, '/dashboard/keys', { name: 'mine' })).headers.location;
  const other = await premium();
  const theirs = await other.agent.get(location);
  expect(keyOf(theirs.text)).toBeUndefined();
  expect((await visitor(t).get(location)).status).toBe(303); // to sign in
  // Not used up by the others' tries: its owner still sees it, once.
  expect(keyOf((await owner.agent.get(location)).text)).toMatch(/^uua_/);
  expect((await owner.agent.get('/dashboard?new=not-a-ticket')).text).toContain('That new key was shown once already');
});

test('the last use is recorded with its address even when the caller hangs up at once', async () => {
  const { agent } = await premium();
  const key = keyOf((await agent.get((await post(agent, '/dashboard/keys', { name: 'curl' })).headers.location)).text)!;
  const server = await listen(t.app);
  try {
    // Like curl: one request, and the connection closed as soon as the answer is read.
    await new Promise<void>((ok, fail) => {
      http
        .get(`${server.url}/api/v1/tools/ccgen?bin=457173`, { agent: false, headers: { 'X-API-Key': key, Connection: 'close' } }, (res) => {
          res.resume();
          res.on('end', ok);
        })
        .on('error', fail);
    });
  } finally {
    await server.close();
  }
  const id = crypto.hash('sha256', key).slice(0, 12);
  await eventually(async () => (await t.api.keys.lastUsed([id])).has(id));
  expect((await t.api.keys.lastUsed([id])).get(id)!.ip).toBe('127.0.0.1');
  // Loopback without TRUST_PROXY: the page says the address may be a proxy's.
  const page = await agent.get('/dashboard');
  expect(page.text).toContain('from <code>127.0.0.1</code>');
  expect(page.text).toContain('a private address: the call came from the service&#39;s own network, or through a proxy');
});

test('a last use without an address (recorded by an earlier version) says why', async () => {
  const { agent } = await premium();
  const key = keyOf((await agent.get((await post(agent, '/dashboard/keys', { name: 'old record' })).headers.location)).text)!;
  const id = crypto.hash('sha256', key).slice(0, 12);
  await t.api.keys.recordLastUsed(new Map([[id, { at: new Date().toISOString(), ip: '' }]]));
  const page = await agent.get('/dashboard');
  expect(page.text).not.toContain('from <code></code>');
  expect(page.text).not.toContain('unknown');
  expect(page.text).toContain('address not recorded: the call was made before this version');
});
