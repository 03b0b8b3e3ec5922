// The OpenAPI 3.1 document of the service, generated from the catalog (served at /openapi.json). The parts
// live in engine/openapi/: shared components, one operation per endpoint; operations that are not the
// catalog's are handed in by the features that answer them (DocumentPart).
import type { EndpointSpec, UpstreamSpec } from '../catalog/load.js';
import { components } from './components.js';
import { operationOf } from './operation.js';

/** Operations a feature answers beside the catalog's endpoints (the caller's own usage): their paths and their tag. */
export interface DocumentPart {
  paths: Record<string, Record<string, unknown>>;
  tag: { name: string; description: string };
}

export interface DocumentInfo {
  title: string;
  version: string;
  url: string;
  upstreams: Record<string, UpstreamSpec>;
  /** True when this server holds a pooled key for the upstream: the document is built from the configuration. */
  pooled: (upstream: string) => boolean;
  /** Endpoints this server has an adapter for; the others are documented with their 501. */
  implemented(spec: EndpointSpec): boolean;
  /** Each one's paths follow the endpoints', its tag the categories'. */
  parts?: DocumentPart[];
}

const KEY_ORDER =
  'Where keys are sent in several places, the X-API-Key header counts, then the `apikey` query parameter, then an `apikey` field of the body; one key repeated is one key, and two different keys in one place are a 400.';

const DESCRIPTION = [
  'One API key, one request pattern and one JSON envelope for every endpoint.',
  `Send your key in the X-API-Key header (or as the \`apikey\` query parameter). ${KEY_ORDER}`,
  'GET endpoints take query parameters; POST endpoints take a JSON, urlencoded or multipart body (parameters in the query string are read too, the body winning).',
  'Every answer to an API request carries the allowance headers (X-RateLimit-*, RateLimit, RateLimit-Policy); answers of 500 and above are not counted against the allowance.',
  "The parameters of an operation that carry an `example` together make a valid request. Rules between parameters (one of, required when) are part of each POST body's schema; for GET operations they are in the operation's description and, as the JSON Schema of the parameter object, in its `x-parameters-schema`.",
].join('\n\n');

export function openApiDocument(endpoints: EndpointSpec[], info: DocumentInfo) {
  const bodies: Record<string, unknown> = {};
  const paths: Record<string, unknown> = {};
  for (const e of endpoints) {
    const op = operationOf(e, {
      upstreams: info.upstreams,
      pooled: info.pooled,
      implemented: info.implemented(e),
      bodies,
      creator: info.title,
    });
    paths[`/api/v1/${e.id}`] = { [e.method.toLowerCase()]: op };
  }
  const parts = info.parts ?? [];
  for (const part of parts) Object.assign(paths, part.paths);
  const categories = [...new Set(endpoints.map((e) => e.category))];
  return {
    openapi: '3.1.0',
    info: {
      title: info.title,
      version: info.version,
      description: DESCRIPTION,
      contact: { name: info.title, url: info.url },
      license: { name: 'GPL-3.0-or-later', identifier: 'GPL-3.0-or-later' },
    },
    servers: [{ url: info.url }],
    tags: [
      ...categories.map((c) => ({ name: c, description: `The ${c} endpoints (${endpoints.filter((e) => e.category === c).length}).` })),
      // Parts may share a tag (the account's usage and its request log): listed once, as the first names it.
      ...parts.map((part) => part.tag).filter((tag, i, all) => all.findIndex((t) => t.name === tag.name) === i),
    ],
    // The header first: renderers and clients take the first scheme, and a key in a URL ends up in logs.
    security: [{ header: [] }, { apikey: [] }],
    components: components(
      {
        header: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: `Your API key. ${KEY_ORDER}` },
        apikey: {
          type: 'apiKey',
          in: 'query',
          name: 'apikey',
          description: `Your API key as a query parameter (it may end up in logs: prefer the header). ${KEY_ORDER}`,
        },
      },
      bodies,
      referredResponses(paths),
    ),
    paths,
  };
}

/** Names of the shared responses that operations refer to. */
function referredResponses(paths: Record<string, unknown>): Set<string> {
  const names = new Set<string>();
  for (const item of Object.values(paths) as Array<Record<string, { responses: Record<string, { $ref?: string }> }>>) {
    for (const op of Object.values(item)) {
      for (const r of Object.values(op.responses)) if (r.$ref) names.add(r.$ref.split('/').pop()!);
    }
  }
  return names;
}
