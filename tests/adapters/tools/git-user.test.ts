// tools/git-user against a loopback GitHub REST API: the repos call (headers, sort, page size), the next
// page from the Link header, the user-name rule, 404, the rate limit (403/429 with
// X-RateLimit-Remaining: 0 → 503 with Retry-After from X-RateLimit-Reset), token rotation, cache.
import { upstreamSuite, withUpstreams, type FakeSpec } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { expectUpstreamTimeout } from '../../helpers/short-timeout.js';
import gitUser, { nextPage } from '../../../adapters/tools/git-user.js';

const s = upstreamSuite({
  endpoint: 'tools/git-user',
  upstreams: {
    github: {
      routes: {
        'GET /users/octocat/repos': (r) => ({
          json: s.fixture('repos-page1.json'),
          headers: {
            link: `<${s.fake.url}/user/583231/repos?per_page=100&sort=updated&page=2>; rel="next", <${s.fake.url}/user/583231/repos?per_page=100&sort=updated&page=7>; rel="last"`,
            'x-ratelimit-remaining': '59',
          },
          delayMs: r.headers['x-delay'] ? 200 : 0,
        }),
        'GET /users/lonely-dev/repos': () => ({ json: [] }),
        'GET /users/mona/repos': () => ({ json: s.fixture('repos-page1.json') }),
        'GET /users/slow-one/repos': () => ({ json: [], delayMs: 200 }),
        'GET /users/:u/repos': () => ({ status: 404, json: s.fixture('not-found.json') }),
      },
    },
  },
});
const { get } = s;

describe('happy path', () => {
  test('repositories of a user, most recently updated first, with the next page from Link', async () => {
    const res = await get({ username: 'octocat' });
    expectAnswer(res, 'github', 'tools/git-user');
    expect(res.body.data).toMatchObject({ username: 'octocat', count: 2, next_page: 2 });
    expect(res.body.data.items[0]).toEqual({
      name: 'Hello-World',
      full_name: 'octocat/Hello-World',
      html_url: 'https://github.com/octocat/Hello-World',
      description: 'My first repository on GitHub!',
      language: null,
      stargazers_count: 3120,
      forks_count: 4410,
      fork: false,
      archived: false,
      topics: [],
      updated_at: '2026-01-10T08:12:55Z',
    });
    const call = s.fake.calls[0];
    expect(Object.fromEntries(call.query)).toEqual({ per_page: '100', sort: 'updated' });
    expect(call.headers.accept).toBe('application/vnd.github+json');
    expect(call.headers['user-agent']).toMatch(/\//);
    expect(call.headers.authorization).toBeUndefined();
  });

  test('a user without repositories: empty list, no next page', async () => {
    const res = await get({ username: 'lonely-dev' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ username: 'lonely-dev', count: 0, items: [], next_page: null });
    expectMatchesSchema('tools/git-user', res.body.data);
  });

  test('Link header parsing', () => {
    expect(nextPage(undefined)).toBeNull();
    expect(
      nextPage('<https://api.github.com/user/1/repos?page=1>; rel="prev", <https://api.github.com/user/1/repos?page=1>; rel="first"'),
    ).toBeNull();
    expect(nextPage('<https://api.github.com/user/1/repos?page=3&per_page=100>; rel="next"')).toBe(3);
  });
});

describe('bad input', () => {
  test.each(['-octocat', 'octocat-', 'octo--cat', 'octo_cat', 'a'.repeat(40), 'octo cat'])('username %j → 400', async (username) => {
    const res = await get({ username });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(
      'Invalid value for username: must be 1 to 39 letters, digits or single hyphens, not starting or ending with a hyphen',
    );
    expect(s.fake.calls).toHaveLength(0);
  });
});

describe('upstream failures', () => {
  test('unknown user → 404 naming the user', async () => {
    const res = await get({ username: 'no-such-user-x' });
    expectFailure(res, { status: 404, code: 'not_found' });
    expect(res.body.error).toBe('No user named no-such-user-x on GitHub');
  });

  s.failureTests({ username: 'failing-user' });

  test('403 with X-RateLimit-Remaining: 0 → 503, Retry-After from X-RateLimit-Reset', async () => {
    const reset = Math.floor(Date.now() / 1000) + 120;
    s.failWith = {
      status: 403,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) },
      json: s.fixture('rate-limited.json'),
    };
    const res = await get({ username: 'limited-1' });
    expectFailure(res, { status: 503, code: 'upstream_busy' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(115);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(121);
    expect(res.body.error).not.toMatch(/203\.0\.113|documentation/);
  });

  test('secondary limit (403 with Retry-After) → 503 with that Retry-After', async () => {
    s.failWith = { status: 403, headers: { 'retry-after': '45' }, json: { message: 'You have exceeded a secondary rate limit.' } };
    const res = await get({ username: 'limited-2' });
    expectFailure(res, { status: 503, code: 'upstream_busy' });
    expect(res.headers['retry-after']).toBe('45');
  });

  test('any other 403 → 502', async () => {
    s.failWith = { status: 403, headers: { 'x-ratelimit-remaining': '42' }, json: { message: 'Repository access blocked' } };
    expectFailure(await get({ username: 'blocked-user' }), { status: 502, code: 'upstream_failed' });
  });

  test('a body that is not a list → 502', async () => {
    s.failWith = { json: { message: 'surprise' } };
    expectFailure(await get({ username: 'odd-answer' }), { status: 502, code: 'upstream_changed' });
  });

  test('slower than the upstream timeout → 504', async () => {
    await expectUpstreamTimeout((ctx) => gitUser({ username: 'slow-one' }, ctx), 'github', s.fake.url, '50ms');
  });
});

describe('pooled tokens', () => {
  test('sent as a bearer token; a rate-limited token is rotated to the next one', async () => {
    const tokens: Array<string | undefined> = [];
    const github: FakeSpec = {
      keys: 'tok-a,tok-b',
      fallback: (req) => {
        tokens.push(req.headers.authorization);
        if (req.headers.authorization === 'Bearer tok-a') {
          return {
            status: 403,
            headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 60) },
            json: s.fixture('rate-limited.json'),
          };
        }
        return { json: s.fixture('repos-page1.json') };
      },
    };
    await withUpstreams({ endpoint: 'tools/git-user', upstreams: { github } }, async (t2) => {
      const res = await t2.get({ username: 'octocat' });
      expect(res.status).toBe(200);
      expect(res.body.data.count).toBe(2);
      expect(res.body.data.next_page).toBeNull();
      expect(tokens).toEqual(['Bearer tok-a', 'Bearer tok-b']);
    });
  });
});

describe('pooled tokens, all spent', () => {
  test('every token rate limited → 503 with Retry-After', async () => {
    const github: FakeSpec = {
      keys: 'tok-a,tok-b',
      fallback: () => ({ status: 403, headers: { 'x-ratelimit-remaining': '0' }, json: s.fixture('rate-limited.json') }),
    };
    await withUpstreams({ endpoint: 'tools/git-user', upstreams: { github } }, async (t2) => {
      const res = await t2.get({ username: 'octocat' });
      expectFailure(res, { status: 503, code: 'upstream_busy' });
      expect(t2.fake.calls).toHaveLength(2);
    });
  });
});

s.cacheTests({ hit: { username: 'mona' }, coalesced: { username: 'slow-one' } });
