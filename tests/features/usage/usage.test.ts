// Usage history: what the API answered is counted per key, endpoint and status class, by hour and day,
// with latency quantiles and the last calls, and read back by GET /api/v1/account/usage, which does not
// spend the allowance and shows the same numbers as the X-RateLimit-* headers. In process and in Redis.
import crypto from 'node:crypto';
import request from 'supertest';
import { testApp, KEYS, redisAvailable, type TestApp } from '../../helpers/app.js';

const ccgen = '/api/v1/tools/ccgen';
const usagePath = '/api/v1/account/usage';

async function scenario(t: TestApp) {
  for (let i = 0; i < 3; i++) expect((await request(t.app).get(ccgen).query({ apikey: KEYS.premium, bin: '457173' })).status).toBe(200);
  const bad = await request(t.app).get(ccgen).query({ apikey: KEYS.premium, bin: 'x' });
  expect(bad.status).toBe(400);
  await flushUsage(t, KEYS.premium, 4);

  const res = await request(t.app).get(usagePath).set('X-API-Key', KEYS.premium);
  expect(res.status).toBe(200);
  const d = res.body.data;
  // The usage call itself is not counted: the headers and the body agree with the last API answer.
  expect(res.headers['x-ratelimit-remaining']).toBe(bad.headers['x-ratelimit-remaining']);
  expect(res.headers['x-ratelimit-limit']).toBe('5000');
  expect(d.allowance).toMatchObject({
    plan: 'premium',
    limit: 5000,
    used: 4,
    remaining: 4996,
    reset: Number(bad.headers['x-ratelimit-reset']),
  });
  expect(d.hourly.buckets).toHaveLength(24);
  expect(d.daily.buckets).toHaveLength(30);
  // The calls are in the bucket of the hour (and of the day) they were written in: the newest one, or the
  // newest two together when the scenario ran across the turn of an hour (of a UTC day).
  expect(newest(d.hourly.buckets)).toEqual({ total: 4, classes: { '2xx': 3, '4xx': 1 }, older: 0 });
  // Percentiles are their bucket's mean: never above the slowest call.
  const slowest = Math.max(...(d.recent as { ms: number }[]).map((c) => c.ms));
  for (const b of d.hourly.buckets.slice(-2))
    if (b.total) {
      expect(b.p50Ms).toBeLessThanOrEqual(b.p95Ms);
      expect(b.p95Ms).toBeLessThanOrEqual(slowest);
    }
  expect(newest(d.daily.buckets)).toMatchObject({ total: 4, older: 0 });
  expect(d.hourly.endpoints).toEqual([{ endpoint: 'tools/ccgen', total: 4, classes: { '2xx': 3, '4xx': 1 } }]);
  expect(d.recent).toHaveLength(4);
  expect(d.recent[0]).toEqual({ at: expect.any(String), endpoint: 'tools/ccgen', status: 400, ms: expect.any(Number) });
  expect(JSON.stringify(d)).not.toContain(KEYS.premium);
  expect(JSON.stringify(d)).not.toContain('457173');

  const again = await request(t.app).get(usagePath).query({ apikey: KEYS.premium });
  expect(again.body.data.allowance.used).toBe(4);
}

/** The last two buckets added up (total, 2xx, 4xx), and the total of all older ones. */
function newest(buckets: Array<{ total: number; classes: Record<string, number> }>) {
  const two = buckets.slice(-2);
  const sum = (f: (b: (typeof two)[number]) => number) => two.reduce((n, b) => n + f(b), 0);
  return {
    total: sum((b) => b.total),
    classes: { '2xx': sum((b) => b.classes['2xx'] ?? 0), '4xx': sum((b) => b.classes['4xx'] ?? 0) },
    older: buckets.slice(0, -2).reduce((n, b) => n + b.total, 0),
  };
}

/** The recorder writes once a second: waits (bounded) until `calls` calls of the key are written. */
async function flushUsage(t: TestApp, key: string, calls: number, ip?: string) {
  const before = Date.now();
  while (Date.now() - before < 5000) {
    const r = await request(t.app)
      .get(usagePath)
      .set('X-API-Key', key)
      .set('X-Forwarded-For', ip ?? '127.0.0.1');
    if (r.body.data?.recent?.length >= calls) return;
    await new Promise((ok) => setTimeout(ok, 100));
  }
}

test('usage is recorded per key and read back without spending the allowance (in process)', async () => {
  const t = await testApp();
  try {
    await scenario(t);
  } finally {
    await t.close();
  }
});

test('usage lives in Redis when REDIS_URL is set, shared by every instance', async () => {
  const redisUrl = await redisAvailable();
  if (!redisUrl) return;
  const prefix = `test-${crypto.randomUUID()}:`;
  const t = await testApp({ REDIS_URL: redisUrl, REDIS_PREFIX: prefix });
  const other = await testApp({ REDIS_URL: redisUrl, REDIS_PREFIX: prefix });
  try {
    await scenario(t);
    const res = await request(other.app).get(usagePath).set('X-API-Key', KEYS.premium);
    expect(res.body.data.allowance.used).toBe(4);
    expect(res.body.data.hourly.total).toBe(4);
  } finally {
    await t.close();
    await other.close();
  }
});

test("the free key is counted per client IP, and its usage is that IP's", async () => {
  const t = await testApp({ TRUST_PROXY: 'true' });
  try {
    const from = (ip: string) => request(t.app).get(ccgen).set('X-Forwarded-For', ip).query({ apikey: KEYS.free, bin: '457173' });
    await from('203.0.113.1');
    await from('203.0.113.1');
    await from('203.0.113.2');
    await flushUsage(t, KEYS.free, 2, '203.0.113.1');
    const mine = await request(t.app).get(usagePath).set('X-Forwarded-For', '203.0.113.1').query({ apikey: KEYS.free });
    expect(mine.body.data.allowance).toMatchObject({ plan: 'free', limit: 200, used: 2 });
    expect(mine.headers['x-ratelimit-remaining']).toBe('198');
    expect(mine.body.data.recent).toHaveLength(2);
  } finally {
    await t.close();
  }
});

test('a missing or invalid key on the usage endpoint is a 401, metered like any other', async () => {
  const t = await testApp();
  try {
    const none = await request(t.app).get(usagePath);
    expect(none.status).toBe(401);
    expect(none.body.error).toBe('Missing apikey parameter');
    const bad = await request(t.app).get(usagePath).query({ apikey: 'not-a-key-at-all' });
    expect(bad.status).toBe(401);
    expect(Number(bad.headers['x-ratelimit-remaining'])).toBe(Number(none.headers['x-ratelimit-remaining']) - 1);
  } finally {
    await t.close();
  }
});

test('the usage endpoint is in the OpenAPI document', async () => {
  const t = await testApp();
  try {
    const doc = (await request(t.app).get('/openapi.json')).body;
    const op = doc.paths['/api/v1/account/usage'].get;
    expect(op.tags).toEqual(['account']);
    expect(op.description).toMatch(/does not count against the allowance/);
    expect(Object.keys(op.responses[200].content['application/json'].schema.properties.data.properties)).toEqual([
      'key',
      'allowance',
      'hourly',
      'daily',
      'recent',
    ]);
  } finally {
    await t.close();
  }
});

test('the last calls keep the newest 50, newest first', async () => {
  const t = await testApp();
  try {
    for (let i = 0; i < 52; i++) await request(t.app).get(ccgen).query({ apikey: KEYS.enterprise, bin: '457173' });
    for (let i = 0; i < 3; i++) await request(t.app).get(ccgen).query({ apikey: KEYS.enterprise, bin: 'x' });
    let recent: { status: number }[] = [];
    const until = Date.now() + 5000;
    while (Date.now() < until) {
      recent = (await request(t.app).get(usagePath).set('X-API-Key', KEYS.enterprise)).body.data.recent;
      // The three 400s may be written in two flushes: wait for all of them.
      if (recent.length === 50 && recent.slice(0, 3).every((r) => r.status === 400)) break;
      await new Promise((ok) => setTimeout(ok, 100));
    }
    expect(recent).toHaveLength(50);
    expect(recent.map((r) => r.status).slice(0, 4)).toEqual([400, 400, 400, 200]);
    expect(recent.slice(3).every((r) => r.status === 200)).toBe(true);
  } finally {
    await t.close();
  }
});
