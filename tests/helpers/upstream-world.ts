// The loopback fakes standing in for an endpoint's upstreams, each by its upstream id, and the apps
// pointed at them (UPSTREAM_<ID>_URL and _KEYS): the scaffold under upstreamSuite (one world per test
// file, or per test) and withUpstreams (a world of its own for one test). A new world is new fakes on new
// ports, so nothing an adapter keeps per upstream address (a skipped upstream, a memoised list, a
// breaker) carries over from another.
import fs from 'node:fs';
import request from 'supertest';
import { envId } from '../../engine/upstream/client.js';
import {
  fakeUpstream,
  routes,
  type FakeHandler,
  type FakeRequest,
  type FakeResponse,
  type FakeUpstream,
  type RouteHandler,
} from './fake-upstream.js';
import { testApp, type TestApp } from './app.js';

/** One fake: how it answers and how the app is told about it. */
export interface FakeSpec {
  /** Its routes, as for `routes()` of fake-upstream.ts. */
  routes?: Record<string, RouteHandler>;
  /** What it answers to a request no route matches (default: fake-upstream's JSON 404). */
  fallback?: FakeHandler;
  /** Appended to its address in UPSTREAM_<ID>_URL, for an upstream whose base URL has a path (`/v1`). */
  basePath?: string;
  /** The pooled keys the app is given for it (UPSTREAM_<ID>_KEYS). */
  keys?: string;
  /** false: no variable names this fake (a server reached by a redirect, a site that must never be fetched). */
  configured?: boolean;
}

export interface WorldOptions {
  /** The endpoint that get() and post() call, `category/name` (each call may name another). */
  endpoint?: string;
  /** The fakes, each under the upstream id of catalog/upstreams.yaml it stands for. */
  upstreams: Record<string, FakeSpec>;
  /** More environment for every app. */
  env?: Record<string, string>;
}

/** What an app beyond the world's own is given. */
export interface AppOptions {
  /** Fakes left out of its environment (their URL and keys), as if the operator had never configured them. */
  without?: string[];
  /** More environment; a variable given as undefined is left out. */
  env?: Record<string, string | undefined>;
}

/** One fake, by name. The handle outlives restarts of its world: hold on to it at the top of a file. */
export interface Fake {
  /** Its address, e.g. http://127.0.0.1:40123 (without the spec's basePath). */
  readonly url: string;
  /** The requests it received since the current test began. */
  readonly calls: FakeRequest[];
  /** When set, it answers this to every request (reset before each test). */
  failWith: FakeResponse | undefined;
  /** Stops it: its address refuses connections from then on (an upstream that is down). */
  close(): Promise<void>;
}

export type Query = Record<string, string | number | boolean>;

/** An app, and the requests a test makes to it with the test key (functions of their own: tests take them out). */
export interface Caller {
  readonly t: TestApp;
  /** GET the endpoint with these params. */
  get: (query?: Query, endpoint?: string) => request.Test;
  /** POST these params to the endpoint as a JSON body. */
  post: (body?: Record<string, unknown>, endpoint?: string) => request.Test;
}

export interface World extends Caller {
  /** Every fake, by name. */
  readonly fakes: Record<string, Fake>;
  /** The fake, when there is only one. */
  readonly fake: Fake;
  /** When set, every fake answers this to every request (reset before each test). */
  failWith: FakeResponse | undefined;
  /** Every request the fakes received since the current test began, fake after fake. */
  calls: () => FakeRequest[];
  /** A JSON fixture of tests/fixtures/<the one fake's id>/, or of tests/fixtures/<folder>/. */
  fixture: { (name: string): any; (folder: string, name: string): any };
  /** Runs `fn` against one more app on the same fakes, closes it, and answers what `fn` answered. */
  withApp: <T>(opts: AppOptions, fn: (app: Caller) => Promise<T>) => Promise<T>;
}

/** A world and the switches its owner (upstreamSuite, withUpstreams) drives it with. */
export interface WorldControl {
  world: World;
  /** Starts new fakes (new ports), then the world's own app and every app asked for with `app()`. */
  start(): Promise<void>;
  /** Clears every failWith and every fake's calls. */
  reset(): void;
  /** An app for as long as the world's own, rebuilt at each start; ask for it before the world starts. */
  app(opts: AppOptions): Caller;
  /** Replaces the world's own app with a new one: an empty response cache. */
  freshApp(): Promise<void>;
  closeApps(): Promise<void>;
  /** Closes every fake started so far (the fakes of earlier starts too). */
  closeFakes(): Promise<void>;
}

/** Requests to an app that may be replaced (hence the getter), on `endpoint` unless a call names another. */
function caller(app: () => TestApp, endpoint: string | undefined): Caller {
  const path = (e = endpoint) => {
    if (!e) throw new Error('no endpoint: give one to the suite, or to the call');
    return `/api/v1/${e}`;
  };
  return {
    get t() {
      return app();
    },
    get: (query = {}, e) =>
      request(app().app)
        .get(path(e))
        .query({ apikey: app().key, ...query }),
    post: (body = {}, e) =>
      request(app().app)
        .post(path(e))
        .send({ apikey: app().key, ...body }),
  };
}

/** A JSON fixture of tests/fixtures/<folder>/, for code outside a world (a world's `fixture` reads the same). */
export const readFixture = (folder: string, name: string): any =>
  JSON.parse(fs.readFileSync(new URL(`../fixtures/${folder}/${name}`, import.meta.url), 'utf8'));

export function upstreamWorld(opts: WorldOptions): WorldControl {
  const names = Object.keys(opts.upstreams);
  const servers = new Map<string, FakeUpstream>();
  const started: FakeUpstream[] = [];
  const server = (name: string) => {
    const s = servers.get(name);
    if (!s) throw new Error(`fake ${name} is not running (its world starts in beforeAll/beforeEach)`);
    return s;
  };
  const only = () => {
    if (names.length !== 1) throw new Error(`${names.length} fakes (${names.join(', ')}): name one`);
    return names[0];
  };

  let t: TestApp | undefined;
  const extras: Array<{ opts: AppOptions; t?: TestApp }> = [];
  const current = (app: TestApp | undefined) => {
    if (!app) throw new Error('the app is not running (its world starts in beforeAll/beforeEach)');
    return app;
  };

  const fakes: Record<string, Fake> = {};
  for (const name of names) {
    fakes[name] = {
      get url() {
        return server(name).url;
      },
      get calls() {
        return server(name).calls;
      },
      failWith: undefined,
      close: () => server(name).close(),
    };
  }

  const envFor = (app: AppOptions = {}): Record<string, string> => {
    for (const name of app.without ?? []) if (!(name in fakes)) throw new Error(`without: no fake named ${name}`);
    const env: Record<string, string | undefined> = { ...opts.env };
    for (const name of names) {
      const spec = opts.upstreams[name];
      if (spec.configured === false || app.without?.includes(name)) continue;
      env[`UPSTREAM_${envId(name)}_URL`] = fakes[name].url + (spec.basePath ?? '');
      if (spec.keys !== undefined) env[`UPSTREAM_${envId(name)}_KEYS`] = spec.keys;
    }
    Object.assign(env, app.env);
    return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
  };

  const own = caller(() => current(t), opts.endpoint);
  const world: World = {
    get t() {
      return own.t;
    },
    get: own.get,
    post: own.post,
    fakes,
    get fake() {
      return fakes[only()];
    },
    failWith: undefined,
    calls: () => names.flatMap((name) => server(name).calls),
    fixture: (a: string, b?: string) => (b === undefined ? readFixture(only(), a) : readFixture(a, b)),
    async withApp(app, fn) {
      const other = await testApp(envFor(app));
      try {
        return await fn(caller(() => other, opts.endpoint));
      } finally {
        await other.close();
      }
    },
  };

  return {
    world,
    async start() {
      for (const name of names) {
        const spec = opts.upstreams[name];
        const router = routes(spec.routes ?? {}, spec.fallback);
        const fake = await fakeUpstream((req) => fakes[name].failWith ?? world.failWith ?? router(req));
        servers.set(name, fake);
        started.push(fake);
      }
      t = await testApp(envFor());
      for (const extra of extras) extra.t = await testApp(envFor(extra.opts));
    },
    reset() {
      world.failWith = undefined;
      for (const name of names) {
        fakes[name].failWith = undefined;
        server(name).calls.length = 0;
      }
    },
    app(appOpts) {
      const extra: { opts: AppOptions; t?: TestApp } = { opts: appOpts };
      extras.push(extra);
      return caller(() => current(extra.t), opts.endpoint);
    },
    async freshApp() {
      await current(t).close();
      t = await testApp(envFor());
    },
    async closeApps() {
      for (const app of [t, ...extras.map((x) => x.t)]) await app?.close();
      t = undefined;
      for (const extra of extras) extra.t = undefined;
    },
    async closeFakes() {
      await Promise.all(started.splice(0).map((fake) => fake.close()));
    },
  };
}

/** Runs `fn` against a world of its own (new fakes, new ports, an app on them), closes it all, and answers what `fn` answered. */
export async function withUpstreams<T>(opts: WorldOptions, fn: (world: World) => Promise<T>): Promise<T> {
  const control = upstreamWorld(opts);
  try {
    await control.start();
    return await fn(control.world);
  } finally {
    await control.closeApps();
    await control.closeFakes();
  }
}
