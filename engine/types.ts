// The adapter contract: validated params in, a data object (or a Reply) out.
// Adapters never see req/res; everything they may use comes through AdapterContext.
import type { Logger } from 'pino';
import type { BlobStore } from './blob-store.js';

export type Params = Record<string, unknown>;

/** An uploaded file, already streamed to disk by the engine. */
export interface UploadedFile {
  field: string;
  path: string;
  originalName: string;
  size: number;
  /** Content-Type claimed by the client: never trust it, sniff the bytes. */
  claimedType: string;
}

/**
 * What an adapter may use. `U` is the ids of catalog/upstreams.yaml it may ask for (its endpoint's `upstream:`
 * and `uses:`, or its `fallback:` entry's upstream); a helper that asks none takes `AdapterContext<never>`,
 * which every adapter's context is.
 */
export interface AdapterContext<U extends string = string> {
  /** `category/endpoint`, e.g. `tools/ccgen`. */
  endpoint: string;
  /** The catalog's `options:` for this endpoint (e.g. a bound model id). */
  options: Record<string, unknown>;
  /** Files of multipart `file` params, by param name. */
  files: Record<string, UploadedFile>;
  /** Caller's address (honours TRUST_PROXY), without `::ffff:`. */
  clientIp: string;
  /** Base of URLs the service hands out, without a trailing slash. */
  publicUrl: string;
  /** Aborted when the client disconnects or the endpoint's time is up; `upstream()`'s calls stop then on their own. */
  signal: AbortSignal;
  log: Logger;
  /**
   * A value this server's requests share for `ttlMs` (an upstream's language list), loaded once by `load`
   * and kept in one bounded LRU (engine/upstream/memo.ts); a failed load is not kept. `load` gets upstream
   * clients of its own: the requests waiting on it share it, so one caller hanging up does not stop it.
   */
  memo<T>(key: string, ttlMs: number | ((value: T) => number), load: (upstream: (id: U) => UpstreamClient) => Promise<T>): Promise<T>;
  /** The client of an upstream of catalog/upstreams.yaml (engine/upstream/client.ts), its calls stopped with the request.
   * A property, not a method, so that a context for some upstreams never passes for one with more. */
  upstream: (id: U) => UpstreamClient;
  /** Fetch a caller-supplied URL through the SSRF guard (engine/upstream/guarded-fetch.ts). */
  fetchUrl(url: string, opts?: FetchUrlOptions): Promise<FetchedUrl>;
  /** Files, images, pastes and generated media hosted by the service, typed per kind (engine/blob-store.ts). */
  blobs: BlobStore;
}

// ---- upstream client (engine/upstream/client.ts) ----

export interface UpstreamRequest {
  /** Path below the upstream's base URL ('' or '/x'); an absolute http(s) URL is allowed only for redirects the adapter follows itself. */
  path: string;
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  searchParams?: Record<string, string | number | boolean | undefined> | URLSearchParams;
  headers?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string>;
  body?: Buffer | string;
  /** How to read the answer (default json). */
  responseType?: 'json' | 'text' | 'buffer';
  /** Statuses the adapter handles itself: returned, not thrown. */
  allowStatus?: number[];
  /** Message of the 404 sent to our caller when the upstream answers 404. */
  notFoundMessage?: string;
  /**
   * The wait, in seconds, that an answer names in its body (MyMemory's used-up quota, in a 429 without
   * Retry-After or inside a 200): the upstream is held that long. A 429 tells the caller so; a 2xx is
   * returned for the adapter to read. Retry-After, when sent, comes first. Undefined: no wait named.
   */
  waitOf?: (body: string) => number | undefined;
  /** The caller's own upstream key (gen-models `upstream_key`), used when no pooled key is free. */
  callerKey?: string;
  /** Overrides the upstream's timeout, in ms. */
  timeoutMs?: number;
  signal?: AbortSignal;
  followRedirect?: boolean;
}

export interface UpstreamResponse<T = unknown> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  url: string;
}

export interface UpstreamClient {
  readonly id: string;
  /** Resolved base URL, or undefined when the operator has not configured one. */
  readonly baseUrl: string | undefined;
  /** True when a pooled server key is configured. */
  readonly hasKeys: boolean;
  /** The upstream's `settings:` from catalog/upstreams.yaml. */
  readonly settings: Record<string, unknown>;
  request<T = unknown>(req: UpstreamRequest): Promise<UpstreamResponse<T>>;
}

// ---- guarded fetch of caller URLs (engine/upstream/guarded-fetch.ts) ----

export interface FetchUrlOptions {
  /** Largest body accepted, in bytes (default 32 MiB): more is a 413. */
  maxBytes?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface FetchedUrl {
  bytes: Buffer;
  contentType: string | undefined;
  finalUrl: string;
}

export type AdapterData = Record<string, unknown>;

/**
 * An endpoint's adapter. The catalog's build types `P` and `U` for each adapter (adapters/<category>/_catalog.ts,
 * written by scripts/catalog-types.ts): `P` is what engine/catalog/validate.ts hands over, `U` the upstreams it may ask for.
 */
export type Adapter<P extends object = Params, U extends string = string> = (
  params: P,
  ctx: AdapterContext<U>,
) => Promise<AdapterData | Reply>;

const REPLY = Symbol.for('uua.reply');

/** A richer answer than plain data: another `source`, raw media bytes for `Accept`, no caching. */
export interface Reply {
  [REPLY]: true;
  data: AdapterData;
  /** Provider id shown in the envelope's `source` (defaults to the catalog's `upstream`). */
  source?: string;
  /** Raw bytes, sent instead of JSON when the client's Accept header matches `contentType`. */
  media?: { bytes: Buffer; contentType: string };
  /** false: never cache this answer (random results, secrets). */
  cacheable?: boolean;
}

export function reply(r: Omit<Reply, typeof REPLY>): Reply {
  return { ...r, [REPLY]: true };
}

export function isReply(x: unknown): x is Reply {
  return typeof x === 'object' && x !== null && (x as Record<symbol, unknown>)[REPLY] === true;
}
