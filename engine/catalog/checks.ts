// Compiles each endpoint's request schema into a check function with ajv, and writes the same checks as
// source (ajv's standalone code) for the compiled catalog (engine/catalog/compiled.ts). Loaded only when a
// catalog has to be compiled: a boot from a compiled catalog never imports ajv's compiler.
import { Ajv2020 as Ajv } from 'ajv/dist/2020.js';
import { _ } from 'ajv';
import standalone from 'ajv/dist/standalone/index.js';
import type { EndpointSpec } from './load.js';
import { DEFAULT_MAX_LENGTH, requestSchema, type JsonSchema } from './request-schema.js';
import { formats, onHosts } from './formats.js';
import { validatorOf, type Check, type EndpointValidator } from './validate.js';

// validateSchema off: the schemas are made by request-schema.ts from a catalog already checked against its
// own schema, and checking each against JSON Schema's meta-schema took a third of the compile time.
// code.source keeps each check's source for standalone code, where `formats` and `onHosts` are names the
// compiled catalog's loader binds (engine/catalog/compiled.ts).
function newAjv(): Ajv {
  const ajv = new Ajv({
    allErrors: false,
    useDefaults: true,
    coerceTypes: false,
    strict: false,
    validateSchema: false,
    code: { source: true, formats: _`formats` },
  });
  for (const [name, format] of Object.entries(formats)) ajv.addFormat(name, format);
  ajv.addKeyword({
    keyword: 'hosts',
    type: 'string',
    schemaType: 'array',
    code(cxt) {
      const fn = cxt.gen.scopeValue('func', { ref: onHosts, code: _`onHosts` });
      cxt.fail(_`!${fn}(${cxt.schemaValue}, ${cxt.data})`);
    },
  });
  return ajv;
}

/** The compiled form: a file param's value is an upload (checked by presence), or text when orText. */
function runtimeSchema(spec: EndpointSpec): JsonSchema {
  const schema = requestSchema(spec);
  const properties = { ...(schema.properties as Record<string, JsonSchema>) };
  for (const [name, p] of Object.entries(spec.params)) {
    if (p.type === 'file') properties[name] = p.orText ? { maxLength: p.maxLength ?? DEFAULT_MAX_LENGTH } : {};
    // ajv checks `enum` before `pattern`; a malformed value is better told by its pattern's words.
    else if (p.enum && p.pattern) {
      const { enum: values, ...rest } = properties[name];
      properties[name] = { allOf: [rest, { enum: values }] };
    }
    // ajv checks `pattern` before `format` and `hosts`; a URL on the wrong site is better told so first.
    else if (p.pattern && (p.format || p.hosts)) {
      const { pattern, ...rest } = properties[name];
      properties[name] = { allOf: [rest, { pattern }] };
    }
  }
  // Each value's own rules first, then the rules between them: a wrong enum is named before a rule it trips.
  const { allOf: rules, ...own } = schema;
  return { allOf: [{ ...own, properties }, { allOf: rules ?? [true] }] };
}

/** One check per endpoint id, and their source as one CommonJS module exporting each under its id. */
export function compileChecks(endpoints: EndpointSpec[]): { checks: Map<string, Check>; source: () => string } {
  const ajv = newAjv();
  for (const spec of endpoints) ajv.addSchema(runtimeSchema(spec), spec.id);
  const checks = new Map(endpoints.map((spec) => [spec.id, ajv.getSchema(spec.id) as Check]));
  return { checks, source: () => standalone.default(ajv, Object.fromEntries(endpoints.map((e) => [e.id, e.id]))) };
}

/** A validator compiled on the spot (tests, and the catalog check). */
export function compileValidator(spec: EndpointSpec): EndpointValidator {
  return validatorOf(spec, newAjv().compile(runtimeSchema(spec)) as Check);
}
