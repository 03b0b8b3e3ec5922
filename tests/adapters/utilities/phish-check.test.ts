// utilities/phish-check: the explainable heuristics (each rule, verdict bands, cap), input errors, the
// target never fetched, and Safe Browsing v4 / URLhaus (loopback fakes of their real paths) merged when
// keyed: hit → malicious, clean, failures noted but never an error, caching and coalescing.
import pino from 'pino';
import type { FakeResponse } from '../../helpers/fake-upstream.js';
import { readFixture, upstreamSuite, withUpstreams } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import phishCheck from '../../../adapters/utilities/phish-check.js';
import type { AdapterContext, Reply } from '../../../engine/types.js';
import { createMemo } from '../../../engine/upstream/memo.js';

const ENDPOINT = 'utilities/phish-check';
const ids = (data: { signals: Array<{ id: string }> }) => data.signals.map((s) => s.id).sort();

describe('heuristics only (no reputation keys)', () => {
  // No reputation list is configured; the one fake is a site under test, which must never be fetched.
  const s = upstreamSuite({
    endpoint: ENDPOINT,
    upstreams: { target: { configured: false, fallback: () => ({ text: '<form>password</form>' }) } },
  });
  const check = (query: Record<string, string>) => s.get(query);

  test('a plain domain: low, no reasons, the "no signal is not safe" note, lists not configured', async () => {
    const res = await check({ domain: 'example.com' });
    expectAnswer(res, 'embedded', 'utilities/phish-check');
    expect(res.body.data).toEqual({
      target: 'example.com',
      host: 'example.com',
      host_unicode: 'example.com',
      registrable_domain: 'example.com',
      verdict: 'low',
      score: 0,
      reasons: [],
      signals: [],
      reputation: { safebrowsing: { status: 'not_configured', threats: [] }, urlhaus: { status: 'not_configured', threats: [] } },
      sources: ['heuristics'],
      note: expect.stringMatching(/not that the site is safe/),
    });
  });

  test.each([
    [{ url: 'https://www.paypal.com/signin' }, []],
    [{ domain: 'login.microsoftonline.com' }, []],
    [{ domain: 'amazon.co.uk' }, []],
    [{ domain: 'pineapple.com' }, []],
    [{ domain: 'stackoverflow.com' }, []],
    [{ domain: 'https://www.apple.com/account' }, []],
  ])('%j: the brand on its own domain, or a word that merely contains one, raises nothing', async (query, expected) => {
    const res = await check(query);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ verdict: 'low', score: 0, reasons: expected });
  });

  test.each<[Record<string, string>, string[], number, string]>([
    [
      { url: 'http://paypal.com.secure-login.xyz/webscr?cmd=login' },
      ['brand_keyword', 'http_login_path', 'suspicious_tld'],
      55,
      'suspicious',
    ],
    [{ url: 'http://192.168.0.1:8081/login' }, ['http_login_path', 'ip_host', 'odd_port'], 50, 'suspicious'],
    [{ url: 'http://[2001:db8::1]/account' }, ['http_login_path', 'ip_host'], 40, 'suspicious'],
    [{ url: 'https://xn--pypal-4ve.com/' }, ['brand_keyword', 'lookalike'], 60, 'likely_phishing'],
    [{ domain: 'pаypal.com' }, ['brand_keyword', 'lookalike'], 60, 'likely_phishing'],
    [{ domain: 'xn--80ak6aa92e.com' }, ['brand_keyword', 'lookalike'], 60, 'likely_phishing'],
    [{ domain: 'paypa1.com' }, ['brand_keyword', 'lookalike'], 60, 'likely_phishing'],
    [{ domain: 'rnicrosoft.com' }, ['brand_keyword', 'lookalike'], 60, 'likely_phishing'],
    [
      { url: 'https://www.google.com@evil.tk/account/verify' },
      ['at_in_authority', 'brand_keyword', 'suspicious_tld'],
      60,
      'likely_phishing',
    ],
    [{ url: 'http://user@evil.example/' }, ['at_in_authority'], 20, 'low'],
    [{ url: 'https://bit.ly/3xYzAb' }, ['shortener'], 10, 'low'],
    [{ domain: 'x7k2p9q4m1z8.top' }, ['random_label', 'suspicious_tld'], 20, 'low'],
    [{ domain: 'münchen.de' }, ['punycode'], 10, 'low'],
    [{ domain: 'secure-account-update-verify.com' }, ['long_host'], 10, 'low'],
    [{ url: 'https://example.com/redirect?to=https://evil.example' }, ['nested_or_long_url'], 5, 'low'],
    [{ url: `https://example.com/${'a'.repeat(200)}` }, ['nested_or_long_url'], 5, 'low'],
    [{ domain: 'evil.example:8443' }, ['odd_port'], 10, 'low'],
    [{ domain: 'http://evil.example/login' }, ['http_login_path'], 15, 'low'],
    [
      { url: 'http://www.paypal.com@paypal-secure-account-verify.x7k2p9q4m1z8.tk:8080/login?next=https://x.example' },
      [
        'at_in_authority',
        'brand_keyword',
        'http_login_path',
        'long_host',
        'nested_or_long_url',
        'odd_port',
        'random_label',
        'suspicious_tld',
      ],
      100,
      'likely_phishing',
    ],
  ])('%j → %j, score %d, %s', async (query, expectedIds, score, verdict) => {
    const res = await check(query);
    expect(res.status).toBe(200);
    const d = res.body.data;
    expectMatchesSchema('utilities/phish-check', d);
    expect(ids(d)).toEqual(expectedIds);
    expect(d.score).toBe(score);
    expect(d.verdict).toBe(verdict);
    expect(d.reasons).toHaveLength(expectedIds.length);
    expect(d.reasons.join(' ')).not.toMatch(/undefined|null/);
  });

  test('a look-alike is explained: what it displays as and what it imitates', async () => {
    const res = await check({ domain: 'xn--pypal-4ve.com' });
    const d = res.body.data;
    expect(d).toMatchObject({ host: 'xn--pypal-4ve.com', host_unicode: 'pаypal.com', registrable_domain: 'xn--pypal-4ve.com' });
    expect(d.reasons.join('\n')).toMatch(/mixes Latin and Cyrillic/);
    expect(d.reasons.join('\n')).toMatch(/looks like "paypal"/);
    expect(d.signals.find((s: { id: string }) => s.id === 'lookalike').weight).toBe(30);
  });

  test('url wins when both are given', async () => {
    const res = await check({ domain: 'example.com', url: 'https://bit.ly/abc' });
    expect(res.body.data).toMatchObject({ target: 'https://bit.ly/abc', host: 'bit.ly' });
  });

  test('the target is never fetched', async () => {
    const { target } = s.fakes;
    const res = await check({ url: `${target.url}/login` });
    expect(res.status).toBe(200);
    expect(ids(res.body.data)).toEqual(['http_login_path', 'ip_host', 'odd_port']);
    expect(target.calls).toHaveLength(0);
  });

  test('neither domain nor url → 400 naming both', async () => {
    const res = await check({});
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: 'Missing required parameter: domain or url', code: 'bad_input' });
  });

  test.each([
    [{ url: 'ftp://example.com/x' }, 'Invalid value for url: must be an http(s) URL'],
    [{ url: 'not a url' }, 'Invalid value for url: must be an http(s) URL'],
    [{ url: 'javascript:alert(1)' }, 'Invalid value for url: must be an http(s) URL'],
    [{ domain: 'not a domain' }, 'Invalid value for domain: must be a domain name such as example.com'],
    [{ domain: '-bad-.com' }, 'Invalid value for domain: must be a domain name such as example.com'],
  ])('%j → 400', async (query, error) => {
    const res = await check(query);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error, code: 'bad_input' });
  });
});

describe('the weights table and blocklist from the catalog options', () => {
  const ctx = (options: Record<string, unknown>): AdapterContext => ({
    endpoint: 'utilities/phish-check',
    options,
    files: {},
    clientIp: '127.0.0.1',
    publicUrl: 'http://x',
    // Nothing is memoised by these calls: a memo whose loads see no upstream.
    memo: (key, ttl, load) =>
      createMemo()(key, ttl, () =>
        load(() => {
          throw new Error('no upstream here');
        }),
      ),
    signal: new AbortController().signal,
    log: pino({ level: 'silent' }),
    upstream: () => ({
      id: 'x',
      baseUrl: undefined,
      hasKeys: false,
      settings: {},
      request: () => {
        throw new Error('not asked');
      },
    }),
    fetchUrl: () => {
      throw new Error('never fetched');
    },
    blobs: {} as AdapterContext['blobs'],
  });

  test('an operator weight replaces the default one', async () => {
    const out = (await phishCheck({ url: 'https://bit.ly/abc' }, ctx({ weights: { shortener: 45 } }))) as Reply;
    expect(out.data).toMatchObject({ score: 45, verdict: 'suspicious' });
  });

  test('a blocklisted registrable domain scores 100', async () => {
    const out = (await phishCheck({ domain: 'www.evil.example' }, ctx({ blocklist: ['EVIL.example'] }))) as Reply;
    expect(out.data).toMatchObject({ score: 100, verdict: 'likely_phishing' });
    expect((out.data.reasons as string[])[0]).toMatch(/blocklist/);
  });
});

describe('with Safe Browsing and URLhaus keys', () => {
  let sb: FakeResponse;
  let uh: FakeResponse;
  const s = upstreamSuite({
    endpoint: ENDPOINT,
    upstreams: {
      safebrowsing: { keys: 'sb-test-key', routes: { 'POST /v4/threatMatches:find': () => sb } },
      urlhaus: { keys: 'uh-test-key', routes: { 'POST /v1/url/': () => uh, 'POST /v1/host/': () => uh } },
    },
  });
  beforeEach(() => {
    sb = { json: readFixture('safebrowsing', 'clean.json') };
    uh = { json: readFixture('urlhaus', 'no-results.json') };
  });
  const check = (query: Record<string, string>) => s.get(query);
  const callTo = (path: string) => s.calls().find((c) => c.path === path)!;

  test('both clean: the heuristic verdict stands; both asked in their real request shapes', async () => {
    const url = 'http://paypal.com.secure-login.xyz/webscr?cmd=login';
    const res = await check({ url });
    expectAnswer(res, 'safebrowsing+urlhaus');
    const d = res.body.data;
    expectMatchesSchema('utilities/phish-check', d);
    expect(d).toMatchObject({ verdict: 'suspicious', score: 55, sources: ['heuristics', 'safebrowsing', 'urlhaus'] });
    expect(d.reputation).toEqual({ safebrowsing: { status: 'clean', threats: [] }, urlhaus: { status: 'clean', threats: [] } });

    const s = callTo('/v4/threatMatches:find');
    expect(s.method).toBe('POST');
    expect(s.query.get('key')).toBe('sb-test-key');
    expect(s.json()).toMatchObject({
      client: { clientId: expect.any(String) },
      threatInfo: {
        threatTypes: ['MALWARE', 'SOCIAL_ENGINEERING', 'UNWANTED_SOFTWARE'],
        platformTypes: ['ANY_PLATFORM'],
        threatEntryTypes: ['URL'],
        threatEntries: [{ url }],
      },
    });
    const u = callTo('/v1/url/');
    expect(u.method).toBe('POST');
    expect(u.headers['auth-key']).toBe('uh-test-key');
    expect(u.headers['content-type']).toMatch(/application\/x-www-form-urlencoded/);
    expect(new URLSearchParams(u.body.toString()).get('url')).toBe(url);
    expect(JSON.stringify(res.body)).not.toMatch(/sb-test-key|uh-test-key/);
  });

  test('a Safe Browsing match → malicious, score 100, the threat named first in the reasons', async () => {
    sb = { json: readFixture('safebrowsing', 'match.json') };
    const res = await check({ url: 'https://example.com/harmless-looking' });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expectMatchesSchema('utilities/phish-check', d);
    expect(d).toMatchObject({ verdict: 'malicious', score: 100 });
    expect(d.reputation.safebrowsing).toEqual({ status: 'listed', threats: ['SOCIAL_ENGINEERING'] });
    expect(d.reasons[0]).toBe('Google Safe Browsing lists it as malicious (SOCIAL_ENGINEERING)');
  });

  test('a URLhaus listing of the URL → malicious', async () => {
    uh = { json: readFixture('urlhaus', 'url-online.json') };
    const res = await check({ url: 'http://paypal-login.example.xyz/signin' });
    const d = res.body.data;
    expect(d).toMatchObject({ verdict: 'malicious', score: 100 });
    expect(d.reputation.urlhaus).toEqual({ status: 'listed', threats: ['malware_download'] });
    expect(d.reasons[0]).toBe('URLhaus lists it as malicious (malware_download)');
  });

  test('a domain is looked up as a host: URLhaus /v1/host/, Safe Browsing on http and https', async () => {
    uh = { json: readFixture('urlhaus', 'host-listed.json') };
    const res = await check({ domain: 'bad-host.example.top' });
    const d = res.body.data;
    expectMatchesSchema('utilities/phish-check', d);
    expect(d).toMatchObject({ verdict: 'malicious', score: 100 });
    expect(d.reputation.urlhaus).toEqual({ status: 'listed', threats: ['malware_download'] });
    expect(new URLSearchParams(callTo('/v1/host/').body.toString()).get('host')).toBe('bad-host.example.top');
    expect((callTo('/v4/threatMatches:find').json() as { threatInfo: { threatEntries: unknown } }).threatInfo.threatEntries).toEqual([
      { url: 'http://bad-host.example.top/' },
      { url: 'https://bad-host.example.top/' },
    ]);
  });

  // Each case checks its own domain: answers are cached per target.
  test.each<[string, FakeResponse, FakeResponse, string]>([
    [
      'Safe Browsing 500, URLhaus unknown key',
      { status: 500, json: { error: { code: 500 } } },
      { json: readFixture('urlhaus', 'unknown-auth-key.json') },
      'paypa1-one.com',
    ],
    [
      'Safe Browsing 400, URLhaus 503',
      { status: 400, json: { error: { code: 400, message: 'API key not valid' } } },
      { status: 503, text: 'down' },
      'paypa1-two.com',
    ],
    [
      'both malformed',
      { text: '<html>', headers: { 'content-type': 'application/json' } },
      { text: 'nope', headers: { 'content-type': 'text/plain' } },
      'paypa1-three.com',
    ],
  ])('%s → still 200 with the heuristic verdict, failures noted, not cached', async (_name, s, u, domain) => {
    sb = s;
    uh = u;
    const query = { domain };
    const res = await check(query);
    expectAnswer(res, 'embedded');
    const d = res.body.data;
    expectMatchesSchema('utilities/phish-check', d);
    expect(d).toMatchObject({ verdict: 'likely_phishing', score: 60, sources: ['heuristics'] });
    expect(d.reputation).toEqual({ safebrowsing: { status: 'error', threats: [] }, urlhaus: { status: 'error', threats: [] } });
    const again = await check(query);
    expect(again.body.metadata.cached).toBe(false);
  });

  test('a slow list is given up after 5 s; the other still counts', async () => {
    sb = { json: readFixture('safebrowsing', 'match.json'), delayMs: 9000 };
    uh = { json: readFixture('urlhaus', 'url-online.json') };
    const started = Date.now();
    const res = await check({ url: 'https://slow.example/' });
    expect(Date.now() - started).toBeLessThan(8000);
    expect(res.body.data.reputation).toEqual({
      safebrowsing: { status: 'error', threats: [] },
      urlhaus: { status: 'listed', threats: ['malware_download'] },
    });
    expect(res.body.data.verdict).toBe('malicious');
  });

  test('cached for 10 minutes: the second identical check asks neither list again', async () => {
    const first = await check({ domain: 'cache-me.example' });
    const second = await check({ domain: 'cache-me.example' });
    expect(first.body.metadata.cached).toBe(false);
    expect(second.body.metadata.cached).toBe(true);
    expect(second.body.data).toEqual(first.body.data);
    expect(s.calls()).toHaveLength(2);
  });

  test('concurrent identical checks share one call to each list', async () => {
    sb = { json: readFixture('safebrowsing', 'clean.json'), delayMs: 150 };
    const all = await Promise.all(Array.from({ length: 5 }, () => check({ domain: 'together.example' })));
    for (const r of all) expect(r.body.data.reputation.safebrowsing.status).toBe('clean');
    expect(s.calls().filter((c) => c.path === '/v4/threatMatches:find')).toHaveLength(1);
    expect(s.calls().filter((c) => c.path === '/v1/host/')).toHaveLength(1);
  });
});

test('only the keyed list is asked', async () => {
  const lists = {
    safebrowsing: { keys: 'k', routes: { 'POST /v4/threatMatches:find': () => ({ json: {} }) } },
    urlhaus: {},
  };
  await withUpstreams({ endpoint: ENDPOINT, upstreams: lists }, async (t) => {
    const res = await t.get({ domain: 'example.org' });
    expect(res.body.data.reputation).toEqual({
      safebrowsing: { status: 'clean', threats: [] },
      urlhaus: { status: 'not_configured', threats: [] },
    });
    expect(res.body.data.sources).toEqual(['heuristics', 'safebrowsing']);
    expect(t.calls().map((c) => c.path)).toEqual(['/v4/threatMatches:find']);
  });
});
