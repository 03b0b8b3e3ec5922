// Loads catalog/*.yaml, validates each file against its JSON schema and stops the boot with the file,
// endpoint and field named when something is wrong.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { Ajv, type ErrorObject } from 'ajv';
import { categorySchema, plansSchema, upstreamsSchema } from './schema.js';
import type { PolicySpec } from '../upstream/policy.js';

export type ParamType = 'string' | 'integer' | 'number' | 'boolean' | 'file';

export interface ParamSpec {
  type: ParamType;
  description: string;
  required?: boolean;
  requiredWhen?: Record<string, string | number | boolean>;
  enum?: Array<string | number | boolean>;
  examples?: Array<string | number | boolean>;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  /** What the pattern asks, told as `must be <hint>`; a hint that starts with "must " is told as it is. */
  patternHint?: string;
  format?: 'url' | 'ip' | 'domain';
  hosts?: string[];
  orText?: boolean;
  default?: string | number | boolean;
}

type Scalar = string | number | boolean;

/** Every listed param has this value (or one of these values); defaults count. */
export type RuleCondition = Record<string, Scalar | Scalar[]>;

/**
 * A rule between parameters. `message`, when given, replaces the default words of the 400:
 *   anyOf      Missing required parameter: a or b
 *   exclusive  Invalid value for b: cannot be combined with a; give one of a or b
 *   require    Missing required parameter: a
 *   forbid     Invalid value for a: is not used with m=v   (unless: is only used with m=v; given: with g)
 *   match      Invalid value for a: must be in the form <pattern>, with m=v   (a given param's pattern under the condition)
 * The condition of require/forbid/match is `when` (values hold), `unless` (they do not) or `given` (params present).
 */
export type Rule =
  | { anyOf: string[]; message?: string }
  | { exclusive: string[]; message?: string }
  | ((
      | { when: RuleCondition; unless?: undefined; given?: undefined }
      | { unless: RuleCondition; when?: undefined; given?: undefined }
      | { given: string[]; when?: undefined; unless?: undefined }
    ) & { require?: string[]; forbid?: string[]; match?: Record<string, string>; message?: string });

export interface EndpointSpec {
  category: string;
  name: string;
  /** `category/name` */
  id: string;
  method: 'GET' | 'POST';
  summary: string;
  adapter: string;
  upstream: string;
  /** Providers the engine asks in order when the endpoint's own is not configured, fails or is unavailable. */
  fallback?: Array<{ upstream: string; adapter: string }>;
  /** Upstreams an embedded endpoint's adapter also calls (an edition its data lacks, a provider with a pooled key). */
  uses?: string[];
  /** Media types of the raw answer a client gets by asking for one in Accept (else the JSON envelope). */
  media?: string[];
  cache?: string;
  timeout?: string;
  options?: Record<string, unknown>;
  /** Cross-parameter rules (see engine/catalog/request-schema.ts for their JSON Schema). */
  rules?: Rule[];
  params: Record<string, ParamSpec>;
  response: Record<string, unknown>;
}

export interface PlanSpec {
  id: string;
  limit: number;
  window: string;
  keyedBy: 'key' | 'key+ip' | 'shared';
  description: string;
}

export interface UpstreamSpec {
  name: string;
  url?: string;
  docs: string;
  timeout?: string;
  retries?: number;
  policy?: PolicySpec;
  auth?: { in: 'bearer' | 'header' | 'query' | 'json' | 'form'; name?: string; required?: boolean };
  selfHost?: string;
  settings?: Record<string, unknown>;
}

export interface Catalog {
  endpoints: EndpointSpec[];
  plans: Record<string, PlanSpec>;
  upstreams: Record<string, UpstreamSpec>;
}

export class CatalogError extends Error {}

// validateSchema off: the three schemas are the project's own (schema.ts), tested, not read at run time.
const ajv = new Ajv({ allErrors: false, strict: false, validateSchema: false });
const checkCategory = ajv.compile(categorySchema);
const checkPlans = ajv.compile(plansSchema);
const checkUpstreams = ajv.compile(upstreamsSchema);

function readYaml(file: string): unknown {
  try {
    return YAML.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CatalogError(`${file}: not valid YAML: ${(err as Error).message}`);
  }
}

/** "endpoints/3/params/amount/minimum" → "endpoint anime-images-b, field params.amount.minimum" */
export function describeSchemaError(file: string, doc: unknown, error: ErrorObject): string {
  const parts = error.instancePath.split('/').filter(Boolean);
  let where = '';
  if (parts[0] === 'endpoints' && parts[1] !== undefined) {
    const ep = (doc as { endpoints?: Array<{ name?: string }> }).endpoints?.[Number(parts[1])];
    where = `endpoint ${ep?.name ?? `#${parts[1]}`}, `;
    parts.splice(0, 2);
  }
  const field = [...parts, error.params?.missingProperty ?? error.params?.additionalProperty ?? ''].filter(Boolean).join('.');
  return `${file}: ${where}field ${field || '(top level)'}: ${error.message}`;
}

function validated<T>(file: string, check: ReturnType<typeof ajv.compile>): T {
  const doc = readYaml(file);
  if (!check(doc)) throw new CatalogError(describeSchemaError(file, doc, check.errors![0]));
  return doc as T;
}

/** [rule index, param name] of every param a rule names. */
export function ruleParams(rules: Rule[]): Array<[number, string]> {
  return rules.flatMap((r, i) => {
    const named =
      'anyOf' in r
        ? r.anyOf
        : 'exclusive' in r
          ? r.exclusive
          : [
              ...Object.keys(r.when ?? r.unless ?? {}),
              ...(r.given ?? []),
              ...(r.require ?? []),
              ...(r.forbid ?? []),
              ...Object.keys(r.match ?? {}),
            ];
    return named.map((n): [number, string] => [i, n]);
  });
}

export function loadCatalog(dir: string): Catalog {
  const plansDoc = validated<{ plans: Record<string, Omit<PlanSpec, 'id'>> }>(path.join(dir, 'plans.yaml'), checkPlans);
  const upstreamsDoc = validated<{ upstreams: Record<string, UpstreamSpec> }>(path.join(dir, 'upstreams.yaml'), checkUpstreams);
  const endpoints: EndpointSpec[] = [];
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') && f !== 'plans.yaml' && f !== 'upstreams.yaml')
    .sort();
  for (const f of files) {
    const file = path.join(dir, f);
    const doc = validated<{ category: string; endpoints: Array<Omit<EndpointSpec, 'category' | 'id'>> }>(file, checkCategory);
    for (const ep of doc.endpoints) {
      const where = `${file}: endpoint ${ep.name}`;
      if (ep.upstream !== 'embedded' && !upstreamsDoc.upstreams[ep.upstream]) {
        throw new CatalogError(`${where}, field upstream: unknown upstream "${ep.upstream}" (not in upstreams.yaml)`);
      }
      for (const { upstream } of ep.fallback ?? []) {
        if (!upstreamsDoc.upstreams[upstream])
          throw new CatalogError(`${where}, field fallback: unknown upstream "${upstream}" (not in upstreams.yaml)`);
      }
      for (const id of ep.uses ?? []) {
        if (!upstreamsDoc.upstreams[id]) throw new CatalogError(`${where}, field uses: unknown upstream "${id}" (not in upstreams.yaml)`);
      }
      for (const [name, p] of Object.entries(ep.params)) {
        for (const other of Object.keys(p.requiredWhen ?? {})) {
          if (!ep.params[other]) throw new CatalogError(`${where}, field params.${name}.requiredWhen: unknown param "${other}"`);
        }
        if (p.pattern) {
          try {
            new RegExp(p.pattern);
          } catch {
            throw new CatalogError(`${where}, field params.${name}.pattern: not a valid regular expression`);
          }
        }
      }
      for (const [i, name] of ruleParams(ep.rules ?? [])) {
        if (!ep.params[name]) throw new CatalogError(`${where}, field rules.${i}: unknown param "${name}"`);
      }
      const id = `${doc.category}/${ep.name}`;
      if (endpoints.some((e) => e.id === id)) throw new CatalogError(`${where}: defined twice`);
      endpoints.push({ ...ep, category: doc.category, id });
    }
  }
  const plans: Record<string, PlanSpec> = {};
  for (const [id, p] of Object.entries(plansDoc.plans)) plans[id] = { ...p, id };
  return { endpoints, plans, upstreams: upstreamsDoc.upstreams };
}
