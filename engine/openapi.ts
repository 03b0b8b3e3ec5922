// The OpenAPI 3.1 document of the service, generated from the catalog (served at /openapi.json).
import type { EndpointSpec, ParamSpec } from './catalog.js';

const APIKEY_PARAM = {
  name: 'apikey', in: 'query', required: false, schema: { type: 'string' },
  description: 'Your API key, or send the X-API-Key header. Where several are sent, the header counts, then the query string, then the body; two different keys in one place are a 400.',
};

function schemaOf(p: ParamSpec): Record<string, unknown> {
  const s: Record<string, unknown> = { type: p.type === 'file' ? 'string' : p.type };
  if (p.type === 'file') s.format = 'binary';
  for (const k of ['enum', 'examples', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'default'] as const) {
    if (p[k] !== undefined) s[k] = p[k];
  }
  if (p.format === 'url') s.format = 'uri';
  return s;
}

export function openApiDocument(endpoints: EndpointSpec[], info: { title: string; version: string; url: string }) {
  const paths: Record<string, unknown> = {};
  for (const e of endpoints) {
    const params = Object.entries(e.params);
    const parameters = [
      APIKEY_PARAM,
      ...params.filter(([, p]) => p.type !== 'file').map(([name, p]) => ({
        name, in: 'query', required: Boolean(p.required), description: p.description + (p.requiredWhen ? ` (required when ${JSON.stringify(p.requiredWhen)})` : ''), schema: schemaOf(p),
      })),
    ];
    const op: Record<string, unknown> = {
      summary: e.summary,
      operationId: e.id.replace(/[/-](.)/g, (_, c: string) => c.toUpperCase()),
      tags: [e.category],
      parameters,
      responses: {
        200: { description: 'Success envelope', content: { 'application/json': { schema: { type: 'object', properties: { success: { const: true }, creator: { type: 'string' }, source: { type: 'string' }, data: e.response, metadata: { type: 'object' } } } } } },
        400: { description: 'Bad input' }, 401: { description: 'Missing or invalid apikey' }, 429: { description: 'Rate limit exceeded' },
      },
    };
    if (e.method === 'POST') {
      const properties = Object.fromEntries(params.map(([n, p]) => [n, { ...schemaOf(p), description: p.description }]));
      const multipart = params.some(([, p]) => p.type === 'file');
      const required = params.filter(([, p]) => p.required).map(([n]) => n);
      op.requestBody = { required: false, content: { [multipart ? 'multipart/form-data' : 'application/json']: { schema: { type: 'object', properties: { apikey: { type: 'string' }, ...properties }, ...(required.length ? { required } : {}) } } } };
    }
    paths[`/api/v1/${e.id}`] = { [e.method.toLowerCase()]: op };
  }
  paths['/api/v1/account/usage'] = { get: accountUsageOperation() };
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version },
    servers: [{ url: info.url }],
    // The header first: renderers and clients take the first scheme, and a key in a URL ends up in logs.
    components: { securitySchemes: { header: { type: 'apiKey', in: 'header', name: 'X-API-Key' }, apikey: { type: 'apiKey', in: 'query', name: 'apikey' } } },
    security: [{ header: [] }, { apikey: [] }],
    paths,
  };
}

const history = {
  type: 'object',
  properties: {
    period: { type: 'string', enum: ['hour', 'day'] },
    total: { type: 'integer' },
    p50Ms: { type: ['number', 'null'], description: 'Median latency (upper bound of its histogram bucket)' },
    p95Ms: { type: ['number', 'null'], description: '95th-percentile latency (upper bound of its histogram bucket)' },
    buckets: { type: 'array', items: { type: 'object', properties: { start: { type: 'string', format: 'date-time' }, total: { type: 'integer' }, classes: { type: 'object', additionalProperties: { type: 'integer' } }, p50Ms: { type: ['number', 'null'] }, p95Ms: { type: ['number', 'null'] } } } },
    endpoints: { type: 'array', items: { type: 'object', properties: { endpoint: { type: 'string' }, total: { type: 'integer' }, classes: { type: 'object', additionalProperties: { type: 'integer' } } } } },
  },
};

/** The caller's own usage: not a catalog endpoint, and it does not spend the allowance. */
function accountUsageOperation() {
  return {
    summary: 'Your key\'s allowance and usage history',
    description: 'The allowance as it stands (the numbers of the X-RateLimit-* headers), counts per endpoint and status class for the last 24 hours (hourly) and 30 days (daily) with median and 95th-percentile latency, and the last 50 calls (time, endpoint, status, milliseconds). This request does not count against the allowance.',
    operationId: 'accountUsage',
    tags: ['account'],
    parameters: [APIKEY_PARAM],
    responses: {
      200: {
        description: 'Success envelope',
        content: { 'application/json': { schema: { type: 'object', properties: { success: { const: true }, creator: { type: 'string' }, source: { const: 'usage' }, metadata: { type: 'object' }, data: {
          type: 'object',
          properties: {
            key: { type: 'object', properties: { id: { type: 'string' }, plan: { type: 'string' } } },
            allowance: { type: 'object', properties: { plan: { type: 'string' }, limit: { type: 'integer' }, used: { type: 'integer' }, remaining: { type: 'integer' }, resetAt: { type: 'string', format: 'date-time' }, reset: { type: 'integer', description: 'Unix epoch seconds, as X-RateLimit-Reset' } } },
            hourly: history,
            daily: history,
            recent: { type: 'array', items: { type: 'object', properties: { at: { type: 'string', format: 'date-time' }, endpoint: { type: 'string' }, status: { type: 'integer' }, ms: { type: 'integer' } } } },
          },
        } } } } },
      },
      401: { description: 'Missing or invalid apikey' },
    },
  };
}
