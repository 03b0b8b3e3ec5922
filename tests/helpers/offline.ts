// Offline test support: sample parameters that satisfy an endpoint's requirements, and a dns.lookup that
// behaves as on a machine without network (IP literals and localhost resolve, every name is ENOTFOUND), so
// no test can reach a real service and none waits on a resolver that throttles bursts.
import dns from 'node:dns';
import type { EndpointSpec, RuleCondition } from '../../engine/catalog/load.js';
import { rulesOf } from '../../engine/catalog/request-schema.js';
import { sampleValue } from './samples.js';

/** Required params, then what the endpoint's rules ask for: conditionally required ones whose condition
 * holds (given or default), the first of an anyOf. */
export function sampleParams(spec: EndpointSpec): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, p] of Object.entries(spec.params)) if (p.required && p.type !== 'file') out[name] = sampleValue(p);
  const valueOf = (name: string) => out[name] ?? (spec.params[name]?.default !== undefined ? String(spec.params[name].default) : undefined);
  const holds = (cond: RuleCondition) =>
    Object.entries(cond).every(([k, v]) => (Array.isArray(v) ? v : [v]).map(String).includes(valueOf(k) ?? ''));
  for (const rule of rulesOf(spec)) {
    if ('anyOf' in rule) {
      if (!rule.anyOf.some((n) => out[n] !== undefined)) out[rule.anyOf[0]] = sampleValue(spec.params[rule.anyOf[0]]);
    } else if ('when' in rule && rule.when && holds(rule.when)) {
      for (const name of rule.require ?? []) out[name] ??= sampleValue(spec.params[name]);
    }
  }
  return out;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address?: unknown, family?: number) => void;
export const realLookup = dns.lookup;
/** Names the app tried to resolve: proof that the calls went out and met the missing network. */
export const lookedUp = new Set<string>();

/** dns.lookup as without network: IP literals and localhost resolve, every other name is ENOTFOUND. */
export function offlineLookup(hostname: string, options: unknown, callback?: LookupCallback): void {
  const cb = (typeof options === 'function' ? options : callback) as LookupCallback;
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || /^[\d.]+$/.test(host) || host.includes(':')) {
    (realLookup as unknown as (h: string, o: unknown, c: LookupCallback) => void)(
      hostname,
      typeof options === 'function' ? {} : options,
      cb,
    );
    return;
  }
  lookedUp.add(hostname);
  const err = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
    code: 'ENOTFOUND',
    errno: -3008,
    syscall: 'getaddrinfo',
    hostname,
  });
  process.nextTick(() => cb(err));
}
