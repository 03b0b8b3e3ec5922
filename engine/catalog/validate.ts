// What turns a request's raw values into an endpoint's parameters: each value coerced strictly by type,
// then the endpoint's check (engine/catalog/checks.ts compiles it from the catalog) run; its first error
// becomes the message. This is the only file that turns validation failures into words.
import type { ErrorObject } from 'ajv';
import { ApiError, badInput, invalidParam, missingParam } from '../errors.js';
import type { EndpointSpec, ParamSpec, Rule, RuleCondition } from './load.js';
import { patternWords, rulesOf } from './request-schema.js';
import type { Params, UploadedFile } from '../types.js';

/** An endpoint's compiled request schema (ajv's validate function, compiled at boot or at build). */
export interface Check {
  (params: Params): boolean;
  errors?: ErrorObject[] | null;
}

function coerce(name: string, p: ParamSpec, raw: unknown): unknown {
  if (typeof raw !== 'string') throw invalidParam(name, 'must be a single value');
  if (raw.includes('\u0000')) throw invalidParam(name, 'must not contain NUL bytes');
  switch (p.type) {
    case 'integer':
      if (!/^[+-]?\d{1,15}$/.test(raw.trim())) throw invalidParam(name, 'must be an integer');
      return Number(raw.trim());
    case 'number':
      if (!/^[+-]?(\d{1,15}(\.\d{0,15})?|\.\d{1,15})$/.test(raw.trim())) throw invalidParam(name, 'must be a number');
      return Number(raw.trim());
    case 'boolean': {
      const v = raw.trim().toLowerCase();
      if (v === 'true' || v === '1') return true;
      if (v === 'false' || v === '0') return false;
      throw invalidParam(name, 'must be true or false');
    }
    default:
      return raw;
  }
}

const given = (params: Params, names: string[]) => names.filter((n) => params[n] !== undefined);
const listed = (names: string[]) => (names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`);
const conditionWords = (cond: RuleCondition) =>
  Object.entries(cond)
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(' or ') : v}`)
    .join(' and ');

/** The words of a broken cross-parameter rule. */
function ruleMessage(rule: Rule, params: Params): ApiError {
  if (rule.message) return badInput(rule.message);
  if ('anyOf' in rule) return missingParam(rule.anyOf.join(' or '));
  if ('exclusive' in rule) {
    const [first, second] = given(params, rule.exclusive);
    return invalidParam(second, `cannot be combined with ${first}; give one of ${listed(rule.exclusive)}`);
  }
  const missing = (rule.require ?? []).find((n) => params[n] === undefined);
  if (missing) return missingParam(missing);
  const [extra] = given(params, rule.forbid ?? []);
  const unlike = Object.entries(rule.match ?? {}).find(([n, p]) => typeof params[n] === 'string' && !new RegExp(p, 'u').test(params[n]));
  if (!extra && unlike)
    return invalidParam(
      unlike[0],
      `must be in the form ${unlike[1]} ${rule.given ? `with ${rule.given.join(' and ')}` : rule.when ? `with ${conditionWords(rule.when)}` : `unless ${conditionWords(rule.unless)}`}`,
    );
  if (rule.given) return invalidParam(extra, `is not used with ${rule.given.join(' and ')}`);
  return rule.when
    ? invalidParam(extra, `is not used with ${conditionWords(rule.when)}`)
    : invalidParam(extra, `is only used with ${conditionWords(rule.unless)}`);
}

/** Turns the first ajv error into the spec's words. */
export function messageOf(spec: EndpointSpec, e: ErrorObject): ApiError {
  if (e.keyword === 'required') return missingParam(String(e.params.missingProperty));
  const name = e.instancePath.replace(/^\//, '').split('/')[0];
  const p = spec.params[name];
  switch (e.keyword) {
    case 'enum':
      return invalidParam(name, `must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`);
    case 'minimum':
    case 'maximum':
      if (p?.minimum !== undefined && p.maximum !== undefined) return invalidParam(name, `must be between ${p.minimum} and ${p.maximum}`);
      return invalidParam(name, e.keyword === 'minimum' ? `must be at least ${p?.minimum}` : `must be at most ${p?.maximum}`);
    case 'maxLength':
      return invalidParam(name, `must be at most ${e.params.limit} characters`);
    case 'minLength':
      return invalidParam(name, `must be at least ${e.params.limit} characters`);
    case 'pattern':
      return invalidParam(name, patternWords(p));
    case 'format':
      return invalidParam(
        name,
        { url: 'must be an http(s) URL', ip: 'must be an IPv4 or IPv6 address', domain: 'must be a domain name such as example.com' }[
          String(e.params.format)
        ] ?? 'has the wrong format',
      );
    case 'hosts':
      return invalidParam(name, `must be an http(s) URL on ${p?.hosts?.join(', ')}`);
    case 'type':
      return invalidParam(name, `must be a ${e.params.type}`);
    default:
      return invalidParam(name, e.message ?? 'is not valid');
  }
}

export type EndpointValidator = (raw: Record<string, unknown>, files: Record<string, UploadedFile>) => Params;

export function validatorOf(spec: EndpointSpec, check: Check): EndpointValidator {
  const rules = rulesOf(spec);
  const names = Object.keys(spec.params);
  return (raw, files) => {
    const params: Params = {};
    for (const name of names) {
      const p = spec.params[name];
      if (p.type === 'file' && files[name]) {
        params[name] = files[name];
        continue;
      }
      const value = raw[name];
      if (value === undefined || value === '') continue; // empty means absent: defaults apply, required fails
      if (p.type === 'file' && !p.orText) throw invalidParam(name, 'must be a multipart file upload');
      params[name] = coerce(name, p, value);
    }
    // Defaults first, so that a rule's condition sees them (ajv fills them only after its `allOf`).
    for (const name of names)
      if (params[name] === undefined && spec.params[name].default !== undefined) params[name] = spec.params[name].default;
    if (!check(params)) {
      const e = check.errors![0];
      const rule = /^#\/allOf\/1\/allOf\/(\d+)\//.exec(e.schemaPath);
      throw rule ? ruleMessage(rules[Number(rule[1])], params) : messageOf(spec, e);
    }
    return params;
  };
}
