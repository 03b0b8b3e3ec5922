// tools/bin-lookup: the embedded scheme table always answers; binlist (a loopback fake speaking its
// GET /{bin} with Accept-Version: 3) enriches it, and every way binlist fails leaves its fields null.
import type { FakeResponse } from '../../helpers/fake-upstream.js';
import { upstreamSuite, withUpstreams } from '../../helpers/upstream-suite.js';
import { expectAnswer, expectMatchesSchema } from '../../helpers/schema.js';

/** What the fake answers per BIN; a BIN without an entry is a 404, as binlist answers. */
let answers: Record<string, FakeResponse> = {};
const s = upstreamSuite({
  endpoint: 'tools/bin-lookup',
  upstreams: {
    binlist: {
      routes: { 'GET /:bin': (_req, p) => answers[p.bin] ?? { status: 404, text: '' } },
    },
  },
});
beforeEach(() => {
  answers = {};
});

const lookup = (bin: string) => s.get({ bin });
const NULLS = { issuer: null, type: null, prepaid: null, product: null, country: null };

test('embedded scheme data merged with binlist: issuer, type, prepaid, product (binlist brand), country', async () => {
  answers['457173'] = { json: s.fixture('457173.json') };
  const res = await lookup('457173');
  expectAnswer(res, 'binlist', 'tools/bin-lookup');
  expect(res.body.data).toEqual({
    bin: '457173',
    scheme: 'visa',
    brand: 'Visa',
    lengths: [16, 18, 19],
    cvv: { name: 'CVV', size: 3 },
    luhn: true,
    issuer: 'JPMORGAN CHASE BANK N.A.',
    type: 'debit',
    prepaid: false,
    product: 'Traditional',
    country: { code: 'US', name: 'United States of America', currency: 'USD' },
    sources: ['credit-card-type', 'binlist'],
  });
  expect(s.fake.calls).toHaveLength(1);
  expect(s.fake.calls[0].path).toBe('/457173');
  expect(s.fake.calls[0].headers['accept-version']).toBe('3');
});

test('a sparse binlist answer (empty country and bank) gives nulls, not empty objects', async () => {
  answers['371449'] = { json: s.fixture('371449-sparse.json') };
  const res = await lookup('371449');
  expect(res.status).toBe(200);
  expectMatchesSchema('tools/bin-lookup', res.body.data);
  expect(res.body.data).toMatchObject({
    scheme: 'american-express',
    brand: 'American Express',
    lengths: [15],
    cvv: { name: 'CID', size: 4 },
    type: 'credit',
    issuer: null,
    country: null,
    product: null,
    prepaid: null,
    luhn: true,
  });
});

test('8-digit BINs are passed to binlist as given', async () => {
  answers['55555555'] = { json: { scheme: 'mastercard', type: 'credit', number: { luhn: true } } };
  const res = await lookup('55555555');
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({ bin: '55555555', scheme: 'mastercard', type: 'credit' });
});

// Each case its own BIN: answers are cached per BIN.
test.each([
  ['404 (unknown to binlist)', '457175', { status: 404, text: '' }],
  ['429 (allowance spent)', '457176', { status: 429, headers: { 'retry-after': '3600' }, text: '' }],
  ['500', '457177', { status: 500, json: { error: 'boom' } }],
  ['malformed JSON', '457178', { text: '<html>oops</html>', headers: { 'content-type': 'application/json' } }],
] as Array<[string, string, FakeResponse]>)('binlist %s → embedded answer, binlist fields null, 200', async (_name, bin, answer) => {
  answers[bin] = answer;
  const res = await lookup(bin);
  expectAnswer(res, 'embedded', 'tools/bin-lookup');
  expect(s.fake.calls).toHaveLength(1);
  expect(res.body.data).toMatchObject({ bin, scheme: 'visa', brand: 'Visa', luhn: true, ...NULLS, sources: ['credit-card-type'] });
});

test('a slow binlist is given up after a short time (3 s), not the upstream timeout', async () => {
  answers['457174'] = { json: s.fixture('457173.json'), delayMs: 8000 };
  const started = Date.now();
  const res = await lookup('457174');
  const took = Date.now() - started;
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({ scheme: 'visa', ...NULLS, sources: ['credit-card-type'] });
  expect(took).toBeGreaterThanOrEqual(2500);
  expect(took).toBeLessThan(6000);
});

test('binlist unreachable (nothing listening) → embedded answer, quickly', async () => {
  await withUpstreams({ endpoint: 'tools/bin-lookup', upstreams: { binlist: {} } }, async (t2) => {
    await t2.fake.close();
    const started = Date.now();
    const res = await t2.get({ bin: '510510' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ scheme: 'mastercard', brand: 'Mastercard', ...NULLS, sources: ['credit-card-type'] });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

test('a BIN no scheme knows is a 404 and binlist is not asked', async () => {
  const res = await lookup('999999');
  expect(res.status).toBe(404);
  expect(res.body).toMatchObject({ success: false, code: 'not_found' });
  expect(res.body.error).toMatch(/999999/);
  expect(s.fake.calls).toHaveLength(0);
});

test.each(['12345', '123456789', '4571a3', '457 173', '-457173'])('bin=%p → 400 naming the rule', async (bin) => {
  const res = await lookup(bin);
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ success: false, error: 'Invalid value for bin: must be 6 to 8 digits', code: 'bad_input' });
});

test('cached for 30 d: the second identical call is served from the cache and binlist is called once', async () => {
  answers['400000'] = { json: s.fixture('457173.json') };
  const first = await lookup('400000');
  const second = await lookup('400000');
  expect(first.body.metadata.cached).toBe(false);
  expect(second.body.metadata.cached).toBe(true);
  expect(second.body.data).toEqual(first.body.data);
  expect(s.fake.calls).toHaveLength(1);
});

test('concurrent identical lookups share one binlist call', async () => {
  answers['411111'] = { json: s.fixture('457173.json'), delayMs: 200 };
  const all = await Promise.all(Array.from({ length: 5 }, () => lookup('411111')));
  for (const r of all) expect(r.body.data.issuer).toBe('JPMORGAN CHASE BANK N.A.');
  expect(s.fake.calls).toHaveLength(1);
});

test('a failed enrichment is not cached: binlist is asked again next time', async () => {
  answers['422222'] = { status: 500, text: '' };
  await lookup('422222');
  answers['422222'] = { json: s.fixture('457173.json') };
  const res = await lookup('422222');
  expect(res.body.metadata.cached).toBe(false);
  expect(res.body.data.issuer).toBe('JPMORGAN CHASE BANK N.A.');
});
