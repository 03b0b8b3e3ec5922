// The API key page and the usage page, driven through the portal's forms: the free key and its
// allowance for a Free account; personal keys of a Premium account created (shown once, then only the
// hint), renamed, rotated with and without a grace period, revoked (401 at once); no access to another
// account's keys; usage counted after API calls, its CSV export; names escaped.
import crypto from 'node:crypto';
import request from 'supertest';
import { appForTests, KEYS, onTwoInstances } from '../helpers/app.js';
import { type Agent, csrfOf, signUp, submit, visitor } from '../helpers/portal.js';
import { Accounts, type Plan } from '../../portal/accounts/accounts.js';
import { eventually } from '../helpers/eventually.js';

const PW = 'correct horse battery';
const ccgen = '/api/v1/tools/ccgen';
const t = appForTests({ TRUST_PROXY: 'true' });

const accounts = () => new Accounts(t.api.database.db, t.api.keys);

/** A signed-in visitor with a new account on `plan`. */
async function member(plan: Plan = 'free'): Promise<{ agent: Agent; email: string; id: string }> {
  const agent = visitor(t);
  const email = `dash-${crypto.randomUUID().slice(0, 8)}@example.com`;
  expect((await signUp(agent, email, PW)).status).toBe(303);
  const account = (await accounts().byEmail(email))!;
  if (plan !== 'free') await accounts().update(account.id, { plan });
  return { agent, email, id: account.id };
}

/** Posts a dashboard form with the CSRF token of the key page. */
const post = (agent: Agent, action: string, fields: Record<string, string> = {}) => submit(agent, '/dashboard', action, fields);

/** A key made or rotated: the POST redirects (303), and the page it sends to shows the new key once. */
async function madeBy(agent: Agent, action: string, fields: Record<string, string> = {}) {
  const res = await post(agent, action, fields);
  expect(res.status).toBe(303);
  expect(res.headers.location).toMatch(/^\/dashboard\?new=[A-Za-z0-9_-]{43}$/);
  return agent.get(res.headers.location);
}

const keyOf = (page: string) => /<code id="new-key" data-api-key[^>]*>(uua_[0-9A-Za-z]+)<\/code>/.exec(page)?.[1];
const call = (key: string, ip = '198.51.100.7') =>
  request(t.app).get(ccgen).set('X-Forwarded-For', ip).query({ bin: '457173' }).set('X-API-Key', key);

test('the dashboard asks visitors to sign in', async () => {
  const res = await request(t.app).get('/dashboard');
  expect(res.status).toBe(303);
  expect(res.headers.location).toBe('/login?next=%2Fdashboard');
  expect((await request(t.app).get('/dashboard/usage')).status).toBe(303);
});

test('a Free account sees the shared free key and its allowance for its IP', async () => {
  const { agent } = await member('free');
  const ip = '203.0.113.50';
  for (let i = 0; i < 3; i++) expect((await call(KEYS.free, ip)).status).toBe(200);
  const page = await agent.get('/dashboard').set('X-Forwarded-For', ip);
  expect(page.status).toBe(200);
  expect(page.headers['content-security-policy']).toContain("default-src 'self'");
  expect(page.text).toContain(`<code id="free-key" data-api-key>${KEYS.free}</code>`);
  expect(page.text).toMatch(/200 requests per 24 hours, counted per client IP address/);
  expect(page.text).toContain(`<code>${ip}</code>`);
  expect(page.text).toMatch(/Used in this window<\/dt><dd><span class="num">3<\/span> of 200/);
  expect(page.text).toMatch(/Remaining<\/dt><dd><span class="num">197<\/span>/);
  expect(page.text).toMatch(/Resets<\/dt><dd>in 2[34] h/);
  expect(page.text).not.toContain('Create a key');
  // The snippet uses the free key; a free account cannot make a personal key.
  expect(page.text).toContain(`X-API-Key: ${KEYS.free}`);
  expect((await post(agent, '/dashboard/keys', { name: 'mine' })).status).toBe(403);
});

test('a Premium account creates a key (shown once, then only its hint), renames, rotates and revokes it', async () => {
  const { agent } = await member('premium');
  const empty = await agent.get('/dashboard');
  expect(empty.text).toContain('Create a key');
  expect(empty.text).not.toContain('data-api-key');

  const made = await madeBy(agent, '/dashboard/keys', { name: 'billing server' });
  expect(made.status).toBe(200);
  expect(made.headers['cache-control']).toBe('no-store');
  const key = keyOf(made.text)!;
  expect(key).toMatch(/^uua_[0-9A-Za-z]{36}$/);
  const hint = `${key.slice(0, 8)}…${key.slice(-4)}`;
  expect(made.text).toContain(hint);
  expect((await call(key)).status).toBe(200);

  // Afterwards: the hint, the name, when and from where it was last used; never the key.
  const id = /id="key-([0-9a-f]{12})"/.exec(made.text)![1];
  await eventually(async () => (await agent.get('/dashboard')).text.includes('from <code>198.51.100.7</code>'));
  const later = await agent.get('/dashboard');
  expect(later.text).not.toContain(key);
  expect(later.text).toContain(hint);
  expect(later.text).toContain('billing server');
  expect(later.text).toMatch(/Used in this window<\/dt><dd><span class="num">1<\/span> of 5,000/);

  const renamed = await post(agent, `/dashboard/keys/${id}/rename`, { name: 'billing (prod)' });
  expect(renamed.status).toBe(303);
  expect((await agent.get('/dashboard')).text).toContain('billing (prod)');

  // Rotation with a grace of one hour: both keys work.
  const rotated = await madeBy(agent, `/dashboard/keys/${id}/rotate`, { grace: '1h' });
  expect(rotated.status).toBe(200);
  const second = keyOf(rotated.text)!;
  expect(second).not.toBe(key);
  expect(rotated.text).toMatch(/keeps working until/);
  expect((await call(key)).status).toBe(200);
  expect((await call(second)).status).toBe(200);
  expect((await agent.get('/dashboard')).text).toMatch(/Replaced: works until/);
  // A key already being replaced is not rotated again.
  expect((await post(agent, `/dashboard/keys/${id}/rotate`, { grace: 'none' })).status).toBe(409);

  // Rotation with no grace: the old key is refused at once.
  const secondId =
    /id="key-([0-9a-f]{12})" aria-labelledby="key-[0-9a-f]{12}-name">\s*<div class="key-head"><h3[^>]*>billing \(prod\)<\/h3><span class="badge ok">/.exec(
      rotated.text,
    )![1];
  const third = keyOf((await madeBy(agent, `/dashboard/keys/${secondId}/rotate`, { grace: 'none' })).text)!;
  expect((await call(second)).status).toBe(401);
  expect((await call(third)).status).toBe(200);

  // Revoking asks first (a page of its own), then the key is refused at once.
  const thirdId = crypto.hash('sha256', third).slice(0, 12);
  const confirm = await agent.get(`/dashboard/keys/${thirdId}/revoke`);
  expect(confirm.status).toBe(200);
  expect(confirm.text).toMatch(/Revoke “billing \(prod\)”\?/);
  expect(confirm.text).toContain(`action="/dashboard/keys/${thirdId}/revoke"`);
  const revoked = await agent
    .post(`/dashboard/keys/${thirdId}/revoke`)
    .type('form')
    .send({ csrf: csrfOf(confirm.text) });
  expect(revoked.status).toBe(303);
  expect(revoked.headers.location).toBe('/dashboard?done=revoked');
  const gone = await call(third);
  expect(gone.status).toBe(401);
  expect((await agent.get('/dashboard?done=revoked')).text).toContain('The key was revoked');
});

test('forms without the CSRF token are refused, and a name is checked', async () => {
  const { agent } = await member('premium');
  expect((await agent.post('/dashboard/keys').type('form').send({ name: 'x' })).status).toBe(403);
  const blank = await post(agent, '/dashboard/keys', { name: '   ' });
  expect(blank.status).toBe(422);
  expect(blank.text).toContain('Give the key a name');
  expect((await post(agent, '/dashboard/keys', { name: 'x'.repeat(61) })).status).toBe(422);
  expect(keyOf((await agent.get('/dashboard')).text)).toBeUndefined();
});

test("nobody sees or acts on another account's key", async () => {
  const owner = await member('premium');
  const made = await madeBy(owner.agent, '/dashboard/keys', { name: 'owner key' });
  const key = keyOf(made.text)!;
  const id = crypto.hash('sha256', key).slice(0, 12);

  const other = await member('enterprise');
  const theirs = await other.agent.get('/dashboard');
  expect(theirs.text).not.toContain(id);
  expect(theirs.text).not.toContain('owner key');
  expect((await other.agent.get(`/dashboard/keys/${id}/revoke`)).status).toBe(404);
  expect((await post(other.agent, `/dashboard/keys/${id}/revoke`)).status).toBe(404);
  expect((await post(other.agent, `/dashboard/keys/${id}/rename`, { name: 'mine now' })).status).toBe(404);
  expect((await post(other.agent, `/dashboard/keys/${id}/rotate`, { grace: 'none' })).status).toBe(404);
  expect((await other.agent.get(`/dashboard/usage?key=${id}`)).status).toBe(404);
  expect((await other.agent.get(`/dashboard/usage.csv?key=${id}&period=hour`)).status).toBe(404);
  // A Free account cannot look at a personal key either.
  const free = await member('free');
  expect((await free.agent.get(`/dashboard/usage?key=${id}`)).status).toBe(404);

  expect((await call(key)).status).toBe(200);
  const still = await owner.agent.get('/dashboard');
  expect(still.text).toContain('owner key');
});

test('a key name is shown escaped on every page', async () => {
  const { agent } = await member('premium');
  const evil = '<script>alert(1)</script>';
  const made = await madeBy(agent, '/dashboard/keys', { name: evil });
  expect(made.text).not.toContain(evil);
  expect(made.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  const id = /id="key-([0-9a-f]{12})"/.exec(made.text)![1];
  for (const path of ['/dashboard', `/dashboard/keys/${id}/revoke`, `/dashboard/usage?key=${id}`]) {
    const res = await agent.get(path);
    expect(res.status).toBe(200);
    expect(res.text).not.toContain(evil);
    expect(res.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  }
});

test("a downgraded account's keys are shown disabled, and refused", async () => {
  const { agent, id: accountId } = await member('premium');
  const key = keyOf((await madeBy(agent, '/dashboard/keys', { name: 'old app' })).text)!;
  await accounts().update(accountId, { plan: 'free' });
  await eventually(async () => (await call(key)).status === 401);
  const page = await agent.get('/dashboard');
  expect(page.text).toContain('<span class="badge danger">Disabled</span>');
  expect(page.text).toContain(`data-api-key>${KEYS.free}</code>`);
  expect(page.text).not.toContain('Rotate key');
});

test("the usage page shows a key's calls, per hour, day and endpoint, the last calls and a CSV export", async () => {
  const { agent } = await member('premium');
  const key = keyOf((await madeBy(agent, '/dashboard/keys', { name: 'usage key' })).text)!;
  const id = crypto.hash('sha256', key).slice(0, 12);
  for (let i = 0; i < 3; i++) expect((await call(key)).status).toBe(200);
  expect((await request(t.app).get(ccgen).query({ bin: 'x' }).set('X-API-Key', key)).status).toBe(400);

  let page = '';
  await eventually(async () => /<td class="num">4<\/td>/.test((page = (await agent.get(`/dashboard/usage?key=${id}`)).text)));
  expect(page).toMatch(/Used in this window<\/dt><dd><span class="num">4<\/span> of 5,000/);
  // Per endpoint: 4 calls, 3 answered 2xx and 1 4xx (in the 24-hour table and the 30-day one).
  expect(
    page.match(/<tr><td><code>tools\/ccgen<\/code><\/td><td class="num">4<\/td><td class="num">3<\/td><td class="num">1<\/td><\/tr>/g),
  ).toHaveLength(2);
  // The last calls: time, endpoint, status and ms, never the key or the parameters.
  expect(page.match(/<td><code>tools\/ccgen<\/code><\/td><td><span class="status s2xx">200<\/span>/g)).toHaveLength(3);
  // Newest first: the 400 was the last call.
  expect(/<h2 id="recent-title">[\s\S]*?<tbody><tr>([\s\S]*?)<\/tr>/.exec(page)![1]).toContain('<span class="status s4xx">400</span>');
  expect(page).not.toContain(key);
  expect(page).not.toContain('457173');
  // The charts are SVG drawn on the server, from the same figures: the last hour's bar carries its 3 + 1
  // calls, and the page loads no chart library (only the theme toggle and the dashboard's small script).
  const charts = page.match(/<svg class="usage-chart"[\s\S]*?<\/svg>/g)!;
  expect(charts).toHaveLength(2);
  for (const chart of charts) {
    expect(chart).toMatch(/<title>[^<]*: 4 calls \(2xx 3, 4xx 1\); median \d+ ms, p95 \d+ ms<\/title>/);
    expect(chart.match(/<rect class="c2xx"/g)).toHaveLength(1);
    expect(chart.match(/<rect class="c4xx"/g)).toHaveLength(1);
  }
  expect(charts[0].match(/<rect class="hit"/g)).toHaveLength(24);
  expect(charts[1].match(/<rect class="hit"/g)).toHaveLength(30);
  expect(charts[0]).toContain('aria-labelledby="hourly-chart-title" aria-describedby="hourly-chart-desc"');
  expect(charts[1]).toMatch(/<desc id="daily-chart-desc">4 calls: 2xx 3, 4xx 1\./);
  expect(page.match(/<script src="([^"]+)"/g)).toEqual([
    '<script src="/portal/static/theme.js"',
    '<script src="/portal/static/dashboard.js"',
  ]);
  expect(page).not.toMatch(/chart\.js|chartjs|charts\.js|<canvas|application\/json/);
  expect((await request(t.app).get('/portal/static/charts.js')).status).toBe(404);
  expect((await request(t.app).get('/portal/static/dashboard.js')).status).toBe(200);
  expect(page).not.toMatch(/ style="/);
  // The tables under the charts hold every figure, folded.
  expect(page.match(/<details class="table-details"><summary>Figures per (hour|day)<\/summary>/g)).toHaveLength(2);

  const csv = await agent.get(`/dashboard/usage.csv?key=${id}&period=hour`);
  expect(csv.status).toBe(200);
  expect(csv.headers['content-type']).toMatch(/^text\/csv/);
  expect(csv.headers['content-disposition']).toMatch(/attachment; filename="?usage-[0-9a-f]{12}-hourly\.csv/);
  const rows = csv.text.trim().split('\r\n');
  expect(rows[0]).toBe('start,total,1xx,2xx,3xx,4xx,5xx,p50_ms,p95_ms');
  expect(rows).toHaveLength(25);
  expect(rows.at(-1)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:00:00\.000Z,4,0,3,0,1,0,\d+,\d+$/);
  const daily = (await agent.get(`/dashboard/usage.csv?key=${id}&period=day`)).text.trim().split('\r\n');
  expect(daily).toHaveLength(31);
  expect(daily.at(-1)).toMatch(/T00:00:00\.000Z,4,0,3,0,1,0,/);
  expect((await agent.get(`/dashboard/usage.csv?key=${id}&period=week`)).status).toBe(400);
});

test("a Free account's usage page shows the free key's calls from its IP only", async () => {
  const { agent } = await member('free');
  const mine = '203.0.113.77';
  await call(KEYS.free, mine);
  await call(KEYS.free, mine);
  await call(KEYS.free, '203.0.113.78');
  let page = '';
  await eventually(async () =>
    (page = (await agent.get('/dashboard/usage').set('X-Forwarded-For', mine)).text).includes('<td class="num">2</td>'),
  );
  expect(page).toMatch(/Used in this window<\/dt><dd><span class="num">2<\/span> of 200/);
  expect(page).toContain(`<code>${mine}</code>`);
  const csv = await agent.get('/dashboard/usage.csv?key=free&period=hour').set('X-Forwarded-For', mine);
  expect(csv.text.trim().split('\r\n').at(-1)).toMatch(/,2,0,2,0,0,0,/);
});

test('on Redis: a key made on one instance works on another, its rotation reaches it within a second, and its usage is shared', async () => {
  await onTwoInstances(
    async (x, y) => {
      const agent = visitor(x);
      const email = `dash-redis-${crypto.randomUUID().slice(0, 8)}@example.com`;
      expect((await signUp(agent, email, PW)).status).toBe(303);
      const xs = new Accounts(x.api.database.db, x.api.keys);
      await xs.update((await xs.byEmail(email))!.id, { plan: 'premium' });
      const onX = async (action: string, fields: Record<string, string> = {}) => {
        const page = await agent.get('/dashboard');
        const res = await agent
          .post(action)
          .type('form')
          .send({ csrf: csrfOf(page.text), ...fields });
        return agent.get(res.headers.location);
      };
      const callY = (key: string) => request(y.app).get(ccgen).query({ bin: '457173' }).set('X-API-Key', key);

      const key = keyOf((await onX('/dashboard/keys', { name: 'shared' })).text)!;
      const id = crypto.hash('sha256', key).slice(0, 12);
      expect((await callY(key)).status).toBe(200);
      const fresh = keyOf((await onX(`/dashboard/keys/${id}/rotate`, { grace: 'none' })).text)!;
      const before = Date.now();
      while ((await callY(key)).status !== 401) {
        if (Date.now() - before > 1500) throw new Error('the rotated key still works on the other instance');
        await new Promise((ok) => setTimeout(ok, 50));
      }
      expect((await callY(fresh)).status).toBe(200);

      // The call made through y is on x's usage page.
      const freshId = crypto.hash('sha256', fresh).slice(0, 12);
      await eventually(async () =>
        (await agent.get(`/dashboard/usage?key=${freshId}`)).text.includes('<span class="status s2xx">200</span>'),
      );
    },
    { TRUST_PROXY: 'true' },
  );
});

test("/docs' Try it offers a Free account the free key, a Premium account its own keys, everyone the anonymous key", async () => {
  const free = await member('free');
  const freePage = (await free.agent.get('/docs/tools')).text;
  expect(freePage).toContain(`<option value="${KEYS.free}">`);
  expect(freePage).toContain(`<option value="${KEYS.anonymous}">`);
  const premium = await member('premium');
  const made = (await madeBy(premium.agent, '/dashboard/keys', { name: 'for the docs' })).text;
  const id = /data-key-id="([^"]+)"/.exec(made)![1];
  const premiumPage = (await premium.agent.get('/docs/tools')).text;
  expect(premiumPage).not.toContain(KEYS.free);
  expect(premiumPage).toMatch(new RegExp(`<option value="" data-key-id="${id}" data-hint="[^"]*">Your key “for the docs”`));
  const anonymous = (await request(t.app).get('/docs/tools')).text;
  expect(anonymous).toContain(`<option value="${KEYS.anonymous}">`);
  expect(anonymous).not.toContain('data-key-id');
});
