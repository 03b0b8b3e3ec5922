// The policy of one upstream, declared under `policy:` in catalog/upstreams.yaml and applied to every
// exchange its client makes: a circuit breaker, a bound on exchanges at once, a rate or a minimum interval,
// and pauses on the answers an upstream bans with. Breaker and bulkhead are cockatiel's
// (docs/decisions/upstream-policies.md says why cockatiel); the rate window, the pacing and the pauses are a few lines each,
// which no such library has in the form needed here (refuse beyond the rate at once, with Retry-After).
//
// Everything is per process and per client, so an app made in a test has its own (no module state).
import {
  BrokenCircuitError,
  BulkheadRejectedError,
  TaskCancelledError,
  CircuitState,
  ConsecutiveBreaker,
  SamplingBreaker,
  bulkhead,
  circuitBreaker,
  handleWhen,
  type BulkheadPolicy,
  type CircuitBreakerPolicy,
} from 'cockatiel';
import { parseDuration } from '../duration.js';
import { ApiError, upstreamBusy, upstreamUnavailable } from '../errors.js';
import { pause } from './pause.js';
import type { Logger } from 'pino';
import type { UpstreamEvents } from './upstream-events.js';
import type { PolicySpec } from '../catalog/load.js';

const DEFAULT_FAILURES = 5;
const DEFAULT_COOLDOWN = '30s';
const DEFAULT_QUEUE = 20;

/** What an attempt answers: `failing` marks an answer that counts as a failure (a 5xx), though it is returned. */
export interface Failing {
  failing: boolean;
}

/** An attempt stopped by our side (the caller gone, the deadline): neither a failure nor a success. */
export class Stopped extends Error {
  constructor(readonly inner: unknown) {
    super('stopped');
  }
}

interface Pause {
  status: number;
  ms: number;
  count: number;
  withinMs: number;
  message: string;
  seen: number[];
}

export class UpstreamPolicy {
  private readonly breaker: CircuitBreakerPolicy | undefined;
  private readonly cooldownMs: number;
  private readonly bulkhead: BulkheadPolicy | undefined;
  private readonly queueWaitMs: number;
  private readonly bulkheadPaths: ReadonlySet<string> | undefined;
  private readonly rateLimit: number;
  private readonly rateMs: number;
  private readonly recent: number[] = [];
  private readonly intervalMs: number;
  private nextSlot = 0;
  private readonly pauses: Pause[];
  private pausedUntil = 0;
  private pauseMessage = '';
  private retryAt = 0;
  private readonly off: boolean;
  /** A caller was let through as the half-open trial and has not settled yet. */
  private trialOut = false;

  constructor(
    private readonly id: string,
    given: PolicySpec | false = {},
    private readonly events?: UpstreamEvents,
    private readonly log?: Logger,
  ) {
    // false: no guard at all (UPSTREAM_POLICIES=off), not even the default breaker or the 429 hold.
    this.off = given === false;
    const spec: PolicySpec = given === false ? { breaker: false } : given;
    const b = spec.breaker === false ? undefined : (spec.breaker ?? {});
    this.cooldownMs = parseDuration(b?.cooldown ?? DEFAULT_COOLDOWN);
    if (b) {
      const windowMs = parseDuration(b.window ?? '60s');
      const breaker =
        b.ratio !== undefined
          ? new SamplingBreaker({ threshold: b.ratio, duration: windowMs, minimumRps: (b.minCalls ?? 10) / (windowMs / 1000) })
          : new ConsecutiveBreaker(b.failures ?? DEFAULT_FAILURES);
      // Every failure counts but our own stop, and so does an answer the client marked as failing (a 5xx):
      // the breaker counts it, and still hands it back for the client to map.
      this.breaker = circuitBreaker(
        handleWhen((e) => !(e instanceof Stopped)).orWhenResult((r) => (r as Partial<Failing>).failing === true),
        { halfOpenAfter: this.cooldownMs, breaker },
      );
      this.breaker.onBreak((reason) => {
        const at = Date.now();
        this.retryAt = at + this.cooldownMs;
        const cause = 'error' in reason && reason.error instanceof ApiError ? reason.error.code : 'upstream_failed';
        this.events?.breaker({ upstream: id, state: 'open', at, retryAt: this.retryAt, cause });
        this.log?.warn({ cause, cooldownS: this.cooldownMs / 1000 }, 'upstream breaker opened');
      });
      this.breaker.onHalfOpen(() => {
        this.events?.breaker({ upstream: id, state: 'half-open', at: Date.now() });
      });
      this.breaker.onReset(() => {
        this.events?.breaker({ upstream: id, state: 'closed', at: Date.now() });
        this.log?.info('upstream breaker closed');
      });
    }
    this.bulkhead = spec.concurrency ? bulkhead(spec.concurrency, spec.queue ?? DEFAULT_QUEUE) : undefined;
    this.queueWaitMs = spec.queueWait ? parseDuration(spec.queueWait) : 0;
    this.bulkheadPaths = spec.concurrencyFor ? new Set(spec.concurrencyFor) : undefined;
    this.rateLimit = spec.rate?.limit ?? 0;
    this.rateMs = spec.rate ? parseDuration(spec.rate.per) : 0;
    this.intervalMs = spec.minInterval ? parseDuration(spec.minInterval) : 0;
    this.pauses = (spec.pauseOn ?? []).map((p) => ({
      status: p.status,
      ms: parseDuration(p.for),
      count: p.count ?? 1,
      withinMs: p.within ? parseDuration(p.within) : 0,
      message: p.message ?? `Upstream ${id} has paused this server; try again later`,
      seen: [],
    }));
  }

  /**
   * One exchange (to `path`) under the policy; an answer marked `failing` (a 5xx) counts as a failure.
   * `deadline` (performance.now() ms) bounds waiting. Refusals are immediate 503s with Retry-After.
   */
  run<T>(attempt: () => Promise<T>, deadline: number | undefined, path = ''): Promise<T> {
    const trial = this.admit();
    // The common case (no line, no spacing) adds no promise of its own: this path is every upstream call's.
    const lined = this.bulkhead !== undefined && (!this.bulkheadPaths || this.bulkheadPaths.has(path));
    const work = lined || this.intervalMs > 0 ? this.waited(attempt, deadline, lined) : this.guarded(attempt);
    return trial ? work.finally(() => (this.trialOut = false)) : work;
  }

  private async waited<T>(attempt: () => Promise<T>, deadline: number | undefined, lined: boolean): Promise<T> {
    const exchange = async (): Promise<T> => {
      await this.pace(deadline);
      return this.guarded(attempt);
    };
    return lined ? this.inLine(exchange, deadline) : exchange();
  }

  /** Through the bulkhead: a full line, or a wait past `queueWait` or the deadline, is a 503 busy. */
  private async inLine<T>(exchange: () => Promise<T>, deadline: number | undefined): Promise<T> {
    const left = deadline === undefined ? Infinity : deadline - performance.now();
    const waitMs = Math.min(left, this.queueWaitMs || Infinity);
    const busy = () => upstreamBusy(`Upstream ${this.id} is busy; try again shortly`, seconds(this.queueWaitMs || 2000));
    // A signal only when the wait is bounded; it stops the wait in line, not the exchange once started.
    const signal = Number.isFinite(waitMs) ? AbortSignal.timeout(Math.max(1, Math.ceil(waitMs))) : undefined;
    try {
      return await this.bulkhead!.execute(exchange, signal);
    } catch (err) {
      if (err instanceof BulkheadRejectedError || err instanceof TaskCancelledError) throw busy();
      throw err;
    }
  }

  /** An answer's status, for the pauses an upstream bans with (403 for an hour, 404 storms). */
  observe(status: number): void {
    if (this.pauses.length === 0) return;
    const now = Date.now();
    for (const p of this.pauses) {
      if (p.status !== status) continue;
      if (p.count > 1) {
        p.seen = p.seen.filter((t) => now - t < p.withinMs);
        p.seen.push(now);
        if (p.seen.length < p.count) continue;
        p.seen = [];
      }
      this.hold(p.ms, p.message);
    }
  }

  /** No exchange until `ms` from now: an upstream-wide 429's Retry-After, or a pause. */
  hold(ms: number, message = `Upstream ${this.id} is rate limited; try again later`): void {
    if (this.off) return;
    const until = Date.now() + ms;
    if (until > this.pausedUntil) {
      this.pausedUntil = until;
      this.pauseMessage = message;
    }
  }

  /**
   * Refuses at once: paused, over the rate, breaker open (or its one trial call out). True when this
   * caller is the trial: the first one after the cool-down, chosen here, before any wait, so that callers
   * arriving meanwhile do not queue behind it.
   */
  private admit(): boolean {
    const now = Date.now();
    if (now < this.pausedUntil) throw upstreamBusy(this.pauseMessage, seconds(this.pausedUntil - now));
    const s = this.breaker?.state;
    let trial = false;
    if (s === CircuitState.HalfOpen || (s === CircuitState.Open && this.trialOut)) throw upstreamUnavailable(1);
    if (s === CircuitState.Open) {
      if (now < this.retryAt) throw upstreamUnavailable(seconds(this.retryAt - now));
      trial = true;
    }
    if (this.rateLimit > 0) {
      const recent = this.recent;
      while (recent.length > 0 && now - recent[0] >= this.rateMs) recent.shift();
      if (recent.length >= this.rateLimit) {
        throw upstreamBusy(`Upstream ${this.id} allowance is used up; try again shortly`, seconds(recent[0] + this.rateMs - now));
      }
      recent.push(now);
    }
    if (trial) this.trialOut = true;
    return trial;
  }

  /** Waits for this exchange's slot when exchanges are spaced; a slot past the deadline is a 503 now. */
  private async pace(deadline: number | undefined): Promise<void> {
    if (this.intervalMs === 0) return;
    const now = Date.now();
    const slot = Math.max(now, this.nextSlot);
    const wait = slot - now;
    if (deadline !== undefined && performance.now() + wait >= deadline) {
      throw upstreamBusy(`Upstream ${this.id} is busy; try again shortly`, seconds(wait));
    }
    this.nextSlot = slot + this.intervalMs;
    if (wait > 0) await pause(wait);
  }

  /**
   * Through the breaker, when there is one. An open one is refused by admit(); cockatiel's own refusal
   * (BrokenCircuitError, a race with a state change) is mapped by `refusal`, off this path.
   */
  private guarded<T>(attempt: () => Promise<T>): Promise<T> {
    return this.breaker ? this.breaker.execute(attempt) : attempt();
  }

  /** The 503 for cockatiel's BrokenCircuitError, or undefined for any other error. */
  refusal(err: unknown): ApiError | undefined {
    return err instanceof BrokenCircuitError ? upstreamUnavailable(seconds(Math.max(1000, this.retryAt - Date.now()))) : undefined;
  }
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
