// What the upstream clients tell the rest of the service about an upstream's health: its circuit breaker
// opening, half-opening and closing. The status page, incidents and operator alerts listen here; the
// clients (engine/upstream/client.ts) are the only ones that emit.
import { EventEmitter } from 'node:events';

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface BreakerChange {
  upstream: string;
  state: BreakerState;
  /** Epoch ms of the change. */
  at: number;
  /** While open: epoch ms when a half-open probe is next allowed. */
  retryAt?: number;
  /** The failure that opened it (an ApiError code such as upstream_failed), when it opened. */
  cause?: string;
}

export class UpstreamEvents {
  private readonly emitter = new EventEmitter();
  private readonly states = new Map<string, BreakerChange>();

  /** Called by the clients on every breaker transition. */
  breaker(change: BreakerChange): void {
    this.states.set(change.upstream, change);
    this.emitter.emit('breaker', change);
  }

  onBreaker(listener: (change: BreakerChange) => void): () => void {
    this.emitter.on('breaker', listener);
    return () => this.emitter.off('breaker', listener);
  }

  /** The last transition of an upstream's breaker in this process; undefined: never left 'closed'. */
  state(upstream: string): BreakerChange | undefined {
    return this.states.get(upstream);
  }
}
