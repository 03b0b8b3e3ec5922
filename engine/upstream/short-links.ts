// Short and share links (vm.tiktok.com/…, t.co/…, fb.watch/…) followed to the post they stand for, before a
// provider is asked: hop by hop through the SSRF guard's connector (engine/upstream/guarded-fetch.ts: an
// Agent per hop, every address checked at connect time), at most 5 hops, and only across the hosts the
// parameter names. The walk stops at the first link on one of its own hosts, which is not fetched.
import { guardedAgent, isPublicAddress, systemResolve, BlockedAddress, type ResolveHost } from './guarded-fetch.js';
import { invalidParam, upstreamTimeout } from '../errors.js';
import { streamedRequest } from './undici.js';

const MAX_HOPS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export interface ShortLinkOptions {
  /** The param's name, for the 400s. */
  name: string;
  /** Hosts whose links are short links, followed. */
  short: readonly string[];
  /** The param's own hosts (`hosts:`; a name also allows its subdomains): where the walk ends. */
  hosts: readonly string[];
  userAgent: string;
  /** ALLOW_PRIVATE_FETCH (tests): the first hop may reach a private address. */
  allowPrivate: boolean;
  resolve?: ResolveHost;
  timeoutMs: number;
}

const hostOf = (u: URL) => u.hostname.toLowerCase().replace(/\.$/, '');
const onHosts = (host: string, hosts: readonly string[]) => hosts.some((h) => host === h || host.endsWith(`.${h}`));

/** The URL `url` is a short link for, or `url` itself when it is not one; a 400 naming where it led otherwise. */
export async function followShortLink(url: URL, opts: ShortLinkOptions): Promise<URL> {
  if (!opts.short.includes(hostOf(url))) return url;
  const resolve = opts.resolve ?? systemResolve;
  const until = performance.now() + opts.timeoutMs;
  let at = url;
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const agent = await guardedAgent(resolve, (ip) => isPublicAddress(ip) || (opts.allowPrivate && hop === 0));
    let status: number;
    let location: string | string[] | undefined;
    try {
      const res = await streamedRequest(agent, {
        origin: at.origin,
        path: at.pathname + at.search,
        method: 'GET',
        headers: { 'user-agent': opts.userAgent, accept: 'text/html,*/*' },
        headersTimeout: Math.max(1, until - performance.now()),
        bodyTimeout: Math.max(1, until - performance.now()),
      });
      status = res.statusCode;
      location = res.headers.location;
      await res.body.dump().catch(() => {});
    } catch (err) {
      if (err instanceof BlockedAddress) throw invalidParam(opts.name, `the short link leads to a private address`);
      if (performance.now() >= until) throw upstreamTimeout('Following the short link timed out');
      throw invalidParam(opts.name, `the short link ${hostOf(at)} could not be followed`);
    } finally {
      void agent.destroy().catch(() => {});
    }
    if (!REDIRECTS.has(status) || typeof location !== 'string') {
      throw invalidParam(opts.name, `the short link leads nowhere (${hostOf(at)} answered ${status})`);
    }
    let next: URL;
    try {
      next = new URL(location, at);
    } catch {
      throw invalidParam(opts.name, 'the short link leads to a malformed URL');
    }
    const host = hostOf(next);
    if (next.protocol !== 'https:' && next.protocol !== 'http:') throw invalidParam(opts.name, 'the short link leads to a non-http(s) URL');
    if (onHosts(host, opts.hosts) && !opts.short.includes(host)) return next;
    if (!opts.short.includes(host)) throw invalidParam(opts.name, `the link leads to ${host}, which this endpoint does not take`);
    at = next;
  }
  throw invalidParam(opts.name, `the short link redirects more than ${MAX_HOPS} times`);
}
