// Whether an endpoint can answer on this server: embedded, or one of its upstreams (the main one or a
// fallback) has a base URL and, where the provider insists on one, a server key. Read from the same
// settings the upstream clients read (catalog/upstreams.yaml, UPSTREAM_<ID>_URL, UPSTREAM_<ID>_KEYS).
import type { EndpointSpec, UpstreamSpec } from '../catalog/load.js';
import { envId } from './client.js';

/** Why the endpoint can only fail here (what to set), or undefined when it is usable. */
export function unconfiguredNote(spec: EndpointSpec, upstreams: Record<string, UpstreamSpec>, env: NodeJS.ProcessEnv): string | undefined {
  if (spec.upstream === 'embedded') return undefined;
  const missing: string[] = [];
  for (const id of [spec.upstream, ...(spec.fallback ?? []).map((p) => p.upstream)]) {
    const lack = lacking(id, upstreams[id], env);
    if (!lack) return undefined;
    missing.push(lack);
  }
  return `Not configured on this server: the operator must set ${missing.join(', or ')}.`;
}

function lacking(id: string, u: UpstreamSpec | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const ENV = envId(id);
  if (!u) return `upstream ${id}`;
  const given = env[`UPSTREAM_${ENV}_URL`]?.trim();
  if (given?.toLowerCase() === 'off' || (!given && !u.url)) return `UPSTREAM_${ENV}_URL`;
  const keys = (env[`UPSTREAM_${ENV}_KEYS`] ?? '').split(',').some((k) => k.trim());
  if (u.auth?.required && !keys) return `UPSTREAM_${ENV}_KEYS`;
  return undefined;
}
