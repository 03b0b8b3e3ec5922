// The Unified Utility API's client: every endpoint as a typed function, by category.
//
//   const api = createClient({ apiKey: 'your key' }); // or UUA_API_KEY
//   const video = await api.downloaders.dlD({ url: 'https://www.tiktok.com/@user/video/1' });
//
// A failed call throws an ApiError (code, status, requestId, retryAfter). Runs wherever fetch does:
// Node 20+, Bun, Deno, browsers.
import { createClient as createFetchClient, createConfig } from './gen/client/index.js';
import { endpoints } from './endpoints.gen.js';
import { requestOf, type Call, type Media, type MediaAnswer } from './call.js';
import { transport, type RetryOptions } from './transport.js';
import { CONTRACT_VERSION, DEFAULT_BASE_URL } from './version.gen.js';

export { ApiError } from './errors.js';
export type { CallOptions, MediaOptions, MediaAnswer } from './call.js';
export type { RetryOptions } from './transport.js';
export { CONTRACT_VERSION, DEFAULT_BASE_URL } from './version.gen.js';
export type * from './gen/types.gen.js';

export interface ClientOptions {
  /** Your API key; by default the UUA_API_KEY environment variable (where there is one). */
  apiKey?: string;
  /** The server; by default the document's (DEFAULT_BASE_URL). */
  baseUrl?: string;
  /** Wait and try again after a 429 or 503 that says Retry-After: `true` for the defaults (2 retries, waits up to 60 s). */
  retry?: boolean | RetryOptions;
  /** A fetch of your own (a proxy agent, a test double); globalThis.fetch by default. */
  fetch?: typeof fetch;
}

export type Client = ReturnType<typeof endpoints> & { readonly contractVersion: string };

/** UUA_API_KEY, read where the runtime has an environment (Node, Bun, Deno with --allow-env). */
function keyFromEnvironment(): string | undefined {
  const g = globalThis as {
    process?: { env?: Record<string, string | undefined> };
    Deno?: { env: { get(name: string): string | undefined } };
  };
  try {
    return g.process?.env?.UUA_API_KEY ?? g.Deno?.env.get('UUA_API_KEY');
  } catch {
    return undefined; // Deno without the permission
  }
}

export function createClient(options: ClientOptions = {}): Client {
  const apiKey = options.apiKey ?? keyFromEnvironment();
  const retry = options.retry === true ? {} : options.retry === false ? undefined : options.retry;
  const client = createFetchClient(
    createConfig({
      baseUrl: (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, ''),
      fetch: transport(options.fetch ?? ((input, init) => globalThis.fetch(input, init)), retry),
      throwOnError: true,
      ...(apiKey ? { auth: apiKey } : {}),
    }),
  );
  const call: Call = async (fn, params, route, callOptions) => {
    const { data } = (await fn({ ...requestOf(params, route, callOptions), client })) as { data: never };
    return data;
  };
  const media: Media = async (fn, params, route, accept, callOptions) => {
    const request = requestOf(params, route, callOptions);
    const { data, response } = (await fn({
      ...request,
      headers: { ...request.headers, Accept: callOptions?.accept ?? accept },
      parseAs: 'stream',
      client,
    })) as { data: ReadableStream<Uint8Array>; response: Response };
    const length = response.headers.get('content-length');
    const answer: MediaAnswer = {
      stream: data,
      contentType: response.headers.get('content-type') ?? '',
      contentLength: length === null ? undefined : Number(length),
      requestId: response.headers.get('x-request-id') ?? undefined,
      response,
    };
    return answer;
  };
  return Object.assign(endpoints(call, media), { contractVersion: CONTRACT_VERSION });
}
