// Links on this service to the media an answer names (docs/decisions/media-links.md): the step that
// rewrites an answer's media into /media/<token> links (links.ts), and the route that streams them
// (route.ts) within each plan's bounds (limits.ts). server/app.ts builds it and plugs in both.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Agent } from 'undici';
import type { MediaConfig } from '../../engine/config.js';
import type { EndpointSpec } from '../../engine/catalog/load.js';
import type { Db } from '../../engine/db/open.js';
import type { Store } from '../../engine/store/types.js';
import type { Step } from '../../engine/pipeline/chain.js';
import type { Invoke } from '../../engine/pipeline/steps/invoke.js';
import { undici } from '../../engine/upstream/undici.js';
import { mediaSeal } from './secrets.js';
import { mediaLinks } from './links.js';
import { mediaRoute } from './route.js';
import { streamLimits } from './limits.js';
import { withFacts } from './facts.js';
import { mediaCopies } from './copies.js';
import type { BlobStore } from '../../engine/blob-store.js';
import type { MediaLink } from './token.js';

export interface MediaDeps {
  config: MediaConfig;
  publicUrl: string;
  db: Db;
  store: Store;
  keyIsLive: (keyId: string) => Promise<boolean>;
  /** An upstream's base URL when the operator runs it (it has no public default), and its settings. */
  upstream: (id: string) => { selfHostedOrigin: string | undefined; settings: Record<string, unknown> };
  refresh: (link: MediaLink, req: IncomingMessage, res: ServerResponse) => Promise<string | undefined>;
  /** Where copies go with MEDIA_STORE=on, and the folder their bytes are written to first. */
  blobs: BlobStore;
  tempDir: string;
  allowPrivate: boolean;
  userAgent: string;
  log: Logger;
}

export interface Media {
  /** The endpoint's invoke, with the facts of each media its answers name (when MEDIA_FACTS is on). */
  facts(spec: EndpointSpec, invoke: Invoke): Invoke;
  /** The step after the cache for an endpoint that names its media (`mediaItems:`), else undefined. */
  step(spec: EndpointSpec): Step | undefined;
  /** The request listener's part for /media/<token>: true when it took the request. */
  route(req: IncomingMessage, res: ServerResponse): boolean;
  close(): Promise<void>;
}

/** The headers a provider's CDN wants of a client (its `mediaReferer`, `mediaUserAgent` settings). */
function cdnHeaders(settings: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof settings.mediaReferer === 'string' && settings.mediaReferer) out.referer = settings.mediaReferer;
  if (typeof settings.mediaUserAgent === 'string' && settings.mediaUserAgent) out['user-agent'] = settings.mediaUserAgent;
  return out;
}

export function createMedia(deps: MediaDeps): Media {
  const seal = mediaSeal(deps.db, deps.config.linkSecrets);
  let agent: Promise<Agent> | undefined;
  const trustedAgent = () => (agent ??= undici().then(({ Agent }) => new Agent({ connections: 64 })));
  const linkDeps = {
    publicUrl: deps.publicUrl,
    linkTtlMs: deps.config.linkTtlMs,
    seal,
    selfHostedOrigin: (id: string) => deps.upstream(id).selfHostedOrigin,
  };
  const fileOf = (id: string) => {
    const up = deps.upstream(id);
    return {
      headers: { 'user-agent': deps.userAgent, accept: '*/*', ...cdnHeaders(up.settings) },
      trustedOrigin: up.selfHostedOrigin,
      trustedAgent,
      allowPrivate: deps.allowPrivate,
    };
  };
  const route = mediaRoute({
    seal,
    limits: streamLimits(deps.config, deps.store),
    keyIsLive: deps.keyIsLive,
    provider: (id) => {
      const up = deps.upstream(id);
      return { headers: cdnHeaders(up.settings), selfHostedOrigin: up.selfHostedOrigin };
    },
    refresh: deps.refresh,
    trustedAgent,
    copies: deps.config.store ? mediaCopies(deps.blobs, deps.tempDir, deps.log) : undefined,
    allowPrivate: deps.allowPrivate,
    userAgent: deps.userAgent,
    log: deps.log,
  });
  return {
    facts: (spec, invoke) => (deps.config.facts ? withFacts(spec, invoke, { file: fileOf }) : invoke),
    step: (spec) => mediaLinks(spec, linkDeps),
    route,
    async close() {
      if (agent) await (await agent).close();
    },
  };
}
