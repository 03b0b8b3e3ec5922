// The AdapterContext of one request. A class, not an object literal: a literal with getters that are new
// closures on every request gives every context its own hidden class, allocated in old space, which made
// the garbage collector the costliest step of a request. The costly parts (the abort controller with its
// disconnect watch, the child logger, the client address) are made only when an adapter uses them.
import type { Logger } from 'pino';
import type { EndpointSpec } from './catalog.js';
import type { Call } from './call.js';
import type { AdapterContext, BlobStore, FetchedUrl, FetchUrlOptions, UpstreamClient, UploadedFile } from './types.js';

export interface ContextDeps {
  log: Logger;
  publicUrl: string;
  userAgent: string;
  allowPrivateFetch: boolean;
  upstream(id: string): UpstreamClient;
  blobs: BlobStore;
}

export class RequestContext implements AdapterContext {
  readonly endpoint: string;
  readonly options: Record<string, unknown>;
  readonly publicUrl: string;
  readonly upstream: (id: string) => UpstreamClient;
  readonly blobs: BlobStore;
  private controller: AbortController | undefined;
  private onClose: (() => void) | undefined;
  private childLog: Logger | undefined;
  private ip: string | undefined;

  constructor(spec: EndpointSpec, private readonly call: Call, readonly files: Record<string, UploadedFile>, private readonly deps: ContextDeps) {
    this.endpoint = spec.id;
    this.options = spec.options ?? NO_OPTIONS;
    this.publicUrl = deps.publicUrl;
    this.upstream = deps.upstream;
    this.blobs = deps.blobs;
  }

  /** Aborted when the client disconnects or the endpoint's time is up. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      const controller = (this.controller = new AbortController());
      const res = this.call.res;
      if (res.destroyed && !res.writableFinished) controller.abort(new Error('client disconnected'));
      else res.on('close', (this.onClose = () => { if (!res.writableFinished) controller.abort(new Error('client disconnected')); }));
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
    const { fetchUrl } = await import('./guarded-fetch.js');
    return fetchUrl(url, { ...o, signal: o?.signal ?? this.signal, userAgent: this.deps.userAgent, allowPrivate: this.deps.allowPrivateFetch });
  }

  /** Aborts the adapter's work (the deadline); nothing to do when the adapter never took the signal. */
  abort(reason: Error): void {
    this.controller?.abort(reason);
  }

  /** Stops watching for a client disconnect once the answer is ready. */
  release(): void {
    if (this.onClose !== undefined) this.call.res.off('close', this.onClose);
  }
}

const NO_OPTIONS: Record<string, unknown> = Object.freeze({});
