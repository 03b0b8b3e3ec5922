// The short-links step, before validation: a url parameter whose catalog entry names `shortLinks:` hosts,
// given as a link on one of them (vm.tiktok.com/…, t.co/…), is replaced by the link it leads to
// (engine/upstream/short-links.ts), so validation, the cache and the provider all see the post's own link.
import type { Call } from '../call.js';
import type { Next, Step } from '../chain.js';
import type { EndpointSpec } from '../../catalog/load.js';
import type { ResolveHost } from '../../upstream/guarded-fetch.js';
import { followShortLink } from '../../upstream/short-links.js';

const TIMEOUT_MS = 5000;

export interface ShortLinkDeps {
  userAgent: string;
  allowPrivate: boolean;
  /** DNS resolution (tests name hosts that resolve to their fakes). Default: the system's. */
  resolve?: ResolveHost;
}

/** The step for `spec`, or undefined when none of its params names short links. */
export function shortLinks(spec: EndpointSpec, deps: ShortLinkDeps): Step | undefined {
  const params = Object.entries(spec.params).filter(([, p]) => p.shortLinks?.length && p.hosts?.length);
  if (!params.length) return undefined;
  return (call: Call, next: Next) => {
    const raw = call.input!.raw;
    const follow = async () => {
      for (const [name, p] of params) {
        const given = raw[name];
        if (typeof given !== 'string') continue;
        let url: URL;
        try {
          url = new URL(given);
        } catch {
          continue; // not a URL: validation says so
        }
        const opts = { name, short: p.shortLinks!, hosts: p.hosts!, ...deps, timeoutMs: TIMEOUT_MS };
        raw[name] = (await followShortLink(url, opts)).href;
      }
    };
    follow().then(() => next(), next);
  };
}
