// The operations of the document as both SDK emitters read them: names, where each parameter goes, the
// request body's media type, and the raw media types the 200 answer offers beside its JSON envelope.
import { pythonName, pythonNames, typescriptNames } from '../../sdks/naming.js';

export interface Param {
  name: string;
  python: string;
  in: 'query' | 'path' | 'body';
  required: boolean;
  /** A file of a multipart body. */
  file: boolean;
  type: string;
  description: string;
}

export interface SdkOperation {
  path: string;
  method: 'get' | 'post';
  operationId: string;
  summary: string;
  ts: { group: string; method: string };
  py: { group: string; method: string };
  params: Param[];
  /** The body's media type, when the operation takes a body. */
  bodyType: string | undefined;
  /** Raw media types of the 200 answer (empty: JSON only). */
  media: string[];
}

type Schema = {
  $ref?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  description?: string;
} & Record<string, unknown>;
type Op = {
  operationId: string;
  summary?: string;
  parameters?: Array<{ name: string; in: string; required?: boolean; description?: string; schema: Schema }>;
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, unknown> }>;
};
export interface OpenApiDoc {
  info: { version: string; title: string };
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Op>>;
  components: { schemas: Record<string, Schema & { properties?: Record<string, Schema>; required?: string[] }> };
}

/** A schema's JSON type, as one word (`string`, `integer`, `number`, `boolean`, `array`, `object`, `file`). */
function typeOf(s: Schema): string {
  if (s.format === 'binary') return 'file';
  if (s.enum) return typeof s.enum[0] === 'number' ? (s.enum.every(Number.isInteger) ? 'integer' : 'number') : 'string';
  if (s.const !== undefined) return typeof s.const === 'boolean' ? 'boolean' : typeof s.const === 'number' ? 'number' : 'string';
  const t = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
  return t ?? 'string';
}

export function sdkOperations(doc: OpenApiDoc): SdkOperation[] {
  const out: SdkOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const params: Param[] = (op.parameters ?? [])
        .filter((p) => p.in === 'query' || p.in === 'path')
        .map((p) => ({
          name: p.name,
          python: pythonName(p.name),
          in: p.in as 'query' | 'path',
          required: Boolean(p.required),
          file: false,
          type: typeOf(p.schema),
          description: p.description ?? p.schema.description ?? '',
        }));
      let bodyType: string | undefined;
      if (op.requestBody) {
        const [mediaType, media] = Object.entries(op.requestBody.content)[0];
        bodyType = mediaType;
        const schema = media.schema.$ref ? doc.components.schemas[media.schema.$ref.split('/').pop()!] : media.schema;
        const required = new Set((schema.required as string[] | undefined) ?? []);
        for (const [name, s] of Object.entries((schema.properties ?? {}) as Record<string, Schema>))
          params.push({
            name,
            python: pythonName(name),
            in: 'body',
            required: required.has(name),
            file: s.format === 'binary',
            type: typeOf(s),
            description: s.description ?? '',
          });
      }
      const taken = new Set<string>();
      for (const p of params) {
        if (taken.has(p.python)) throw new Error(`${path}: two parameters are ${p.python} in Python`);
        taken.add(p.python);
      }
      const ok = op.responses['200']?.content ?? {};
      out.push({
        path,
        method: method as 'get' | 'post',
        operationId: op.operationId,
        summary: op.summary ?? '',
        ts: typescriptNames(path),
        py: pythonNames(path),
        params,
        bodyType,
        media: Object.keys(ok).filter((t) => t !== 'application/json'),
      });
    }
  }
  const seen = new Set<string>();
  for (const o of out) {
    const key = `${o.ts.group}.${o.ts.method}`;
    if (seen.has(key)) throw new Error(`${o.path}: another operation is also ${key}`);
    seen.add(key);
  }
  return out;
}
