// utilities/ipinfo with ip-api.com configured (a loopback fake of GET /json/{ip}?fields=…): its answer in
// ipinfo.io's shape (source: ip-api), asked when ipinfo.io has no key or fails, not when ipinfo.io answers;
// its `fail` answers (our bogons, an invalid query), its errors and shape drift → the embedded answer.
import type { FakeResponse } from '../../helpers/fake-upstream.js';
import { readFixture, upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer } from '../../helpers/schema.js';
import { ST_ALBANS } from '../../helpers/geoip-answers.js';

let ipApiAnswer: () => FakeResponse;
let ipinfoAnswer: () => FakeResponse;
const s = upstreamSuite({
  endpoint: 'utilities/ipinfo',
  upstreams: {
    ipinfo: { routes: { 'GET /:ip/json': () => ipinfoAnswer() }, keys: 'ipinfo-test-token' },
    'ip-api': { routes: { 'GET /json/:ip': () => ipApiAnswer() } },
  },
});
const { ipinfo, 'ip-api': ipApi } = s.fakes;
// ipinfo.io without a key is not asked (its public default is never reached).
const ipApiOnly = s.app({ without: ['ipinfo'] });
beforeEach(() => {
  ipApiAnswer = () => ({ json: s.fixture('ip-api', '8.8.8.8.json') });
  ipinfoAnswer = () => ({ json: s.fixture('ipinfo', '8.8.8.8.json') });
});

describe('ip-api.com (no ipinfo key)', () => {
  test('its answer in ipinfo.io shape: region name, AS as org, reverse DNS as hostname, loc to 4 places', async () => {
    const res = await ipApiOnly.get({ ip: '8.8.8.8' });
    expectAnswer(res, 'ip-api', 'utilities/ipinfo');
    expect(res.body.data).toEqual({
      ip: '8.8.8.8',
      hostname: 'dns.google',
      city: 'Ashburn',
      region: 'Virginia',
      country: 'US',
      loc: '39.0300,-77.5000',
      timezone: 'America/New_York',
      org: 'AS15169 Google LLC',
    });
    expect(ipApi.calls[0].path).toBe('/json/8.8.8.8');
    expect(ipApi.calls[0].query.get('fields')!.split(',')).toEqual(
      expect.arrayContaining(['status', 'countryCode', 'regionName', 'city', 'lat', 'lon', 'timezone', 'as', 'reverse']),
    );
    expect(ipinfo.calls).toHaveLength(0);
  });

  test('our own bogons are not sent to it', async () => {
    const res = await ipApiOnly.get({ ip: '192.168.1.1' });
    expectAnswer(res, 'embedded');
    expect(res.body.data).toEqual({ ip: '192.168.1.1', bogon: true });
    expect(ipApi.calls).toHaveLength(0);
  });

  test('its "reserved range" is a bogon answer', async () => {
    ipApiAnswer = () => ({ json: s.fixture('ip-api', 'reserved-range.json') });
    const res = await ipApiOnly.get({ ip: '81.2.69.142' });
    expectAnswer(res, 'ip-api', 'utilities/ipinfo');
    expect(res.body.data).toEqual({ ip: '81.2.69.142', bogon: true });
  });

  test.each([
    ['its "invalid query"', { json: readFixture('ip-api', 'invalid-query.json') }],
    ['500', { status: 500, json: { error: 'boom' } }],
    ['429 (over 45 a minute)', { status: 429, headers: { 'x-rl': '0', 'x-ttl': '42' }, text: '' }],
    ['a changed shape (no status)', { json: { country: 'United Kingdom' } }],
    ['not JSON', { text: '<html>moved</html>', headers: { 'content-type': 'application/json' } }],
  ] as Array<[string, FakeResponse]>)('%s → the embedded answer', async (_name, answer) => {
    ipApiAnswer = () => answer;
    await s.withApp({ without: ['ipinfo'] }, async (t2) => {
      const res = await t2.get({ ip: '81.2.69.142' });
      expectAnswer(res, 'embedded', 'utilities/ipinfo');
      expect(res.body.data).toEqual(ST_ALBANS);
    });
    expect(ipApi.calls.length).toBeGreaterThanOrEqual(1);
  });
});

describe('ipinfo.io first, ip-api.com next', () => {
  test('ipinfo.io answers: ip-api.com is not asked', async () => {
    const res = await s.get({ ip: '8.8.8.8' });
    expectAnswer(res, 'ipinfo', 'utilities/ipinfo');
    expect(ipApi.calls).toHaveLength(0);
  });

  test('ipinfo.io failing (500) → ip-api.com answers', async () => {
    ipinfoAnswer = () => ({ status: 500, json: { error: 'boom' } });
    const res = await s.get({ ip: '8.8.8.8' });
    expectAnswer(res, 'ip-api', 'utilities/ipinfo');
    expect(res.body.data.org).toBe('AS15169 Google LLC');
    expect(ipinfo.calls.length).toBeGreaterThanOrEqual(1);
  });

  test('both failing → the embedded answer', async () => {
    ipinfoAnswer = () => ({ status: 500, json: { error: 'boom' } });
    ipApiAnswer = () => ({ status: 503, text: 'down' });
    const res = await s.get({ ip: '81.2.69.142' });
    expectAnswer(res, 'embedded', 'utilities/ipinfo');
    expect(res.body.data).toEqual(ST_ALBANS);
  });
});
