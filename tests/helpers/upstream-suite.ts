// The scaffold every upstream-adapter test file shares: loopback fakes of the endpoint's upstreams, by
// upstream id (each with a switch to make it fail), an app pointed at them, GET/POST helpers, fixtures,
// and per-test resets (upstream-world.ts holds the machinery). Call it at the top level of a test file,
// or of a describe; it registers its own hooks. The shared tests every upstream adapter owes are
// registered by failureTests(), cacheTests() and badInputTests(). A test that needs fakes of its own
// (other routes, or fresh addresses) runs them with withUpstreams().
import { expectCacheHit, expectCoalesced } from './cache-checks.js';
import { UPSTREAM_FAILURES, expectFailure } from './upstream-failures.js';
import { upstreamWorld, type AppOptions, type Caller, type Query, type World, type WorldOptions } from './upstream-world.js';

export {
  readFixture,
  withUpstreams,
  type AppOptions,
  type Caller,
  type FakeSpec,
  type World,
  type WorldOptions,
} from './upstream-world.js';

export interface UpstreamSuiteOptions extends WorldOptions {
  /**
   * New fakes and a new app for every test, instead of one set for the whole file: for adapters that keep
   * state per upstream address (a guard, a memoised list). The fakes keep listening until the end of the
   * file, so that no later fake is given the port, and so the address, of an earlier one.
   */
  perTest?: boolean;
}

export interface UpstreamSuite extends World {
  /** A new app on the same fakes: an empty response cache. */
  freshApp: () => Promise<void>;
  /** A second app on the same fakes for the whole suite (say, with one upstream left out). Call at the top level. */
  app: (opts: AppOptions) => Caller;
  /** Registers the shared failure replay (UPSTREAM_FAILURES, from every fake) for a query that otherwise succeeds. */
  failureTests(query: Query): void;
  /**
   * Registers the shared cache checks on fresh apps: a repeated `hit` query, overlapping `coalesced` ones.
   * The upstream calls counted are every fake's, or those `upstreamCalls` counts (the one fake a query
   * costs a call of, where another fake answers a redirect or a look-up first).
   */
  cacheTests(queries: { hit: Query; coalesced: Query; upstreamCalls?: () => number }): void;
  /** Registers one test per [query, error message]: a 400 with that message, and no fake asked. */
  badInputTests(cases: Array<[Query, string]>): void;
}

export function upstreamSuite(opts: UpstreamSuiteOptions): UpstreamSuite {
  const control = upstreamWorld(opts);
  const path = () => {
    if (!opts.endpoint) throw new Error('the shared tests need the suite’s endpoint');
    return `/api/v1/${opts.endpoint}`;
  };
  const suite: UpstreamSuite = Object.assign(control.world, {
    freshApp: () => control.freshApp(),
    app: (appOpts: AppOptions) => control.app(appOpts),
    failureTests(query: Query) {
      test.each(UPSTREAM_FAILURES)('$name → $status', async (f) => {
        suite.failWith = f.answer;
        expectFailure(await suite.get(query), f);
      });
    },
    cacheTests({
      hit,
      coalesced,
      upstreamCalls = () => suite.calls().length,
    }: {
      hit: Query;
      coalesced: Query;
      upstreamCalls?: () => number;
    }) {
      describe('cache', () => {
        beforeEach(() => suite.freshApp());
        test('an identical second call is served from the cache', async () => {
          await expectCacheHit({ t: suite.t, path: path(), query: hit, upstreamCalls });
        });

        test('concurrent identical calls share one upstream call', async () => {
          await expectCoalesced({ t: suite.t, path: path(), query: coalesced, upstreamCalls });
        });
      });
    },
    badInputTests(cases: Array<[Query, string]>) {
      test.each(cases)('%j → 400', async (query, message) => {
        const res = await suite.get(query);
        expect(res.status).toBe(400);
        expect(res.body.error).toBe(message);
        expect(suite.calls()).toHaveLength(0);
      });
    },
  });

  if (opts.perTest) {
    beforeEach(async () => {
      await control.start();
      control.reset();
    });
    afterEach(() => control.closeApps());
    afterAll(() => control.closeFakes());
  } else {
    beforeAll(() => control.start());
    beforeEach(() => control.reset());
    afterAll(async () => {
      await control.closeApps();
      await control.closeFakes();
    });
  }
  return suite;
}
