// Every answer that is not a 2xx becomes an ApiError: the error envelope's `code` and words, the HTTP
// status, the request's id (X-Request-Id, to quote when asking about a call) and, on 429, 503 and 507, how
// many seconds the server asks to wait (Retry-After).

/** The error codes the API answers with (the `code` of the error envelope). */
export type ErrorCode = string;

export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    message: string,
    /** The stable code of the error envelope: `invalid_key`, `rate_limited`, `bad_input`, … */
    readonly code: ErrorCode,
    readonly status: number,
    /** The X-Request-Id of the answer. */
    readonly requestId: string | undefined,
    /** Retry-After, in seconds, where the answer gives it. */
    readonly retryAfter: number | undefined,
  ) {
    super(message);
  }
}

/** Retry-After in seconds: a number of seconds or an HTTP date. */
export function retryAfterOf(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/** The ApiError of an answer that is not a 2xx (its body read here). */
export async function errorOf(res: Response): Promise<ApiError> {
  const text = await res.text();
  let body: { error?: unknown; code?: unknown } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // Not the error envelope (a proxy's page): the status speaks.
  }
  const message = typeof body.error === 'string' ? body.error : `HTTP ${res.status}${text ? `: ${text.slice(0, 200)}` : ''}`;
  const code = typeof body.code === 'string' ? body.code : `http_${res.status}`;
  return new ApiError(message, code, res.status, res.headers.get('x-request-id') ?? undefined, retryAfterOf(res.headers));
}
