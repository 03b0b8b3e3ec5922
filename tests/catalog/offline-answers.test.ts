// With no network and no upstream configuration, every endpoint that needs an upstream must still answer
// at once and clearly: 503 (not configured), 502 (unreachable), 504, 501 or a 4xx — never a 500, never a
// hang. The app is booted with NO UPSTREAM_* overrides, so the public base URLs of catalog/upstreams.yaml
// are used, and they cannot be reached. One call per endpoint with valid sample parameters, a few at a
// time; the answers are then checked one test per endpoint. An endpoint with an embedded fallback may
// answer 200 instead, provided its envelope says `source: "embedded"`.
//
// "Offline" is made exact rather than assumed: every host-name lookup in this process fails at once with
// ENOTFOUND, as it does on a machine without network. That keeps the test true on a machine that does
// have network (no real service is ever called) and independent of a resolver that throttles bursts (the
// one here drops queries after a few dozen in a second and makes the next ones wait its 5 s timeout).
import dns from 'node:dns';
import request from 'supertest';
import { loadCatalog } from '../../engine/catalog/load.js';
import { loadConfig } from '../../server/config.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { sampleValue } from '../helpers/samples.js';
import { lookedUp, offlineLookup, realLookup, sampleParams } from '../helpers/offline.js';

const POOL = 4;
const LIMIT_MS = 5000;

const endpoints = loadCatalog(loadConfig({}).catalogDir).endpoints.filter((e) => e.upstream !== 'embedded');

interface Outcome {
  status: number;
  ms: number;
  body: unknown;
}

let t: TestApp;
const outcomes = new Map<string, Outcome>();

beforeAll(async () => {
  (dns as { lookup: unknown }).lookup = offlineLookup;
  // No UPSTREAM_* at all, and caller URLs guarded as in production.
  t = await testApp({ ALLOW_PRIVATE_FETCH: undefined });
  const queue = [...endpoints];
  const worker = async () => {
    for (let spec = queue.shift(); spec; spec = queue.shift()) {
      const path = `/api/v1/${spec.id}`;
      const params: Record<string, string> = { apikey: t.key, ...sampleParams(spec) };
      // Some adapters require what the catalog leaves optional (the spec does not say): fill it and ask
      // again, so that the call reaches the upstream. Only the last call is judged.
      for (let attempt = 0; ; attempt++) {
        const started = performance.now();
        const res = spec.method === 'GET' ? await request(t.app).get(path).query(params) : await request(t.app).post(path).send(params);
        outcomes.set(spec.id, { status: res.status, ms: Math.round(performance.now() - started), body: res.body });
        const missing = res.status === 400 ? /^Missing required parameter: (\w+)$/.exec(String(res.body?.error))?.[1] : undefined;
        if (!missing || !spec.params[missing] || params[missing] !== undefined || attempt >= 3) break;
        params[missing] = sampleValue(spec.params[missing]);
      }
    }
  };
  await Promise.all(Array.from({ length: POOL }, worker));
}, 120_000);

afterAll(async () => {
  (dns as { lookup: unknown }).lookup = realLookup;
  await t?.close();
});

test('there are upstream endpoints to check, and the app met the missing network', () => {
  expect(endpoints.length).toBeGreaterThan(0);
  expect(lookedUp.has('api.github.com')).toBe(true);
  expect(lookedUp.size).toBeGreaterThan(10);
});

describe.each(endpoints.map((e) => [e.id, e] as const))('%s', (id, spec) => {
  test(`answers 4xx/501/502/503/504 in under ${LIMIT_MS / 1000} s without ${spec.upstream}`, () => {
    const o = outcomes.get(id);
    expect(o).toBeDefined();
    const { status, ms, body } = o!;
    expect(ms).toBeLessThan(LIMIT_MS);
    // An endpoint with an embedded fallback may still answer, provided it says the answer is embedded.
    if (status === 200 && (body as { source?: unknown }).source === 'embedded') return;
    const clear = (status >= 400 && status < 500) || [501, 502, 503, 504].includes(status);
    if (!clear) throw new Error(`${id}: answered ${status} in ${ms} ms: ${JSON.stringify(body).slice(0, 300)}`);
    expect(body).toMatchObject({ success: false });
    expect(typeof (body as { error?: unknown }).error).toBe('string');
    // Nothing of the unreachable provider leaks: no resolver error, no stack.
    expect(JSON.stringify(body)).not.toMatch(/ENOTFOUND|EAI_AGAIN|getaddrinfo|\bat .+\.ts:\d+/);
  });
});
