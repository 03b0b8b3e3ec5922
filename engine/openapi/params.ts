// Parameters as JSON Schema for the document: one property per parameter, and the object schema with the
// rules between parameters (required, "one of", "required when"), from which the example request is built.
import { Ajv } from 'ajv';
import type { EndpointSpec, ParamSpec } from '../catalog.js';
import { DEFAULT_MAX_LENGTH } from '../validate.js';

/** One parameter's schema; `file` is the multipart form (binary) or the text form (a string). */
export function propertySchema(p: ParamSpec, file: 'binary' | 'text' = 'text'): Record<string, unknown> {
  if (p.type === 'file') {
    if (file === 'binary') return { type: 'string', format: 'binary', description: p.description };
    return { type: 'string', maxLength: p.maxLength ?? DEFAULT_MAX_LENGTH, description: p.description };
  }
  const s: Record<string, unknown> = { type: p.type };
  for (const k of ['enum', 'minimum', 'maximum', 'minLength', 'pattern', 'default', 'examples'] as const) {
    if (p[k] !== undefined) s[k] = p[k];
  }
  if (p.type === 'string') s.maxLength = p.maxLength ?? DEFAULT_MAX_LENGTH;
  if (p.format === 'url') s.format = 'uri';
  return s;
}

/** The words for a parameter's rules that a schema of its own cannot carry. */
export function ruleWords(spec: EndpointSpec, name: string): string[] {
  const p = spec.params[name];
  const out: string[] = [];
  if (p.requiredWhen) out.push(`Required when ${Object.entries(p.requiredWhen).map(([k, v]) => `${k} is ${v}`).join(' and ')}.`);
  if (spec.requireOneOf?.includes(name)) out.push(`Send at least one of ${spec.requireOneOf.join(', ')}.`);
  if (p.format === 'url') out.push(p.hosts ? `An http(s) URL on ${p.hosts.join(', ')}.` : 'An http(s) URL.');
  if (p.format === 'ip') out.push('An IPv4 or IPv6 address.');
  if (p.format === 'domain') out.push('A domain name such as example.com.');
  if (p.patternHint) out.push(`Must be ${p.patternHint}.`);
  return out;
}

/** The rules between parameters, as JSON Schema keywords of the parameter object. */
export function crossRules(spec: EndpointSpec): Record<string, unknown> {
  const allOf: object[] = [];
  for (const [name, p] of Object.entries(spec.params)) {
    if (!p.requiredWhen) continue;
    const cond = Object.fromEntries(Object.entries(p.requiredWhen).map(([k, v]) => [k, { const: v }]));
    allOf.push({ if: { properties: cond, required: Object.keys(cond) }, then: { required: [name] } });
  }
  return {
    ...(spec.requireOneOf ? { anyOf: spec.requireOneOf.map((n) => ({ required: [n] })) } : {}),
    ...(allOf.length ? { allOf } : {}),
  };
}

/** The parameter object of an endpoint: properties, `required` and the rules between them. */
export function parametersSchema(spec: EndpointSpec, file: 'binary' | 'text' = 'text'): Record<string, unknown> {
  const properties = Object.fromEntries(Object.entries(spec.params).map(([n, p]) => [n, propertySchema(p, file)]));
  const required = Object.entries(spec.params).filter(([, p]) => p.required).map(([n]) => n);
  return { type: 'object', properties, ...(required.length ? { required } : {}), ...crossRules(spec) };
}

/** A value that suits the parameter, or undefined when none can be made up (a pattern without examples). */
export function exampleValue(p: ParamSpec): string | number | boolean | undefined {
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

const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });

/**
 * The smallest valid request: the required parameters, then whatever the rules ask for next (the first
 * branch of a "one of", a parameter that a chosen value makes required), until the schema is satisfied.
 */
export function exampleRequest(spec: EndpointSpec): Record<string, string | number | boolean> {
  const check = ajv.compile(parametersSchema(spec));
  const out: Record<string, string | number | boolean> = {};
  const valid = (): boolean => check(out);
  for (let round = 0; round < 20 && !valid(); round++) {
    const missing = check.errors?.find((e) => e.keyword === 'required' && out[e.params.missingProperty] === undefined);
    const name = missing?.params.missingProperty as string | undefined;
    const value = name && spec.params[name] ? exampleValue(spec.params[name]) : undefined;
    if (value === undefined) break;
    out[name!] = value;
  }
  return out;
}
