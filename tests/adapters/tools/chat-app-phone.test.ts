// tools/chat-app-phone against a loopback t.me: the public profile (og tags, the description block), a
// phone number only when the bio publishes one, Telegram's 200 page for unknown names (→ 404), numeric
// ids refused (no public page; private numbers are never looked up), upstream failures, cache.
import fs from 'node:fs';
import type { FakeResponse } from '../../helpers/fake-upstream.js';
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { UPSTREAM_FAILURES, expectFailure } from '../../helpers/upstream-failures.js';
import { expectUpstreamTimeout } from '../../helpers/short-timeout.js';
import chatAppPhone from '../../../adapters/tools/chat-app-phone.js';

const html = (name: string, extra: Partial<FakeResponse> = {}): FakeResponse => ({
  text: fs.readFileSync(new URL(`../../fixtures/telegram-web/${name}`, import.meta.url), 'utf8'),
  headers: { 'content-type': 'text/html; charset=utf-8' },
  ...extra,
});

const s = upstreamSuite({
  endpoint: 'tools/chat-app-phone',
  upstreams: {
    'telegram-web': {
      routes: {
        'GET /coffeehouse_k': () => html('profile.html'),
        'GET /quiet_user': () => html('profile-no-bio.html'),
        'GET /quiet_user_2': () => html('profile-no-bio.html'),
        'GET /slow_user': () => html('profile-no-bio.html', { delayMs: 200 }),
        // Telegram answers 200 with a generic page for any name it does not know.
        'GET /:name': () => html('unknown.html'),
      },
    },
  },
});
const { get } = s;

describe('public profile', () => {
  test('name, bio, photo; the number the owner published in the bio', async () => {
    const res = await get({ q: 'coffeehouse_k' });
    expectAnswer(res, 'telegram-web');
    expect(res.body.data).toEqual({
      username: 'coffeehouse_k',
      display_name: 'Kyiv Coffee House',
      bio: 'Fresh beans daily.\nOrders: +380 44 123 4567 (Mon-Fri)',
      photo_url: 'https://cdn4.telesco.pe/file/kyiv-coffee.jpg',
      extra: '@coffeehouse_k',
      profile_url: 'https://t.me/coffeehouse_k',
      phone: '+380441234567',
      phone_source: 'bio',
      note: expect.stringMatching(/only when the owner published it/),
    });
    expectMatchesSchema('tools/chat-app-phone', res.body.data);
    expect(s.fake.calls[0].path).toBe('/coffeehouse_k');
  });

  test('no bio: phone null, Telegram boilerplate and default logo dropped', async () => {
    const res = await get({ q: '@quiet_user' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      username: 'quiet_user',
      display_name: 'Quiet User',
      bio: null,
      photo_url: null,
      phone: null,
      phone_source: null,
    });
    expectMatchesSchema('tools/chat-app-phone', res.body.data);
  });

  test.each(['t.me/quiet_user', 'https://t.me/quiet_user/', '@quiet_user'])('%j is read as the username quiet_user', async (q) => {
    const res = await get({ q });
    expect(res.status).toBe(200);
    expect(res.body.data.username).toBe('quiet_user');
  });

  test('a name Telegram does not know (its 200 page without a title) → 404', async () => {
    const res = await get({ q: 'nobody_here_12' });
    expectFailure(res, { status: 404, code: 'not_found' });
    expect(res.body.error).toBe('No public profile for @nobody_here_12');
  });
});

describe('bad input', () => {
  test.each(['123456789', '@777000', 't.me/1234567'])('numeric id %j → 400 (no public page; never a lookup)', async (q) => {
    const res = await get({ q });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(
      'Invalid value for q: numeric chat ids have no public profile; give a public username such as durov or @durov',
    );
    expect(s.fake.calls).toHaveLength(0);
  });

  test.each(['abc', 'a'.repeat(33), 'bad-name', '-1001234567890', '+14155550123'])('%j → 400', async (q) => {
    const res = await get({ q });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^Invalid value for q: /);
    expect(s.fake.calls).toHaveLength(0);
  });

  test('a name starting with a digit or underscore cannot exist → 400', async () => {
    const res = await get({ q: '_under_score' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Invalid value for q: must be a username of 5 to 32 letters, digits or underscores starting with a letter');
  });
});

describe('upstream failures', () => {
  test.each(UPSTREAM_FAILURES.filter((f) => f.name !== 'malformed 200 body'))('$name → $status', async (f) => {
    s.failWith = f.answer;
    expectFailure(await get({ q: 'failing_user' }), f);
  });

  test('a 200 that is not a Telegram page at all → 502, never a made-up profile', async () => {
    s.failWith = { text: 'not html at all' };
    expectFailure(await get({ q: 'garbage_user' }), { status: 502, code: 'upstream_changed' });
  });

  test('slower than the upstream timeout → 504', async () => {
    await expectUpstreamTimeout((ctx) => chatAppPhone({ q: 'slow_user' }, ctx), 'telegram-web', s.fake.url, '50ms');
  });
});

s.cacheTests({ hit: { q: 'quiet_user_2' }, coalesced: { q: 'slow_user' } });
