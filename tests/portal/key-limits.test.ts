// A key's own limits, set by its holder on the key page: a cap below the account's allowance and
// an expiry day, each checked (422 with the reason), applied from the key's next call, shown on its card.
import request from 'supertest';
import { appForTests } from '../helpers/app.js';
import { signUp, submit, visitor } from '../helpers/portal.js';
import { Accounts } from '../../portal/accounts/accounts.js';
import { keyLimits } from '../../portal/keys/keys.js';

const t = appForTests({ PLAN_PREMIUM_LIMIT: '10' });
const PW = 'correct horse battery';
const call = (key: string) => request(t.app).get('/api/v1/tools/ccgen').query({ bin: '457173' }).set('X-API-Key', key);

test('the limits form: refused values say why; a cap applies from the next call; the card shows both limits', async () => {
  const agent = visitor(t);
  expect((await signUp(agent, 'limits@example.com', PW)).status).toBe(303);
  const accounts = new Accounts(t.api.database.db, t.api.keys);
  const account = (await accounts.update((await accounts.byEmail('limits@example.com'))!.id, { plan: 'premium' }))!;
  const { key, record } = await t.api.keys.issue('premium', 'ci runner', account.id);
  const limits = (fields: Record<string, string>) => submit(agent, '/dashboard', `/dashboard/keys/${record.id}/limits`, fields);

  const tooBig = await limits({ cap: '10', expires: '' });
  expect(tooBig.status).toBe(422);
  expect(tooBig.text).toContain('Give the cap as a whole number from 1 to 9');
  const past = await limits({ cap: '', expires: '2020-01-01' });
  expect(past.status).toBe(422);
  expect(past.text).toContain('Choose an expiry date from tomorrow on.');
  expect((await limits({ cap: '3', expires: '2031-02-30' })).text).toContain('Give the expiry as a date (YYYY-MM-DD)');

  const saved = await limits({ cap: '2', expires: '2031-01-31' });
  expect(saved.status).toBe(303);
  expect(saved.headers.location).toBe(`/dashboard?done=limits#key-${record.id}`);
  expect(await t.api.keys.get(record.id)).toMatchObject({ cap: 2, expiresAt: '2031-01-31T23:59:59.999Z' });
  const page = await agent.get('/dashboard?done=limits');
  expect(page.text).toContain('limits were saved: they apply from its next call');
  expect(page.text).toMatch(/<dt>Its own cap<\/dt><dd><span class="num">0<\/span> of 2 used<\/dd>/);
  expect(page.text).toContain('<input name="expires" type="date" value="2031-01-31"');

  expect((await call(key)).headers['x-ratelimit-limit']).toBe('2');
  await call(key);
  expect((await call(key)).status).toBe(429);
  // Cleared: the account's allowance again.
  expect((await limits({ cap: '', expires: '' })).status).toBe(303);
  expect((await call(key)).headers).toMatchObject({ 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '6' });
});

test('keyLimits: bounds of the cap and of the expiry day', () => {
  const now = Date.parse('2026-11-26T10:00:00Z');
  expect(keyLimits('', '', 100, now)).toEqual({ limits: {} });
  expect(keyLimits(' 99 ', '', 100, now)).toEqual({ limits: { cap: 99 } });
  expect(keyLimits('1', '2026-11-27', 100, now)).toEqual({ limits: { cap: 1, expiresAt: '2026-11-27T23:59:59.999Z' } });
  for (const cap of ['0', '100', '-1', '2.5', '1e3', 'ten'])
    expect(keyLimits(cap, '', 100, now)).toEqual({
      problems: ["Give the cap as a whole number from 1 to 99, below your plan's allowance, or leave it empty."],
    });
  expect(keyLimits('', '2026-11-26', 100, now)).toEqual({ problems: ['Choose an expiry date from tomorrow on.'] });
  expect(keyLimits('', '26/11/2027', 100, now)).toEqual({ problems: ['Give the expiry as a date (YYYY-MM-DD), or leave it empty.'] });
});
