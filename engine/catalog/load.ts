// Loads catalog/*.yaml, validates each file against its JSON schema and the cross-checks, and stops the
// boot with every problem of every file at once, each as `file:line:column endpoint, field: what`.
import fs from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { categorySchema, plansSchema, upstreamsSchema } from './schema.js';
import { CatalogError, Problems } from './problems.js';
import { crossCheck } from './cross-checks.js';
import { explain } from './schema-errors.js';
import { readYamlSource, shownPath, type YamlSource } from './yaml-source.js';

export { CatalogError } from './problems.js';

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
  /** For url params: hosts of short or share links, followed to the link they stand for before validation. */
  shortLinks?: string[];
  orText?: boolean;
  /** A credential: the request log keeps `[redacted]` in its place (features/request-log/redact.ts). */
  secret?: boolean;
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
  /** Outside the customer's spec, on purpose: scripts/check-catalog.ts names it instead of failing. */
  extension?: boolean;
  /** `category/name` */
  id: string;
  method: 'GET' | 'POST';
  summary: string;
  /** What a person calls it ("TikTok video without watermark"); the reference shows it beside the id. */
  title?: string;
  adapter: string;
  upstream: string;
  /** Providers the engine asks in order when the endpoint's own is not configured, fails or is unavailable. */
  fallback?: Array<{ upstream: string; adapter: string }>;
  /** Upstreams the adapter calls besides `upstream:` (an edition embedded data lacks, a geocoder, a second opinion). */
  uses?: string[];
  /** Media types of the raw answer a client gets by asking for one in Accept (else the JSON envelope). */
  media?: string[];
  /** The answer's list of remote media, each an object with a `url` (features/media/ links them). */
  mediaItems?: string;
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
  /** Days the request log keeps this plan's calls (features/request-log/retention.ts); 1 when not given. */
  logDays?: number;
}

/** `policy:` of an upstream (engine/catalog/schema.ts checks it). */
export interface PolicySpec {
  /** Exchanges in flight at once; more wait in line (`queue` of them, at most `queueWait`, then 503). */
  concurrency?: number;
  queue?: number;
  queueWait?: string;
  /** The request paths the concurrency bound applies to (default: every call), e.g. a search but not a quota read. */
  concurrencyFor?: string[];
  /** At most `limit` exchanges per `per`; beyond it, 503 upstream_busy with Retry-After, without asking. */
  rate?: { limit: number; per: string };
  /** Exchanges spaced at least this much apart, waiting in line (a WAF that bans bursts). */
  minInterval?: string;
  /** Opens after `failures` consecutive failures, or a failure `ratio` over `window` (at least `minCalls`). */
  breaker?: false | { failures?: number; ratio?: number; window?: string; minCalls?: number; cooldown?: string };
  /** Answers that pause the upstream: at once, or after `count` of them `within` a window. */
  pauseOn?: Array<{ status: number; for: string; count?: number; within?: string; message?: string }>;
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

// allErrors: a maintainer fixes every mistake of a file in one go. verbose: the messages quote the value
// found and the schema's allowed values. validateSchema off: the three schemas are the project's own
// (schema.ts), tested, not read at run time.
const ajv = new Ajv({ allErrors: true, verbose: true, strict: false, validateSchema: false });
const checkCategory = ajv.compile(categorySchema);
const checkPlans = ajv.compile(plansSchema);
const checkUpstreams = ajv.compile(upstreamsSchema);

export interface CatalogReading {
  /** What was read; an endpoint with a problem of its own is left out. */
  catalog: Catalog;
  /** Every problem found, one line each, in file order. */
  problems: string[];
  /** `category/name` of the endpoints left out for a problem of their own. */
  refused: string[];
  /** Each category file and the category it says it holds. */
  categories: Array<{ file: string; category: unknown }>;
}

function read(file: string, problems: Problems): YamlSource | undefined {
  try {
    const source = readYamlSource(file);
    for (const line of source.syntaxErrors) problems.addLine(line, source.shown);
    return source;
  } catch (err) {
    problems.addLine(`${shownPath(file)}: cannot be read: ${(err as Error).message}`);
    return undefined;
  }
}

/** The file's schema problems; the indexes of the endpoints they concern, or 'file' for the file as a whole. */
function schemaCheck(source: YamlSource, check: ReturnType<typeof ajv.compile>, problems: Problems): Set<number | 'file'> {
  const concerned = new Set<number | 'file'>();
  if (source.data === undefined || check(source.data)) return concerned;
  for (const p of explain(check.errors ?? [])) {
    problems.add(source, p.steps, p.message, { key: p.key, field: p.field });
    concerned.add(p.steps[0] === 'endpoints' && p.steps.length > 1 ? Number(p.steps[1]) : 'file');
  }
  return concerned;
}

const asMap = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** Reads and checks the catalog in `dir`, gathering every problem instead of stopping at the first. */
export function readCatalog(dir: string): CatalogReading {
  const problems = new Problems();
  const plansSource = read(path.join(dir, 'plans.yaml'), problems);
  if (plansSource) schemaCheck(plansSource, checkPlans, problems);
  const upstreamsSource = read(path.join(dir, 'upstreams.yaml'), problems);
  if (upstreamsSource) schemaCheck(upstreamsSource, checkUpstreams, problems);
  const upstreams = asMap(asMap(upstreamsSource?.data).upstreams) as Record<string, UpstreamSpec>;
  const upstreamIds = new Set(Object.keys(upstreams));

  const endpoints: EndpointSpec[] = [];
  const refused: string[] = [];
  const categories: CatalogReading['categories'] = [];
  const firstAt = new Map<string, string>();
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') && f !== 'plans.yaml' && f !== 'upstreams.yaml')
    .sort();
  for (const f of files) {
    const file = path.join(dir, f);
    const source = read(file, problems);
    if (source?.data === undefined) continue;
    const doc = asMap(source.data);
    categories.push({ file, category: doc.category });
    const concerned = schemaCheck(source, checkCategory, problems);
    const list: unknown[] = Array.isArray(doc.endpoints) ? doc.endpoints : [];
    crossCheck(list, upstreamIds, (steps, message, place) => {
      problems.add(source, steps, message, place);
      concerned.add(Number(steps[1]));
    });
    for (const [i, value] of list.entries()) {
      const ep = asMap(value) as unknown as Omit<EndpointSpec, 'category' | 'id'>;
      const id = `${String(doc.category)}/${String(ep.name)}`;
      const first = firstAt.get(id);
      if (first) {
        problems.add(source, ['endpoints', i, 'name'], `defined twice (first at ${first})`, { field: ['endpoints', i] });
        concerned.add(i);
      } else firstAt.set(id, source.at(['endpoints', i, 'name']));
      if (concerned.has(i) || concerned.has('file')) refused.push(id);
      else endpoints.push({ ...ep, category: doc.category as string, id });
    }
  }
  const plans: Record<string, PlanSpec> = {};
  for (const [id, p] of Object.entries(asMap(asMap(plansSource?.data).plans))) plans[id] = { ...(p as Omit<PlanSpec, 'id'>), id };
  return { catalog: { endpoints, plans, upstreams }, problems: problems.lines, refused, categories };
}

/** The catalog in `dir`; a CatalogError listing every problem, one per line, when there is any. */
export function loadCatalog(dir: string): Catalog {
  const { catalog, problems } = readCatalog(dir);
  if (problems.length) throw new CatalogError(problems);
  return catalog;
}
