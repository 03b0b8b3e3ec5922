// The policies of catalog/upstreams.yaml (engine/upstream/policy.ts) applied by the real upstream client
// against fake upstreams on loopback that go down, hang, throttle and come back.
import { pino } from 'pino';
import { createUpstreams, type UpstreamConfig } from '../../../engine/upstream/client.js';
import { UpstreamEvents, type BreakerChange } from '../../../engine/upstream/upstream-events.js';
import type { CancelScope } from '../../../engine/upstream/cancel.js';
import { fakeUpstream, type FakeResponse, type FakeUpstream } from '../../helpers/fake-upstream.js';
import { apiError } from '../../helpers/api-error.js';

const log = pino({ level: 'silent' });

const fakes: FakeUpstream[] = [];
afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()));
});

/** A fake whose answer is whatever `answer` says now; `calls` counts what reached it. */
async function switchable(initial: FakeResponse) {
  const state = { answer: initial, inFlight: 0, maxInFlight: 0, arrivals: [] as number[] };
  const f = await fakeUpstream(async () => {
    state.arrivals.push(Date.now());
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    try {
      const a = state.answer;
      if (a.delayMs) await new Promise((r) => setTimeout(r, a.delayMs));
      return { ...a, delayMs: 0 };
    } finally {
      state.inFlight--;
    }
  });
  fakes.push(f);
  return Object.assign(state, { f, hits: () => f.calls.length });
}

function client(url: string, c: Partial<UpstreamConfig>, events?: UpstreamEvents) {
  return createUpstreams(
    { u: { name: 'u', docs: 'https://example.org', url, retries: 0, ...c } },
    {},
    { userAgent: 't', log, events },
  )('u');
}

const ms = async (p: Promise<unknown>) => {
  const t = performance.now();
  await p.catch(() => undefined);
  return performance.now() - t;
};

describe('circuit breaker', () => {
  test('opens after the configured consecutive failures; later calls answer 503 at once without asking', async () => {
    const up = await switchable({ status: 500, text: 'down', delayMs: 200 });
    const events = new UpstreamEvents();
    const seen: BreakerChange[] = [];
    events.onBreaker((c) => seen.push(c));
    const c = client(up.f.url, { policy: { breaker: { failures: 3, cooldown: '30s' } } }, events);
    for (let i = 0; i < 3; i++) expect(await apiError(c.request({ path: '/x' }))).toMatchObject({ status: 502, code: 'upstream_failed' });
    expect(seen.map((s) => s.state)).toEqual(['open']);
    expect(seen[0]).toMatchObject({ upstream: 'u', cause: 'upstream_failed' });
    expect(seen[0].retryAt! - seen[0].at).toBe(30_000);
    for (let i = 0; i < 10; i++) {
      const t = performance.now();
      const e = await apiError(c.request({ path: '/x' }));
      expect(performance.now() - t).toBeLessThan(100);
      expect(e).toMatchObject({ status: 503, code: 'upstream_unavailable' });
      expect(Number(e.headers['Retry-After'])).toBeGreaterThanOrEqual(29);
      expect(Number(e.headers['Retry-After'])).toBeLessThanOrEqual(30);
    }
    expect(up.hits()).toBe(3);
  });

  test('half-open after the cool-down: one trial call; success closes it, and the others are not held behind it', async () => {
    const up = await switchable({ status: 503, text: 'down' });
    const events = new UpstreamEvents();
    const seen: string[] = [];
    events.onBreaker((c) => seen.push(c.state));
    const c = client(up.f.url, { policy: { breaker: { failures: 2, cooldown: '300ms' } } }, events);
    await apiError(c.request({ path: '/x' }));
    await apiError(c.request({ path: '/x' }));
    expect(seen).toEqual(['open']);
    up.answer = { json: { ok: true }, delayMs: 300 };
    await new Promise((r) => setTimeout(r, 350));
    const trial = c.request({ path: '/x' });
    // While the trial is out, another caller hears 503 at once rather than waiting on it.
    const t = performance.now();
    expect(await apiError(c.request({ path: '/x' }))).toMatchObject({ status: 503, code: 'upstream_unavailable' });
    expect(performance.now() - t).toBeLessThan(100);
    expect((await trial).body).toEqual({ ok: true });
    expect(seen).toEqual(['open', 'half-open', 'closed']);
    up.answer = { json: { ok: 2 } };
    expect((await c.request({ path: '/x' })).body).toEqual({ ok: 2 });
    expect(up.hits()).toBe(4);
  });

  test('a failed trial opens it again for another cool-down', async () => {
    const up = await switchable({ status: 500, text: 'down' });
    const events = new UpstreamEvents();
    const seen: string[] = [];
    events.onBreaker((c) => seen.push(c.state));
    const c = client(up.f.url, { policy: { breaker: { failures: 1, cooldown: '200ms' } } }, events);
    await apiError(c.request({ path: '/x' }));
    await new Promise((r) => setTimeout(r, 250));
    expect(await apiError(c.request({ path: '/x' }))).toMatchObject({ code: 'upstream_failed' });
    expect(seen).toEqual(['open', 'half-open', 'open']);
    expect(await apiError(c.request({ path: '/x' }))).toMatchObject({ code: 'upstream_unavailable' });
    expect(up.hits()).toBe(2);
  });

  test('a hanging upstream opens it through its timeouts', async () => {
    const up = await switchable({ json: {}, delayMs: 2000 });
    const c = client(up.f.url, { timeout: '100ms', policy: { breaker: { failures: 2 } } });
    expect(await apiError(c.request({ path: '/x' }))).toMatchObject({ code: 'upstream_timeout' });
    expect(await apiError(c.request({ path: '/x' }))).toMatchObject({ code: 'upstream_timeout' });
    expect(await ms(c.request({ path: '/x' }))).toBeLessThan(100);
    expect(up.hits()).toBe(2);
  });

  test('a failure ratio over a window opens it, not the odd failure', async () => {
    const up = await switchable({ json: {} });
    const c = client(up.f.url, { policy: { breaker: { ratio: 0.5, window: '10s', minCalls: 4 } } });
    // 1 failure in 4: stays closed.
    for (const status of [200, 500, 200, 200]) {
      up.answer = status === 200 ? { json: {} } : { status, text: 'x' };
      await c.request({ path: '/x' }).catch(() => undefined);
    }
    up.answer = { status: 500, text: 'x' };
    // Then failures only: the ratio passes one half.
    const codes: string[] = [];
    for (let i = 0; i < 6; i++) codes.push((await apiError(c.request({ path: '/x' }))).code);
    expect(codes.slice(0, 2)).toEqual(['upstream_failed', 'upstream_failed']);
    expect(codes.at(-1)).toBe('upstream_unavailable');
  });

  test('answers the caller caused (404, 400) and calls the caller stopped never open it', async () => {
    const up = await switchable({ status: 404, json: {} });
    const c = client(up.f.url, { policy: { breaker: { failures: 2 } } });
    for (let i = 0; i < 4; i++) expect(await apiError(c.request({ path: '/x' }))).toMatchObject({ code: 'not_found' });
    up.answer = { json: {}, delayMs: 500 };
    for (let i = 0; i < 3; i++) {
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 20);
      await apiError(c.request({ path: '/x', signal: ac.signal }));
    }
    up.answer = { json: { fine: true } };
    expect((await c.request({ path: '/x' })).body).toEqual({ fine: true });
  });

  test('every upstream has one by default (5 failures, 30 s)', async () => {
    const up = await switchable({ status: 502, text: 'bad gateway' });
    const c = client(up.f.url, {});
    for (let i = 0; i < 5; i++) expect(await apiError(c.request({ path: '/x' }))).toMatchObject({ code: 'upstream_failed' });
    expect(await apiError(c.request({ path: '/x' }))).toMatchObject({ code: 'upstream_unavailable' });
    expect(up.hits()).toBe(5);
  });
});

describe('retries', () => {
  test('idempotent calls are retried with backoff, but never past the endpoint deadline', async () => {
    const up = await switchable({ status: 503, text: 'busy', delayMs: 150 });
    const c = createUpstreams(
      { u: { name: 'u', docs: 'x', url: up.f.url, retries: 5, policy: { breaker: false } } },
      {},
      { userAgent: 't', log },
    )('u');
    const scope: CancelScope = { cancelled: undefined, deadline: performance.now() + 600, watch() {}, unwatch() {} };
    const t = performance.now();
    expect(await apiError(c.request({ path: '/x' }, scope))).toMatchObject({ code: 'upstream_failed' });
    expect(performance.now() - t).toBeLessThan(600);
    expect(up.hits()).toBeLessThan(6);
    expect(up.hits()).toBeGreaterThanOrEqual(2);
  });
});

describe('concurrency, rate, pacing, pauses', () => {
  test('concurrency: at most N exchanges at once, a short line, then 503 at once', async () => {
    const up = await switchable({ json: { ok: true }, delayMs: 200 });
    const c = client(up.f.url, { policy: { concurrency: 1, queue: 1 } });
    const results = await Promise.allSettled([c.request({ path: '/a' }), c.request({ path: '/b' }), c.request({ path: '/c' })]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ status: 503, code: 'upstream_busy' });
    expect(up.maxInFlight).toBe(1);
    expect(up.hits()).toBe(2);
  });

  test('a line bounded in time (queueWait, the deadline), for the paths named (concurrencyFor)', async () => {
    const up = await switchable({ json: { ok: true }, delayMs: 400 });
    const c = client(up.f.url, { policy: { concurrency: 1, queue: 5, queueWait: '150ms', concurrencyFor: ['/search'] } });
    const scope: CancelScope = { cancelled: undefined, deadline: performance.now() + 5000.5, watch() {}, unwatch() {} };
    const first = c.request({ path: '/search' }, scope);
    await new Promise((r) => setTimeout(r, 20));
    // Waits in line 150 ms, then 503 busy; a path outside the bound is not queued at all.
    const t = performance.now();
    const [second, other] = await Promise.allSettled([c.request({ path: '/search' }, scope), c.request({ path: '/me' }, scope)]);
    expect(second).toMatchObject({ status: 'rejected', reason: { status: 503, code: 'upstream_busy' } });
    expect(other).toMatchObject({ status: 'fulfilled' });
    expect(performance.now() - t).toBeLessThan(1000);
    expect((await first).body).toEqual({ ok: true });
    expect(up.f.calls.map((x) => x.path).sort()).toEqual(['/me', '/search']);
  });

  test('rate: beyond the limit, 503 with Retry-After and no call', async () => {
    const up = await switchable({ json: {} });
    const c = client(up.f.url, { policy: { rate: { limit: 2, per: '2s' } } });
    await c.request({ path: '/x' });
    await c.request({ path: '/x' });
    const e = await apiError(c.request({ path: '/x' }));
    expect(e).toMatchObject({ status: 503, code: 'upstream_busy' });
    expect(Number(e.headers['Retry-After'])).toBe(2);
    expect(up.hits()).toBe(2);
  });

  test('minInterval: concurrent calls are spaced, not burst', async () => {
    const up = await switchable({ json: {} });
    const c = client(up.f.url, { policy: { minInterval: '150ms' } });
    await c.request({ path: '/x' });
    up.arrivals.length = 0;
    const start = Date.now();
    await Promise.all([c.request({ path: '/x' }), c.request({ path: '/x' }), c.request({ path: '/x' })]);
    // The k-th is sent at least k × 150 ms after the first, which is sent after `start`; an arrival can only
    // come later than its sending (a loaded machine delays the fake's handler, so two arrivals' gap alone can
    // shrink). A burst would arrive within a few milliseconds of `start`.
    expect(up.arrivals).toHaveLength(3);
    // Date.now() and the timers' clock may differ by a millisecond.
    up.arrivals.forEach((at, k) => expect(at - start).toBeGreaterThanOrEqual(150 * k - 2));
  });

  test('pauseOn: a ban answer pauses the upstream; repeated 404s within a window pause it too', async () => {
    const up = await switchable({ status: 403, json: {} });
    const c = client(up.f.url, {
      policy: {
        pauseOn: [
          { status: 403, for: '1h', message: 'Banned for now' },
          { status: 404, count: 3, within: '30s', for: '30s' },
        ],
      },
    });
    await apiError(c.request({ path: '/x' }));
    const e = await apiError(c.request({ path: '/x' }));
    expect(e).toMatchObject({ status: 503, code: 'upstream_busy', message: 'Banned for now' });
    expect(Number(e.headers['Retry-After'])).toBeGreaterThan(3590);
    expect(up.hits()).toBe(1);

    const up2 = await switchable({ status: 404, json: {} });
    const c2 = client(up2.f.url, { policy: { pauseOn: [{ status: 404, count: 3, within: '30s', for: '30s' }] } });
    for (let i = 0; i < 3; i++) expect(await apiError(c2.request({ path: '/x' }))).toMatchObject({ code: 'not_found' });
    expect(await apiError(c2.request({ path: '/x' }))).toMatchObject({ code: 'upstream_busy' });
    expect(up2.hits()).toBe(3);
  });

  test('a 429 storm without keys: the whole upstream waits out Retry-After, then is asked again', async () => {
    const up = await switchable({ status: 429, headers: { 'retry-after': '1' }, json: {} });
    const c = client(up.f.url, {});
    for (let i = 0; i < 20; i++) expect(await apiError(c.request({ path: '/x' }))).toMatchObject({ code: 'upstream_busy' });
    expect(up.hits()).toBe(1);
    up.answer = { json: { back: true } };
    await new Promise((r) => setTimeout(r, 1050));
    expect((await c.request({ path: '/x' })).body).toEqual({ back: true });
  });
});
