// Fetching a URL that a caller gave us (downloaders, image-host by URL, favicon, phish-check...).
// The caller chooses the URL, so without a guard they could make the service read its own network:
// loopback admin ports, the cloud metadata service at 169.254.169.254, private ranges. The guard is a
// connect-time check of the same HTTP client as the upstreams' (an undici Agent): its connector resolves
// the name, checks every address, hands the socket only checked ones (no DNS-rebinding gap) and checks the
// peer it got; every redirect hop gets an Agent of its own, so the check runs again on every hop.
//
// We do not use request-filtering-agent: it fixes one policy per agent, while here tests must inject
// the resolver and a per-hop policy (see `allowPrivate`), so node's net.BlockList does the address part.
import dns from 'node:dns';
import net from 'node:net';
import type { Agent, buildConnector } from 'undici';
import { undici } from './undici.js';
import { ApiError, badInput, payloadTooLarge, upstreamTimeout } from '../errors.js';
import { ACCEPT_ENCODING, BodyError, TIMED_OUT, isSuccess, wholeAnswer } from './whole-answer.js';
import type { FetchUrlOptions, FetchedUrl } from '../types.js';

export type ResolveHost = (hostname: string) => Promise<Array<{ address: string; family: number }>>;
/** May the connection of redirect hop `hop` (0 = the caller's URL) go to `address`? */
export type AddressPolicy = (address: string, hop: number) => boolean;

export interface GuardOptions {
  userAgent?: string;
  /**
   * Lets the FIRST hop reach a private address; redirects are still checked. Only tests set it, so that
   * they can fetch from a fake server on 127.0.0.1: the engine passes it from ALLOW_PRIVATE_FETCH=true,
   * a variable that production never sets.
   */
  allowPrivate?: boolean;
  /** DNS resolution (tests inject names that resolve to chosen addresses). Default: the system resolver. */
  resolve?: ResolveHost;
  /** Overrides the address policy entirely (tests). Default: public addresses only, see allowPrivate. */
  policy?: AddressPolicy;
}

const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 15_000;
const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const UNREACHABLE = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NODATA',
  'EAI_NONAME',
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
]);

const MSG_SCHEME = 'Invalid value for url: must be an http(s) URL';
const MSG_PRIVATE = 'Invalid value for url: private, loopback, link-local and metadata addresses are not allowed';
// A name that resolves to a private address reads as one that does not resolve: told apart, they would let
// a caller map which internal names the deployment resolves. A literal address tells nothing, so it is named.
const MSG_UNREACHABLE = 'Could not fetch url: host not found, unreachable or not public';

// ---- which addresses are off limits ----

const blocked = new net.BlockList();
for (const [net4, bits] of [
  ['0.0.0.0', 8], // "this network", incl. the unspecified 0.0.0.0
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, incl. the metadata service 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, incl. broadcast
] as const)
  blocked.addSubnet(net4, bits, 'ipv4');
for (const [net6, bits] of [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible form
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // old site-local
  ['ff00::', 8], // multicast
] as const)
  blocked.addSubnet(net6, bits, 'ipv6');

/** True when `ip` is a public unicast address a caller's URL may reach. */
export function isPublicAddress(ip: string): boolean {
  const addr = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = net.isIP(addr);
  if (family === 4) return !blocked.check(addr, 'ipv4');
  if (family !== 6) return false;
  const b = ipv6Bytes(addr);
  if (!b) return false;
  const inner = embeddedIpv4(b);
  if (inner === null) return false;
  if (inner !== undefined) return isPublicAddress(inner);
  return !blocked.check(addr, 'ipv6');
}

/**
 * The IPv4 address an IPv6 address carries to an IPv4 host (judged in its place), null for a form refused
 * outright, undefined for a plain IPv6 address. The IPv4-compatible form ::a.b.c.d is deprecated and left
 * to the block list's ::/96, which refuses it whatever it carries.
 */
function embeddedIpv4(b: number[]): string | undefined | null {
  const v4 = (o: number, flip = 0) =>
    b
      .slice(o, o + 4)
      .map((x) => x ^ flip)
      .join('.');
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const starts = (...prefix: number[]) => prefix.every((x, i) => b[i] === x);
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return v4(12); // IPv4-mapped ::ffff:a.b.c.d
  if (zeros(0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(10, 12)) return v4(12); // IPv4-translated ::ffff:0:a.b.c.d
  if (starts(0, 0x64, 0xff, 0x9b) && zeros(4, 12)) return v4(12); // NAT64 64:ff9b::/96
  // Local-use NAT64 (RFC 8215): where the IPv4 sits depends on the network's own prefix length.
  if (starts(0, 0x64, 0xff, 0x9b, 0, 1)) return null;
  if (starts(0x20, 0x02)) return v4(2); // 6to4 2002:a.b.c.d::/48
  // Teredo 2001:0::/32: the client's address is the last 32 bits inverted; its server is bits 32-63.
  if (starts(0x20, 0x01, 0, 0)) return isPublicAddress(v4(4)) ? v4(12, 0xff) : null;
  return undefined;
}

/** The 16 bytes of a textual IPv6 address (with `::` and a trailing dotted quad), or undefined. */
function ipv6Bytes(addr: string): number[] | undefined {
  let text = addr;
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const n = quad.slice(1).map(Number);
    text = text.slice(0, quad.index) + ((n[0] << 8) | n[1]).toString(16) + ':' + ((n[2] << 8) | n[3]).toString(16);
  }
  const [head, tail] = text.split('::');
  const part = (s: string | undefined) => (s ? s.split(':') : []);
  const h = part(head);
  const t = part(tail);
  const groups = text.includes('::') ? [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t] : h;
  if (groups.length !== 8) return undefined;
  return groups.flatMap((g) => {
    const v = parseInt(g, 16);
    return [(v >> 8) & 0xff, v & 0xff];
  });
}

// ---- the fetch ----

/** A connection the address policy refused, after resolving a name (told as a host not found). */
export class BlockedAddress extends Error {}

export const systemResolve: ResolveHost = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** A socket lookup that resolves, checks every address, and hands the socket only checked ones. */
function guardedLookup(resolve: ResolveHost, allowed: (ip: string) => boolean) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    resolve(hostname)
      .then((found) => {
        // One private answer among public ones is refused too: mixed answers are a rebinding trick.
        if (found.some((a) => !allowed(a.address))) throw new BlockedAddress();
        const wanted = options.family === 4 || options.family === 6 ? found.filter((a) => a.family === options.family) : found;
        if (wanted.length === 0) throw Object.assign(new Error('no address'), { code: 'ENOTFOUND' });
        if (options.all) callback(null, wanted);
        else callback(null, wanted[0].address, wanted[0].family);
      })
      .catch((err: NodeJS.ErrnoException) => callback(err, ''));
  };
}

/**
 * An undici Agent whose connector does the guarded lookup and also refuses a peer the policy does not accept.
 * `connectTimeoutMs` bounds the lookup, the TCP connection and the TLS handshake (undici's default: 10 s).
 */
export async function guardedAgent(resolve: ResolveHost, allowed: (ip: string) => boolean, connectTimeoutMs?: number): Promise<Agent> {
  const { Agent, buildConnector } = await undici();
  return new Agent({
    connect: guardedConnector(buildConnector, { lookup: guardedLookup(resolve, allowed), timeout: connectTimeoutMs }, allowed),
  });
}

function guardedConnector(
  build: typeof buildConnector,
  options: buildConnector.BuildOptions,
  allowed: (ip: string) => boolean,
): buildConnector.connector {
  const connect = build(options);
  return (options, callback) => {
    connect(options, (...args) => {
      const [err, socket] = args;
      if (err) return callback(err, null);
      // Belt and braces: the peer we ended up talking to must be one the policy accepts.
      const peer = socket.remoteAddress;
      if (peer && !allowed(peer)) {
        socket.destroy();
        return callback(new BlockedAddress(), null);
      }
      callback(null, socket);
    });
  };
}

function parseHttpUrl(text: string, base?: URL): URL | undefined {
  try {
    const u = new URL(text, base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u : undefined;
  } catch {
    return undefined;
  }
}

function mb(bytes: number): string {
  const n = bytes / (1024 * 1024);
  return n >= 1 ? String(+n.toFixed(1)) : String(+n.toPrecision(2));
}

export async function fetchUrl(input: string, opts: FetchUrlOptions & GuardOptions = {}): Promise<FetchedUrl> {
  let url = parseHttpUrl(String(input));
  if (!url) throw badInput(MSG_SCHEME);
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  // One budget for the whole fetch, redirects included: each hop gets what is left of it.
  const deadline = performance.now() + (opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const policy: AddressPolicy = opts.policy ?? ((ip, hop) => isPublicAddress(ip) || (opts.allowPrivate === true && hop === 0));
  const resolve = opts.resolve ?? systemResolve;

  const failure = (err: unknown): ApiError => {
    if (err instanceof ApiError) return err;
    if (err instanceof BlockedAddress) return badInput(MSG_UNREACHABLE);
    if (err instanceof BodyError) {
      return err.reason === 'too-large'
        ? payloadTooLarge(`The file at url is larger than ${mb(maxBytes)} MB`)
        : badInput('Could not fetch url: the answer was corrupt');
    }
    if (err === TIMED_OUT || opts.signal?.aborted) {
      const reason: unknown = opts.signal?.aborted ? opts.signal.reason : undefined;
      return reason instanceof ApiError ? reason : upstreamTimeout('Fetching url timed out');
    }
    const e = err as NodeJS.ErrnoException & { errors?: NodeJS.ErrnoException[] };
    const code = e.code ?? e.errors?.[0]?.code;
    if (code && UNREACHABLE.has(code)) return badInput(MSG_UNREACHABLE);
    return badInput('Could not fetch url: the connection failed');
  };

  for (let hop = 0; ; hop++) {
    const allowed = (ip: string) => policy(ip, hop);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // A literal address skips DNS (and the lookup): judge it before any connection.
    if (net.isIP(host) && !allowed(host)) throw badInput(MSG_PRIVATE);
    // An Agent per hop: a pooled socket would skip the lookup that does the checking.
    const agent = await guardedAgent(resolve, allowed);
    try {
      // Bodies of redirects and refusals are dropped: only a 2xx answer is read.
      const res = await wholeAnswer(
        agent,
        {
          origin: url.origin,
          path: url.pathname + url.search,
          method: 'GET',
          headers: { 'user-agent': opts.userAgent ?? 'unified-utility-api', accept: '*/*', 'accept-encoding': ACCEPT_ENCODING },
        },
        { maxBytes, timeoutMs: Math.max(0, deadline - performance.now()), signal: opts.signal, skipBody: (status) => !isSuccess(status) },
      );
      const status = res.status;
      const location = res.headers.location;
      if (REDIRECTS.has(status) && typeof location === 'string') {
        if (hop >= MAX_REDIRECTS) throw badInput('Could not fetch url: too many redirects');
        const next = parseHttpUrl(location, url);
        if (!next) throw badInput('Could not fetch url: it redirected to a non-http(s) URL');
        url = next;
        continue;
      }
      if (!isSuccess(status)) throw badInput(`Could not fetch url: it answered ${status}`);
      const contentType = res.headers['content-type'];
      return { bytes: res.body, contentType: typeof contentType === 'string' ? contentType : undefined, finalUrl: url.toString() };
    } catch (err) {
      throw failure(err);
    } finally {
      void agent.destroy().catch(() => {});
    }
  }
}
