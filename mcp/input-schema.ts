// A tool's inputSchema: the JSON Schema the endpoint's validator compiles (engine/catalog/request-schema.ts), made
// portable for any MCP client's validator and worded for an agent:
// - the validator's own formats and keywords become standard ones (url → uri, ip → ipv4 or ipv6) or words
//   in the description (domain, hosts), since a client's ajv refuses keywords it does not know;
// - a file parameter (left out by the validator, which takes files from multipart) is a base64 string here:
//   the tool call sends it to the REST endpoint as a multipart upload (mcp/rest-request.ts);
// - every property carries the catalog's description and examples.
// The server still validates every call with the engine's validator, so a lenient client changes nothing.
import type { EndpointSpec, ParamSpec } from '../engine/catalog/load.js';
import { requestSchema } from '../engine/catalog/request-schema.js';

type Schema = Record<string, unknown>;

export function inputSchemaOf(spec: EndpointSpec): Schema {
  const base = requestSchema(spec) as { properties: Record<string, Schema>; required: string[]; allOf?: Schema[] };
  const properties: Record<string, Schema> = {};
  for (const [name, p] of Object.entries(spec.params)) {
    properties[name] = portable(base.properties[name] ?? {}, p);
  }
  return { type: 'object', properties, required: base.required, ...(base.allOf ? { allOf: base.allOf } : {}) };
}

function portable(checked: Schema, p: ParamSpec): Schema {
  const s: Schema = { ...checked };
  const words = [p.description];
  if (p.type === 'file') {
    s.type = 'string';
    if (s.format === 'binary') delete s.format;
    if (!p.orText) {
      s.contentEncoding = 'base64';
      words.push("Give the file's bytes in base64; they are uploaded as a multipart file.");
    }
  }
  if (p.format === 'url') {
    s.format = 'uri';
    s.pattern ??= '^[Hh][Tt][Tt][Pp][Ss]?://';
    words.push('An http(s) URL.');
  } else if (p.format === 'ip') {
    delete s.format;
    s.anyOf = [{ format: 'ipv4' }, { format: 'ipv6' }];
  } else if (p.format === 'domain') {
    delete s.format;
    words.push('A domain name such as example.com.');
  }
  if (s.hosts) {
    words.push(`Only URLs on ${(s.hosts as string[]).join(', ')} (or their subdomains).`);
    delete s.hosts;
  }
  if (p.patternHint) words.push(`It must be ${p.patternHint}.`);
  if (p.requiredWhen) {
    words.push(
      `Required when ${Object.entries(p.requiredWhen)
        .map(([k, v]) => `${k} is ${JSON.stringify(v)}`)
        .join(' and ')}.`,
    );
  }
  if (p.examples) s.examples = p.examples;
  s.description = words.join(' ');
  return s;
}
