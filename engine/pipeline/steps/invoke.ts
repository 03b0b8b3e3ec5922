// The invoke step: runs the endpoint's providers (its adapter, then the catalog's `fallback:` ones in order)
// with one context, under the endpoint's deadline, and turns the first answer into an Outcome whose
// `source` names who answered. An endpoint without an adapter answers 501.
import type { EndpointSpec } from '../../catalog/load.js';
import type { Call, Outcome } from '../call.js';
import { RequestContext, type ContextDeps } from '../context.js';
import { ApiError, upstreamTimeout } from '../../errors.js';
import { parseDuration } from '../../duration.js';
import { isReply, type Adapter, type AdapterData, type Reply } from '../../types.js';

export type Invoke = (call: Call) => Promise<Outcome>;

/** One way of answering an endpoint: an adapter and the upstream it asks. */
export interface Provider {
  adapter: Adapter;
  upstream: string;
}

export function invoker(spec: EndpointSpec, providers: Provider[], deps: ContextDeps): Invoke {
  const timeoutMs = parseDuration(spec.timeout ?? '30s');
  return (call) => {
    if (providers.length === 0) return Promise.reject(new ApiError('not_implemented', `Not implemented yet: ${spec.id}`));
    const ctx = new RequestContext(spec, call, call.input!.files, deps);
    ctx.deadline = performance.now() + timeoutMs;
    // One promise, settled by the providers or by the deadline, whichever comes first: no async layer and no
    // Promise.race on a path every call takes (docs/decisions.md).
    return new Promise<Outcome>((resolve, reject) => {
      const timer = setTimeout(() => {
        ctx.abort(new Error('deadline'));
        ctx.release();
        reject(upstreamTimeout('The endpoint did not answer in time'));
      }, timeoutMs);
      const settled = () => {
        clearTimeout(timer);
        ctx.release();
      };
      // One provider (most endpoints): its answer mapped here, with no promise between.
      const only = providers.length === 1 ? providers[0] : undefined;
      const work = only ? adapterOf(only, call, ctx) : inTurn(providers, call, ctx);
      work.then(
        (out) => {
          settled();
          resolve(only ? outcomeOf(out as AdapterData | Reply, only.upstream) : (out as Outcome));
        },
        (err: unknown) => {
          settled();
          reject(err);
        },
      );
    });
  };
}

function adapterOf(provider: Provider, call: Call, ctx: RequestContext): Promise<AdapterData | Reply> {
  try {
    return provider.adapter(call.params!, ctx);
  } catch (err) {
    return Promise.reject(err);
  }
}

/**
 * The providers in order until one answers. When all fail, the caller hears the most telling failure: a
 * caller's error (4xx: a bad link, a missing post) before an outage, the earlier provider's first; of
 * outages, the last provider's that was configured; when none was, what the first one lacks.
 */
async function inTurn(providers: Provider[], call: Call, ctx: RequestContext): Promise<Outcome> {
  let callers: ApiError | undefined;
  let outage: ApiError | undefined;
  let unconfigured: ApiError | undefined;
  for (const provider of providers) {
    try {
      return outcomeOf(await adapterOf(provider, call, ctx), provider.upstream);
    } catch (err) {
      // A bug, the caller gone or the endpoint's time up: no point in asking another.
      if (ctx.cancelled || !(err instanceof ApiError)) throw err;
      if (err.status < 500) callers ??= err;
      else if (err.code !== 'not_configured') outage = err;
      else unconfigured ??= err;
      ctx.log.warn({ upstream: provider.upstream, code: err.code }, 'provider failed; asking the next');
    }
  }
  throw (callers ?? outage ?? unconfigured)!;
}

function outcomeOf(out: AdapterData | Reply, source: string): Outcome {
  if (isReply(out))
    return { data: out.data, source: out.source ?? source, media: out.media, cacheable: out.cacheable !== false, cached: false };
  return { data: out, source, cacheable: true, cached: false };
}
