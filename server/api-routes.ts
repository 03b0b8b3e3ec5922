// The API's routes, one per catalog endpoint, each the request lifecycle as one chain of named steps
// (engine/pipeline/steps/) run on a Call (engine/pipeline/call.ts, which also sets X-Request-Id): identify →
// meter (429; headers on every answer) → authorize (401) → parse (the body read before identify only when the
// key can be nowhere else) → short links followed → validate (400) → cache → invoke (the adapter, and what a
// feature adds before the answer is cached: media facts) → a feature's step on the answer (media links) →
// envelope, and the error answer for whatever a step raised. Plus the routes the features answer (the
// caller's own usage, features/usage/), and the route that answers unknown paths and wrong methods under /api/.
// The engine knows no endpoint by name: routes, validators and adapters all come from the catalog.
import type { EndpointSpec } from '../engine/catalog/load.js';
import { ApiError } from '../engine/errors.js';
import type { Adapter } from '../engine/types.js';
import type { Check } from '../engine/catalog/validate.js';
import type { Call } from '../engine/pipeline/call.js';
import { chain, type Fail, type Next, type Step } from '../engine/pipeline/chain.js';
import type { Route } from '../engine/pipeline/api.js';
import type { ContextDeps } from '../engine/pipeline/context.js';
import type { ResponseCache } from '../engine/upstream/response-cache.js';
import { bodyBeforeKey, parse, type ParseLimits } from '../engine/pipeline/steps/parse.js';
import { authorize } from '../engine/pipeline/steps/authorize.js';
import { validate } from '../engine/pipeline/steps/validate.js';
import { invoker, type Invoke, type Provider } from '../engine/pipeline/steps/invoke.js';
import { cached } from '../engine/pipeline/steps/cache.js';
import { envelope } from '../engine/pipeline/steps/envelope.js';
import { shortLinks } from '../engine/pipeline/steps/short-links.js';
import type { ResolveHost } from '../engine/upstream/guarded-fetch.js';

export interface ApiRoutesDeps {
  endpoints: EndpointSpec[];
  adapters: Map<string, Adapter>;
  /** Each endpoint's request check (engine/catalog/compiled.ts). */
  checks: Map<string, Check>;
  serviceName: string;
  limits: ParseLimits;
  context: ContextDeps;
  cache: ResponseCache;
  /** Told whether each cache look-up hit (the metrics). */
  cacheLookedUp: (hit: boolean) => void;
  /** The identify step and the meter. */
  identify: Step;
  meter: Step;
  /** The response cache's TTL of an endpoint, when the configuration sets it rather than its `cache:`. */
  cacheTtlMs: (spec: EndpointSpec) => number | undefined;
  /** The invoke of an endpoint with what a feature adds to its answers before they are cached (media facts). */
  aroundInvoke: (spec: EndpointSpec, invoke: Invoke) => Invoke;
  /** A feature's step between the cache and the envelope, for the endpoints it has one for (features/media/). */
  afterCache: (spec: EndpointSpec) => Step | undefined;
  /** Routes a feature answers beside the catalog's endpoints, by path (features/usage/account-usage.ts). */
  featureRoutes: [string, Route][];
  /** DNS resolution of short links' hosts (tests); the system's by default. */
  resolve?: ResolveHost;
  /** The terminal error answer of every chain. */
  fail: Fail;
}

export function apiRoutes(deps: ApiRoutesDeps): { routes: Map<string, Route>; unmatched: Route } {
  const { identify, meter, fail } = deps;
  const answer = envelope(deps.serviceName);
  const routes = endpointRoutes(
    deps,
    (spec, invoke) => {
      const read = parse(spec, deps.limits);
      const after = deps.afterCache(spec);
      const short = shortLinks(spec, {
        userAgent: deps.context.userAgent,
        allowPrivate: deps.context.allowPrivateFetch,
        resolve: deps.resolve,
      });
      return [
        // A GET endpoint is never run for a POST: only a POST's body may hold its key.
        ...(spec.method === 'POST' ? [bodyBeforeKey(read)] : []),
        identify,
        meter,
        authorize,
        read,
        ...(short ? [short] : []),
        validate(spec, deps.checks.get(spec.id)!),
        cached(spec, deps.cache, deps.aroundInvoke(spec, invoke), deps.cacheLookedUp, deps.cacheTtlMs(spec)),
        ...(after ? [after] : []),
        answer,
      ];
    },
    fail,
  );

  for (const [path, route] of deps.featureRoutes) routes.set(path, route);

  // Unknown paths and wrong methods: still identified and metered, so they carry the headers too.
  const unmatched: Route = {
    endpoint: 'unmatched',
    method: '',
    run: chain(
      [
        identify,
        meter,
        (call: Call, next: Next) => {
          const route = routes.get(call.path.replace(/\/+$/, ''));
          if (route)
            return next(
              new ApiError('method_not_allowed', `Method ${call.method} is not allowed on ${call.path}; use ${route.method}`, {
                Allow: route.method,
              }),
            );
          next(new ApiError('not_found', `No such endpoint: ${call.method} ${call.path}`));
        },
      ],
      fail,
    ),
  };
  return { routes, unmatched };
}

/** The endpoint's providers in order: its adapter, then its `fallback:` ones (an adapter not written yet: none). */
export function endpointProviders(spec: EndpointSpec, adapters: Map<string, Adapter>): Provider[] {
  const out: Provider[] = [];
  for (const p of [{ adapter: spec.adapter, upstream: spec.upstream }, ...(spec.fallback ?? [])]) {
    const adapter = adapters.get(p.adapter);
    if (adapter) out.push({ adapter, upstream: p.upstream });
  }
  return out;
}

/**
 * One route per catalog endpoint at /api/v1/<id>, its chain the `steps` made for it around its providers'
 * invoke (the API's door here, the probes' in server/probe-routes.ts).
 */
export function endpointRoutes(
  deps: { endpoints: EndpointSpec[]; adapters: Map<string, Adapter>; context: ContextDeps },
  steps: (spec: EndpointSpec, invoke: Invoke) => Step[],
  fail: Fail,
): Map<string, Route> {
  const routes = new Map<string, Route>();
  for (const spec of deps.endpoints) {
    const invoke = invoker(spec, endpointProviders(spec, deps.adapters), deps.context);
    routes.set(`/api/v1/${spec.id}`, { endpoint: spec.id, method: spec.method, run: chain(steps(spec, invoke), fail) });
  }
  return routes;
}
