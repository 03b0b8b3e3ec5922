// The HTTP contract of design §3 on real endpoints: the envelope, GET/POST parameter forms, unknown paths,
// wrong methods and hostile input, which must always get a 4xx envelope and never a 5xx.
import request from 'supertest';
import { testApp, KEYS, type TestApp } from '../../helpers/app.js';
import { luhnValid } from '../../../adapters/tools/_luhn.js';
import { expectMatchesSchema } from '../../helpers/schema.js';

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(async () => {
  await t.close();
});

const ccgen = '/api/v1/tools/ccgen';
const fake = '/api/v1/tools/fake-address';

test('GET / names the service and links the docs; /health answers', async () => {
  const root = await request(t.app).get('/');
  expect(root.status).toBe(200);
  expect(root.body).toMatchObject({ success: true, name: 'Unified Utility API', endpoints: 79 });
  const health = await request(t.app).get('/health');
  expect(health.status).toBe(200);
  expect(health.body).toMatchObject({ status: 'ok', redis: 'disabled', endpoints: 79 });
});

test('success envelope: creator, source, data, metadata', async () => {
  const res = await request(t.app).get(ccgen).query({ apikey: t.key, bin: '457173' });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    success: true,
    creator: 'Unified Utility API',
    source: 'embedded',
    metadata: { endpoint: 'tools/ccgen', cached: false },
  });
  expect(typeof res.body.metadata.requestId).toBe('string');
  expect(typeof res.body.metadata.tookMs).toBe('number');
  expect(res.headers['x-request-id']).toBe(res.body.metadata.requestId);
  expectMatchesSchema('tools/ccgen', res.body.data);
});

test('ccgen: 10 unique Luhn-valid numbers of the brand length, and no expiry or CVV', async () => {
  const visa = (await request(t.app).get(ccgen).query({ apikey: t.key, bin: '457173' })).body.data;
  expect(visa).toMatchObject({ bin: '457173', brand: 'Visa', length: 16, test_data: true });
  expect(new Set(visa.cards).size).toBe(10);
  for (const c of visa.cards) {
    expect(c).toMatch(/^457173\d{10}$/);
    expect(luhnValid(c)).toBe(true);
  }
  const amex = (await request(t.app).get(ccgen).query({ apikey: t.key, bin: '378282' })).body.data;
  expect(amex).toMatchObject({ brand: 'American Express', length: 15 });
  expect(amex.cards.every((c: string) => c.length === 15 && luhnValid(c))).toBe(true);
  expect(JSON.stringify(visa)).not.toMatch(/cvv|expir/i);
  for (const bad of ['12345', '123456789', 'abcdef']) {
    const res = await request(t.app).get(ccgen).query({ apikey: t.key, bin: bad });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Invalid value for bin: must be 6 to 8 digits');
  }
});

test('fake-address: the fixed shape of spec §2.4, per country', async () => {
  for (const country of ['US', 'de', 'GB', 'UK', 'JP', 'BR', 'ID', 'FR', 'KE']) {
    const res = await request(t.app).get(fake).query({ apikey: t.key, country });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expectMatchesSchema('tools/fake-address', d);
    expect(d.phone).toMatch(/^\+\d[\d ]+$/);
    expect(d.address).not.toContain('\n');
    const code = country.toUpperCase() === 'UK' ? 'GB' : country.toUpperCase();
    expect(d.country.code).toBe(code);
    expect(d.country.name).toBe(new Intl.DisplayNames(['en'], { type: 'region' }).of(code));
    expect(d.currency).toBe({ US: 'USD', DE: 'EUR', GB: 'GBP', JP: 'JPY', BR: 'BRL', ID: 'IDR', FR: 'EUR', KE: 'KES' }[code]);
  }
  expect((await request(t.app).get(fake).query({ apikey: t.key })).body.data.currency).toBe('USD');
  const bad = await request(t.app).get(fake).query({ apikey: t.key, country: 'XX' });
  expect(bad.status).toBe(400);
  expect(bad.body.error).toBe('Invalid value for country: unknown country code XX');
});

test('unknown paths are 404 and wrong methods 405 with Allow, both with limit headers', async () => {
  const nf = await request(t.app).get('/api/v1/tools/nope').query({ apikey: t.key });
  expect(nf.status).toBe(404);
  expect(nf.body.success).toBe(false);
  expect(nf.headers['x-ratelimit-limit']).toBeDefined();
  const wrong = await request(t.app).post(ccgen).query({ apikey: t.key, bin: '457173' });
  expect(wrong.status).toBe(405);
  expect(wrong.headers.allow).toBe('GET');
});

test('POST takes the query string, a JSON body, a urlencoded form or multipart fields (body wins)', async () => {
  const path = '/api/v1/cloud-storage/paste-host';
  const forms = [
    request(t.app)
      .post(path)
      .query({ apikey: KEYS.premium, paste: 'x'.repeat(0) }),
    request(t.app).post(path).send({ apikey: KEYS.premium }),
    request(t.app).post(path).type('form').send({ apikey: KEYS.premium }),
    request(t.app).post(path).field('apikey', KEYS.premium),
  ];
  for (const res of await Promise.all(forms)) {
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Missing required parameter: paste');
  }
});

test('which key counts: the X-API-Key header, then the query string, then the body; one key repeated is one key; two in one place is a 400', async () => {
  t = await testApp();
  const paste = '/api/v1/cloud-storage/paste-host';
  const limitOf = (res: request.Response) => res.headers['x-ratelimit-limit'];
  // A generated client sends the header and a placeholder in the body: the header counts.
  expect(limitOf(await request(t.app).post(paste).set('X-API-Key', KEYS.enterprise).send({ apikey: 'placeholder', paste: 'x' }))).toBe(
    '50000',
  );
  expect(limitOf(await request(t.app).get(ccgen).set('X-API-Key', KEYS.enterprise).query({ apikey: KEYS.premium, bin: '457173' }))).toBe(
    '50000',
  );
  // The query string before the body.
  expect(limitOf(await request(t.app).post(paste).query({ apikey: KEYS.premium }).send({ apikey: KEYS.enterprise, paste: 'x' }))).toBe(
    '5000',
  );
  expect(limitOf(await request(t.app).post(paste).send({ apikey: KEYS.enterprise, paste: 'x' }))).toBe('50000');
  // The same key twice, in the query string or as two headers (Node joins them with ", "), is that key.
  const twice = await request(t.app).get(`${ccgen}?apikey=${KEYS.premium}&apikey=${KEYS.premium}&bin=457173`);
  expect(twice.status).toBe(200);
  expect(limitOf(twice)).toBe('5000');
  expect((await request(t.app).get(ccgen).set('X-API-Key', `${KEYS.premium}, ${KEYS.premium}`).query({ bin: '457173' })).status).toBe(200);
  // Two different keys in one place: a 400 that says so, metered on the invalid-key allowance.
  for (const res of [
    await request(t.app).get(`${ccgen}?apikey=${KEYS.premium}&apikey=${KEYS.enterprise}&bin=457173`),
    await request(t.app).get(ccgen).set('X-API-Key', `${KEYS.premium}, ${KEYS.enterprise}`).query({ bin: '457173' }),
    await request(t.app)
      .post(paste)
      .send({ apikey: [KEYS.premium, KEYS.enterprise], paste: 'x' }),
  ]) {
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: 'Invalid value for apikey: several different keys were sent; send one',
      code: 'bad_input',
    });
    expect(limitOf(res)).toBe('100');
  }
});

test('hostile input gets a 4xx envelope, never a 5xx', async () => {
  const cases: Array<[string, request.Test]> = [
    ['repeated key', request(t.app).get(`${ccgen}?apikey=${t.key}&bin=457173&bin=457174`)],
    ['array syntax', request(t.app).get(`${ccgen}?apikey=${t.key}&bin[]=457173`)],
    ['object syntax', request(t.app).get(`${ccgen}?apikey=${t.key}&bin[a]=457173`)],
    ['__proto__', request(t.app).get(`${ccgen}?apikey=${t.key}&__proto__[bin]=1&constructor=x`)],
    [
      '5000 chars',
      request(t.app)
        .get(ccgen)
        .query({ apikey: t.key, bin: '4'.repeat(5000) }),
    ],
    ['NUL byte', request(t.app).get(`${ccgen}?apikey=${t.key}&bin=457173%00`)],
    ['malformed JSON', request(t.app).post('/api/v1/tts/generate').set('Content-Type', 'application/json').send('{"apikey": "x", ')],
    ['JSON array body', request(t.app).post('/api/v1/tts/generate').query({ apikey: t.key }).send([1, 2])],
    [
      'object where a string goes',
      request(t.app)
        .post('/api/v1/tts/generate')
        .send({ apikey: t.key, text: { a: 1 } }),
    ],
    ['integer as hex', request(t.app).get('/api/v1/anime/anime-images-a').query({ apikey: t.key, amount: '0x10' })],
    ['integer as exponent', request(t.app).get('/api/v1/anime/anime-images-a').query({ apikey: t.key, amount: '1e3' })],
    ['out of bounds', request(t.app).get('/api/v1/anime/anime-images-a').query({ apikey: t.key, amount: '21' })],
    ['key as array', request(t.app).get(`${ccgen}?apikey=a&apikey=b&bin=457173`)],
    [
      'huge key',
      request(t.app)
        .get(ccgen)
        .query({ apikey: 'k'.repeat(5000), bin: '457173' }),
    ],
  ];
  for (const [name, req] of cases) {
    const res = await req;
    expect({ name, status: res.status < 500 && res.status >= 400 }).toEqual({ name, status: true });
    expect(res.body.success).toBe(false);
    expect(typeof res.body.error).toBe('string');
  }
  const bounds = await request(t.app).get('/api/v1/anime/anime-images-a').query({ apikey: t.key, amount: '21' });
  expect(bounds.body.error).toBe('Invalid value for amount: must be between 1 and 20');
  const hex = await request(t.app).get('/api/v1/anime/anime-images-a').query({ apikey: t.key, amount: '0x10' });
  expect(hex.body.error).toBe('Invalid value for amount: must be an integer');
  // Signed and zero-padded integers are read as numbers, then held to the bounds.
  for (const amount of ['-5', '+21', '0021']) {
    const signed = await request(t.app).get('/api/v1/anime/anime-images-a').query({ apikey: t.key, amount });
    expect({ amount, error: signed.body.error }).toEqual({ amount, error: 'Invalid value for amount: must be between 1 and 20' });
  }
  // Text without a maxLength of its own is capped at 2,048 characters, before its pattern is read.
  const long = await request(t.app)
    .get(ccgen)
    .query({ apikey: t.key, bin: '4'.repeat(2049) });
  expect(long.body.error).toBe('Invalid value for bin: must be at most 2048 characters');
  const capped = await request(t.app)
    .get(ccgen)
    .query({ apikey: t.key, bin: '4'.repeat(2048) });
  expect(capped.body.error).toBe('Invalid value for bin: must be 6 to 8 digits');
  const repeated = await request(t.app).get(`${ccgen}?apikey=${t.key}&bin=457173&bin=457174`);
  expect(repeated.body.error).toBe('Invalid value for bin: must be a single value');
  // A parameter spelt as an array or an object, in the query (as it is or escaped) or in the body.
  for (const spelt of ['bin[]=457173', 'bin[a]=457173', 'bin%5B%5D=457173', 'bin%5ba%5d=457173']) {
    const res = await request(t.app).get(`${ccgen}?apikey=${t.key}&${spelt}`);
    expect({ spelt, status: res.status, error: res.body.error }).toEqual({
      spelt,
      status: 400,
      error: 'Invalid value for bin: must be a single value',
    });
  }
  const inBody = await request(t.app).post('/api/v1/tts/generate').query({ apikey: t.key }).send({ 'text[0]': 'hi' });
  expect(inBody.body.error).toBe('Invalid value for text: must be a single value');
  const malformed = await request(t.app)
    .post('/api/v1/tts/generate')
    .query({ apikey: t.key })
    .set('Content-Type', 'application/json')
    .send('{"text": ');
  expect(malformed.status).toBe(400);
  expect(malformed.body.error).toBe('Malformed JSON body');
  expect(malformed.headers['x-ratelimit-limit']).toBeDefined();
});

test('enum violations name the allowed values', async () => {
  const res = await request(t.app).get('/api/v1/finance/p2p').query({ apikey: t.key, type: 'HOLD' });
  expect(res.status).toBe(400);
  expect(res.body.error).toBe('Invalid value for type: must be one of BUY, SELL');
});
