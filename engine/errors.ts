// The small error vocabulary of the service. Every failure is one of these; the error handler in
// engine/pipeline/respond.ts is the only place that turns them into HTTP (status, body, headers).

export type ErrorCode =
  | 'bad_input'
  | 'missing_key'
  | 'invalid_key'
  | 'forbidden'
  | 'quota'
  | 'not_found'
  | 'method_not_allowed'
  | 'request_timeout'
  | 'payload_too_large'
  | 'uri_too_long'
  | 'headers_too_large'
  | 'not_implemented'
  | 'upstream_failed'
  | 'upstream_timeout'
  | 'not_configured'
  | 'upstream_busy'
  | 'upstream_unavailable'
  | 'upstream_changed'
  | 'storage_unavailable'
  | 'storage_full'
  | 'range_not_satisfiable'
  | 'link_expired'
  | 'media_too_large'
  | 'internal';

/**
 * The HTTP status of each error code: every code any answer carries, the framing errors Node's parser
 * refuses (engine/pipeline/client-error.ts) included, so the OpenAPI document's one `code` enum holds them all.
 */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  bad_input: 400,
  missing_key: 401,
  invalid_key: 401,
  forbidden: 403,
  quota: 429,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  payload_too_large: 413,
  uri_too_long: 414,
  headers_too_large: 431,
  not_implemented: 501,
  upstream_failed: 502,
  upstream_timeout: 504,
  not_configured: 503,
  upstream_busy: 503,
  upstream_unavailable: 503,
  upstream_changed: 502,
  storage_unavailable: 503,
  storage_full: 507,
  range_not_satisfiable: 416,
  link_expired: 410,
  media_too_large: 422,
  internal: 500,
};

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Extra response headers (Allow, Retry-After). */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.headers = headers;
  }
}

export const badInput = (message: string) => new ApiError('bad_input', message);
export const missingParam = (name: string) => new ApiError('bad_input', `Missing required parameter: ${name}`);
export const invalidParam = (name: string, rule: string) => new ApiError('bad_input', `Invalid value for ${name}: ${rule}`);
export const notFound = (message: string) => new ApiError('not_found', message);
export const upstreamFailed = (message = 'The upstream service failed') => new ApiError('upstream_failed', message);
export const upstreamTimeout = (message = 'The upstream service timed out') => new ApiError('upstream_timeout', message);
export const notConfigured = (message: string) => new ApiError('not_configured', message);
export const upstreamBusy = (message: string, retryAfterSeconds?: number) =>
  new ApiError('upstream_busy', message, retryAfterSeconds ? { 'Retry-After': String(retryAfterSeconds) } : {});
/** The upstream's circuit breaker is open: it failed repeatedly and is not asked until `retryAfterSeconds`. */
export const upstreamUnavailable = (retryAfterSeconds: number) =>
  new ApiError('upstream_unavailable', 'The upstream service is unavailable; try again later', {
    'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))),
  });
/** The upstream answered, but not in the shape its adapter reads: its API changed (shape drift). */
export const upstreamChanged = (message = 'The upstream service answered in a shape this service does not know') =>
  new ApiError('upstream_changed', message);
/** The object store behind hosted content did not answer (features/hosting/s3.ts). */
export const storageUnavailable = () =>
  new ApiError('storage_unavailable', 'Hosted content storage is unavailable; try again shortly', { 'Retry-After': '5' });
export const payloadTooLarge = (message: string) => new ApiError('payload_too_large', message);
