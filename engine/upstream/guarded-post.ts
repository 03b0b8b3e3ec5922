// POSTing to a URL an account gave us (its webhook endpoint) through the connect-time guard of fetchUrl
// (guarded-fetch.ts: every resolved address checked before connecting, the peer checked again). One hop
// only: a redirect is answered as it is, since Standard Webhooks counts a 3xx as a failed delivery rather
// than something to follow. The first bytes of any answer are kept, a refusal's too, for the account's
// delivery log; a failure without an answer is a PostFailed whose message the account's owner can read.
import type { IncomingHttpHeaders } from 'node:http';
import net from 'node:net';
import { BlockedAddress, guardedAgent, isPublicAddress, systemResolve, type ResolveHost } from './guarded-fetch.js';
import { TIMED_OUT, wholeAnswer } from './whole-answer.js';

export interface PostOptions {
  headers: Record<string, string>;
  timeoutMs: number;
  /** Bytes of the answer's body kept; the rest is not read. */
  keepBytes: number;
  /** Lets the URL reach private addresses (ALLOW_PRIVATE_FETCH, which only tests set). */
  allowPrivate?: boolean;
  /** DNS resolution (tests inject names). Default: the system resolver. */
  resolve?: ResolveHost;
  /** Time to connect (DNS, TCP and TLS), within `timeoutMs`: a host that takes no connection fails fast. */
  connectTimeoutMs?: number;
  /** Cancels the exchange: the promise rejects with the signal's reason, not a PostFailed. */
  signal?: AbortSignal;
}

export interface PostAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The first `keepBytes` of the body, decoded. */
  body: Buffer;
}

/** No answer came: the message says why, in words for the owner of the URL. */
export class PostFailed extends Error {}

const CONNECT_TIMEOUT_MS = 5000;

// One message for every destination with no public host behind it: a private address, a name that does
// not resolve, a network that cannot be reached. Told apart, they would let an account map the deployment's
// own network (an internal name resolves to a private address, an unknown one to nothing). What a public
// host does once reached (refuses, resets, says nothing, fails TLS) is told as it is: it names only that host.
const NO_PUBLIC_HOST = 'the host was not found, is unreachable or is not a public address';

const CONNECT_ERRORS: Record<string, string> = {
  ENOTFOUND: NO_PUBLIC_HOST,
  EAI_AGAIN: NO_PUBLIC_HOST,
  EAI_NODATA: NO_PUBLIC_HOST,
  EAI_NONAME: NO_PUBLIC_HOST,
  EHOSTUNREACH: NO_PUBLIC_HOST,
  ENETUNREACH: NO_PUBLIC_HOST,
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset before an answer',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_SOCKET: 'the connection closed before an answer',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
};

function why(err: unknown, timeoutMs: number): string {
  if (err instanceof BlockedAddress) return NO_PUBLIC_HOST;
  if (err === TIMED_OUT) return `no answer within ${timeoutMs < 1000 ? `${timeoutMs} ms` : `${+(timeoutMs / 1000).toFixed(1)} s`}`;
  const e = err as NodeJS.ErrnoException & { errors?: NodeJS.ErrnoException[] };
  const code = e.code ?? e.errors?.[0]?.code;
  if (code && CONNECT_ERRORS[code]) return CONNECT_ERRORS[code];
  if (/certificate|self.signed|tls|ssl/i.test(e.message ?? '')) return `TLS failed: ${e.message}`;
  return code ? `the connection failed (${code})` : 'the connection failed';
}

export async function postUrl(url: string, body: string, o: PostOptions): Promise<PostAnswer> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new PostFailed('not a URL');
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new PostFailed('not an http(s) URL');
  const allowed = (ip: string) => isPublicAddress(ip) || o.allowPrivate === true;
  // A literal address skips DNS (and the lookup that checks): judge it before any connection.
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) && !allowed(host)) throw new PostFailed(NO_PUBLIC_HOST);
  // An Agent per request: a pooled socket would skip the lookup that does the checking.
  const agent = await guardedAgent(o.resolve ?? systemResolve, allowed, Math.min(o.connectTimeoutMs ?? CONNECT_TIMEOUT_MS, o.timeoutMs));
  try {
    return await wholeAnswer(
      agent,
      { origin: u.origin, path: u.pathname + u.search, method: 'POST', headers: o.headers, body },
      { maxBytes: o.keepBytes, truncate: true, timeoutMs: o.timeoutMs, signal: o.signal },
    );
  } catch (err) {
    if (o.signal?.aborted) throw err;
    throw new PostFailed(why(err, o.timeoutMs));
  } finally {
    void agent.destroy().catch(() => {});
  }
}
