// The AdapterContext of one request. Costly parts (the abort controller, the child logger) are made only
// when an adapter uses them: most requests never need either.
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import type { EndpointSpec } from './catalog.js';
import type { AdapterContext, BlobStore, UpstreamClient, UploadedFile } from './types.js';

export interface ContextDeps {
  log: Logger;
  publicUrl: string;
  userAgent: string;
  allowPrivateFetch: boolean;
  upstream(id: string): UpstreamClient;
  blobs: BlobStore;
}

export interface RequestContext {
  ctx: AdapterContext;
  /** Aborts the adapter's work (deadline); a no-op when nothing listens. */
  abort(reason: Error): void;
  /** Stops watching for a client disconnect once the answer is ready. */
  done(): void;
}

export function createContext(spec: EndpointSpec, req: Request, res: Response, files: Record<string, UploadedFile>, deps: ContextDeps): RequestContext {
  let controller: AbortController | undefined;
  let childLog: Logger | undefined;
  const signal = () => (controller ??= new AbortController()).signal;
  const onClose = () => { if (!res.writableFinished) controller?.abort(new Error('client disconnected')); };
  res.on('close', onClose);
  const ctx: AdapterContext = {
    endpoint: spec.id,
    options: spec.options ?? {},
    files,
    clientIp: (req.ip ?? '').replace(/^::ffff:/i, ''),
    publicUrl: deps.publicUrl,
    get signal() { return signal(); },
    get log() { return (childLog ??= deps.log.child({ requestId: res.locals.requestId, endpoint: spec.id })); },
    upstream: deps.upstream,
    // Loaded on first use: most requests never fetch a caller's URL.
    fetchUrl: async (url, o) => (await import('./guarded-fetch.js')).fetchUrl(url, { ...o, signal: o?.signal ?? signal(), userAgent: deps.userAgent, allowPrivate: deps.allowPrivateFetch }),
    blobs: deps.blobs,
  };
  return {
    ctx,
    abort: (reason) => controller?.abort(reason),
    done: () => { res.off('close', onClose); },
  };
}
