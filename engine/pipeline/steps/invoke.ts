// The invoke step: runs the endpoint's adapter with its context, under the endpoint's deadline, and turns
// what it returned into an Outcome. An endpoint without an adapter answers 501.
import type { EndpointSpec } from '../../catalog/load.js';
import type { Call, Outcome } from '../call.js';
import { RequestContext, type ContextDeps } from '../context.js';
import { ApiError, upstreamTimeout } from '../../errors.js';
import { parseDuration } from '../../duration.js';
import { isReply, type Adapter, type AdapterData, type Reply } from '../../types.js';

export type Invoke = (call: Call) => Promise<Outcome>;

export function invoker(spec: EndpointSpec, adapter: Adapter | undefined, deps: ContextDeps): Invoke {
  const timeoutMs = parseDuration(spec.timeout ?? '30s');
  const source = spec.upstream;
  return (call) => {
    if (!adapter) return Promise.reject(new ApiError('not_implemented', `Not implemented yet: ${spec.id}`));
    const ctx = new RequestContext(spec, call, call.input!.files, deps);
    // One promise, settled by the adapter or by the deadline, whichever comes first: no async layer and no
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
      let work: Promise<AdapterData | Reply>;
      try {
        work = adapter(call.params!, ctx);
      } catch (err) {
        work = Promise.reject(err);
      }
      work.then(
        (out) => {
          settled();
          resolve(outcomeOf(out, source));
        },
        (err: unknown) => {
          settled();
          reject(err);
        },
      );
    });
  };
}

function outcomeOf(out: AdapterData | Reply, source: string): Outcome {
  if (isReply(out))
    return { data: out.data, source: out.source ?? source, media: out.media, cacheable: out.cacheable !== false, cached: false };
  return { data: out, source, cacheable: true, cached: false };
}
