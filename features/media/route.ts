// GET and HEAD /media/<token>: the bytes of one media, streamed from its upstream link as they arrive
// (never held whole), with the caller's Range passed on. The link was paid for by the call that made it,
// so fetching it is not metered again; its key's open streams and bytes a day are bound per plan, and a
// revoked key's links stop. When the upstream's own link has died (401, 403, 404, 410), the endpoint is
// asked again from the post link, once, and the same media of the fresh answer is streamed.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Agent } from 'undici';
import { LRUCache } from 'lru-cache';
import { ApiError, notFound, upstreamFailed, upstreamTimeout } from '../../engine/errors.js';
import { sendError } from '../../engine/pipeline/respond.js';
import type { MediaSeal, MediaLink } from './token.js';
import { FileUnreachable, discard, requestFile, type FileAnswer } from './upstream-file.js';
import type { StreamLimits } from './limits.js';
import type { MediaCopies } from './copies.js';
import { relay } from './relay.js';

const PREFIX = '/media/';
const TOKEN = /^[A-Za-z0-9_-]{40,8000}$/;
/** What a dead upstream link answers. */
const DEAD = new Set([401, 403, 404, 410]);
const PASSED_ON = ['content-length', 'content-range', 'accept-ranges', 'etag', 'last-modified'];
const TIMEOUT_MS = 30_000;

export interface MediaRouteDeps {
  seal: () => Promise<MediaSeal>;
  limits: StreamLimits;
  /** Is the key of this id still usable? */
  keyIsLive: (keyId: string) => Promise<boolean>;
  /** The provider's settings the CDN wants (mediaReferer, mediaUserAgent), and its self-hosted origin. */
  provider: (upstream: string) => { headers: Record<string, string>; selfHostedOrigin: string | undefined };
  /** The endpoint's answer afresh, for the post link of `link`: the media at its place, or undefined. */
  refresh: (link: MediaLink, req: IncomingMessage, res: ServerResponse) => Promise<string | undefined>;
  trustedAgent: () => Promise<Agent>;
  /** MEDIA_STORE=on: the copies kept of whole downloads. */
  copies: MediaCopies | undefined;
  allowPrivate: boolean;
  userAgent: string;
  log: Logger;
}

const MIME_OF_EXT: Record<string, string> = {
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
  mkv: 'video/x-matroska',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  ogg: 'audio/ogg',
  opus: 'audio/ogg',
  jpg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
};

function typeOf(upstream: string | string[] | undefined, name: string): string {
  const given = typeof upstream === 'string' ? upstream.split(';')[0].trim().toLowerCase() : '';
  if (given && given !== 'application/octet-stream' && given !== 'binary/octet-stream') return given;
  return MIME_OF_EXT[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream';
}

/** The request listener's part: true when the request was one of these links (answered, or being answered). */
export function mediaRoute(deps: MediaRouteDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  // A dead upstream link is asked for again once, by the requests that meet it together or after (the ten
  // members of a group sharing one answer's links): the fresh link, by the dead one, for ten minutes.
  const refreshed = new LRUCache<string, Promise<string | undefined>>({ max: 5000, ttl: 10 * 60_000 });
  return (req, res) => {
    const url = req.url ?? '';
    if (!url.startsWith(PREFIX)) return false;
    const token = url.slice(PREFIX.length).split(/[?#]/)[0];
    // Hosted media (features/hosting/) are /media/<id>.<ext>: a dot, and far shorter than a token.
    if (!TOKEN.test(token)) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendError(
        res,
        new ApiError('method_not_allowed', `Method ${req.method} is not allowed on a media link; use GET or HEAD`, { Allow: 'GET, HEAD' }),
      );
      return true;
    }
    serve(deps, refreshed, token, req, res).catch((err: unknown) => {
      if (!(err instanceof ApiError)) deps.log.warn({ err: (err as Error)?.message }, 'media link failed');
      sendError(res, err instanceof ApiError ? err : upstreamFailed('The media could not be fetched'));
    });
    return true;
  };
}

async function serve(
  deps: MediaRouteDeps,
  refreshed: LRUCache<string, Promise<string | undefined>>,
  token: string,
  req: IncomingMessage,
  res: ServerResponse,
) {
  const opened = (await deps.seal()).open(token);
  if (!opened.ok) {
    if (opened.why === 'expired') throw new ApiError('link_expired', 'This media link has expired; ask the endpoint again for a new one');
    throw notFound('No such media link');
  }
  const link = opened.link;
  if (!(await deps.keyIsLive(link.k))) throw new ApiError('forbidden', 'The key this media link was made for is no longer valid');
  const copy = await deps.copies?.find(link.u);
  if (copy) {
    res.writeHead(302, { Location: copy, 'Cache-Control': 'private, no-store' }).end();
    return;
  }
  const release = await deps.limits.open(link.k, link.l);
  let sent = 0;
  try {
    const abort = new AbortController();
    res.once('close', () => abort.abort(new Error('client gone')));
    const fetchOf = (u: string) => fetchFile(deps, link, u, req, abort.signal);
    const known = refreshed.get(link.u);
    let file = await fetchOf((known && (await known.catch(() => undefined))) ?? link.u);
    if (DEAD.has(file.status)) {
      discard(file);
      let asking = refreshed.get(link.u);
      if (!asking || asking === known) {
        asking = deps.refresh(link, req, res);
        refreshed.set(link.u, asking);
        void asking.catch(() => refreshed.delete(link.u));
      }
      const fresh = await asking;
      if (!fresh) throw notFound('The media is no longer offered by the post');
      file = await fetchOf(fresh);
    }
    if (file.status >= 400 && file.status !== 416) {
      discard(file);
      throw upstreamFailed(`The media's host answered ${file.status}`);
    }
    res.statusCode = file.status === 206 || file.status === 416 ? file.status : 200;
    const type = typeOf(file.headers['content-type'], link.n);
    res.setHeader('Content-Type', type);
    res.setHeader('Content-Disposition', `attachment; filename="${link.n}"`);
    res.setHeader('Cache-Control', 'private, no-transform');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    for (const name of PASSED_ON) {
      const v = file.headers[name];
      if (typeof v === 'string') res.setHeader(name, v);
    }
    if (file.headers['accept-ranges'] === undefined && file.status === 206) res.setHeader('Accept-Ranges', 'bytes');
    if (req.method === 'HEAD') {
      discard(file);
      res.end();
      return;
    }
    // A whole download is kept when the operator asked for copies (MEDIA_STORE=on).
    const copy = file.status === 200 ? deps.copies?.start(link.u, type, link.n.slice(link.n.lastIndexOf('.') + 1), link.x) : undefined;
    const whole = await relay(file.body, res, copy?.out, (bytes) => (sent += bytes));
    const length = Number(file.headers['content-length']);
    if (copy && whole && (!Number.isFinite(length) || length === sent)) await copy.commit();
    else copy?.drop();
  } finally {
    release(sent);
  }
}

async function fetchFile(
  deps: MediaRouteDeps,
  link: MediaLink,
  url: string,
  req: IncomingMessage,
  signal: AbortSignal,
): Promise<FileAnswer> {
  const provider = deps.provider(link.s);
  const headers: Record<string, string> = { 'user-agent': deps.userAgent, accept: '*/*', ...provider.headers };
  const range = req.headers.range;
  if (typeof range === 'string' && /^bytes=[0-9,\s-]+$/.test(range)) headers.range = range;
  try {
    return await requestFile({
      url,
      method: req.method === 'HEAD' ? 'HEAD' : 'GET',
      headers,
      trustedOrigin: provider.selfHostedOrigin,
      trustedAgent: deps.trustedAgent,
      allowPrivate: deps.allowPrivate,
      signal,
      timeoutMs: TIMEOUT_MS,
    });
  } catch (err) {
    if (err instanceof FileUnreachable) {
      if (err.why === 'blocked') throw new ApiError('forbidden', "The media's host is on an address this service does not reach");
      throw upstreamFailed("The media's host could not be reached");
    }
    if (signal.aborted) throw upstreamTimeout('The media link was cancelled');
    throw err;
  }
}
