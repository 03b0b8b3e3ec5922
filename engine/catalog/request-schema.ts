// The JSON Schema (2020-12) of an endpoint's parameters, built from its catalog entry: one property per
// parameter and the cross-parameter rules as standard keywords. engine/catalog/validate.ts compiles it; the
// OpenAPI document and the MCP tool list reuse it, so what is documented is what is enforced.
//
// Standard keywords carry every rule but three, which ajv is taught in validate.ts:
//   format: url     an http(s) URL (documents may show it as `uri`)
//   format: domain  a host name such as example.com; a scheme, www., a path or a port around it is allowed
//   format: ip      an IPv4 or IPv6 address
//   hosts: [...]    on a url: its host is one of these or a subdomain of one
// Values arrive as text (query string, form) or JSON scalars; validate.ts coerces them to the declared
// type before this schema sees them. A `file` parameter is `{ type: string, format: binary }` here and
// is checked by presence only.
import type { EndpointSpec, ParamSpec, Rule, RuleCondition } from './load.js';

export const DEFAULT_MAX_LENGTH = 2048;

export type JsonSchema = Record<string, unknown>;

const KEYWORDS = ['enum', 'minimum', 'maximum', 'minLength', 'pattern', 'format', 'hosts', 'default'] as const;

/** What a param's pattern asks, as the words after its name: "must be 2 to 10 letters", "must link to a post". */
export const patternWords = (p: ParamSpec | undefined): string =>
  p?.patternHint?.startsWith('must ') ? p.patternHint : `must be ${p?.patternHint ?? `in the form ${p?.pattern}`}`;

/** The schema of one parameter's value. */
export function paramSchema(p: ParamSpec): JsonSchema {
  if (p.type === 'file')
    return p.orText ? { type: 'string', maxLength: p.maxLength ?? DEFAULT_MAX_LENGTH } : { type: 'string', format: 'binary' };
  const s: JsonSchema = { type: p.type };
  for (const k of KEYWORDS) if (p[k] !== undefined) s[k] = p[k];
  if (p.type === 'string') s.maxLength = p.maxLength ?? DEFAULT_MAX_LENGTH;
  return s;
}

/** "every listed param has its value": a value, or a list of allowed values. An absent param whose
 * default satisfies the condition counts as satisfying it. */
function conditionSchema(spec: EndpointSpec, cond: RuleCondition): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, want] of Object.entries(cond)) {
    const values = Array.isArray(want) ? want : [want];
    properties[name] = values.length === 1 ? { const: values[0] } : { enum: values };
    const dflt = spec.params[name]?.default;
    if (dflt === undefined || !values.includes(dflt)) required.push(name);
  }
  return { properties, ...(required.length ? { required } : {}) };
}

const anyPresent = (names: string[]): JsonSchema =>
  names.length === 1 ? { required: names } : { anyOf: names.map((n) => ({ required: [n] })) };

const pairs = (names: string[]) => names.flatMap((a, i) => names.slice(i + 1).map((b) => [a, b]));

/** One catalog rule as JSON Schema. */
export function ruleSchema(spec: EndpointSpec, rule: Rule): JsonSchema {
  // One name: required by the rule though the spec lists it optional (an anyOf of one would be illogical).
  if ('anyOf' in rule) return rule.anyOf.length === 1 ? { required: rule.anyOf } : { anyOf: rule.anyOf.map((n) => ({ required: [n] })) };
  if ('exclusive' in rule) {
    const both = pairs(rule.exclusive).map((pair) => ({ required: pair }));
    return { not: both.length === 1 ? both[0] : { anyOf: both } };
  }
  const then: JsonSchema[] = [];
  if (rule.require?.length) then.push({ required: rule.require });
  if (rule.forbid?.length) then.push({ not: anyPresent(rule.forbid) });
  if (rule.match) then.push({ properties: Object.fromEntries(Object.entries(rule.match).map(([n, pattern]) => [n, { pattern }])) });
  const effect = then.length === 1 ? then[0] : { allOf: then };
  if (rule.given)
    return rule.given.length === 1 && !rule.forbid && !rule.match
      ? { dependentRequired: { [rule.given[0]]: rule.require } }
      : { if: { required: rule.given }, then: effect };
  if (rule.when) return { if: conditionSchema(spec, rule.when), then: effect };
  return { if: conditionSchema(spec, rule.unless), else: effect };
}

/** A param's `requiredWhen`, as the rule it is. */
const requiredWhenRules = (spec: EndpointSpec): Rule[] =>
  Object.entries(spec.params)
    .filter(([, p]) => p.requiredWhen)
    .map(([name, p]) => ({ when: p.requiredWhen!, require: [name] }));

/** Every cross-parameter rule of an endpoint, in the order they are checked. */
export function rulesOf(spec: EndpointSpec): Rule[] {
  return [...requiredWhenRules(spec), ...(spec.rules ?? [])];
}

/**
 * The JSON Schema of an endpoint's parameters (apikey left out): `properties`, `required`, and the
 * cross-parameter rules under `allOf`, one entry per rule in the order of rulesOf(spec):
 *   anyOf: [a, b]               → { anyOf: [{ required: [a] }, { required: [b] }] }   (anyOf: [a] → { required: [a] })
 *   exclusive: [a, b]           → { not: { required: [a, b] } }   (more names: not anyOf of every pair)
 *   when: {m: v}, require: [a]  → { if: { properties: { m: { const: v } }, required: [m] }, then: { required: [a] } }
 *   unless: ..., forbid: [a]    → { if: ..., else: { not: { required: [a] } } }
 *   given: [g], require: [a]    → { dependentRequired: { g: [a] } }
 *   given: [g], forbid: [a]     → { if: { required: [g] }, then: { not: { required: [a] } } }
 *   when: ..., match: {a: p}    → { if: ..., then: { properties: { a: { pattern: p } } } }
 */
export function requestSchema(spec: EndpointSpec): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, p] of Object.entries(spec.params)) {
    properties[name] = paramSchema(p);
    if (p.required) required.push(name);
  }
  const rules = rulesOf(spec).map((r) => ruleSchema(spec, r));
  return { type: 'object', properties, required, ...(rules.length ? { allOf: rules } : {}) };
}
