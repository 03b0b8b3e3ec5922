// The caller's own usage (GET /api/v1/account/usage) in the OpenAPI document: not a catalog endpoint, and it
// does not spend the allowance. Handed to the document builder as a part of its own (engine/openapi/document.ts).
import { answerHeaders, errorResponseRef, successSchema } from '../../engine/openapi/components.js';
import type { DocumentPart } from '../../engine/openapi/document.js';
import { ACCOUNT_USAGE_PATH } from './account-usage.js';

const classes = { type: 'object', additionalProperties: { type: 'integer' }, description: 'Counts by status class (2xx, 4xx, 5xx).' };
const history = {
  type: 'object',
  properties: {
    period: { type: 'string', enum: ['hour', 'day'] },
    total: { type: 'integer' },
    p50Ms: { type: ['number', 'null'], description: 'Median latency (upper bound of its histogram bucket)' },
    p95Ms: { type: ['number', 'null'], description: '95th-percentile latency (upper bound of its histogram bucket)' },
    buckets: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          start: { type: 'string', format: 'date-time' },
          total: { type: 'integer' },
          classes,
          p50Ms: { type: ['number', 'null'] },
          p95Ms: { type: ['number', 'null'] },
        },
      },
    },
    endpoints: {
      type: 'array',
      items: { type: 'object', properties: { endpoint: { type: 'string' }, total: { type: 'integer' }, classes } },
    },
  },
};

const data = {
  type: 'object',
  properties: {
    key: { type: 'object', properties: { id: { type: 'string' }, plan: { type: 'string' } } },
    allowance: {
      type: 'object',
      properties: {
        plan: { type: 'string' },
        limit: { type: 'integer' },
        used: { type: 'integer' },
        remaining: { type: 'integer' },
        resetAt: { type: 'string', format: 'date-time' },
        reset: { type: 'integer', description: 'Unix epoch seconds, as X-RateLimit-Reset' },
      },
    },
    hourly: history,
    daily: history,
    recent: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          at: { type: 'string', format: 'date-time' },
          endpoint: { type: 'string' },
          status: { type: 'integer' },
          ms: { type: 'integer' },
        },
      },
    },
  },
};

function accountUsageOperation() {
  return {
    summary: "Your key's allowance and usage history",
    description:
      'The allowance as it stands (the numbers of the X-RateLimit-* headers), counts per endpoint and status class for the last 24 hours (hourly) and 30 days (daily) with median and 95th-percentile latency, and the last 50 calls (time, endpoint, status, milliseconds). This request does not count against the allowance.',
    operationId: 'accountUsage',
    tags: ['account'],
    responses: {
      200: {
        description: 'The success envelope, with your usage in `data`.',
        headers: answerHeaders(),
        content: { 'application/json': { schema: successSchema(data) } },
      },
      400: errorResponseRef(400),
      401: errorResponseRef(401),
      405: errorResponseRef(405),
      408: errorResponseRef(408),
      414: errorResponseRef(414),
      431: errorResponseRef(431),
      500: errorResponseRef(500),
      503: errorResponseRef(503),
    },
  };
}

/** The usage feature's part of the OpenAPI document: its one operation, under the `account` tag. */
export function accountUsageDocument(): DocumentPart {
  return {
    paths: { [ACCOUNT_USAGE_PATH]: { get: accountUsageOperation() } },
    tag: { name: 'account', description: 'Your own key: allowance, usage and the request log.' },
  };
}
