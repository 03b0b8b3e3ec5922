// The invoke step: runs the endpoint's adapter with its context, under the endpoint's deadline, and turns
// what it returned into an Outcome. An endpoint without an adapter answers 501.
import type { EndpointSpec } from '../catalog.js';
import type { Call, Outcome } from '../call.js';
import { RequestContext, type ContextDeps } from '../context.js';
import { ApiError, upstreamTimeout } from '../errors.js';
import { parseDuration } from '../duration.js';
import { isReply, type Adapter, type AdapterData, type Reply } from '../types.js';

export type Invoke = (call: Call) => Promise<Outcome>;

export function invoker(spec: EndpointSpec, adapter: Adapter | undefined, deps: ContextDeps): Invoke {
  const timeoutMs = parseDuration(spec.timeout ?? '30s');
  const source = spec.upstream;
  return async (call) => {
    if (!adapter) throw new ApiError('not_implemented', `Not implemented yet: ${spec.id}`);
    const input = call.input!;
    const ctx = new RequestContext(spec, call, input.files, deps);
    try {
      return outcomeOf(await withDeadline(adapter(call.params!, ctx), timeoutMs, ctx), source);
    } finally {
      ctx.release();
    }
  };
}

function outcomeOf(out: AdapterData | Reply, source: string): Outcome {
  if (isReply(out)) return { data: out.data, source: out.source ?? source, media: out.media, cacheable: out.cacheable !== false, cached: false };
  return { data: out, source, cacheable: true, cached: false };
}

async function withDeadline<T>(work: Promise<T>, ms: number, ctx: RequestContext): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      ctx.abort(new Error('deadline'));
      reject(upstreamTimeout('The endpoint did not answer in time'));
    }, ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
