// The three formats and the one keyword of the request schemas that JSON Schema does not define
// (engine/catalog/request-schema.ts says what each means). Plain functions, so that checks compiled at
// build time (engine/catalog/compiled.ts) are given the same code as checks compiled at boot.
import net from 'node:net';
import { hostOfDomain } from './domain.js';

/** The host of an http(s) URL, lower case; undefined for anything else. */
function hostOf(value: string): string | undefined {
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.hostname.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

export const formats = {
  url: { type: 'string', validate: (v: string) => hostOf(v) !== undefined },
  ip: { type: 'string', validate: (v: string) => net.isIP(v) !== 0 },
  // A domain may come with a scheme, www., a path or a port: the same reading the adapters then use.
  domain: { type: 'string', validate: (v: string) => hostOfDomain(v) !== undefined },
} as const;

/** `hosts: [...]`: the URL's host is one of them or a subdomain of one. */
export function onHosts(hosts: string[], value: string): boolean {
  const host = hostOf(value);
  return host !== undefined && hosts.some((h) => host === h || host.endsWith(`.${h}`));
}
