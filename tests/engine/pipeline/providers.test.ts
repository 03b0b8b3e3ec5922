// An endpoint's providers in the catalog's order (engine/pipeline/steps/invoke.ts): the next one is asked
// when one fails, times out, is not configured or has its breaker open, all within the endpoint's
// deadline; the answer's `source` names who answered. Real upstream clients, with their policies, against
// fake upstreams on loopback.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Call } from '../../../engine/pipeline/call.js';
import type { EndpointSpec } from '../../../engine/catalog/load.js';
import { ApiError } from '../../../engine/errors.js';
import { createLogger } from '../../../engine/infra/logger.js';
import { invoker, type Provider } from '../../../engine/pipeline/steps/invoke.js';
import { createMemo } from '../../../engine/upstream/memo.js';
import { createUpstreams, type UpstreamConfig } from '../../../engine/upstream/client.js';
import type { Adapter } from '../../../engine/types.js';
import { fakeUpstream, type FakeResponse, type FakeUpstream } from '../../helpers/fake-upstream.js';

const log = createLogger('silent');
const fakes: FakeUpstream[] = [];
const servers: http.Server[] = [];
afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()));
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((ok) => s.close(ok))));
});

async function upstream(answer: () => FakeResponse) {
  const f = await fakeUpstream(() => answer());
  fakes.push(f);
  return f;
}

/** An adapter that asks upstream `id` and returns its body. */
const asks =
  (id: string): Adapter =>
  async (_p, ctx) =>
    (await ctx.upstream(id).request({ path: '/x' })).body as never;

/** A server whose one endpoint runs `providers` under `timeout`; `call()` answers its outcome or error. */
async function endpoint(configs: Record<string, Partial<UpstreamConfig>>, order: string[], timeout = '5s') {
  const full: Record<string, UpstreamConfig> = {};
  for (const [id, c] of Object.entries(configs)) full[id] = { name: id, docs: 'x', retries: 0, ...c };
  const upstreams = createUpstreams(full, {}, { userAgent: 'test', log });
  const spec = { id: 'test/providers', method: 'GET', params: {}, upstream: order[0], timeout } as unknown as EndpointSpec;
  const providers: Provider[] = order.map((id) => ({ adapter: asks(id), upstream: id }));
  const invoke = invoker(spec, providers, {
    log,
    publicUrl: 'http://x',
    userAgent: 't',
    allowPrivateFetch: true,
    upstream: upstreams,
    blobs: undefined as never,
    memo: createMemo(),
    keepAttempts: true,
  });
  const server = http.createServer((req, res) => {
    const call = new Call('test/providers', '/x', null, req, res, { observe: () => {}, trust: () => false });
    call.input = { raw: {}, files: {} };
    call.params = {};
    invoke(call, (err) => {
      const o = call.outcome!;
      const e = err as ApiError | undefined;
      // What the request log is handed of the providers asked.
      const asked = { answeredBy: call.answeredBy, answeredIn: call.answeredIn, attempts: call.attempts };
      res.end(
        JSON.stringify(
          e ? { code: e.code, message: e.message, retryAfter: e.headers['Retry-After'], asked } : { source: o.source, data: o.data, asked },
        ),
      );
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
  servers.push(server);
  return async () => {
    const t = performance.now();
    const body = (await fetch(url).then((r) => r.json())) as Record<string, unknown>;
    return { ...body, ms: performance.now() - t } as Record<string, unknown> & { ms: number };
  };
}

test('the first provider answers: the second is never asked; source names the first', async () => {
  const a = await upstream(() => ({ json: { from: 'a' } }));
  const b = await upstream(() => ({ json: { from: 'b' } }));
  const call = await endpoint({ a: { url: a.url }, b: { url: b.url } }, ['a', 'b']);
  const r = await call();
  expect(r).toMatchObject({ source: 'a', data: { from: 'a' } });
  expect(b.calls).toHaveLength(0);
  // The one provider asked answered: its name and time, no list.
  expect(r.asked).toEqual({ answeredBy: 'a', answeredIn: expect.any(Number) });
  expect((r.asked as { answeredIn: number }).answeredIn).toBeGreaterThan(0);
});

test('failing, then broken: the next provider answers at once once the first one’s breaker is open', async () => {
  const a = await upstream(() => ({ status: 500, text: 'down', delayMs: 2000 }));
  const b = await upstream(() => ({ json: { from: 'b' } }));
  const call = await endpoint({ a: { url: a.url, policy: { breaker: { failures: 2 } } }, b: { url: b.url } }, ['a', 'b']);
  for (let i = 0; i < 2; i++) {
    const r = await call();
    expect(r).toMatchObject({ source: 'b', data: { from: 'b' } });
    expect(r.ms).toBeGreaterThanOrEqual(1990);
  }
  // a's breaker is open: b answers without a's 2 s, and a is not asked (the proof; the time only shows it).
  for (let i = 0; i < 5; i++) {
    const r = await call();
    expect(r).toMatchObject({ source: 'b' });
    // Well below a's 2 s, with room for a loaded machine (one answer took 431 ms under a full suite).
    expect(r.ms).toBeLessThan(1500);
  }
  expect(a.calls).toHaveLength(2);
  expect(b.calls).toHaveLength(7);
});

test('a provider that is not configured is skipped; a slow one times out and hands over', async () => {
  const slow = await upstream(() => ({ json: { from: 'slow' }, delayMs: 5000 }));
  const c = await upstream(() => ({ json: { from: 'c' } }));
  const call = await endpoint({ none: {}, slow: { url: slow.url, timeout: '150ms' }, c: { url: c.url } }, ['none', 'slow', 'c']);
  const r = await call();
  expect(r).toMatchObject({ source: 'c', data: { from: 'c' } });
  expect(r.ms).toBeLessThan(3000); // its 150 ms timeout, not its 5 s
  // Each provider asked, in order, with its answer and time (the slow one's about its 150 ms).
  expect(r.asked).toEqual({
    answeredIn: 0,
    attempts: [
      { upstream: 'none', status: 503, code: 'not_configured', ms: expect.any(Number) },
      { upstream: 'slow', status: 504, code: 'upstream_timeout', ms: expect.any(Number) },
      { upstream: 'c', status: 200, ms: expect.any(Number) },
    ],
  });
  expect((r.asked as { attempts: { ms: number }[] }).attempts[1].ms).toBeGreaterThanOrEqual(140);
});

test('all failing: the caller hears a 4xx before an outage, and the outage of the last one configured', async () => {
  const missing = await upstream(() => ({ status: 404, json: {} }));
  const down = await upstream(() => ({ status: 503, text: 'down' }));
  expect(await (await endpoint({ m: { url: missing.url }, d: { url: down.url } }, ['m', 'd']))()).toMatchObject({ code: 'not_found' });
  expect(await (await endpoint({ d: { url: down.url }, m: { url: missing.url } }, ['d', 'm']))()).toMatchObject({ code: 'not_found' });
  const changed = await upstream(() => ({ headers: { 'content-type': 'application/json' }, text: '<html>parked</html>' }));
  expect(await (await endpoint({ d: { url: down.url }, x: { url: changed.url } }, ['d', 'x']))()).toMatchObject({
    code: 'upstream_changed',
  });
  expect(await (await endpoint({ n1: {}, n2: {} }, ['n1', 'n2']))()).toMatchObject({
    code: 'not_configured',
    message: 'Upstream n1 is not configured: set UPSTREAM_N1_URL',
  });
});

test("the endpoint's deadline bounds every provider together", async () => {
  const hang = await upstream(() => ({ json: {}, delayMs: 8000 }));
  const hang2 = await upstream(() => ({ json: {}, delayMs: 8000 }));
  const call = await endpoint({ h1: { url: hang.url, timeout: '20s' }, h2: { url: hang2.url, timeout: '20s' } }, ['h1', 'h2'], '400ms');
  const r = await call();
  expect(r).toMatchObject({ code: 'upstream_timeout' });
  expect(r.ms).toBeLessThan(4000); // the 400 ms deadline, not a provider's 8 s or its 20 s timeout
  // The deadline ended the first provider's exchange: the second was never started.
  expect(hang2.calls).toHaveLength(0);
});
