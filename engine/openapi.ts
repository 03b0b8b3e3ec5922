// The OpenAPI 3.1 document of the service, generated from the catalog (served at /openapi.json).
import type { EndpointSpec, ParamSpec } from './catalog.js';

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
      { name: 'apikey', in: 'query', required: false, description: 'Your API key (or send the X-API-Key header)', schema: { type: 'string' } },
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
      op.requestBody = { required: false, content: { [multipart ? 'multipart/form-data' : 'application/json']: { schema: { type: 'object', properties: { apikey: { type: 'string' }, ...properties } } } } };
    }
    paths[`/api/v1/${e.id}`] = { [e.method.toLowerCase()]: op };
  }
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version },
    servers: [{ url: info.url }],
    components: { securitySchemes: { apikey: { type: 'apiKey', in: 'query', name: 'apikey' }, header: { type: 'apiKey', in: 'header', name: 'X-API-Key' } } },
    security: [{ apikey: [] }, { header: [] }],
    paths,
  };
}
