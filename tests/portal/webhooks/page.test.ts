// The webhook page over HTTP (portal/webhooks/routes.ts): signed-in accounts only, Free ones too; every
// form needs the session's CSRF token and answers a redirect (post/redirect/get), a refused one a 422 page
// that says why and keeps what was typed (escaped); the secret made once, rolled, the test and remove
// buttons; and, with private fetch off, loopback and private hosts refused.
import crypto from 'node:crypto';
import request from 'supertest';
import { appForTests, type TestApp } from '../../helpers/app.js';
import { csrfOf, signUp, visitor, type Agent } from '../../helpers/portal.js';

const PW = 'correct horse battery';
const PAGE = '/dashboard/webhooks';
const t = appForTests();

async function member(app: TestApp = t): Promise<Agent> {
  const agent = visitor(app);
  expect((await signUp(agent, `hook-${crypto.randomUUID().slice(0, 8)}@example.com`, PW)).status).toBe(303);
  return agent;
}

/** Posts a form of the webhook page with its CSRF token (repeated `events` as a browser sends checkboxes). */
async function post(agent: Agent, action: string, fields: Record<string, string | string[]> = {}) {
  const page = await agent.get(PAGE);
  const form = new URLSearchParams({ csrf: csrfOf(page.text) });
  for (const [k, v] of Object.entries(fields)) for (const one of ([] as string[]).concat(v)) form.append(k, one);
  return agent.post(action).type('form').send(form.toString());
}

const secretOf = (page: string) => /<code id="webhook-secret">(whsec_[A-Za-z0-9+/=]+)<\/code>/.exec(page)?.[1];
const checked = (page: string) => [...page.matchAll(/name="events" value="([a-z.]+)" checked/g)].map((m) => m[1]);
const ALL = ['quota.warning', 'quota.exhausted', 'key.created', 'key.revoked', 'plan.changed'];

test('visitors are sent to sign in; the dashboard links the page', async () => {
  const res = await request(t.app).get(PAGE);
  expect(res.status).toBe(303);
  expect(res.headers.location).toBe('/login?next=%2Fdashboard%2Fwebhooks');
  const agent = await member();
  expect((await agent.get('/dashboard')).text).toContain('<a href="/dashboard/webhooks">Webhooks</a>');
});

test('a Free account sets a webhook: a redirect, then the page with the secret made once and every event chosen', async () => {
  const agent = await member();
  const empty = await agent.get(PAGE);
  expect(empty.status).toBe(200);
  expect(empty.headers['content-security-policy']).toContain("default-src 'self'");
  expect(checked(empty.text)).toEqual(ALL);
  expect(secretOf(empty.text)).toBeUndefined();
  expect(empty.text).toContain('No deliveries yet.');

  const set = await post(agent, PAGE, { url: 'https://hooks.example.com/in', events: ALL });
  expect(set.status).toBe(303);
  expect(set.headers.location).toBe(`${PAGE}?done=created`);
  const page = await agent.get(set.headers.location);
  const secret = secretOf(page.text)!;
  expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
  expect(page.text).toContain('value="https://hooks.example.com/in"');
  expect(page.text).toContain('Your webhook is set.');
  expect(page.text).toContain('<details open><summary>Show the secret</summary>');

  // Saving again keeps the secret; fewer events are kept as chosen.
  const again = await post(agent, PAGE, { url: 'https://hooks.example.com/v2', events: ['key.created', 'plan.changed'] });
  expect(again.headers.location).toBe(`${PAGE}?done=saved`);
  const saved = await agent.get(PAGE);
  expect(secretOf(saved.text)).toBe(secret);
  expect(checked(saved.text)).toEqual(['key.created', 'plan.changed']);
  expect(saved.text).toContain('<details><summary>Show the secret</summary>');
});

test('forms without the session’s token are refused (403), and so is a token of another session', async () => {
  const agent = await member();
  const bare = await agent.post(PAGE).type('form').send({ url: 'https://hooks.example.com/', events: 'key.created' });
  expect(bare.status).toBe(403);
  const other = await member();
  const foreign = csrfOf((await other.get(PAGE)).text);
  for (const action of [PAGE, `${PAGE}/secret`, `${PAGE}/test`, `${PAGE}/remove`]) {
    expect(
      (await agent.post(action).type('form').send({ csrf: foreign, url: 'https://hooks.example.com/', events: 'key.created' })).status,
    ).toBe(403);
  }
  expect(secretOf((await agent.get(PAGE)).text)).toBeUndefined();
});

test.each([
  ['', ALL, 'Enter the URL of your endpoint.'],
  ['not a url', ALL, 'Enter a whole URL, such as https://example.com/webhooks.'],
  ['ftp://hooks.example.com/', ALL, 'Use an https:// URL'],
  ['https://user:pw@hooks.example.com/', ALL, 'Leave the user name and password out of the URL'],
  ['https://hooks.example.com/#x', ALL, 'Leave out the #fragment'],
  [`https://hooks.example.com/${'a'.repeat(2100)}`, ALL, 'Use a URL of at most 2,048 characters.'],
  ['https://hooks.example.com/', [], 'Choose at least one event to receive'],
  ['https://hooks.example.com/', ['key.created', 'user.deleted'], 'There is no event type “user.deleted”.'],
])('%s with %j: 422 saying why, nothing saved', async (url, events, why) => {
  const agent = await member();
  const res = await post(agent, PAGE, { url, events });
  expect(res.status).toBe(422);
  expect(res.text).toContain(why);
  expect(res.text).toContain('role="alert"');
  expect(secretOf((await agent.get(PAGE)).text)).toBeUndefined();
});

test('a refused form keeps what was typed, escaped, and the events that exist', async () => {
  const agent = await member();
  const res = await post(agent, PAGE, { url: 'https://"><script>alert(1)</script>', events: ['plan.changed', '<b>'] });
  expect(res.status).toBe(422);
  expect(res.text).not.toContain('<script>alert(1)');
  expect(res.text).toContain('value="https://&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
  expect(res.text).toContain('There is no event type “&lt;b&gt;”.');
  expect(checked(res.text)).toEqual(['plan.changed']);
});

test('roll secret: a new one, the old one still signing for a day; test and roll need a webhook; remove', async () => {
  const agent = await member();
  expect((await post(agent, `${PAGE}/secret`)).status).toBe(409);
  expect((await post(agent, `${PAGE}/test`)).status).toBe(409);
  await post(agent, PAGE, { url: 'https://hooks.example.com/', events: ALL });
  const before = secretOf((await agent.get(PAGE)).text);

  const rolled = await post(agent, `${PAGE}/secret`);
  expect(rolled.status).toBe(303);
  expect(rolled.headers.location).toBe(`${PAGE}?done=rolled`);
  const page = await agent.get(rolled.headers.location);
  expect(secretOf(page.text)).toMatch(/^whsec_/);
  expect(secretOf(page.text)).not.toBe(before);
  expect(page.text).toMatch(/The previous secret also signs every delivery until .*in 2[34] h/);

  const test = await post(agent, `${PAGE}/test`);
  expect(test.headers.location).toBe(`${PAGE}?done=test`);

  const removed = await post(agent, `${PAGE}/remove`);
  expect(removed.status).toBe(303);
  expect(removed.headers.location).toBe(`${PAGE}?done=removed`);
  const gone = await agent.get(removed.headers.location);
  expect(secretOf(gone.text)).toBeUndefined();
  expect(gone.text).toContain('Your webhook is removed');
});

describe('with private fetch off (production)', () => {
  const prod = appForTests({ ALLOW_PRIVATE_FETCH: 'false' });

  test.each([
    'https://127.0.0.1/hooks',
    'https://localhost/hooks',
    'https://api.localhost/',
    'https://10.1.2.3/',
    'https://[::1]:8443/',
    'https://169.254.169.254/latest',
    'https://2130706433/',
  ])('%s is refused as a private address', async (url) => {
    const agent = await member(prod);
    const res = await post(agent, PAGE, { url, events: ALL });
    expect(res.status).toBe(422);
    expect(res.text).toContain('That host is a private or loopback address');
  });

  test('plain http is refused, https to a public host accepted', async () => {
    const agent = await member(prod);
    expect((await post(agent, PAGE, { url: 'http://hooks.example.com/', events: ALL })).status).toBe(422);
    expect((await post(agent, PAGE, { url: 'https://hooks.example.com/', events: ALL })).status).toBe(303);
  });
});
