// tools/cpn against a loopback Dealspotr: the listing page, the reveal page of the first card's id, the
// domain normalised (scheme, www., path, port), a store without coupons, 404, the bot-check page (→ 502),
// a page we cannot read (→ 502), the browser headers, upstream failures, slowness, cache and coalescing.
import fs from 'node:fs';
import type { FakeResponse } from '../../helpers/fake-upstream.js';
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectCacheHit, expectCoalesced } from '../../helpers/cache-checks.js';
import { UPSTREAM_FAILURES, expectFailure } from '../../helpers/upstream-failures.js';
import { expectUpstreamTimeout } from '../../helpers/short-timeout.js';
import cpn from '../../../adapters/tools/cpn.js';

const PATH = '/api/v1/tools/cpn';
const html = (name: string): FakeResponse => ({
  text: fs.readFileSync(new URL(`../../fixtures/dealspotr/${name}`, import.meta.url), 'utf8'),
  headers: { 'content-type': 'text/html; charset=utf-8' },
});

let revealMissing = false;
const s = upstreamSuite({
  endpoint: 'tools/cpn',
  upstreams: {
    dealspotr: {
      routes: {
        'GET /promo-codes/tiny.shop': () => html('no-coupons.html'),
        'GET /promo-codes/empty.example': () => html('no-coupons.html'),
        'GET /promo-codes/guarded.example': () => html('anti-bot.html'),
        'GET /promo-codes/redesigned.example': () => ({
          text: '<html><body><div class="new-layout">offers</div></body></html>',
          headers: { 'content-type': 'text/html' },
        }),
        'GET /promo-codes/slow.example': () => ({ ...html('listing.html'), delayMs: 200 }),
        'GET /promo-codes/:domain/481516': () => (revealMissing ? { status: 404, ...html('not-found.html') } : html('reveal.html')),
        'GET /promo-codes/unknown.example': () => ({ status: 404, ...html('not-found.html') }),
        'GET /promo-codes/:domain': () => html('listing.html'),
      },
    },
  },
});
beforeEach(() => {
  revealMissing = false;
});
const { get } = s;

describe('happy path', () => {
  test('coupons with their revealed codes; deals have code null', async () => {
    const res = await get({ domain: 'nike.com' });
    expectAnswer(res, 'dealspotr');
    expect(res.body.data).toEqual({
      domain: 'nike.com',
      store: 'Nike',
      total: 2,
      items: [
        { code: 'SPRING20', title: '20% off sitewide' },
        { code: null, title: 'Free shipping on orders over $50' },
      ],
    });
    expectMatchesSchema('tools/cpn', res.body.data);
    expect(s.fake.calls.map((c) => c.path)).toEqual(['/promo-codes/nike.com', '/promo-codes/nike.com/481516']);
    for (const c of s.fake.calls) {
      expect(c.headers['user-agent']).toMatch(/^Mozilla\/5\.0/);
      expect(c.headers.referer).toBe('https://dealspotr.com/');
    }
  });

  test.each(['https://www.Adidas.com/us/shoes?x=1', 'www.adidas.com', 'adidas.com:443', 'http://adidas.com/'])(
    'domain %j is normalised to adidas.com',
    async (domain) => {
      const res = await get({ domain });
      expect(res.status).toBe(200);
      expect(res.body.data.domain).toBe('adidas.com');
      expect(s.fake.calls[0].path).toBe('/promo-codes/adidas.com');
    },
  );

  test('a store page without offers: total 0', async () => {
    const res = await get({ domain: 'tiny.shop' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ domain: 'tiny.shop', store: 'Tiny Shop', total: 0, items: [] });
    expectMatchesSchema('tools/cpn', res.body.data);
    expect(s.fake.calls).toHaveLength(1);
  });

  test('the reveal page gone (404): the listing titles, codes unknown', async () => {
    revealMissing = true;
    const res = await get({ domain: 'puma.com' });
    expect(res.status).toBe(200);
    expect(res.body.data.items).toEqual([
      { code: null, title: '20% off sitewide' },
      { code: null, title: 'Free shipping on orders over $50' },
    ]);
    expectMatchesSchema('tools/cpn', res.body.data);
  });
});

describe('bad input', () => {
  test.each(['localhost', 'not a domain', '127.0.0.1', 'http://'])('domain %j → 400', async (domain) => {
    const res = await get({ domain });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^Invalid value for domain: must be a domain name/);
    expect(s.fake.calls).toHaveLength(0);
  });
});

describe('upstream failures', () => {
  test('no coupon page for the store → 404', async () => {
    const res = await get({ domain: 'unknown.example' });
    expectFailure(res, { status: 404, code: 'not_found' });
    expect(res.body.error).toBe('No coupon page for unknown.example');
  });

  test('a bot-check page → 502, not "no coupons"', async () => {
    const res = await get({ domain: 'guarded.example' });
    expectFailure(res, { status: 502, code: 'upstream_failed' });
    expect(res.body.error).toBe('The coupon site answered with a bot check');
  });

  test('a bot check served as 403 → 502', async () => {
    s.failWith = { status: 403, ...html('anti-bot.html') };
    expectFailure(await get({ domain: 'blocked.example' }), { status: 502, code: 'upstream_failed' });
  });

  test('a page we do not recognise → 502', async () => {
    expectFailure(await get({ domain: 'redesigned.example' }), { status: 502, code: 'upstream_changed' });
  });

  test.each(UPSTREAM_FAILURES.filter((f) => f.name !== 'malformed 200 body'))('$name → $status', async (f) => {
    s.failWith = f.answer;
    expectFailure(await get({ domain: 'failing.example' }), f);
  });

  test('slower than the upstream timeout → 504', async () => {
    await expectUpstreamTimeout((ctx) => cpn({ domain: 'slow.example' }, ctx), 'dealspotr', s.fake.url, '50ms');
  });
});

describe('cache', () => {
  test('an identical second call is served from the cache', async () => {
    await expectCacheHit({ t: s.t, path: PATH, query: { domain: 'empty.example' }, upstreamCalls: () => s.fake.calls.length });
  });

  test('concurrent identical calls share one upstream call', async () => {
    await expectCoalesced({
      t: s.t,
      path: PATH,
      query: { domain: 'slow.example' },
      upstreamCalls: () => s.fake.calls.filter((c) => !c.path.endsWith('/481516')).length,
    });
  });
});
