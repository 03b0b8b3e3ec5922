// The step after the cache that gives each media of an answer a link on this service: for an endpoint whose
// catalog entry names its list of media (`mediaItems:`), every item's `url` becomes PUBLIC_URL/media/<token>
// and the provider's own link stays as `sourceUrl`, or null where it is on a self-hosted provider's host
// (an address only the service's own network reaches). It runs for every call, hits of the cache too: a link
// carries the key of the caller it was made for.
import type { EndpointSpec } from '../../engine/catalog/load.js';
import type { Call } from '../../engine/pipeline/call.js';
import type { Next, Step } from '../../engine/pipeline/chain.js';
import type { MediaSeal } from './token.js';
import { capOf, fit } from './fit.js';

export interface LinkDeps {
  publicUrl: string;
  linkTtlMs: number;
  seal: () => Promise<MediaSeal>;
  /** The origin of a self-hosted upstream's base URL (undefined for a public one). */
  selfHostedOrigin: (upstream: string) => string | undefined;
}

type Item = Record<string, unknown>;

const FACTS = ['bytes', 'mime', 'width', 'height', 'duration'];

/** A file name any client takes: the title's letters and digits, else the endpoint and the item's place. */
function fileNameOf(title: unknown, fallback: string, index: number, extension: unknown): string {
  const slug =
    typeof title === 'string'
      ? title
          .normalize('NFKD')
          .replace(/[^\x20-\x7e]/g, '')
          .replace(/[^A-Za-z0-9]+/g, '-')
          .replace(/^-+|-+$/g, '')
          .slice(0, 60)
          .replace(/-+$/, '')
      : '';
  const ext = typeof extension === 'string' && /^[a-z0-9]{1,5}$/.test(extension) ? extension : 'bin';
  return `${slug || fallback}-${index + 1}.${ext}`;
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** The step for `spec`, or undefined when its answers name no media. */
export function mediaLinks(spec: EndpointSpec, deps: LinkDeps): Step | undefined {
  const field = spec.mediaItems;
  if (!field) return undefined;
  return (call: Call, next: Next) => {
    const out = call.outcome;
    const id = call.identity;
    if (!out || id?.status !== 'ok') return next();
    deps
      .seal()
      .then((seal) => {
        const data = (out.dataJson !== undefined ? JSON.parse(out.dataJson) : structuredClone(out.data)) as Record<string, unknown>;
        const all = Array.isArray(data[field]) ? (data[field] as unknown[]) : undefined;
        if (all) {
          const cap = capOf(call.params ?? {});
          // A link names its media by its place in the provider's whole answer, which a refresh gets again.
          const kept = cap === undefined ? all : fit(all, cap);
          data[field] = kept;
          const expires = Math.floor((Date.now() + deps.linkTtlMs) / 1000);
          const own = deps.selfHostedOrigin(out.source);
          for (const raw of kept) {
            const item = raw as Item | null;
            if (typeof item !== 'object' || item === null || typeof item.url !== 'string') continue;
            const i = all.indexOf(item);
            const source = item.url;
            const token = seal.seal({
              u: source,
              s: out.source,
              e: spec.id,
              p: call.params ?? {},
              i,
              k: id.keyId,
              l: id.plan,
              n: fileNameOf(data.title, spec.name, i, item.extension),
              x: expires,
            });
            item.url = `${deps.publicUrl}/media/${token}`;
            item.sourceUrl = own !== undefined && originOf(source) === own ? null : source;
            // What the answer did not learn (features/media/facts.ts) is said to be unknown.
            for (const fact of FACTS) item[fact] ??= null;
          }
        }
        call.outcome = { ...out, data, dataJson: undefined };
      })
      // fit()'s media_too_large, or the secrets' database down, ends the call.
      .then(() => next(), next);
  };
}
