// One exchange with the host of a media's upstream link, its body left to stream. Every hop goes through
// the SSRF guard (engine/upstream/guarded-fetch.ts: the connection's addresses checked, an Agent per hop),
// except to the origin of the self-hosted provider that made the link (cobalt's tunnels on the compose
// network): the operator configured that address, and it is reached only for links it made.
import type { Agent, Dispatcher } from 'undici';
import { BlockedAddress, guardedAgent, isPublicAddress, systemResolve } from '../../engine/upstream/guarded-fetch.js';
import { streamedRequest } from '../../engine/upstream/undici.js';

const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export interface FileRequest {
  url: string;
  method: 'GET' | 'HEAD';
  headers: Record<string, string>;
  /** The origin of the self-hosted provider whose link this is, reached without the guard. */
  trustedOrigin: string | undefined;
  /** The pooled Agent of trusted origins (the feature's, closed with it). */
  trustedAgent: () => Promise<Agent>;
  /** ALLOW_PRIVATE_FETCH (tests): the first hop may reach a private address. */
  allowPrivate: boolean;
  signal: AbortSignal;
  timeoutMs: number;
}

export interface FileAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
}

/** Stops reading an answer's body: quietly (undici's body errors when destroyed before its end). */
export function discard(file: FileAnswer): void {
  file.body.on('error', () => {});
  file.body.destroy();
}

/** Why the link could not be fetched: the guard refused a hop, too many redirects, or the network. */
export class FileUnreachable extends Error {
  constructor(readonly why: 'blocked' | 'redirects' | 'network') {
    super(why);
  }
}

export async function requestFile(req: FileRequest): Promise<FileAnswer> {
  let url = new URL(req.url);
  for (let hop = 0; ; hop++) {
    const own = req.trustedOrigin !== undefined && url.origin === req.trustedOrigin;
    const agent = own
      ? await req.trustedAgent()
      : await guardedAgent(systemResolve, (ip) => isPublicAddress(ip) || (req.allowPrivate && hop === 0));
    const drop = () => {
      if (!own) void agent.destroy().catch(() => {});
    };
    let res: Dispatcher.ResponseData;
    try {
      res = await streamedRequest(agent, {
        origin: url.origin,
        path: url.pathname + url.search,
        method: req.method,
        headers: req.headers,
        signal: req.signal,
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
      });
    } catch (err) {
      drop();
      if (req.signal.aborted) throw err;
      const blocked = err instanceof BlockedAddress || (err as { cause?: unknown }).cause instanceof BlockedAddress;
      throw new FileUnreachable(blocked ? 'blocked' : 'network');
    }
    const location = res.headers.location;
    if (REDIRECTS.has(res.statusCode) && typeof location === 'string') {
      await res.body.dump().catch(() => {});
      drop();
      if (hop >= MAX_REDIRECTS) throw new FileUnreachable('redirects');
      const next = new URL(location, url);
      if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new FileUnreachable('blocked');
      url = next;
      continue;
    }
    res.body.once('close', drop);
    return { status: res.statusCode, headers: res.headers, body: res.body };
  }
}
