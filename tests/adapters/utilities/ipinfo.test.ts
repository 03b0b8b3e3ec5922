// utilities/ipinfo: the embedded geoip-lite answer in ipinfo.io's shape, bogons, the caller's own address,
// and ipinfo.io (a loopback fake of GET /{ip}/json?token=) when a key is configured, with fallback.
import request from 'supertest';
import type { FakeResponse } from '../../helpers/fake-upstream.js';
import { appForTests } from '../../helpers/app.js';
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { ST_ALBANS } from '../../helpers/geoip-answers.js';

const PATH = '/api/v1/utilities/ipinfo';

describe('embedded (no ipinfo key)', () => {
  const t = appForTests({ TRUST_PROXY: '1' });
  const lookup = (query: Record<string, string>, xff?: string) => {
    const r = request(t.app)
      .get(PATH)
      .query({ apikey: t.key, ...query });
    return xff ? r.set('X-Forwarded-For', xff) : r;
  };

  test('an IPv4 address with city data', async () => {
    const res = await lookup({ ip: '81.2.69.142' });
    expectAnswer(res, 'embedded', 'utilities/ipinfo');
    expect(res.body.data).toEqual(ST_ALBANS);
  });

  test('IPv4-mapped IPv6 is answered as the IPv4 address', async () => {
    const res = await lookup({ ip: '::ffff:81.2.69.142' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(ST_ALBANS);
  });

  test('an IPv6 address', async () => {
    const res = await lookup({ ip: '2001:4860:4860::8888' });
    expect(res.status).toBe(200);
    expectMatchesSchema('utilities/ipinfo', res.body.data);
    expect(res.body.data).toMatchObject({ ip: '2001:4860:4860::8888', country: 'US', org: null, hostname: null });
    expect(res.body.data.loc).toMatch(/^-?\d+\.\d{4},-?\d+\.\d{4}$/);
  });

  test('a public address the data has nothing for: nulls, not an error', async () => {
    const res = await lookup({ ip: '1.1.1.1' });
    expect(res.status).toBe(200);
    expectMatchesSchema('utilities/ipinfo', res.body.data);
    expect(res.body.data).toEqual({
      ip: '1.1.1.1',
      hostname: null,
      city: null,
      region: null,
      country: null,
      loc: null,
      timezone: null,
      org: null,
    });
  });

  test.each([
    '10.0.0.1',
    '192.168.1.20',
    '127.0.0.1',
    '100.64.3.4',
    '169.254.169.254',
    '::1',
    'fd00::1',
    'fe80::1',
    '2001:db8::1',
    '::ffff:10.1.2.3',
    '224.0.0.1',
  ])('%s is a bogon', async (ip) => {
    const res = await lookup({ ip });
    expect(res.status).toBe(200);
    expectMatchesSchema('utilities/ipinfo', res.body.data);
    expect(res.body.data).toEqual({ ip: ip.replace(/^::ffff:/, ''), bogon: true });
  });

  test("without ip, the caller's own address (behind a trusted proxy) is looked up", async () => {
    const res = await lookup({}, '81.2.69.142');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(ST_ALBANS);
  });

  test('without ip from a loopback caller: a bogon answer', async () => {
    const res = await lookup({});
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ ip: '127.0.0.1', bogon: true });
  });

  test('a zone index is dropped: fe80::1%eth0 is the link-local bogon fe80::1', async () => {
    const res = await lookup({ ip: 'fe80::1%eth0' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ ip: 'fe80::1', bogon: true });
  });

  test.each(['999.1.1.1', 'example.com', '1.2.3', '::ffff:999.1.1.1', '1.2.3.4/24'])('ip=%p → 400', async (ip) => {
    const res = await lookup({ ip });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: 'Invalid value for ip: must be an IPv4 or IPv6 address', code: 'bad_input' });
  });
});

describe('with an ipinfo key', () => {
  let answer: FakeResponse;
  const s = upstreamSuite({
    endpoint: 'utilities/ipinfo',
    upstreams: {
      ipinfo: { routes: { 'GET /:ip/json': () => answer }, keys: 'ipinfo-test-token' },
    },
  });
  const lookup = (ip: string) => s.get({ ip });

  test('ipinfo.io answers, with its token, in its own words (region name, org, hostname)', async () => {
    answer = { json: s.fixture('8.8.8.8.json') };
    const res = await lookup('8.8.8.8');
    expectAnswer(res, 'ipinfo', 'utilities/ipinfo');
    expect(res.body.data).toEqual({
      ip: '8.8.8.8',
      hostname: 'dns.google',
      city: 'Mountain View',
      region: 'California',
      country: 'US',
      loc: '37.4056,-122.0775',
      timezone: 'America/Los_Angeles',
      org: 'AS15169 Google LLC',
    });
    expect(s.fake.calls).toHaveLength(1);
    expect(s.fake.calls[0].path).toBe('/8.8.8.8/json');
    expect(s.fake.calls[0].query.get('token')).toBe('ipinfo-test-token');
    expect(JSON.stringify(res.body)).not.toContain('ipinfo-test-token');
  });

  test('ipinfo.io calling it a bogon is kept', async () => {
    answer = { json: s.fixture('bogon.json') };
    const res = await lookup('81.2.69.142');
    expect(res.body.data).toEqual({ ip: '81.2.69.142', bogon: true });
  });

  test('our own bogons are not sent to ipinfo.io', async () => {
    const res = await lookup('10.0.0.1');
    expect(res.body.data).toEqual({ ip: '10.0.0.1', bogon: true });
    expect(s.fake.calls).toHaveLength(0);
  });

  // Each failure on a fresh app: a 429 or 403 also cools the only key down, which would skip later calls.
  const failing = async (a: FakeResponse) => {
    answer = a;
    return s.withApp({}, async (t2) => {
      const started = Date.now();
      const res = await t2.get({ ip: '81.2.69.142' });
      return { res, ms: Date.now() - started };
    });
  };

  test.each([
    ['500', { status: 500, json: { error: 'boom' } }],
    ['429', { status: 429, json: { error: { title: 'Rate limit exceeded' } } }],
    ['403 (bad token)', { status: 403, json: { error: { title: 'Unknown token' } } }],
    ['404', { status: 404, json: { error: { title: 'Wrong ip' } } }],
    ['malformed', { text: 'not json', headers: { 'content-type': 'application/json' } }],
  ] as Array<[string, FakeResponse]>)('ipinfo.io %s → the embedded answer', async (_name, a) => {
    const { res } = await failing(a);
    expectAnswer(res, 'embedded');
    expect(res.body.data).toEqual(ST_ALBANS);
    expect(s.fake.calls.length).toBeGreaterThanOrEqual(1);
  });

  test('ipinfo.io too slow (5 s) → the embedded answer', async () => {
    const { res, ms } = await failing({ json: s.fixture('8.8.8.8.json'), delayMs: 9000 });
    expectAnswer(res, 'embedded');
    expect(res.body.data).toEqual(ST_ALBANS);
    expect(s.fake.calls).toHaveLength(1);
    expect(ms).toBeGreaterThanOrEqual(4500);
    expect(ms).toBeLessThan(8000);
  });
});
