// Metering on a real Redis: two instances share each allowance exactly under concurrent load, and a Redis
// outage or restart never stops the service: it fails open (counting in process from the last figure seen,
// each instance its share of what was left), says so on /health, logs it, goes back to Redis by itself and
// hands it the counts and the usage history made meanwhile.
import crypto from 'node:crypto';
import request from 'supertest';
import { onTwoInstances, testApp, KEYS, redisAvailable, type TestApp } from '../../helpers/app.js';
import { tcpProxy } from '../../helpers/tcp-proxy.js';
import { newKey, record } from '../../../engine/access/keystore.js';

const ccgen = '/api/v1/tools/ccgen';
let redisUrl: string | undefined;
beforeAll(async () => {
  redisUrl = await redisAvailable();
});

const waitFor = async (check: () => Promise<boolean> | boolean, ms = 8000) => {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition not reached in time');
};

test('two instances on one Redis share an allowance exactly under concurrent load', async () => {
  if (!redisUrl) return;
  const env = { REDIS_URL: redisUrl, REDIS_PREFIX: `test-${crypto.randomUUID()}:`, PLAN_PREMIUM_LIMIT: '25' };
  const a = await testApp(env);
  const b = await testApp(env);
  try {
    await waitFor(() => a.api.redis!.ready() && b.api.redis!.ready());
    const calls = Array.from({ length: 60 }, (_, i) =>
      request((i % 2 ? a : b).app)
        .get(ccgen)
        .query({ apikey: KEYS.premium, bin: '457173' }),
    );
    const statuses = (await Promise.all(calls)).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(25);
    expect(statuses.filter((s) => s === 429)).toHaveLength(35);
  } finally {
    await a.close();
    await b.close();
  }
});

test('Redis down: the service keeps answering with headers, reports it on /health, and recovers', async () => {
  if (!redisUrl) return;
  const target = new URL(redisUrl);
  const proxy = await tcpProxy(target.hostname, Number(target.port || 6379));
  let t: TestApp | undefined;
  try {
    t = await testApp({ REDIS_URL: proxy.url, REDIS_PREFIX: `test-${crypto.randomUUID()}:`, PLAN_PREMIUM_LIMIT: '100' });
    await waitFor(() => t!.api.redis!.ready());
    const ok = await request(t.app).get(ccgen).query({ apikey: KEYS.premium, bin: '457173' });
    expect(ok.status).toBe(200);
    expect(ok.headers['x-ratelimit-remaining']).toBe('99');

    await proxy.cut();
    await waitFor(() => !t!.api.redis!.ready());
    const started = Date.now();
    const during = await request(t.app).get(ccgen).query({ apikey: KEYS.premium, bin: '457173' });
    expect(during.status).toBe(200);
    expect(during.headers['x-ratelimit-limit']).toBe('100');
    expect(Date.now() - started).toBeLessThan(2000);
    const health = await request(t.app).get('/health');
    expect(health.body).toMatchObject({ status: 'degraded', redis: 'down' });
    // Keys live in the database, not in Redis: a key the instance has not seen is still judged.
    const unseen = await request(t.app).get(ccgen).query({ apikey: 'uua_never-seen-before-key', bin: '457173' });
    expect(unseen.status).toBe(401);

    await proxy.restore();
    await waitFor(async () => (await request(t!.app).get('/health')).body.redis === 'ready');
    const after = await request(t.app).get(ccgen).query({ apikey: KEYS.premium, bin: '457173' });
    expect(after.status).toBe(200);
    // Back on the Redis counter, which was handed the request counted during the outage.
    expect(after.headers['x-ratelimit-remaining']).toBe('97');
  } finally {
    await t?.close();
    await proxy.close();
  }
});

test('Redis cut under load on two instances: each admits its share of what was left, and Redis gets every count back', async () => {
  if (!redisUrl) return;
  const target = new URL(redisUrl);
  const proxy = await tcpProxy(target.hostname, Number(target.port || 6379));
  const prefix = `test-${crypto.randomUUID()}:`;
  const env = { REDIS_URL: proxy.url, REDIS_PREFIX: prefix, PLAN_PREMIUM_LIMIT: '30' };
  const a = await testApp(env);
  const b = await testApp(env);
  const call = (t: TestApp) => request(t.app).get(ccgen).query({ apikey: KEYS.premium, bin: '457173' });
  try {
    await waitFor(() => a.api.redis!.peers!() === 2 && b.api.redis!.peers!() === 2);
    // 20 of the 30 spent through Redis, on both instances.
    const before = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i % 2 ? a : b)));
    expect(before.every((r) => r.status === 200)).toBe(true);
    expect(before.map((r) => Number(r.headers['x-ratelimit-remaining'])).sort((x, y) => x - y)[0]).toBe(10);
    // The last figures each sees before the cut: 21 on a, 22 on b.
    expect((await call(a)).status).toBe(200);
    expect((await call(b)).status).toBe(200);

    await proxy.cut();
    await waitFor(() => !a.api.redis!.ready() && !b.api.redis!.ready());
    // 8 left, 2 instances: each admits 4, counting two a request from the figure it last saw, never up.
    const during: request.Response[] = [];
    for (let i = 0; i < 10; i++) during.push(...(await Promise.all([call(a), call(b)])));
    const served = during.filter((r) => r.status === 200);
    expect(served).toHaveLength(8);
    expect(during.filter((r) => r.status === 429)).toHaveLength(12);
    expect(served.map((r) => r.headers['x-ratelimit-remaining']).sort()).toEqual(['0', '1', '2', '3', '4', '5', '6', '7']);

    await proxy.restore();
    await waitFor(() => a.api.redis!.ready() && b.api.redis!.ready());
    // Every request counted while cut off is handed to Redis once: 22 before, 20 during.
    const counters = async () => {
      const keys: string[] = [];
      for await (const batch of a.api.redis!.client.scanIterator({ MATCH: `${prefix}rl:premium:*`, COUNT: 500 }))
        keys.push(...batch.filter((k) => !k.includes('~applied:')));
      return keys.length ? (await a.api.redis!.client.mGet(keys)).map(Number) : [];
    };
    await waitFor(async () => (await counters())[0] === 42);
    expect(await counters()).toEqual([42]);
    expect((await call(a)).status).toBe(429);
    // And the usage history has every answer: 30 served, 12 refused (and the one just refused).
    await waitFor(
      async () => (await request(b.app).get('/api/v1/account/usage').query({ apikey: KEYS.premium })).body.data?.hourly.total === 43,
    );
    const usage = await request(b.app).get('/api/v1/account/usage').query({ apikey: KEYS.premium });
    const buckets: { classes: Record<string, number> }[] = usage.body.data.hourly.buckets;
    const sum = (cls: string) => buckets.reduce((n, b) => n + (b.classes[cls] ?? 0), 0);
    expect([sum('2xx'), sum('4xx')]).toEqual([30, 13]);
  } finally {
    await a.close();
    await b.close();
    await proxy.close();
  }
}, 30_000);

test('with REDIS_URL and DATABASE_URL, keys live in the database, hashed, and every instance knows them', async () => {
  await onTwoInstances(async (t, other) => {
    const key = newKey();
    await t.api.keys.save(record(key, 'enterprise', 'shared test'));
    expect((await t.api.keys.list()).map((k) => k.plan)).toEqual(['enterprise']);
    expect(JSON.stringify(await t.api.database.db.selectFrom('apiKeys').selectAll().execute())).not.toContain(key);
    const res = await request(t.app).get(ccgen).query({ apikey: key, bin: '457173' });
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe('50000');
    // The second instance, on the same database, knows the key too.
    expect((await request(other.app).get(ccgen).query({ apikey: key, bin: '457173' })).status).toBe(200);
  });
});
