// A client that knows the service only by its OpenAPI document, as a generated one does: it builds each
// operation's example request from the parameters' `example`s and the request body's `example`, sends the
// key in the X-API-Key header, and checks answers against the documented response schemas.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export interface Operation {
  path: string;
  method: 'get' | 'post';
  operationId: string;
  parameters?: Array<{ name: string; in: string; required?: boolean; example?: unknown; schema: Record<string, unknown> }>;
  requestBody?: { content: Record<string, { schema: { $ref?: string }; example?: Record<string, unknown> }> };
  responses: Record<string, unknown>;
}

export type Doc = {
  paths: Record<string, Record<string, Omit<Operation, 'path' | 'method'>>>;
  components: Record<string, Record<string, unknown>>;
};

export function operationsOf(doc: Doc): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ ...op, path, method: method as Operation['method'] })),
  );
}

/** A request as a client would send it: query parameters, or a body of one documented media type. */
export interface ClientRequest {
  query: Record<string, unknown>;
  body?: Record<string, unknown>;
  mediaType?: string;
}

/** The documented example request: every parameter with an `example`, or the body's `example`. */
export function exampleOf(op: Operation): ClientRequest {
  const query = Object.fromEntries(
    (op.parameters ?? []).filter((p) => p.in === 'query' && p.example !== undefined).map((p) => [p.name, p.example]),
  );
  if (!op.requestBody) return { query };
  const [mediaType, media] = Object.entries(op.requestBody.content)[0];
  return { query, body: { ...(media.example ?? {}) }, mediaType };
}

/** The schema of a request body, resolved, for the fuzzed variants. */
export function bodySchemaOf(doc: Doc, op: Operation, mediaType: string): Record<string, any> {
  const ref = op.requestBody!.content[mediaType].schema.$ref!;
  return doc.components.schemas[ref.split('/').pop()!] as Record<string, any>;
}

/** Fields of a multipart body that are files (binary in the body's schema). */
export function fileFieldsOf(doc: Doc, op: Operation, mediaType: string | undefined): string[] {
  if (mediaType !== 'multipart/form-data') return [];
  const schema = bodySchemaOf(doc, op, mediaType) as { properties?: Record<string, { format?: string }> };
  return Object.entries(schema.properties ?? {})
    .filter(([, s]) => s.format === 'binary')
    .map(([name]) => name);
}

/** Sends a request to the running service; files of a multipart body are the bytes of their text. */
export async function send(
  base: string,
  op: Operation,
  r: ClientRequest,
  key: string | undefined,
  fileFields: string[] = [],
  accept = 'application/json',
): Promise<{ status: number; body: unknown; headers: Headers }> {
  // A path parameter takes its documented example (`/api/v1/account/requests/{requestId}`).
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(String(op.parameters?.find((p) => p.in === 'path' && p.name === name)?.example ?? name)),
  );
  const url = new URL(base + path);
  for (const [k, v] of Object.entries(r.query)) url.searchParams.set(k, String(v));
  const headers: Record<string, string> = { accept };
  if (key) headers['x-api-key'] = key;
  let body: string | FormData | undefined;
  if (r.body) {
    if (r.mediaType === 'application/json') {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(r.body);
    } else if (r.mediaType === 'application/x-www-form-urlencoded') {
      headers['content-type'] = r.mediaType;
      body = new URLSearchParams(Object.entries(r.body).map(([k, v]) => [k, String(v)])).toString();
    } else {
      const form = new FormData();
      for (const [k, v] of Object.entries(r.body)) {
        if (fileFields.includes(k)) form.set(k, new Blob([String(v)], { type: 'text/plain' }), `${k}.txt`);
        else form.set(k, String(v));
      }
      body = form;
    }
  }
  const res = await fetch(url, { method: op.method.toUpperCase(), headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON: the schema check says so */
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** Checks answers against the document's own response schemas (JSON Schema 2020-12, as OpenAPI 3.1 has it). */
export function responseChecker(doc: Doc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ ...doc, $id: 'openapi.json' });
  const pointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
  return (op: Operation, status: number, body: unknown): string | undefined => {
    const documented = op.responses[String(status)] as { $ref?: string } | undefined;
    if (!documented) return `status ${status} is not documented`;
    const at = documented.$ref
      ? `openapi.json${documented.$ref}/content/application~1json/schema`
      : `openapi.json#/paths/${pointer(op.path)}/${op.method}/responses/${status}/content/application~1json/schema`;
    const check = ajv.getSchema(at);
    if (!check) return `no schema at ${at}`;
    return check(body) ? undefined : ajv.errorsText(check.errors, { separator: '; ' });
  };
}

/** Documented headers of the answer's status that the answer lacks (Retry-After counts only where required). */
export function missingHeaders(doc: Doc, op: Operation, status: number, headers: Headers): string[] {
  let documented = op.responses[String(status)] as { $ref?: string; headers?: Record<string, { required?: boolean }> } | undefined;
  if (documented?.$ref) documented = doc.components.responses[documented.$ref.split('/').pop()!] as typeof documented;
  return Object.entries(documented?.headers ?? {})
    .filter(([name, h]) => name !== 'Retry-After' || h.required)
    .map(([name]) => name)
    .filter((name) => !headers.has(name));
}

/**
 * Makes the call the request log's documented look-up names (the example of its `{requestId}`) on `base`,
 * with `key`, and writes it (`flush`): that look-up's example request then finds it.
 */
export async function makeExampleCall(doc: Doc, base: string, key: string, flush: () => Promise<void>): Promise<void> {
  const lookUp = operationsOf(doc).find((op) => op.path.endsWith('/{requestId}'));
  const id = lookUp?.parameters?.find((p) => p.in === 'path')?.example;
  if (typeof id !== 'string') throw new Error('the document has no request look-up with an example id');
  const res = await fetch(`${base}/api/v1/tools/ccgen?bin=457173`, { headers: { 'x-api-key': key, 'x-request-id': id } });
  if (res.status !== 200) throw new Error(`the example call answered ${res.status}`);
  await flush();
}
