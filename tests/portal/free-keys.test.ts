// Free accounts: off by default they call with the spec's shared free key (200 a day per client address,
// shared), and the landing, sign-up and key pages say so; FREE_PERSONAL_KEYS=true gives each Free account
// one personal key whose 200 a day count on its own counter whatever address calls, while the shared free
// key keeps counting per address exactly as before. Switching it off at a restart disables those keys,
// switching it on again brings them back; an upgrade moves the key to the paid plan.
import crypto from 'node:crypto';
import request from 'supertest';
import { testApp, KEYS, type TestApp } from '../helpers/app.js';
import { signIn, signUp, submit, visitor, type Agent } from '../helpers/portal.js';
import { Accounts, FREE_PERSONAL_PLAN } from '../../portal/accounts/accounts.js';

const PW = 'correct horse battery';
const ccgen = '/api/v1/tools/ccgen';
const from = (ip: string) => ({ 'X-Forwarded-For': ip });
const html = { Accept: 'text/html' };

async function freeUser(t: TestApp): Promise<{ agent: Agent; id: string; email: string }> {
  const agent = visitor(t);
  const email = `free-${crypto.randomUUID().slice(0, 8)}@example.com`;
  expect((await signUp(agent, email, PW)).status).toBe(303);
  return { agent, email, id: (await new Accounts(t.api.database.db, t.api.keys).byEmail(email))!.id };
}

const call = (t: TestApp, key: string, ip: string) =>
  request(t.app).get(ccgen).query({ bin: '457173' }).set('X-API-Key', key).set(from(ip));
/** Polls a call with `key` until it answers `status` (the boot carries the switch to the keys as it starts). */
async function answers(t: TestApp, key: string, status: number) {
  const deadline = Date.now() + 2000;
  while ((await call(t, key, '203.0.113.9')).status !== status) {
    if (Date.now() > deadline) throw new Error(`the key never answered ${status}`);
    await new Promise((ok) => setTimeout(ok, 50));
  }
}
const remaining = async (t: TestApp, key: string, ip: string) => Number((await call(t, key, ip)).headers['x-ratelimit-remaining']);

describe('FREE_PERSONAL_KEYS off (the default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp({ TRUST_PROXY: 'true' });
  });
  afterAll(async () => {
    await t.close();
  });

  test('landing, sign-up and key page say what the free tier is: the shared key, 200 a day per client address', async () => {
    const landing = await request(t.app).get('/').set(html);
    expect(landing.text).toContain(
      'A free account calls with the <strong>shared free key</strong>: <strong>200 requests per 24 hours for each client address (IP)</strong>, shared by everyone',
    );
    expect(landing.text).not.toContain('an allowance of your own');
    expect((await request(t.app).get('/signup')).text).toContain('<strong>200 requests per 24 hours for each client address (IP)</strong>');
    const { agent } = await freeUser(t);
    const page = await agent.get('/dashboard');
    expect(page.text).toContain(`<code id="free-key" data-api-key>${KEYS.free}</code>`);
    expect(page.text).toContain('shared by everyone who calls with this key from that address');
    expect(page.text).toContain('<a href="/account#plan">Request an upgrade</a>');
    expect((await submit(agent, '/dashboard', '/dashboard/keys', { name: 'mine' })).status).toBe(403);
  });

  test('the shared free key counts per client address', async () => {
    expect(await remaining(t, KEYS.free, '203.0.113.1')).toBe(199);
    expect(await remaining(t, KEYS.free, '203.0.113.1')).toBe(198);
    expect(await remaining(t, KEYS.free, '203.0.113.2')).toBe(199);
  });
});

describe('FREE_PERSONAL_KEYS=true', () => {
  let t: TestApp;
  let dataDir: string;
  beforeAll(async () => {
    t = await testApp({ TRUST_PROXY: 'true', FREE_PERSONAL_KEYS: 'true' });
    dataDir = t.dataDir;
  });
  afterAll(async () => {
    await t.close();
  });

  let user: { agent: Agent; id: string; email: string };
  let key: string;

  test('the pages say the key is personal; a Free account makes one key, counted on its own counter from any address', async () => {
    const landing = await request(t.app).get('/').set(html);
    expect(landing.text).toContain(
      'A free account gets a <strong>personal key</strong> with an allowance of its own: <strong>200 requests per 24 hours</strong>, whatever address calls with it.',
    );
    expect((await request(t.app).get('/signup')).text).toContain('a <strong>personal key</strong>');

    user = await freeUser(t);
    const page = await user.agent.get('/dashboard');
    expect(page.text).toContain('Your personal key');
    expect(page.text).not.toContain('data-api-key'); // no shared key shown
    expect(page.text).toContain('<strong>200 requests per 24 hours</strong>, whatever address calls with it');

    const made = await submit(user.agent, '/dashboard', '/dashboard/keys', { name: 'my free key' });
    expect(made.status).toBe(303);
    key = /data-api-key[^>]*>(uua_[0-9A-Za-z]+)</.exec((await user.agent.get(made.headers.location)).text)![1];
    const [record] = await t.api.keys.list({ accountId: user.id });
    expect(record.plan).toBe(FREE_PERSONAL_PLAN);

    // Its own 200, one counter whatever the address; the shared key's per-address counts are apart.
    const first = await call(t, key, '203.0.113.1');
    expect(first.status).toBe(200);
    expect(first.headers['x-ratelimit-limit']).toBe('200');
    expect(first.headers['x-ratelimit-remaining']).toBe('199');
    expect(await remaining(t, key, '203.0.113.2')).toBe(198);
    expect(await remaining(t, KEYS.free, '203.0.113.1')).toBe(199);
    expect(await remaining(t, KEYS.free, '203.0.113.2')).toBe(199);

    // One key per Free account.
    const second = await submit(user.agent, '/dashboard', '/dashboard/keys', { name: 'another' });
    expect(second.status).toBe(422);
    expect(second.text).toContain('Your account holds its one key already.');
    expect(await t.api.keys.list({ accountId: user.id })).toHaveLength(1);
  });

  test('the allowance is the free plan’s: the 201st call of the day is 429', async () => {
    const fresh = await freeUser(t);
    const made = await submit(fresh.agent, '/dashboard', '/dashboard/keys', { name: 'busy' });
    const busy = /data-api-key[^>]*>(uua_[0-9A-Za-z]+)</.exec((await fresh.agent.get(made.headers.location)).text)![1];
    for (let i = 0; i < 200; i++) expect((await call(t, busy, `198.51.100.${i % 50}`)).status).toBe(200);
    const over = await call(t, busy, '198.51.100.200');
    expect(over.status).toBe(429);
    expect(over.body.error).toBe('Rate limit exceeded. Try again later.');
  });

  test('a restart with the switch off disables the key (the shared key is shown); on again, it works', async () => {
    await t.close();
    t = await testApp({ TRUST_PROXY: 'true' }, { dataDir });
    await answers(t, key, 401);
    const [off] = await t.api.keys.list({ accountId: user.id });
    expect(off).toMatchObject({ plan: 'free', disabled: true });
    const browser = visitor(t);
    expect((await signIn(browser, user.email, PW)).status).toBe(303);
    const page = await browser.get('/dashboard');
    expect(page.text).toContain(`<code id="free-key" data-api-key>${KEYS.free}</code>`);
    expect(page.text).toContain('<span class="badge danger">Disabled</span>');

    await t.close();
    t = await testApp({ TRUST_PROXY: 'true', FREE_PERSONAL_KEYS: 'true' }, { dataDir });
    await answers(t, key, 200);
    const [on] = await t.api.keys.ofAccount(user.id);
    expect(on.plan).toBe(FREE_PERSONAL_PLAN);
    expect(on.disabled ?? false).toBe(false);
  });

  test('an upgrade moves the key to the paid plan', async () => {
    await new Accounts(t.api.database.db, t.api.keys).update(user.id, { plan: 'premium' });
    const deadline = Date.now() + 2000;
    while ((await call(t, key, '203.0.113.9')).headers['x-ratelimit-limit'] !== '5000') {
      if (Date.now() > deadline) throw new Error('the key kept the free plan');
      await new Promise((ok) => setTimeout(ok, 50));
    }
  });
});
