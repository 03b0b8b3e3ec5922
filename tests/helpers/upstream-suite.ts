// The scaffold every upstream-adapter test file shares: a loopback fake of the upstream (with a switch to
// make it fail), an app pointed at it, a GET helper for the endpoint, fixtures, and per-test resets.
// Call it at the top level of a test file; it registers its own beforeAll/afterAll/beforeEach. The shared
// tests every upstream adapter owes are registered by failureTests(), cacheTests() and badInputTests().
import fs from 'node:fs';
import request from 'supertest';
import { fakeUpstream, routes, type FakeRequest, type FakeResponse, type FakeUpstream } from './fake-upstream.js';
import { testApp, type TestApp } from './app.js';
import { expectCacheHit, expectCoalesced } from './cache-checks.js';
import { UPSTREAM_FAILURES, expectFailure } from './upstream-failures.js';

export interface UpstreamSuiteOptions {
  /** The endpoint, `category/name`. */
  endpoint: string;
  /** The upstream id of catalog/upstreams.yaml (fixtures live in tests/fixtures/<id>/). */
  upstream: string;
  /** The fake's routes, as for `routes()` of fake-upstream.ts. */
  routes: Parameters<typeof routes>[0];
  /** What the fake answers to a request no route matches (default: fake-upstream's JSON 404). */
  fallback?: Parameters<typeof routes>[1];
  /** More environment for the app (keys, other upstreams). */
  env?: Record<string, string>;
}

export interface UpstreamSuite {
  /** The app of the current test (replaced by `freshApp`). */
  readonly t: TestApp;
  readonly fake: FakeUpstream;
  /** When set, the fake answers this to every request (reset before each test). */
  failWith: FakeResponse | undefined;
  /** GET the endpoint with the test key and these params. */
  get(query?: Query): request.Test;
  /** A JSON fixture of tests/fixtures/<upstream>/. */
  fixture(name: string): any;
  /** A new app on the same fake: an empty response cache. */
  freshApp(): Promise<void>;
  /** Registers the shared failure replay (UPSTREAM_FAILURES) for a query that otherwise succeeds. */
  failureTests(query: Query): void;
  /** Registers the shared cache checks on fresh apps: a repeated `hit` query, overlapping `coalesced` ones. */
  cacheTests(queries: { hit: Query; coalesced: Query }): void;
  /** Registers one test per [query, error message]: a 400 with that message, and the upstream never asked. */
  badInputTests(cases: Array<[Query, string]>): void;
}

type Query = Record<string, string | number | boolean>;

const envName = (id: string) => `UPSTREAM_${id.toUpperCase().replace(/-/g, '_')}_URL`;

export function upstreamSuite(opts: UpstreamSuiteOptions): UpstreamSuite {
  const path = `/api/v1/${opts.endpoint}`;
  const fixturesDir = new URL(`../fixtures/${opts.upstream}/`, import.meta.url);
  let t: TestApp;
  let fake: FakeUpstream;
  const makeApp = () => testApp({ [envName(opts.upstream)]: fake.url, ...opts.env });
  const router = routes(opts.routes, opts.fallback);
  const suite: UpstreamSuite = {
    get t() {
      return t;
    },
    get fake() {
      return fake;
    },
    failWith: undefined,
    get: (query = {}) =>
      request(t.app)
        .get(path)
        .query({ apikey: t.key, ...query }),
    fixture: (name) => JSON.parse(fs.readFileSync(new URL(name, fixturesDir), 'utf8')),
    async freshApp() {
      await t.close();
      t = await makeApp();
    },
    failureTests(query) {
      test.each(UPSTREAM_FAILURES)('$name → $status', async (f) => {
        suite.failWith = f.answer;
        expectFailure(await suite.get(query), f);
      });
    },
    cacheTests({ hit, coalesced }) {
      const upstreamCalls = () => fake.calls.length;
      describe('cache', () => {
        beforeEach(() => suite.freshApp());
        test('an identical second call is served from the cache', async () => {
          await expectCacheHit({ t, path, query: hit, upstreamCalls });
        });

        test('concurrent identical calls share one upstream call', async () => {
          await expectCoalesced({ t, path, query: coalesced, upstreamCalls });
        });
      });
    },
    badInputTests(cases) {
      test.each(cases)('%j → 400', async (query, message) => {
        const res = await suite.get(query);
        expect(res.status).toBe(400);
        expect(res.body.error).toBe(message);
        expect(fake.calls).toHaveLength(0);
      });
    },
  };
  beforeAll(async () => {
    fake = await fakeUpstream((req: FakeRequest) => suite.failWith ?? router(req));
    t = await makeApp();
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });
  beforeEach(() => {
    suite.failWith = undefined;
    fake.calls.length = 0;
  });
  return suite;
}
