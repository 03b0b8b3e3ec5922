// How a grouped operation (src/endpoints.gen.ts) calls its generated function: the flat parameters split
// into the path, the query or the body, the envelope returned; or, for raw media, the answer's body as a stream.

export interface CallOptions {
  signal?: AbortSignal;
  /** Extra request headers (X-Request-Id to name the request in the server's logs). */
  headers?: Record<string, string>;
}

export interface MediaOptions<T extends string> extends CallOptions {
  /** The media type asked for (the Accept header); the first the endpoint documents by default. */
  accept?: T;
}

/** Raw media: the bytes as they arrive, and what the answer says of them. */
export interface MediaAnswer {
  stream: ReadableStream<Uint8Array>;
  contentType: string;
  /** From Content-Length, when the answer has one. */
  contentLength: number | undefined;
  requestId: string | undefined;
  response: Response;
}

export interface Route {
  body: boolean;
  path: readonly string[];
}

type RequestOptions = {
  path?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: Record<string, unknown>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  parseAs?: 'stream';
};
// The generated functions, each typed by its operation; here only what every one of them takes and gives.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Generated = (options: any) => Promise<unknown>;

export type Call = <T>(fn: Generated, params: object, route: Route, options?: CallOptions) => Promise<T>;
export type Media = (fn: Generated, params: object, route: Route, accept: string, options?: MediaOptions<string>) => Promise<MediaAnswer>;

export function requestOf(params: object, route: Route, options: CallOptions | undefined): RequestOptions {
  const path: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue;
    if (route.path.includes(name)) path[name] = value;
    else rest[name] = value;
  }
  return {
    ...(route.path.length ? { path } : {}),
    ...(route.body ? { body: rest } : { query: rest }),
    headers: options?.headers,
    signal: options?.signal,
  };
}
