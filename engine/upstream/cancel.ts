// Stopping a request's upstream exchanges when its client goes away or its time is up, without an
// AbortSignal. An AbortController per request, a 'close' listener per response and an 'abort' listener per
// exchange cost an uncached upstream call about a sixth of its CPU in the bench (docs/decisions/upstream-path.md), for a
// cancel that almost never happens. The context (engine/pipeline/context.ts) is the scope of its request; the
// client's connection is watched once per socket, not once per request.
import type { Socket } from 'node:net';

/** Something to stop: an exchange in flight (engine/upstream/whole-answer.ts). */
export interface Cancellable {
  abort(reason: Error): void;
}

/** The exchanges of one request. `watch` cancels at once when the request is cancelled already. */
export interface CancelScope {
  /** Why the request was cancelled, once it is. */
  readonly cancelled: Error | undefined;
  /** When the request's time is up (performance.now() ms): retries and waits in line stop short of it. */
  readonly deadline?: number;
  watch(c: Cancellable): void;
  unwatch(c: Cancellable): void;
}

/** What hears of its client's connection closing. */
export interface ClientWatcher {
  clientGone(): void;
}

const watchers = new WeakMap<Socket, Set<ClientWatcher>>();

function closed(this: Socket) {
  const set = watchers.get(this);
  watchers.delete(this);
  if (set) for (const w of set) w.clientGone();
}

/**
 * Tells `w` when `socket` closes, or at once when it is gone already; returns what stops telling it.
 * A request without a real socket (light-my-request's, for MCP) has nothing to watch.
 */
export function watchClient(socket: Socket | null | undefined, w: ClientWatcher): () => void {
  if (!socket || typeof socket.once !== 'function') return () => {};
  if (socket.destroyed) {
    w.clientGone();
    return () => {};
  }
  let set = watchers.get(socket);
  if (set === undefined) {
    watchers.set(socket, (set = new Set()));
    socket.once('close', closed);
  }
  set.add(w);
  return () => set.delete(w);
}
