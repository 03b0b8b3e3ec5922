// One catalog endpoint as an OpenAPI operation: its parameters (GET) or request body (POST), the example
// request, the success schema and every error status the engine can give for it.
import type { EndpointSpec, UpstreamSpec } from '../catalog/load.js';
import { answerHeaders, errorResponseRef, successSchema } from './components.js';
import { rulesOf } from '../catalog/request-schema.js';
import { asConfigured } from '../catalog/as-configured.js';
import { bodySchema, crossRules, exampleRequest, formatWords, propertySchema, rulesNaming, ruleWords, sentences } from './params.js';

const operationIdOf = (id: string) => id.replace(/[/-](.)/g, (_, c: string) => c.toUpperCase());
const pascal = (id: string) => operationIdOf(id).replace(/^./, (c) => c.toUpperCase());

export interface OperationContext {
  upstreams: Record<string, UpstreamSpec>;
  /** True when this server holds a pooled key for the upstream (UPSTREAM_<ID>_KEYS). */
  pooled: (upstream: string) => boolean;
  /** False when this server has no adapter for the endpoint (it answers 501). */
  implemented: boolean;
  /** Request body schemas, added to components.schemas by name. */
  bodies: Record<string, unknown>;
  /** The service's name, the envelope's `creator` in the example answer. */
  creator?: string;
}

/** The example answer: the envelope around the answer recorded in the catalog (`response.examples`). */
function exampleAnswer(spec: EndpointSpec, creator: string) {
  const examples = (spec.response as { examples?: unknown[] }).examples;
  if (!examples?.length) return {};
  const metadata = { endpoint: spec.id, requestId: '5f0c6d1e-8a4b-4c2e-9d7f-3b1a2c4d5e6f', tookMs: 12.5, cached: false };
  return { example: { success: true, creator, source: spec.upstream, data: examples[0], metadata } };
}

/** True when the endpoint's adapter calls an upstream or fetches a caller's URL (so 502 is possible). */
function reachesOut(spec: EndpointSpec): boolean {
  const fetches = Object.values(spec.params).some((p) => p.format === 'url' || p.orText);
  return spec.upstream !== 'embedded' || Boolean(spec.fallback?.length || spec.uses?.length) || fetches;
}

/** Statuses other than 200 that the engine can give for this endpoint. */
function errorStatuses(spec: EndpointSpec, implemented: boolean): number[] {
  const fetches = Object.values(spec.params).some((p) => p.format === 'url' || p.orText);
  // 404 on all: an upstream's "no such item" and an embedded look-up's (an emoji, a BIN, a verse) alike.
  // 405 (another method), 408 (a request that stops arriving), 414 and 431 (a request too large to read)
  // and 500 can meet any request.
  const out = [400, 401, 404, 405, 408];
  if (spec.method === 'POST' || fetches) out.push(413);
  out.push(414);
  // An answer of remote media under a cap the caller set that none of them fits (features/media/).
  if (spec.mediaItems) out.push(422);
  out.push(429, 431, 500);
  if (!implemented) out.push(501);
  if (reachesOut(spec)) out.push(502);
  out.push(503, 504); // the key store may be down; every endpoint has a deadline
  // A write that finds the disk full (an upload spooled, hosted content, a usage record kept) answers 507.
  if (spec.method === 'POST' || fetches) out.push(507);
  return out;
}

/** The JSON envelope, and the raw bytes for a client whose Accept names the endpoint's media type. */
function successContent(spec: EndpointSpec, creator: string) {
  const content: Record<string, unknown> = {
    'application/json': { schema: successSchema(spec.response), ...exampleAnswer(spec, creator) },
  };
  for (const type of spec.media ?? []) content[type] = { schema: { type: 'string', contentMediaType: type } };
  return content;
}

function description(spec: EndpointSpec, ctx: OperationContext): string {
  const lines = [spec.summary];
  const up = ctx.upstreams[spec.upstream];
  lines.push(
    up
      ? `Answered by ${up.name} (upstream \`${spec.upstream}\`, ${up.docs}).`
      : 'Answered by the service itself, from data and code it ships with.',
  );
  lines.push(...rulesOf(spec).map(ruleWords));
  if (spec.params.upstream_key) {
    lines.push(
      ctx.pooled(spec.upstream)
        ? 'This server holds a pooled key for the provider, so `upstream_key` is optional: it is sent when no pooled key is free, and a key the provider refuses is answered 400 `Invalid value for upstream_key: rejected by the upstream provider`.'
        : 'This server holds no pooled key for the provider, so `upstream_key` is required (your own key for the provider): a request without it is answered 400 `Missing required parameter: upstream_key`, and a key the provider refuses 400 `Invalid value for upstream_key: rejected by the upstream provider`.',
    );
  }
  if (spec.media?.length)
    lines.push(`Send \`Accept: ${spec.media[0]}\` to get the raw bytes (${spec.media.join(', ')}) instead of the JSON envelope.`);
  if (spec.cache) lines.push(`Answers are cached for ${spec.cache}.`);
  return sentences(lines);
}

function queryParameters(spec: EndpointSpec, example: Record<string, unknown>) {
  return Object.entries(spec.params).map(([name, p]) => ({
    name,
    in: 'query',
    required: Boolean(p.required),
    description: sentences([p.description, ...formatWords(p), ...rulesNaming(spec, name)]),
    schema: propertySchema(p),
    ...(example[name] !== undefined ? { example: example[name] } : {}),
  }));
}

/** JSON and urlencoded bodies carry text; multipart also carries files. A file that cannot be text is multipart only. */
function requestBody(spec: EndpointSpec, example: Record<string, unknown>, ctx: OperationContext) {
  const name = `${pascal(spec.id)}Request`;
  const params = Object.values(spec.params);
  const hasFiles = params.some((p) => p.type === 'file');
  const textOnly = params.every((p) => p.type !== 'file' || p.orText);
  const ref = (n: string) => ({ $ref: `#/components/schemas/${n}` });
  const ex = Object.keys(example).length ? { example } : {};
  const content: Record<string, unknown> = {};
  if (textOnly) {
    ctx.bodies[name] = bodySchema(spec, 'text');
    content['application/json'] = { schema: ref(name), ...ex };
    content['application/x-www-form-urlencoded'] = { schema: ref(name), ...ex };
  }
  if (hasFiles) {
    ctx.bodies[`${pascal(spec.id)}Upload`] = bodySchema(spec, 'multipart');
    content['multipart/form-data'] = { schema: ref(`${pascal(spec.id)}Upload`), ...ex };
  } else {
    content['multipart/form-data'] = { schema: ref(name), ...ex };
  }
  return { required: Object.keys(example).length > 0, content };
}

export function operationOf(catalogSpec: EndpointSpec, ctx: OperationContext): Record<string, unknown> {
  const spec = asConfigured(catalogSpec, ctx.pooled);
  const example = exampleRequest(spec);
  const rules = crossRules(spec);
  const op: Record<string, unknown> = {
    summary: spec.summary,
    // What a person calls it (the reference's headings and search); the id stays the spec's.
    ...(spec.title ? { 'x-title': spec.title } : {}),
    description: description(spec, ctx),
    operationId: operationIdOf(spec.id),
    tags: [spec.category],
  };
  if (spec.method === 'GET') {
    op.parameters = queryParameters(spec, example);
    // Query parameters cannot hold rules between them in OpenAPI: the parameter object's schema says them.
    if (rules) op['x-parameters-schema'] = { type: 'object', ...rules };
  } else {
    op.requestBody = requestBody(spec, example, ctx);
  }
  op.responses = {
    200: {
      description: "The success envelope, with the endpoint's answer in `data`.",
      headers: answerHeaders(),
      content: successContent(spec, ctx.creator ?? 'Unified Utility API'),
    },
    ...Object.fromEntries(errorStatuses(spec, ctx.implemented).map((s) => [s, errorResponseRef(s)])),
  };
  return op;
}
