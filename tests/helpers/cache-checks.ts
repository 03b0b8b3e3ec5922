// The response-cache checks every cached endpoint's tests share: a repeated call is served from the cache,
// N concurrent identical misses cost one upstream call, and answers that must never be cached (random
// images, quotas) are fetched afresh each time. Give each check a query no earlier test has used.
import request from 'supertest';
import type { TestApp } from './app.js';

export interface CacheCase {
  t: TestApp;
  /** e.g. /api/v1/anime/creature-data */
  path: string;
  query: Record<string, string | number | boolean>;
  /** Upstream calls made so far, e.g. () => fake.calls.length. */
  upstreamCalls: () => number;
}

const get = (c: CacheCase) =>
  request(c.t.app)
    .get(c.path)
    .query({ apikey: c.t.key, ...c.query });

/** A second identical call answers from the cache: metadata.cached true, the same data, no new upstream call. */
export async function expectCacheHit(c: CacheCase): Promise<void> {
  const before = c.upstreamCalls();
  const first = await get(c);
  expect(first.status).toBe(200);
  expect(first.body.metadata.cached).toBe(false);
  const second = await get(c);
  expect(second.status).toBe(200);
  expect(second.body.metadata.cached).toBe(true);
  expect(second.body.data).toEqual(first.body.data);
  expect(c.upstreamCalls() - before).toBe(1);
}

/**
 * N identical requests in flight together share one upstream call. The fake should answer this query
 * after a short delay (100-300 ms) so that the requests overlap.
 */
export async function expectCoalesced(c: CacheCase, n = 5): Promise<void> {
  const before = c.upstreamCalls();
  const answers = await Promise.all(Array.from({ length: n }, () => get(c)));
  for (const res of answers) {
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(answers[0].body.data);
  }
  expect(c.upstreamCalls() - before).toBe(1);
}

/** Two identical calls both reach the upstream and neither is marked cached. */
export async function expectNeverCached(c: CacheCase): Promise<void> {
  const before = c.upstreamCalls();
  for (let i = 0; i < 2; i++) {
    const res = await get(c);
    expect(res.status).toBe(200);
    expect(res.body.metadata.cached).toBe(false);
  }
  expect(c.upstreamCalls() - before).toBe(2);
}
