// The operator's metrics (/metrics): requests by plan, upstream calls by outcome with their latency,
// response-cache hits and misses, Redis state; and the bearer token that protects the page when
// METRICS_TOKEN is set. /health answering 503 while draining is here too (server/main.ts drives it).
import fs from 'node:fs';
import request from 'supertest';
import { fakeUpstream, type FakeUpstream } from '../../helpers/fake-upstream.js';
import { testApp, KEYS, redisAvailable, type TestApp } from '../../helpers/app.js';

const single = JSON.parse(fs.readFileSync(new URL('../../fixtures/gtx/single-dj.json', import.meta.url), 'utf8'));
let failing = false;
let gtx: FakeUpstream;
let t: TestApp;
beforeAll(async () => {
  gtx = await fakeUpstream(() => (failing ? { status: 500, json: {} } : { json: single }));
  // MyMemory, tr's next provider, `off`: gtx's failure must be the answer, and nothing may reach the internet.
  t = await testApp({ UPSTREAM_GTX_URL: gtx.url, UPSTREAM_MYMEMORY_URL: 'off', METRICS_TOKEN: 'metrics-secret-1' });
});
afterAll(async () => {
  await t.close();
  await gtx.close();
});

// Each test may build an app of its own: seconds each on a loaded machine, hence 90 s per test.
const scrape = async (app: TestApp['app'] = t.app) =>
  (await request(app).get('/metrics').set('Authorization', 'Bearer metrics-secret-1')).text;
/** The value of one series, 0 when absent. */
const value = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
};

test('/metrics wants the bearer token when METRICS_TOKEN is set: 401 in the envelope otherwise', async () => {
  const none = await request(t.app).get('/metrics');
  expect(none.status).toBe(401);
  expect(none.body).toMatchObject({ success: false, code: 'missing_key' });
  expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
  const wrong = await request(t.app).get('/metrics').set('Authorization', 'Bearer nope');
  expect(wrong.status).toBe(401);
  expect(wrong.body).toMatchObject({ success: false, code: 'invalid_key' });
  const ok = await request(t.app).get('/metrics').set('Authorization', 'Bearer metrics-secret-1');
  expect(ok.status).toBe(200);
  expect(ok.text).toContain('uua_requests_total');
}, 90_000);

test('requests by plan and status class, a missing key counted as plan "none"', async () => {
  const before = await scrape();
  await request(t.app).get('/api/v1/tools/ccgen').query({ apikey: KEYS.premium, bin: '457173' });
  await request(t.app).get('/api/v1/tools/ccgen').query({ apikey: KEYS.enterprise, bin: '457173' });
  await request(t.app).get('/api/v1/tools/ccgen').query({ apikey: KEYS.enterprise, bin: 'x' });
  await request(t.app).get('/api/v1/tools/ccgen').query({ bin: '457173' });
  const after = await scrape();
  const delta = (s: string) => value(after, s) - value(before, s);
  expect(delta('uua_plan_requests_total{plan="premium",class="2xx"}')).toBe(1);
  expect(delta('uua_plan_requests_total{plan="enterprise",class="2xx"}')).toBe(1);
  expect(delta('uua_plan_requests_total{plan="enterprise",class="4xx"}')).toBe(1);
  expect(delta('uua_plan_requests_total{plan="none",class="4xx"}')).toBe(1);
}, 90_000);

test('upstream calls by outcome with latency, and the cache hit ratio', async () => {
  const before = await scrape();
  const tr = (text: string) => request(t.app).get('/api/v1/utilities/tr').query({ apikey: KEYS.premium, text, to: 'en' });
  expect((await tr('Bonjour metrics')).status).toBe(200);
  expect((await tr('Bonjour metrics')).body.metadata.cached).toBe(true);
  failing = true;
  try {
    expect((await tr('Bonjour failing')).status).toBe(502);
  } finally {
    failing = false;
  }
  const after = await scrape();
  const delta = (s: string) => value(after, s) - value(before, s);
  expect(delta('uua_cache_requests_total{result="miss"}')).toBe(2);
  expect(delta('uua_cache_requests_total{result="hit"}')).toBe(1);
  expect(delta('uua_upstream_requests_total{upstream="gtx",outcome="ok"}')).toBe(1);
  expect(delta('uua_upstream_requests_total{upstream="gtx",outcome="upstream_failed"}')).toBe(1);
  expect(delta('uua_upstream_seconds_count{upstream="gtx"}')).toBe(2);
}, 90_000);

test('no token configured: /metrics is open; no Redis configured: no Redis gauge', async () => {
  const open = await testApp();
  try {
    const res = await request(open.app).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('uua_redis_up');
  } finally {
    await open.close();
  }
}, 90_000);

test('Redis state is a gauge when REDIS_URL is set', async () => {
  const url = await redisAvailable();
  if (!url) return;
  const r = await testApp({ REDIS_URL: url, REDIS_PREFIX: `uua-test-metrics-${process.pid}:` });
  try {
    expect(value((await request(r.app).get('/metrics')).text, 'uua_redis_up')).toBe(1);
  } finally {
    await r.close();
  }
}, 90_000);

test('draining: /health answers 503 with status draining', async () => {
  const d = await testApp();
  try {
    expect((await request(d.app).get('/health')).status).toBe(200);
    d.api.startDraining();
    const res = await request(d.app).get('/health');
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ status: 'draining' });
  } finally {
    await d.close();
  }
}, 90_000);
