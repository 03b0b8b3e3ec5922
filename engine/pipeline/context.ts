// The AdapterContext of one request. A class, not an object literal: a literal with getters that are new
// closures on every request gives every context its own hidden class, allocated in old space, which made
// the garbage collector the costliest step of a request. The costly parts (the abort controller, the child
// logger, the client address) are made only when an adapter uses them.
// The context is also the cancel scope of its request's upstream exchanges (engine/upstream/cancel.ts): the clients
// it hands out stop their exchanges when the client goes away or the endpoint's time is up, with no
// signal passed and no AbortController made.
import type { Logger } from 'pino';
import type { EndpointSpec } from '../catalog/load.js';
import type { Call } from './call.js';
import type { BlobStore } from '../blob-store.js';
import type { AdapterContext, FetchedUrl, FetchUrlOptions, UpstreamClient, UploadedFile } from '../types.js';
import { watchClient, type Cancellable, type CancelScope, type ClientWatcher } from '../upstream/cancel.js';
import type { ScopedUpstream } from '../upstream/client.js';
import type { Memo } from '../upstream/memo.js';

export interface ContextDeps {
  log: Logger;
  publicUrl: string;
  userAgent: string;
  allowPrivateFetch: boolean;
  upstream(id: string): ScopedUpstream;
  blobs: BlobStore;
  memo: Memo;
  /** Whether a call keeps the providers it tried, with their time and outcome (for the request log). */
  keepAttempts?: boolean;
}

export class RequestContext implements AdapterContext, CancelScope, ClientWatcher {
  readonly endpoint: string;
  readonly options: Record<string, unknown>;
  readonly publicUrl: string;
  readonly blobs: BlobStore;
  cancelled: Error | undefined;
  /** Set by the invoke step: performance.now() ms when the endpoint's time is up. */
  deadline: number | undefined;
  private exchanges: Cancellable[] | undefined;
  private unwatchClient: (() => void) | undefined;
  private controller: AbortController | undefined;
  private childLog: Logger | undefined;
  private ip: string | undefined;

  constructor(
    spec: EndpointSpec,
    private readonly call: Call,
    readonly files: Record<string, UploadedFile>,
    private readonly deps: ContextDeps,
  ) {
    this.endpoint = spec.id;
    this.options = spec.options ?? NO_OPTIONS;
    this.publicUrl = deps.publicUrl;
    this.blobs = deps.blobs;
  }

  /** The upstream's client, its exchanges stopped with this request. */
  upstream(id: string): UpstreamClient {
    const client = this.deps.upstream(id);
    return {
      id: client.id,
      baseUrl: client.baseUrl,
      hasKeys: client.hasKeys,
      settings: client.settings,
      request: (req) => client.request(req, this),
    };
  }

  memo<T>(key: string, ttlMs: number | ((value: T) => number), load: (upstream: (id: string) => UpstreamClient) => Promise<T>): Promise<T> {
    // Unscoped clients: bounded by their own timeouts, not by the request that started the load.
    return this.deps.memo(key, ttlMs, () => load((id) => this.deps.upstream(id)));
  }

  watch(c: Cancellable): void {
    if (this.cancelled) return c.abort(this.cancelled);
    (this.exchanges ??= []).push(c);
    this.unwatchClient ??= watchClient(this.call.req.socket, this);
  }

  unwatch(c: Cancellable): void {
    const list = this.exchanges;
    const at = list ? list.indexOf(c) : -1;
    if (at >= 0) list!.splice(at, 1);
  }

  clientGone(): void {
    if (!this.call.res.writableFinished) this.abort(new Error('client disconnected'));
  }

  /** Aborted when the client disconnects or the endpoint's time is up. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.cancelled) this.controller.abort(this.cancelled);
      else this.unwatchClient ??= watchClient(this.call.req.socket, this);
    }
    return this.controller.signal;
  }

  get log(): Logger {
    return (this.childLog ??= this.deps.log.child({ requestId: this.call.id, endpoint: this.endpoint }));
  }

  get clientIp(): string {
    return (this.ip ??= (this.call.ip ?? '').replace(/^::ffff:/i, ''));
  }

  async fetchUrl(url: string, o?: FetchUrlOptions): Promise<FetchedUrl> {
    // Loaded on first use: most requests never fetch a caller's URL.
    const { fetchUrl } = await import('../upstream/guarded-fetch.js');
    return fetchUrl(url, {
      ...o,
      signal: o?.signal ?? this.signal,
      userAgent: this.deps.userAgent,
      allowPrivate: this.deps.allowPrivateFetch,
    });
  }

  /** Stops the adapter's work (the deadline, the client gone): its exchanges, and its signal if it took it. */
  abort(reason: Error): void {
    this.cancelled ??= reason;
    this.controller?.abort(reason);
    const list = this.exchanges;
    this.exchanges = undefined;
    if (list) for (const c of list) c.abort(reason);
  }

  /** Stops watching for a client disconnect once the answer is ready. */
  release(): void {
    this.unwatchClient?.();
  }
}

const NO_OPTIONS: Record<string, unknown> = Object.freeze({});
