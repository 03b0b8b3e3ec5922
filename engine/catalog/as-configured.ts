// An endpoint as this server takes it. Without a pooled key for its provider, an endpoint that lets callers
// bring their own (`upstream_key`, gen-models) cannot answer without one: the adapter asks for it with
// `Missing required parameter: upstream_key`. The OpenAPI document and the MCP tools are built from this,
// at boot, so they say the key is required exactly where this server requires it.
import type { EndpointSpec } from './load.js';

export function asConfigured(spec: EndpointSpec, pooled: (upstream: string) => boolean): EndpointSpec {
  const key = spec.params.upstream_key;
  if (!key || key.required || pooled(spec.upstream)) return spec;
  return { ...spec, params: { ...spec.params, upstream_key: { ...key, required: true, examples: key.examples ?? ['your-provider-key'] } } };
}
