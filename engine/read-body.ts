// Reading an HTTP answer's body whole, for both callers of the engine's HTTP client (upstreams, engine/upstream.ts, and caller URLs, engine/guarded-fetch.ts):
// decompressed by its Content-Encoding, and counted as it arrives so that an oversized answer, or a small
// one that inflates into a huge one (a zip bomb), stops at the limit instead of filling the memory.
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import zlib from 'node:zlib';

/** What the caller maps to its own error: too many bytes, or a body that does not decompress. */
export class BodyError extends Error {
  constructor(readonly reason: 'too-large' | 'corrupt') {
    super(reason === 'too-large' ? 'the body is larger than allowed' : 'the body does not decompress');
  }
}

/** The encodings we ask for, in the Accept-Encoding we send. */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

function decoder(encoding: string): zlib.Gunzip | zlib.Unzip | zlib.BrotliDecompress | undefined {
  if (encoding === 'gzip' || encoding === 'x-gzip') return zlib.createGunzip();
  // "deflate" is zlib-wrapped by the spec; createUnzip also takes a server that sends gzip under that name.
  if (encoding === 'deflate') return zlib.createUnzip();
  if (encoding === 'br') return zlib.createBrotliDecompress();
  return undefined;
}

/**
 * The body as one Buffer. Rejects with BodyError when it passes `maxBytes` (after decompression) or does
 * not decompress, and with the stream's own error when the transfer fails (reset, aborted).
 */
export function readBody(body: Readable, contentEncoding: string | string[] | undefined, maxBytes: number): Promise<Buffer> {
  const encoding = String(contentEncoding ?? '').trim().toLowerCase();
  const unzip = encoding ? decoder(encoding) : undefined;
  return new Promise((resolve, reject) => {
    let sourceError: Error | undefined;
    body.once('error', (err) => (sourceError ??= err));
    const out: Readable = unzip ? pipeline(body, unzip, () => {}) : body;
    const chunks: Buffer[] = [];
    let total = 0;
    let done = false;
    const fail = (err: Error) => {
      if (done) return;
      done = true;
      body.destroy();
      if (out !== body) out.destroy();
      reject(err);
    };
    out.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > maxBytes) fail(new BodyError('too-large'));
      else chunks.push(chunk);
    });
    out.once('error', (err) => fail(sourceError ?? (out === body ? err : new BodyError('corrupt'))));
    out.once('end', () => {
      if (done) return;
      done = true;
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total));
    });
  });
}
