// finance/p2p against a loopback Binance P2P search: the POST body and headers, asset/fiat upper-cased,
// BUY/SELL as the caller's side, amounts kept as strings, code ≠ "000000" inside a 200 → 502, 403/429
// (bot protection) → 503, malformed bodies, slowness, the 30 s cache and coalescing.
import { upstreamSuite } from '../../helpers/upstream-suite.js';
import { expectCacheHit, expectCoalesced } from '../../helpers/cache-checks.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';
import { expectFailure } from '../../helpers/upstream-failures.js';
import { expectUpstreamTimeout } from '../../helpers/short-timeout.js';
import p2p from '../../../adapters/finance/p2p.js';

const PATH = '/api/v1/finance/p2p';
const SEARCH = '/bapi/c2c/v2/friendly/c2c/adv/search';

const s = upstreamSuite({
  endpoint: 'finance/p2p',
  upstreams: {
    'binance-p2p': {
      routes: {
        [`POST ${SEARCH}`]: (r) => {
          const body = r.json() as { asset: string; fiat: string };
          return { json: s.fixture('search-buy.json'), delayMs: body.fiat === 'GBP' || body.asset === 'SLOW' ? 200 : 0 };
        },
      },
    },
  },
});
const { get } = s;

describe('ads', () => {
  test('defaults USDT/USD/BUY: the sellers, amounts as strings', async () => {
    const res = await get();
    expectAnswer(res, 'binance-p2p');
    expect(res.body.data).toEqual({
      asset: 'USDT',
      fiat: 'USD',
      type: 'BUY',
      total: 316,
      items: [
        {
          price: '1.003',
          available: '1520.44',
          min: '10.00',
          max: '1500.00',
          pay_methods: ['Wise', 'Bank Transfer'],
          advertiser: { nickname: 'TraderX', month_orders: 812, month_finish_rate: 0.987, type: 'merchant' },
        },
        {
          price: '1.005',
          available: '300.00',
          min: '20.00',
          max: '300.00',
          pay_methods: ['Zelle'],
          advertiser: { nickname: 'QuickSwap', month_orders: 41, month_finish_rate: 0.9, type: 'user' },
        },
      ],
    });
    expectMatchesSchema('finance/p2p', res.body.data);
    const call = s.fake.calls[0];
    expect(call.method).toBe('POST');
    expect(call.path).toBe(SEARCH);
    expect(call.json()).toEqual({
      asset: 'USDT',
      fiat: 'USD',
      tradeType: 'BUY',
      page: 1,
      rows: 20,
      payTypes: [],
      publisherType: null,
      merchantCheck: false,
    });
    expect(call.headers.clienttype).toBe('web');
    expect(call.headers.lang).toBe('en');
    expect(call.headers['user-agent']).toMatch(/^Mozilla\/5\.0/);
    expect(call.headers['content-type']).toMatch(/application\/json/);
  });

  test('asset and fiat upper-cased; SELL passed as the caller side', async () => {
    const res = await get({ asset: 'btc', fiat: 'eur', type: 'SELL' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ asset: 'BTC', fiat: 'EUR', type: 'SELL' });
    expect(s.fake.calls[0].json()).toMatchObject({ asset: 'BTC', fiat: 'EUR', tradeType: 'SELL' });
  });

  test('numbers where strings were expected are kept as strings; ads without a price are dropped', async () => {
    s.failWith = {
      json: {
        code: '000000',
        success: true,
        total: 2,
        data: [
          {
            adv: { price: 1.01, surplusAmount: 50, minSingleTransAmount: '5', maxSingleTransAmount: null, tradeMethods: 'none' },
            advertiser: null,
          },
          { adv: { surplusAmount: '10' }, advertiser: { nickName: 'NoPrice' } },
        ],
      },
    };
    const res = await get({ fiat: 'AUD' });
    expect(res.status).toBe(200);
    expect(res.body.data.items).toEqual([
      {
        price: '1.01',
        available: '50',
        min: '5',
        max: null,
        pay_methods: [],
        advertiser: { nickname: null, month_orders: null, month_finish_rate: null, type: null },
      },
    ]);
    expectMatchesSchema('finance/p2p', res.body.data);
  });

  test('no ads: total 0', async () => {
    s.failWith = { json: { code: '000000', success: true, total: 0, data: [] } };
    const res = await get({ fiat: 'NGN' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ total: 0, items: [] });
  });
});

describe('bad input', () => {
  test.each([
    ['asset too short', { asset: 'U' }, 'Invalid value for asset: must be 2 to 10 letters, such as USDT or BTC'],
    ['fiat with digits', { fiat: 'US1' }, 'Invalid value for fiat: must be 2 to 10 letters, such as USD or EUR'],
    ['asset too long', { asset: 'ABCDEFGHIJK' }, 'Invalid value for asset: must be 2 to 10 letters, such as USDT or BTC'],
    ['type not BUY/SELL', { type: 'HOLD' }, 'Invalid value for type: must be one of BUY, SELL'],
  ])('%s → 400', async (_name, query, message) => {
    const res = await get(query);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(message);
    expect(s.fake.calls).toHaveLength(0);
  });
});

describe('upstream failures', () => {
  s.failureTests({ fiat: 'CHF' });

  test('an error inside a 200 (code ≠ "000000") → 502', async () => {
    s.failWith = { json: s.fixture('error-in-200.json') };
    const res = await get({ fiat: 'JPY' });
    expectFailure(res, { status: 502, code: 'upstream_failed' });
    expect(res.body.error).not.toMatch(/illegal/);
  });

  test('403 (bot protection) → 503 with Retry-After', async () => {
    s.failWith = { status: 403, text: '<html>Access denied</html>', headers: { 'content-type': 'text/html' } };
    expectFailure(await get({ fiat: 'SEK' }), { status: 503, code: 'upstream_busy' });
  });

  test('data that is not a list → 502', async () => {
    s.failWith = { json: { code: '000000', data: { ads: [] } } };
    expectFailure(await get({ fiat: 'PLN' }), { status: 502, code: 'upstream_changed' });
  });

  test('slower than the upstream timeout → 504', async () => {
    await expectUpstreamTimeout((ctx) => p2p({ asset: 'SLOW', fiat: 'USD', type: 'BUY' }, ctx), 'binance-p2p', s.fake.url, '50ms');
  });
});

// On the suite's one app, not on fresh ones as in cacheTests(): the binance-p2p calls are counted as they
// were before the suite's shared checks existed (a fresh app here once saw a second call, under load).
describe('cache', () => {
  test('an identical second call is served from the cache', async () => {
    await expectCacheHit({ t: s.t, path: PATH, query: { fiat: 'TRY' }, upstreamCalls: () => s.fake.calls.length });
  });

  test('concurrent identical calls share one upstream call', async () => {
    await expectCoalesced({ t: s.t, path: PATH, query: { fiat: 'GBP' }, upstreamCalls: () => s.fake.calls.length });
  });
});
