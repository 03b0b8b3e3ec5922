// What each media of an answer is, told before anyone downloads it: its size in bytes and its type, read
// from the file itself (the first bytes, sniffed with file-type; never guessed from an extension), with the
// width, height and duration the provider said. One small ranged GET per item, all at once, within what is
// left of the endpoint's deadline; what is not known by then stays null. The facts are learnt where the
// answer is made, so a cached answer keeps them and its repeats ask the CDN nothing.
import { fileTypeFromBuffer } from 'file-type';
import type { EndpointSpec } from '../../engine/catalog/load.js';
import type { Call } from '../../engine/pipeline/call.js';
import type { Next } from '../../engine/pipeline/chain.js';
import type { Invoke } from '../../engine/pipeline/steps/invoke.js';
import { parseDuration } from '../../engine/duration.js';
import { discard, requestFile, type FileRequest } from './upstream-file.js';

/** file-type reads a few kilobytes at most for the formats media come in. */
const HEAD_BYTES = 4100;
/** However long the endpoint may take, the facts are not worth more than this. */
const MAX_WAIT_MS = 8000;

export interface Facts {
  bytes: number | null;
  mime: string | null;
}

export type FileOptions = Omit<FileRequest, 'url' | 'method' | 'headers' | 'signal' | 'timeoutMs'>;

export interface FactsDeps {
  /** How to reach a provider's files: its CDN's headers, its self-hosted origin. */
  file: (upstream: string) => FileOptions & { headers: Record<string, string> };
}

function sizeOf(status: number, headers: Record<string, string | string[] | undefined>): number | null {
  const range = headers['content-range'];
  const total = typeof range === 'string' ? /\/(\d+)$/.exec(range)?.[1] : undefined;
  if (status === 206 && total) return Number(total);
  const length = headers['content-length'];
  return status === 200 && typeof length === 'string' && /^\d+$/.test(length) ? Number(length) : null;
}

/** The facts of one file: its first bytes and its size, from one ranged GET. */
async function factsOf(
  url: string,
  opts: FileOptions & { headers: Record<string, string> },
  signal: AbortSignal,
  timeoutMs: number,
): Promise<Facts> {
  const file = await requestFile({
    ...opts,
    url,
    method: 'GET',
    headers: { ...opts.headers, range: `bytes=0-${HEAD_BYTES - 1}` },
    signal,
    timeoutMs,
  });
  if (file.status !== 200 && file.status !== 206) {
    discard(file);
    return { bytes: null, mime: null };
  }
  const chunks: Buffer[] = [];
  let got = 0;
  // A host that ignores the range sends the whole file: its first bytes are enough.
  for await (const chunk of file.body as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    got += chunk.length;
    if (got >= HEAD_BYTES) break;
  }
  discard(file);
  const sniffed = await fileTypeFromBuffer(Buffer.concat(chunks).subarray(0, HEAD_BYTES)).catch(() => undefined);
  return { bytes: sizeOf(file.status, file.headers), mime: sniffed?.mime ?? null };
}

const known = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) && x > 0 ? x : null);

/** The endpoint's invoke, then the facts of each media its answer names; the invoke itself where it names none. */
export function withFacts(spec: EndpointSpec, invoke: Invoke, deps: FactsDeps): Invoke {
  const field = spec.mediaItems;
  if (!field) return invoke;
  const budgetMs = parseDuration(spec.timeout ?? '30s');
  return (call: Call, next: Next) =>
    invoke(call, (err) => {
      const out = call.outcome;
      const items = out?.data?.[field];
      if ((err !== undefined && err !== null) || !out || !Array.isArray(items)) return next(err);
      const waitMs = Math.max(0, Math.min(MAX_WAIT_MS, budgetMs - call.elapsedMs));
      const stop = new AbortController();
      const timer = setTimeout(() => stop.abort(new Error('facts: time is up')), waitMs);
      const opts = deps.file(out.source);
      const media = (items as unknown[]).filter((m): m is Record<string, unknown> => typeof m === 'object' && m !== null);
      Promise.all(
        media.map((m) =>
          (typeof m.url === 'string' ? factsOf(m.url, opts, stop.signal, waitMs) : Promise.resolve({ bytes: null, mime: null })).then(
            (f) => f,
            (): Facts => ({ bytes: null, mime: null }),
          ),
        ),
      ).then((facts) => {
        clearTimeout(timer);
        media.forEach((m, i) => {
          m.bytes = facts[i].bytes;
          m.mime = facts[i].mime;
          m.width = known(m.width);
          m.height = known(m.height);
          m.duration = known(m.duration);
        });
        next();
      }, next);
    });
}
