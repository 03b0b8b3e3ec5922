// Plans and allowances in process: limits per plan from configuration, 429 with Retry-After (its value
// against the reset), headers on every response, refunds of 5xx, a personal key counted once whatever the
// client IP, the free key counted per client IP, the anonymous key shared by all, invalid keys metered per IP.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { testApp, KEYS, type TestApp } from '../../../helpers/app.js';
import { fakeUpstream } from '../../../helpers/fake-upstream.js';

const ccgen = '/api/v1/tools/ccgen';
let t: TestApp;
afterEach(async () => {
  await t?.close();
});

test('a plan allowance set through configuration is enforced with the spec message and headers', async () => {
  t = await testApp({ PLAN_PREMIUM_LIMIT: '3' });
  for (let i = 0; i < 3; i++) {
    const ok = await request(t.app).get(ccgen).query({ apikey: KEYS.premium, bin: '457173' });
    expect(ok.status).toBe(200);
    expect(ok.headers['x-ratelimit-limit']).toBe('3');
    expect(ok.headers['x-ratelimit-remaining']).toBe(String(2 - i));
  }
  const res = await request(t.app).get(ccgen).query({ apikey: KEYS.premium, bin: '457173' });
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ success: false, error: 'Rate limit exceeded. Try again later.', code: 'quota' });
  expect(res.headers.ratelimit).toMatch(/^"premium"; r=0; t=\d+$/);
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  expect(res.headers['x-ratelimit-remaining']).toBe('0');
  // Another key has its own allowance.
  expect((await request(t.app).get(ccgen).query({ apikey: KEYS.enterprise, bin: '457173' })).status).toBe(200);
});

test('the plans of the spec are the defaults', async () => {
  t = await testApp();
  const limit = async (key: string) => (await request(t.app).get(ccgen).query({ apikey: key, bin: '457173' })).headers['x-ratelimit-limit'];
  expect(await limit(KEYS.free)).toBe('200');
  expect(await limit(KEYS.premium)).toBe('5000');
  expect(await limit(KEYS.enterprise)).toBe('50000');
  expect(await limit(KEYS.anonymous)).toBe('1000');
  const res = await request(t.app).get(ccgen).query({ apikey: KEYS.premium, bin: '457173' });
  expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000 + 86_000);
  expect(res.headers['ratelimit-policy']).toMatch(/^"premium"; q=5000; w=86400; pk=:[A-Za-z0-9+/=]{16}:$/);
  expect(res.headers.ratelimit).toMatch(/^"premium"; r=4998; t=(86400|86399)$/);
});

test('Retry-After is the seconds left to the reset the 429 announces, not merely positive', async () => {
  t = await testApp({ PLAN_PREMIUM_LIMIT: '1' });
  expect((await request(t.app).get(ccgen).query({ apikey: KEYS.premium, bin: '457173' })).status).toBe(200);
  const before = Date.now();
  const res = await request(t.app).get(ccgen).query({ apikey: KEYS.premium, bin: '457173' });
  const after = Date.now();
  expect(res.status).toBe(429);
  // X-RateLimit-Reset is the window's end in epoch seconds, rounded up; Retry-After the seconds from the
  // answer to that end, rounded up: so it lies between the reset less the time after the answer, less the
  // second of rounding, and the reset less the time before the request.
  const reset = Number(res.headers['x-ratelimit-reset']);
  const retryAfter = Number(res.headers['retry-after']);
  expect(res.headers['retry-after']).toMatch(/^\d+$/);
  expect(retryAfter).toBeGreaterThanOrEqual(reset - Math.ceil(after / 1000) - 1);
  expect(retryAfter).toBeLessThanOrEqual(reset - Math.floor(before / 1000));
  // The 24-hour window opened a moment ago, at the first request.
  expect(retryAfter).toBeGreaterThan(86_400 - 60);
  expect(retryAfter).toBeLessThanOrEqual(86_400);
  expect(res.headers.ratelimit).toMatch(new RegExp(`^"premium"; r=0; t=(${retryAfter - 1}|${retryAfter}|${retryAfter + 1})$`));
});

test('one premium key from two client addresses shares one count; the free key from two addresses gets two', async () => {
  t = await testApp({ PLAN_PREMIUM_LIMIT: '3', PLAN_FREE_LIMIT: '3', TRUST_PROXY: 'true' });
  const call = (key: string, ip: string) => request(t.app).get(ccgen).set('X-Forwarded-For', ip).query({ apikey: key, bin: '457173' });
  const seen = async (key: string, ip: string) => {
    const res = await call(key, ip);
    return [res.headers['x-ratelimit-remaining'], res.headers['ratelimit-policy']];
  };
  // The premium key's counter is its id (the first 12 hex digits of its SHA-256, f65311f9d7fb), whatever the
  // address; the partition key is the first 12 hex digits of that counter's SHA-256, as base64.
  const premium = '"premium"; q=3; w=86400; pk=:MWFmZmY4ZmQ5OTEw:';
  expect(await seen(KEYS.premium, '203.0.113.1')).toEqual(['2', premium]);
  expect(await seen(KEYS.premium, '203.0.113.2')).toEqual(['1', premium]);
  expect(await seen(KEYS.premium, '203.0.113.1')).toEqual(['0', premium]);
  expect((await call(KEYS.premium, '203.0.113.3')).status).toBe(429);
  // The free key's counters are free:<address>, one per address.
  expect(await seen(KEYS.free, '203.0.113.1')).toEqual(['2', '"free"; q=3; w=86400; pk=:ZGNiNDc3MDM3ZGU1:']);
  expect(await seen(KEYS.free, '203.0.113.2')).toEqual(['2', '"free"; q=3; w=86400; pk=:M2ZiZjNiOWUyNzYz:']);
  expect(await seen(KEYS.free, '203.0.113.1')).toEqual(['1', '"free"; q=3; w=86400; pk=:ZGNiNDc3MDM3ZGU1:']);
});

test('400s count and carry headers; 5xx (an upstream failure, 502) are refunded', async () => {
  const upstream = await fakeUpstream(() => ({ status: 500, json: { error: 'boom' } }));
  t = await testApp({ PLAN_PREMIUM_LIMIT: '5', UPSTREAM_POKEAPI_URL: upstream.url, UPSTREAM_POKEAPI_TIMEOUT: '2s' });
  try {
    const bad = await request(t.app).get(ccgen).query({ apikey: KEYS.premium, bin: 'abc' });
    expect(bad.status).toBe(400);
    expect(bad.headers['x-ratelimit-remaining']).toBe('4');
    const failed = await request(t.app)
      .get('/api/v1/anime/creature-data')
      .query({ apikey: KEYS.premium, resource: 'pokemon', id: 'pikachu' });
    expect(failed.status).toBe(502);
    expect(failed.headers['x-ratelimit-remaining']).toBe('3');
    const after = await request(t.app).get(ccgen).query({ apikey: KEYS.premium, bin: '457173' });
    // The 502 was given back: 5 - 1 (the 400) - 1 (this one) = 3.
    expect(after.headers['x-ratelimit-remaining']).toBe('3');
  } finally {
    await upstream.close();
  }
});

test('an endpoint without an adapter answers 501 naming it, and is refunded', async () => {
  t = await testApp({ PLAN_PREMIUM_LIMIT: '5' }, { adaptersDir: fs.mkdtempSync(path.join(os.tmpdir(), 'uua-no-adapters-')) });
  for (let i = 0; i < 3; i++) {
    const res = await request(t.app).get(ccgen).query({ apikey: KEYS.premium, bin: '457173' });
    expect(res.status).toBe(501);
    expect(res.body).toEqual({ success: false, error: 'Not implemented yet: tools/ccgen', code: 'not_implemented' });
    expect(res.headers['x-ratelimit-remaining']).toBe('4');
  }
  expect((await request(t.app).get('/health')).body.adapters).toBe(0);
});

test('the free key is counted per client IP, the anonymous key once for everyone', async () => {
  t = await testApp({ PLAN_FREE_LIMIT: '1', PLAN_ANONYMOUS_LIMIT: '1', TRUST_PROXY: 'true' });
  const call = (key: string, ip: string) => request(t.app).get(ccgen).set('X-Forwarded-For', ip).query({ apikey: key, bin: '457173' });
  expect((await call(KEYS.free, '203.0.113.1')).status).toBe(200);
  expect((await call(KEYS.free, '203.0.113.1')).status).toBe(429);
  expect((await call(KEYS.free, '203.0.113.2')).status).toBe(200);
  expect((await call(KEYS.anonymous, '203.0.113.1')).status).toBe(200);
  expect((await call(KEYS.anonymous, '203.0.113.2')).status).toBe(429);
});

test('invalid keys are metered per client IP (AUTH_FAIL_LIMIT), and the 401 carries that allowance', async () => {
  t = await testApp({ AUTH_FAIL_LIMIT: '2', TRUST_PROXY: 'true' });
  const guess = (ip: string) => request(t.app).get(ccgen).set('X-Forwarded-For', ip).query({ apikey: 'guess', bin: '457173' });
  const first = await guess('198.51.100.7');
  expect(first.status).toBe(401);
  expect(first.headers['x-ratelimit-limit']).toBe('2');
  expect((await guess('198.51.100.7')).status).toBe(401);
  const blocked = await guess('198.51.100.7');
  expect(blocked.status).toBe(429);
  expect(blocked.body.error).toBe('Rate limit exceeded. Try again later.');
  expect((await guess('198.51.100.8')).status).toBe(401);
  // A valid key from the blocked address still works: the allowance is for guesses only.
  expect(
    (await request(t.app).get(ccgen).set('X-Forwarded-For', '198.51.100.7').query({ apikey: KEYS.premium, bin: '457173' })).status,
  ).toBe(200);
});

test('the key may come as the X-API-Key header or in a JSON body', async () => {
  t = await testApp();
  const viaHeader = await request(t.app).get(ccgen).set('X-API-Key', KEYS.premium).query({ bin: '457173' });
  expect(viaHeader.status).toBe(200);
});
