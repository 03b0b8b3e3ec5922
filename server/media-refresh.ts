// The media links' second asking (features/media/route.ts): when an upstream's own link has died before
// ours, the endpoint's providers run again for the post link the token carries, as the API would run them
// (the same adapters, context and deadline) but without key, meter or cache, and the media at the same
// place of the fresh answer is the one to stream.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EndpointSpec } from '../engine/catalog/load.js';
import type { Adapter } from '../engine/types.js';
import type { ContextDeps } from '../engine/pipeline/context.js';
import { Call } from '../engine/pipeline/call.js';
import { invoker, type Invoke } from '../engine/pipeline/steps/invoke.js';
import type { MediaLink } from '../features/media/token.js';
import { endpointProviders } from './api-routes.js';

export interface RefreshDeps {
  endpoints: EndpointSpec[];
  adapters: Map<string, Adapter>;
  context: ContextDeps;
  trust: (addr: string, i: number) => boolean;
}

export function mediaRefresher(deps: RefreshDeps) {
  const invokers = new Map<string, { spec: EndpointSpec; invoke: Invoke }>();
  const of = (id: string) => {
    let found = invokers.get(id);
    const spec = found ? undefined : deps.endpoints.find((e) => e.id === id);
    if (!found && spec) invokers.set(id, (found = { spec, invoke: invoker(spec, endpointProviders(spec, deps.adapters), deps.context) }));
    return found;
  };
  return (link: MediaLink, req: IncomingMessage, res: ServerResponse): Promise<string | undefined> => {
    const endpoint = of(link.e);
    if (!endpoint?.spec.mediaItems) return Promise.resolve(undefined);
    const field = endpoint.spec.mediaItems;
    const call = new Call(endpoint.spec.id, `/api/v1/${endpoint.spec.id}`, null, req, res, {
      observe: () => {},
      trust: deps.trust,
    });
    call.params = link.p;
    call.input = { raw: {}, files: {} };
    return new Promise((resolve, reject) =>
      endpoint.invoke(call, (err) => {
        if (err !== undefined && err !== null) return reject(err instanceof Error ? err : new Error(String(err)));
        const items = call.outcome?.data?.[field];
        const item = Array.isArray(items) ? (items[link.i] as { url?: unknown } | undefined) : undefined;
        resolve(typeof item?.url === 'string' ? item.url : undefined);
      }),
    );
  };
}
