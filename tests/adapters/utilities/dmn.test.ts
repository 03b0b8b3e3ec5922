// utilities/dmn against two loopback servers: a stand-in for rdap.org (302 to the registry, or its own
// 404 for a TLD without RDAP) and a registry. Covers the registrable-domain reduction (tldts), punycode,
// the registrar found in nested entities, both 404s, failures after the redirect, slowness and the cache.
import type { FakeResponse } from '../../helpers/fake-upstream.js';
import { upstreamSuite, withUpstreams } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { UPSTREAM_FAILURES, expectFailure } from '../../helpers/upstream-failures.js';
import { expectUpstreamTimeout } from '../../helpers/short-timeout.js';
import dmn from '../../../adapters/utilities/dmn.js';

const fixture = (name: string) => s.fixture('rdap', name);
const rdapJson = (json: unknown, extra: Partial<FakeResponse> = {}): FakeResponse => ({
  json,
  headers: { 'content-type': 'application/rdap+json' },
  ...extra,
});

const s = upstreamSuite({
  endpoint: 'utilities/dmn',
  upstreams: {
    // rdap.org: a 302 to the registry of the TLD, or its own 404 when IANA's bootstrap has none.
    rdap: {
      fallback: (req) => {
        const name = decodeURIComponent(req.path.replace(/^\/domain\//, ''));
        const tld = name.split('.').pop()!.toLowerCase();
        if (tld === 'com')
          return { status: 302, headers: { location: `${registry.url}/com/v1/domain/${name === 'example.com' ? 'EXAMPLE.COM' : name}` } };
        if (['de', 'uk'].includes(tld)) return { status: 302, headers: { location: `${registry.url}/${tld}/domain/${name}` } };
        return { status: 404, json: { errorCode: 404, title: 'Not Found', description: ['No RDAP server for this TLD'] } };
      },
    },
    // The registries, reached only by rdap.org's redirects.
    registry: {
      configured: false,
      routes: {
        'GET /com/v1/domain/EXAMPLE.COM': () => rdapJson(fixture('example-com.json')),
        'GET /com/v1/domain/slow.com': () => rdapJson(fixture('example-com.json'), { delayMs: 200 }),
        'GET /de/domain/beispiel.de': () => rdapJson(fixture('nested-registrar.json')),
        'GET /de/domain/xn--bcher-kva.de': () => rdapJson({ ...fixture('nested-registrar.json'), ldhName: 'xn--bcher-kva.de' }),
        'GET /uk/domain/example.co.uk': () => rdapJson({ ...fixture('nested-registrar.json'), ldhName: 'example.co.uk' }),
        'GET /:tld/domain/:name': () => rdapJson(fixture('registry-not-found.json'), { status: 404 }),
        'GET /com/v1/domain/:name': () => rdapJson(fixture('registry-not-found.json'), { status: 404 }),
      },
    },
  },
});
const { rdap: bootstrap, registry } = s.fakes;
const { get } = s;

describe('registered domains', () => {
  test('rdap.org redirects to the registry; registration, expiry, registrar, status, name servers, DNSSEC', async () => {
    const res = await get({ domain: 'example.com' });
    expectAnswer(res, 'rdap');
    expect(res.body.data).toEqual({
      domain: 'example.com',
      registered: true,
      registrar: 'RESERVED-Internet Assigned Numbers Authority',
      status: ['client delete prohibited', 'client transfer prohibited', 'client update prohibited'],
      created: '1995-08-14T04:00:00Z',
      updated: '2025-08-14T07:01:44Z',
      expires: '2026-08-13T04:00:00Z',
      nameservers: ['a.iana-servers.net', 'b.iana-servers.net'],
      dnssec: true,
    });
    expectMatchesSchema('utilities/dmn', res.body.data);
    expect(bootstrap.calls[0].path).toBe('/domain/example.com');
    expect(bootstrap.calls[0].headers.accept).toMatch(/application\/rdap\+json/);
    expect(registry.calls[0].path).toBe('/com/v1/domain/EXAMPLE.COM');
  });

  test('registrar found in nested entities; missing events and DNSSEC → null', async () => {
    const res = await get({ domain: 'https://shop.beispiel.de/path?q=1' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      domain: 'beispiel.de',
      registered: true,
      registrar: 'Example Registrar GmbH',
      status: ['active'],
      created: null,
      updated: '2024-03-01T12:00:00+01:00',
      expires: null,
      nameservers: ['ns1.beispiel.de'],
      dnssec: null,
    });
    expectMatchesSchema('utilities/dmn', res.body.data);
    expect(bootstrap.calls[0].path).toBe('/domain/beispiel.de');
  });

  test('reduced to the registrable domain under a multi-label suffix', async () => {
    const res = await get({ domain: 'www.shop.example.co.uk' });
    expect(res.status).toBe(200);
    expect(res.body.data.domain).toBe('example.co.uk');
    expect(bootstrap.calls[0].path).toBe('/domain/example.co.uk');
  });

  test('an internationalised name is asked in punycode', async () => {
    const res = await get({ domain: 'bücher.de' });
    expect(res.status).toBe(200);
    expect(res.body.data.domain).toBe('xn--bcher-kva.de');
    expect(bootstrap.calls[0].path).toBe('/domain/xn--bcher-kva.de');
  });
});

describe('not found', () => {
  test('404 from the registry after the redirect → registered:false', async () => {
    const domain = 'surely-unregistered-name-4821.com';
    const res = await get({ domain });
    expect(res.status).toBe(200);
    // Every field but the name is empty (the adapter's answer, read from the other side).
    const unknown = { registrar: null, status: [], created: null, updated: null, expires: null, nameservers: [], dnssec: null };
    expect(res.body.data).toEqual({ domain, registered: false, ...unknown });
    expectMatchesSchema('utilities/dmn', res.body.data);
    expect(registry.calls).toHaveLength(1);
  });

  test('404 from rdap.org itself (a TLD without RDAP) → 404', async () => {
    const res = await get({ domain: 'example.zz' });
    expectFailure(res, { status: 404, code: 'not_found' });
    expect(res.body.error).toBe('No RDAP service is known for the top-level domain of example.zz');
    expect(registry.calls).toHaveLength(0);
  });
});

describe('bad input', () => {
  test.each(['localhost', '10.0.0.1', 'not a domain', 'co.uk'])('domain %j → 400', async (domain) => {
    const res = await get({ domain });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^Invalid value for domain: must be a (registrable )?domain name/);
    expect(bootstrap.calls).toHaveLength(0);
  });
});

describe('upstream failures', () => {
  test.each(UPSTREAM_FAILURES.filter((f) => f.status !== 404))('registry $name → $status', async (f) => {
    registry.failWith = f.answer;
    expectFailure(await get({ domain: `fail-${f.status}.com` }), f);
  });

  test('a registry answer that is not an object → 502', async () => {
    registry.failWith = { json: ['not', 'rdap'] };
    expectFailure(await get({ domain: 'array-answer.com' }), { status: 502, code: 'upstream_changed' });
  });

  test('rdap.org failing → 502', async () => {
    const broken = { rdap: { fallback: () => ({ status: 503, text: 'Service Unavailable' }) } };
    await withUpstreams({ endpoint: 'utilities/dmn', upstreams: broken }, async (t2) => {
      expectFailure(await t2.get({ domain: 'example.com' }), {
        status: 502,
        code: 'upstream_failed',
      });
    });
  });

  test('slower than the upstream timeout → 504', async () => {
    await expectUpstreamTimeout((ctx) => dmn({ domain: 'slow.com' }, ctx), 'rdap', bootstrap.url, '50ms');
  });
});

s.cacheTests({ hit: { domain: 'beispiel.de' }, coalesced: { domain: 'slow.com' }, upstreamCalls: () => registry.calls.length });
