// The invoke step: runs the endpoint's providers (its adapter, then the catalog's `fallback:` ones in order)
// with one context, under the endpoint's deadline, and puts the first answer in call.outcome, its `source`
// naming who answered. An endpoint without an adapter answers 501.
import type { EndpointSpec } from '../../catalog/load.js';
import type { Call, Outcome, ProviderAttempt } from '../call.js';
import type { Next, Step } from '../chain.js';
import { RequestContext, type ContextDeps } from '../context.js';
import { ApiError, upstreamTimeout } from '../../errors.js';
import { parseDuration } from '../../duration.js';
import { isReply, type Adapter, type AdapterData, type Reply } from '../../types.js';

/** A step: sets call.outcome and goes on, or stops with the providers' error or the deadline's. */
export type Invoke = Step;

/** One way of answering an endpoint: an adapter and the upstream it asks. */
export interface Provider {
  adapter: Adapter;
  upstream: string;
}

/** One call's run of the providers: whichever settles first, their answer or the deadline, goes on. */
class Invocation {
  private running = true;
  private timer: NodeJS.Timeout | undefined;
  private readonly ends: number;
  /** The provider being asked and since when: what the deadline cuts short is recorded as a timeout. */
  private asking: string | undefined;
  private askedAt: number;
  /** How many providers were asked. */
  private asked = 0;

  constructor(
    private readonly call: Call,
    readonly ctx: RequestContext,
    private readonly next: Next,
    ms: number,
    private readonly keepAttempts: boolean,
  ) {
    // The first provider is asked as the run starts: its clock's reading is the run's.
    this.askedAt = performance.now();
    this.ends = ctx.deadline = this.askedAt + ms;
    armAtTurnEnd(this);
  }

  /** Sets the clock for the time the call has left, unless it answered already. */
  arm(): void {
    if (!this.running) return;
    // Unreferenced: a call in flight keeps the process up by its socket, not by its deadline.
    this.timer = setTimeout(() => this.expire(), Math.max(0, this.ends - performance.now())).unref();
  }

  /** Stops the clock; false when the deadline answered already. */
  private stop(): boolean {
    if (!this.running) return false;
    this.running = false;
    if (this.timer !== undefined) clearTimeout(this.timer);
    return true;
  }

  /** A provider is asked now. */
  ask(upstream: string): void {
    if (!this.keepAttempts) return;
    if (this.asked++ > 0) this.askedAt = performance.now();
    this.asking = upstream;
  }

  /** The provider asked last answered (no error) or failed: the call's answeredBy, or an entry of its attempts. */
  tried(err?: unknown): void {
    const upstream = this.asking;
    if (upstream === undefined || !this.running) return;
    this.asking = undefined;
    const elapsed = performance.now() - this.askedAt;
    if (err === undefined && this.call.attempts === undefined) {
      this.call.answeredBy = upstream;
      this.call.answeredIn = Math.round(elapsed * 100);
    } else this.keep(attemptOf(upstream, elapsed, err));
  }

  private expire(): void {
    this.running = false;
    if (this.asking !== undefined) this.keep(attemptOf(this.asking, performance.now() - this.askedAt, upstreamTimeout()));
    this.ctx.abort(new Error('deadline'));
    this.ctx.release();
    this.next(upstreamTimeout('The endpoint did not answer in time'));
  }

  /** One more attempt in the call's list (a list of one made as such). */
  private keep(a: ProviderAttempt): void {
    if (this.call.attempts === undefined) this.call.attempts = [a];
    else this.call.attempts.push(a);
  }

  answered(outcome: Outcome): void {
    if (!this.stop()) return; // the deadline answered already
    this.ctx.release();
    this.call.outcome = outcome;
    this.next();
  }

  failed(err: unknown): void {
    if (!this.stop()) return;
    this.ctx.release();
    // next() takes a nullish error for "go on": a provider that rejects with nothing still fails.
    this.next(err ?? new Error('the provider failed without a reason'));
  }
}

// A call's deadline is set at the end of the loop turn it started in (setImmediate), for the time it has
// left: an answer made in process settles within the turn and needs no timer at all
// (docs/decisions/request-path-tuning.md).
let unarmed: Invocation[] = [];
function armAtTurnEnd(run: Invocation): void {
  if (unarmed.push(run) === 1) setImmediate(armAll);
}
function armAll(): void {
  const runs = unarmed;
  unarmed = [];
  for (const run of runs) run.arm();
}

export function invoker(spec: EndpointSpec, providers: Provider[], deps: ContextDeps): Invoke {
  const ms = parseDuration(spec.timeout ?? '30s');
  const keepAttempts = deps.keepAttempts === true;
  // One provider (most endpoints): its answer mapped here, with no promise between.
  const only = providers.length === 1 ? providers[0] : undefined;
  return (call, next) => {
    if (providers.length === 0) return next(new ApiError('not_implemented', `Not implemented yet: ${spec.id}`));
    const run = new Invocation(call, new RequestContext(spec, call, call.input!.files, deps), next, ms, keepAttempts);
    if (only) {
      run.ask(only.upstream);
      adapterOf(only, call, run.ctx).then(
        (out) => {
          run.tried();
          run.answered(outcomeOf(out, only.upstream));
        },
        (err: unknown) => {
          run.tried(err);
          run.failed(err);
        },
      );
    } else
      inTurn(providers, call, run).then(
        (out) => run.answered(out),
        (err: unknown) => run.failed(err),
      );
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
async function inTurn(providers: Provider[], call: Call, run: Invocation): Promise<Outcome> {
  const ctx = run.ctx;
  let callers: ApiError | undefined;
  let outage: ApiError | undefined;
  let unconfigured: ApiError | undefined;
  for (const provider of providers) {
    run.ask(provider.upstream);
    try {
      const out = outcomeOf(await adapterOf(provider, call, ctx), provider.upstream);
      run.tried();
      return out;
    } catch (err) {
      run.tried(err);
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

/** One provider's try as the request log shows it: a refusal of its breaker is `upstream_unavailable`. */
function attemptOf(upstream: string, elapsed: number, err?: unknown): ProviderAttempt {
  const ms = Math.round(elapsed * 100) / 100;
  if (err === undefined) return { upstream, status: 200, ms };
  const e = err instanceof ApiError ? err : undefined;
  const code = e?.code ?? 'internal';
  return { upstream, status: e?.status ?? 500, code, ms, ...(code === 'upstream_unavailable' ? { breaker: true } : {}) };
}
