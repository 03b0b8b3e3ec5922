// Parameters as the document shows them, from the JSON Schema the validator compiles
// (engine/catalog/request-schema.ts): one property per parameter, the rules between parameters, their words, and
// the example request those rules accept.
import { createRequire } from 'node:module';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { EndpointSpec, ParamSpec, Rule, RuleCondition } from '../catalog/load.js';
import { paramSchema, patternWords, requestSchema, rulesOf, ruleSchema, type JsonSchema } from '../catalog/request-schema.js';

/**
 * A schema in the words of OpenAPI 3.1: `format: url` is `uri`, and the validator's own `hosts` keyword
 * becomes the extension `x-hosts` (the words of the description say it too).
 */
function documented(s: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...s };
  if (out.format === 'url') out.format = 'uri';
  if (out.hosts) {
    out['x-hosts'] = out.hosts;
    delete out.hosts;
  }
  return out;
}

/** One parameter's schema; a file is binary in multipart, and text (base64 or a URL) elsewhere when it may be. */
export function propertySchema(p: ParamSpec, form: 'multipart' | 'text' = 'text'): JsonSchema {
  const s = form === 'multipart' && p.type === 'file' ? { type: 'string', format: 'binary' } : paramSchema(p);
  return documented({ ...s, ...(p.examples ? { examples: p.examples } : {}) });
}

/** Sentences joined, each ending in a full stop (catalog descriptions often leave it out). */
export const sentences = (parts: string[]) =>
  parts
    .map((x) => x.trim())
    .filter(Boolean)
    .map((x) => (/[.!?)]$/.test(x) ? x : `${x}.`))
    .join(' ');

const list = (names: string[]) => names.map((n) => `\`${n}\``).join(', ');
const condition = (c: RuleCondition) =>
  Object.entries(c)
    .map(([k, v]) => `\`${k}\` is ${(Array.isArray(v) ? v : [v]).map((x) => `\`${x}\``).join(' or ')}`)
    .join(' and ');

/** A rule between parameters, in words. */
export function ruleWords(rule: Rule): string {
  if ('anyOf' in rule) return `Send at least one of ${list(rule.anyOf)}.`;
  if ('exclusive' in rule) return `Send at most one of ${list(rule.exclusive)}.`;
  const effect = [
    ...(rule.require?.length ? [`${list(rule.require)} ${rule.require.length > 1 ? 'are' : 'is'} required`] : []),
    ...(rule.forbid?.length ? [`${list(rule.forbid)} must not be sent`] : []),
    ...Object.entries(rule.match ?? {}).map(([n, p]) => `\`${n}\` must match \`${p}\``),
  ].join(' and ');
  if (rule.given) return `When ${list(rule.given)} ${rule.given.length > 1 ? 'are' : 'is'} sent, ${effect}.`;
  return rule.when ? `When ${condition(rule.when)}, ${effect}.` : `Unless ${condition(rule.unless)}, ${effect}.`;
}

/** What a parameter's own schema cannot say in words a reader sees at once. */
export function formatWords(p: ParamSpec): string[] {
  const out: string[] = [];
  if (p.format === 'url') out.push(p.hosts ? `An http(s) URL on ${p.hosts.join(', ')} (or a subdomain).` : 'An http(s) URL.');
  if (p.format === 'ip') out.push('An IPv4 or IPv6 address.');
  if (p.format === 'domain') out.push('A domain name such as example.com.');
  if (p.patternHint) out.push(`M${patternWords(p).slice(1)}.`);
  return out;
}

/** The rules naming this parameter, in words. */
export function rulesNaming(spec: EndpointSpec, name: string): string[] {
  return rulesOf(spec)
    .filter((r) => JSON.stringify(r).includes(`"${name}"`))
    .map(ruleWords);
}

/** The rules between parameters as JSON Schema (`allOf`, one entry per rule), or undefined without rules. */
export function crossRules(spec: EndpointSpec): JsonSchema | undefined {
  const rules = rulesOf(spec).map((r) => ruleSchema(spec, r));
  return rules.length ? { allOf: rules } : undefined;
}

/** The parameter object of an endpoint as a request body: properties, `required` and the rules between them. */
export function bodySchema(spec: EndpointSpec, form: 'multipart' | 'text'): JsonSchema {
  const s = requestSchema(spec);
  const properties = Object.fromEntries(
    Object.entries(spec.params).map(([n, p]) => [
      n,
      { ...propertySchema(p, form), description: sentences([p.description, ...formatWords(p)]) },
    ]),
  );
  const required = s.required as string[];
  return { ...s, properties, required: required.length ? required : undefined };
}

/** A value that suits the parameter, or undefined when none can be made up (a pattern without examples). */
function exampleValue(p: ParamSpec): string | number | boolean | undefined {
  const given = p.examples?.[0] ?? p.enum?.[0] ?? p.default;
  if (given !== undefined) return given;
  if (p.type === 'file') return 'Hello from the example request.';
  if (p.format === 'url') return p.hosts ? `https://www.${p.hosts[0]}/` : 'https://example.com/';
  if (p.format === 'domain') return 'example.com';
  if (p.format === 'ip') return '8.8.8.8';
  if (p.type === 'integer' || p.type === 'number') return p.minimum ?? 1;
  if (p.type === 'boolean') return true;
  return p.pattern ? undefined : 'hello';
}

// ajv's compiler, required at the first example (the OpenAPI document, the first probe): not at boot.
let ajv: Ajv2020 | undefined;
const compiler = () =>
  (ajv ??= new (createRequire(import.meta.url)('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020 }).Ajv2020({
    allErrors: true,
    strict: false,
    validateFormats: false,
  }));

/**
 * The smallest valid request: the required parameters, then whatever the rules ask for next (the first
 * name of a "one of", a parameter that a chosen value makes required), until the schema is satisfied.
 */
export function exampleRequest(spec: EndpointSpec): Record<string, string | number | boolean> {
  const check = compiler().compile(requestSchema(spec));
  const out: Record<string, string | number | boolean> = {};
  const valid = (): boolean => check(out);
  for (let round = 0; round < 20 && !valid(); round++) {
    const missing = check.errors?.find(
      (e) => (e.keyword === 'required' || e.keyword === 'dependentRequired') && out[e.params.missingProperty as string] === undefined,
    );
    const name = missing?.params.missingProperty as string | undefined;
    const value = name && spec.params[name] ? exampleValue(spec.params[name]) : undefined;
    if (value === undefined) break;
    out[name!] = value;
  }
  return out;
}
