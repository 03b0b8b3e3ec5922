// The request log's two operations in the OpenAPI document (engine/openapi/document.ts DocumentPart): not
// catalog endpoints, and they do not spend the allowance.
import { answerHeaders, errorResponseRef, successSchema } from '../../engine/openapi/components.js';
import type { DocumentPart } from '../../engine/openapi/document.js';
import { ACCOUNT_REQUESTS_PATH } from './account-requests.js';

const nullable = (type: string) => ({ type: [type, 'null'] });

const call = {
  type: 'object',
  required: ['id', 'requestId', 'at', 'endpoint', 'method', 'status', 'ms', 'providers', 'cached', 'bytesOut', 'params', 'uploads'],
  properties: {
    id: { type: 'string', description: 'The row id: the cursor of a page that ends with this call.' },
    requestId: { type: 'string', description: 'The id the answer carried (`metadata.requestId`, the X-Request-Id header).' },
    at: { type: 'string', format: 'date-time' },
    keyId: nullable('string'),
    endpoint: { type: 'string', examples: ['tools/ccgen'] },
    method: { type: 'string' },
    status: { type: 'integer' },
    code: { ...nullable('string'), description: 'The error code of a failed answer.' },
    ms: { type: 'number' },
    source: { ...nullable('string'), description: 'The provider that answered.' },
    providers: {
      type: 'array',
      description:
        'The providers asked, in order: the status each would have answered, its error code, its time, and whether its circuit breaker refused the call.',
      items: {
        type: 'object',
        required: ['upstream', 'status', 'ms'],
        properties: {
          upstream: { type: 'string' },
          status: { type: 'integer' },
          code: { type: 'string' },
          ms: { type: 'number' },
          breaker: { type: 'boolean' },
        },
      },
    },
    cached: { type: 'boolean' },
    bytesOut: { type: 'integer' },
    ip: { ...nullable('string'), description: 'The client address, its last part zeroed unless the server keeps it whole.' },
    params: {
      type: 'object',
      description: 'The parameters sent, keys, tokens, passwords and secret parameters as `[redacted]`, at most 8 KB.',
    },
    truncated: { type: 'array', items: { type: 'string' }, description: 'Parameters whose values were cut to fit.' },
    uploads: {
      type: 'array',
      items: {
        type: 'object',
        properties: { field: { type: 'string' }, name: { type: 'string' }, type: { type: 'string' }, size: { type: 'integer' } },
      },
    },
    error: { ...nullable('string'), description: 'The error message answered.' },
  },
};

const filters = [
  { name: 'key', description: 'Only the calls of this key id.', schema: { type: 'string' } },
  { name: 'endpoint', description: 'Only the calls of this endpoint (`tools/ccgen`).', schema: { type: 'string' }, example: 'tools/ccgen' },
  { name: 'status', description: 'A status class (`2xx`, `4xx`, `5xx`) or a status (`404`).', schema: { type: 'string' }, example: '5xx' },
  { name: 'code', description: 'Only the calls answered with this error code.', schema: { type: 'string' } },
  { name: 'requestId', description: 'Only the calls with this request id.', schema: { type: 'string' } },
  { name: 'from', description: 'From this time (ISO 8601 or epoch ms), inclusive.', schema: { type: 'string' } },
  { name: 'to', description: 'Up to this time (ISO 8601 or epoch ms), exclusive.', schema: { type: 'string' } },
  { name: 'cursor', description: 'The `nextCursor` of the page before.', schema: { type: 'string' } },
  { name: 'limit', description: 'Calls per page.', schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
].map((p) => ({ ...p, in: 'query', required: false }));

const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, errorResponseRef(s)]));
const common = [400, 401, 403, 405, 408, 414, 431, 500, 503];

function listOperation() {
  return {
    summary: "Your account's calls, newest first",
    description:
      "Every call of your account's keys (a personal key of no account: its own), as the request log keeps them for your plan's days: filtered by key, endpoint, status, code, time or request id, a page at a time (`nextCursor`). This request does not count against the allowance.",
    operationId: 'accountRequests',
    tags: ['account'],
    parameters: filters,
    responses: {
      200: {
        description: 'The success envelope: the calls in `data.items`, and `data.nextCursor` for the next page (null at the end).',
        headers: answerHeaders(),
        content: {
          'application/json': {
            schema: successSchema({
              type: 'object',
              required: ['items', 'nextCursor'],
              properties: { items: { type: 'array', items: call }, nextCursor: nullable('string') },
            }),
          },
        },
      },
      ...errors(...common),
    },
  };
}

function oneOperation() {
  return {
    summary: 'One call of yours, by its request id',
    description:
      'The call whose answer carried this `requestId` (`metadata.requestId`, the X-Request-Id header): everything the request log keeps of it, with the providers it asked. The newest, when one id was sent twice. This request does not count against the allowance.',
    operationId: 'accountRequest',
    tags: ['account'],
    parameters: [
      {
        name: 'requestId',
        in: 'path',
        required: true,
        description: 'The request id of the call.',
        schema: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$' },
        example: '3b1f6a2e-5d1c-4c8e-9a53-6f0e2d7c41aa',
      },
    ],
    responses: {
      200: {
        description: 'The success envelope, with the call in `data`.',
        headers: answerHeaders(),
        content: { 'application/json': { schema: successSchema(call) } },
      },
      ...errors(...common, 404),
    },
  };
}

/** The request log's part of the OpenAPI document, under the `account` tag. */
export function requestLogDocument(): DocumentPart {
  return {
    paths: {
      [ACCOUNT_REQUESTS_PATH]: { get: listOperation() },
      [`${ACCOUNT_REQUESTS_PATH}/{requestId}`]: { get: oneOperation() },
    },
    tag: { name: 'account', description: 'Your own key: allowance, usage and the request log.' },
  };
}
