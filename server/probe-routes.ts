// The probes' door into the engine: each endpoint's route as the API wires it (server/api-routes.ts) but
// with no key, meter or cache (parse → validate → invoke → envelope), served to requests injected in process
// with light-my-request. A probe therefore runs the same adapter, upstream client, deadline and error
// mapping a caller meets, and is never metered, counted in usage or metrics, or answered from the cache.
import type inject from 'light-my-request';
import type { EndpointSpec } from '../engine/catalog/load.js';
import type { Adapter } from '../engine/types.js';
import type { Check } from '../engine/catalog/validate.js';
import type { ContextDeps } from '../engine/pipeline/context.js';
import { chain, type Fail } from '../engine/pipeline/chain.js';
import { apiServer, type Route } from '../engine/pipeline/api.js';
import { parse, type ParseLimits } from '../engine/pipeline/steps/parse.js';
import { validate } from '../engine/pipeline/steps/validate.js';
import { endpointRoutes } from './api-routes.js';
import { envelope } from '../engine/pipeline/steps/envelope.js';
import type { ProbeRun } from '../features/health/probes.js';

export interface ProbeRoutesDeps {
  endpoints: EndpointSpec[];
  adapters: Map<string, Adapter>;
  checks: Map<string, Check>;
  serviceName: string;
  limits: ParseLimits;
  context: ContextDeps;
  fail: Fail;
}

/** The probes' door, built at the first probe (boot need not pay for a second set of routes, nor for
 * light-my-request, when nothing probes). */
function probeDoor(deps: ProbeRoutesDeps) {
  const answer = envelope(deps.serviceName);
  const routes = endpointRoutes(
    deps,
    (spec, invoke) => [parse(spec, deps.limits), validate(spec, deps.checks.get(spec.id)!), invoke, answer],
    deps.fail,
  );
  const unmatched: Route = { endpoint: 'unmatched', method: '', run: chain([], deps.fail) };
  const door = apiServer(routes, unmatched, { observe: () => {}, trust: () => false });
  const dispatch: Parameters<typeof inject>[0] = (req, res) => {
    if (door(req, res)) return;
    res.statusCode = 404;
    res.end();
  };
  return dispatch;
}

export function probeRunner(deps: ProbeRoutesDeps): ProbeRun {
  let dispatch: ReturnType<typeof probeDoor> | undefined;

  return async (spec, params) => {
    dispatch ??= probeDoor(deps);
    const { default: inject } = await import('light-my-request');
    const started = performance.now();
    const url = `/api/v1/${spec.id}`;
    const query = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)]));
    const got = await inject(dispatch, {
      method: spec.method,
      url,
      headers: { accept: 'application/json', 'user-agent': 'uua-probe', 'x-request-id': `probe-${Date.now().toString(36)}` },
      ...(spec.method === 'GET' ? { query } : { payload: params }),
    });
    const ms = performance.now() - started;
    let body: { source?: unknown; code?: unknown } = {};
    try {
      body = got.json();
    } catch {
      // Media or an empty answer: the status says enough.
    }
    return {
      status: got.statusCode,
      ms,
      ...(typeof body.code === 'string' ? { code: body.code } : {}),
      ...(typeof body.source === 'string' ? { source: body.source } : {}),
    };
  };
}
