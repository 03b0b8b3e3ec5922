// The parts every operation shares: the error envelope, the success envelope's metadata, the allowance
// headers every answer carries, and one reusable response per error status the engine gives.
import { ERROR_STATUS } from '../errors.js';

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** Codes of the error vocabulary (engine/errors.ts) by status, for the `code` of each error response. */
function codesOf(status: number): string[] {
  return Object.entries(ERROR_STATUS)
    .filter(([, s]) => s === status)
    .map(([code]) => code);
}

const headers = {
  'X-RateLimit-Limit': { description: 'Requests allowed in the current window of your plan.', schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Reset': { description: 'When the current window ends, in Unix epoch seconds.', schema: { type: 'integer', minimum: 0 } },
  RateLimit: {
    description: 'The same allowance as IETF draft 8 of RateLimit header fields: `"<plan>"; r=<remaining>; t=<seconds to reset>`.',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description: 'The plan as IETF draft 8 of RateLimit header fields: `"<plan>"; q=<limit>; w=<window seconds>; pk=:<partition>:`.',
    schema: { type: 'string' },
  },
  'X-Content-Type-Options': {
    description: 'Always `nosniff`: an answer is only ever what its Content-Type says.',
    schema: { const: 'nosniff' },
  },
  'API-Version': {
    description: 'The version of this contract (`info.version` of the document): a change that breaks callers raises its major part.',
    schema: { type: 'string' },
  },
  'X-Request-Id': {
    description: 'Your X-Request-Id when it is 1 to 64 of `A-Z a-z 0-9 . _ -`, otherwise a new id; it names the request in the logs.',
    schema: { type: 'string' },
  },
};

// Written out where an answer carries them (429, 503 and 507; 405), as required headers.
const retryAfterHeader = { description: 'Seconds to wait before trying again.', required: true, schema: { type: 'integer', minimum: 0 } };
const allowHeader = { description: 'The method the endpoint takes.', required: true, schema: { type: 'string' } };

/** The headers of every answer to an API request; `retryAfter` adds Retry-After (429, 503, 507). */
export function answerHeaders(retryAfter: 'required' | 'none' = 'none'): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of [
    'X-RateLimit-Limit',
    'X-RateLimit-Remaining',
    'X-RateLimit-Reset',
    'RateLimit',
    'RateLimit-Policy',
    'X-Request-Id',
    'X-Content-Type-Options',
    'API-Version',
  ])
    out[name] = ref('headers', name);
  if (retryAfter === 'required') out['Retry-After'] = retryAfterHeader;
  return out;
}

/** Answers given before the request reaches the API (engine/pipeline/client-error.ts) carry no allowance headers. */
const edgeHeaders = () => ({
  'X-Content-Type-Options': ref('headers', 'X-Content-Type-Options'),
  'API-Version': ref('headers', 'API-Version'),
});

function errorResponse(
  status: number,
  description: string,
  retryAfter: 'required' | 'none' = 'none',
  responseHeaders: Record<string, unknown> = answerHeaders(retryAfter),
) {
  return {
    description,
    headers: responseHeaders,
    content: { 'application/json': { schema: { allOf: [ref('schemas', 'Error')], properties: { code: { enum: codesOf(status) } } } } },
  };
}

/** Reusable error responses, by status. */
const ERROR_RESPONSES: Record<number, { name: string; response: ReturnType<typeof errorResponse> }> = {
  400: {
    name: 'BadInput',
    response: errorResponse(
      400,
      'Bad input: a missing or invalid parameter (the message names it), a malformed body, or two different keys sent in one place.',
    ),
  },
  401: {
    name: 'Unauthorized',
    response: errorResponse(401, 'No key was sent (`Missing apikey parameter`) or the key is unknown (`Invalid apikey`).'),
  },
  403: {
    name: 'Forbidden',
    response: errorResponse(403, 'The key may not do this: the request log, for one, is kept for personal keys, not shared ones.'),
  },
  404: { name: 'NotFound', response: errorResponse(404, 'Nothing matches: the upstream or the embedded data has no such item.') },
  405: {
    name: 'MethodNotAllowed',
    response: errorResponse(405, 'The endpoint takes another method; Allow names it.', 'none', {
      ...answerHeaders(),
      Allow: allowHeader,
    }),
  },
  408: {
    name: 'RequestTimeout',
    response: errorResponse(
      408,
      'The request stopped arriving: nothing of its headers or body came for the idle time (at most 30 s), or the whole took longer than 5 minutes. The connection is closed.',
      'none',
      edgeHeaders(),
    ),
  },
  413: {
    name: 'PayloadTooLarge',
    response: errorResponse(413, 'The body, an uploaded file or a fetched URL is larger than the service accepts.'),
  },
  414: {
    name: 'UriTooLong',
    response: errorResponse(414, 'The URL is longer than the server reads: send long values in a POST body.', 'none', edgeHeaders()),
  },
  431: {
    name: 'HeadersTooLarge',
    response: errorResponse(431, 'The request headers are larger than the server reads.', 'none', edgeHeaders()),
  },
  422: {
    name: 'MediaTooLarge',
    response: errorResponse(
      422,
      'None of the media fits under the cap asked for (`maxBytes`, `for`); the message gives the smallest size on offer.',
    ),
  },
  429: {
    name: 'TooManyRequests',
    response: errorResponse(429, "Your plan's allowance for this window is spent; Retry-After says when it renews.", 'required'),
  },
  500: {
    name: 'InternalError',
    response: errorResponse(
      500,
      'Something failed that should not have; the logs name it by X-Request-Id. Not counted against your allowance.',
    ),
  },
  501: { name: 'NotImplemented', response: errorResponse(501, 'This server has no adapter for the endpoint.') },
  502: {
    name: 'BadGateway',
    response: errorResponse(
      502,
      'The upstream failed, answered something unusable, or answered in a shape this service does not know (its API changed). Not counted against your allowance.',
    ),
  },
  503: {
    name: 'ServiceUnavailable',
    response: errorResponse(
      503,
      'Not configured on this server (the message names what to set), the upstream is busy or resting after repeated failures, or a store cannot answer; Retry-After says when to try again. Not counted against your allowance.',
      'required',
    ),
  },
  507: {
    name: 'InsufficientStorage',
    response: errorResponse(
      507,
      'The server had no space left to store what this request writes (an upload, hosted content, a record); what needs no storage keeps answering. Retry-After says when to try again. Not counted against your allowance.',
      'required',
    ),
  },
  504: {
    name: 'GatewayTimeout',
    response: errorResponse(504, 'The upstream or the endpoint did not answer in time. Not counted against your allowance.'),
  },
};

export const errorResponseRef = (status: number) => ref('responses', ERROR_RESPONSES[status].name);

const metadata = {
  type: 'object',
  required: ['endpoint', 'requestId', 'tookMs', 'cached'],
  properties: {
    endpoint: { type: 'string', description: 'The endpoint, `category/name`.' },
    requestId: { type: 'string', description: 'As the X-Request-Id header.' },
    tookMs: { type: 'number', minimum: 0 },
    cached: { type: 'boolean', description: 'True when the answer came from the response cache.' },
  },
};

/** The success envelope around an endpoint's `data`. */
export function successSchema(data: unknown, metadataSchema: unknown = ref('schemas', 'Metadata')) {
  return {
    type: 'object',
    required: ['success', 'creator', 'source', 'data', 'metadata'],
    properties: {
      success: { const: true },
      creator: { type: 'string', description: 'The name of this service.' },
      source: { type: 'string', description: 'Who answered: the upstream id, or `embedded` for data shipped with the service.' },
      data,
      metadata: metadataSchema,
    },
  };
}

/** The components; `responses` names the error responses the operations refer to (only those are listed). */
export function components(securitySchemes: Record<string, unknown>, bodies: Record<string, unknown>, responses: Set<string>) {
  return {
    securitySchemes,
    schemas: {
      Error: {
        type: 'object',
        description: 'The error envelope of every failed answer.',
        required: ['success', 'error', 'code'],
        additionalProperties: false,
        properties: {
          success: { const: false },
          error: { type: 'string', description: 'What went wrong, in words meant for the caller.' },
          code: { enum: Object.keys(ERROR_STATUS), description: 'The error, as a stable code.' },
        },
      },
      Metadata: metadata,
      ...bodies,
    },
    headers,
    responses: Object.fromEntries(
      Object.values(ERROR_RESPONSES)
        .filter(({ name }) => responses.has(name))
        .map(({ name, response }) => [name, response]),
    ),
  };
}
