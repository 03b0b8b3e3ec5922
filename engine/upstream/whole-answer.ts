// One HTTP exchange through an undici dispatcher, its answer read whole, for both callers of the engine's
// HTTP client (upstreams, engine/upstream/client.ts, and caller URLs, engine/upstream/guarded-fetch.ts): decompressed by its
// Content-Encoding and counted as it arrives, so that an oversized answer (or a small one that inflates
// into a huge one, a zip bomb) stops at the limit instead of filling the memory; bounded in time and
// cancelled by the caller's signal.
//
// undici's handler API rather than `Agent.request`: the engine always reads the whole body, and
// request()'s body is a Readable stream whose bookkeeping (a dozen nextTicks, destroy) cost a fifth of the
// client's own CPU per call (figures: docs/decisions/upstream-path.md).
import type { IncomingHttpHeaders } from 'node:http';
import zlib from 'node:zlib';
import type { Dispatcher } from 'undici';
import type { Cancellable, CancelScope } from './cancel.js';

/** What the caller maps to its own error: too many bytes, or a body that does not decompress. */
export class BodyError extends Error {
  constructor(readonly reason: 'too-large' | 'corrupt') {
    super(reason === 'too-large' ? 'the body is larger than allowed' : 'the body does not decompress');
  }
}

/** The encodings we ask for, in the Accept-Encoding we send. */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

/** The decompressor of a Content-Encoding we asked for; undefined for identity (or one we do not know). */
function decoder(encoding: string): zlib.Gunzip | zlib.Unzip | zlib.BrotliDecompress | undefined {
  if (encoding === 'gzip' || encoding === 'x-gzip') return zlib.createGunzip();
  // "deflate" is zlib-wrapped by the spec; createUnzip also takes a server that sends gzip under that name.
  if (encoding === 'deflate') return zlib.createUnzip();
  if (encoding === 'br') return zlib.createBrotliDecompress();
  return undefined;
}

export interface WholeAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface WholeOptions {
  /** Most bytes of the body, decompressed: beyond, a BodyError('too-large'). */
  maxBytes: number;
  /** The whole exchange, body included: beyond, the promise rejects with TIMED_OUT. */
  timeoutMs: number;
  /** Cancels the exchange: the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Cancels the exchange with its request (engine/upstream/cancel.ts): the promise rejects with the scope's reason. */
  scope?: CancelScope;
  /** An answer whose body is not wanted (a redirect to follow): settled at its head, the body dropped. */
  skipBody?(status: number, headers: IncomingHttpHeaders): boolean;
  /** Past maxBytes, settle with the first maxBytes and drop the rest, instead of a BodyError (a webhook's answer, shown in part). */
  truncate?: boolean;
}

/** A 2xx status: the answers whose body is read. */
export const isSuccess = (status: number): boolean => status >= 200 && status < 300;

/** The rejection of an exchange that ran out of time. */
export const TIMED_OUT = Object.freeze(new Error('the exchange timed out'));

const EMPTY = Buffer.alloc(0);
/** A dropped body larger than this closes the connection instead of being read to its end. */
const MAX_DROPPED_BYTES = 128 * 1024;

export function wholeAnswer(dispatcher: Dispatcher, request: Dispatcher.DispatchOptions, opts: WholeOptions): Promise<WholeAnswer> {
  return new Promise((resolve, reject) => {
    const reader = new Reader(resolve, reject, opts);
    // A request stopped already (its signal or its scope) is not sent.
    if (!reader.isSettled) dispatcher.dispatch(request, reader);
  });
}

class Reader implements Dispatcher.DispatchHandler, Cancellable {
  private controller: Dispatcher.DispatchController | undefined;
  /** An abort asked for before undici handed over the controller. */
  private abortReason: Error | undefined;
  private settled = false;
  private dropping = false;
  private status = 0;
  private headers: IncomingHttpHeaders = {};
  private readonly chunks: Buffer[] = [];
  private total = 0;
  private unzip: zlib.Gunzip | zlib.Unzip | zlib.BrotliDecompress | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly onAbort: (() => void) | undefined;

  constructor(
    private readonly resolve: (a: WholeAnswer) => void,
    private readonly reject: (e: unknown) => void,
    private readonly opts: WholeOptions,
  ) {
    this.timer = setTimeout(() => this.abort(TIMED_OUT), opts.timeoutMs);
    const signal = opts.signal;
    if (signal?.aborted) this.abort(signal.reason as Error);
    else {
      if (signal) signal.addEventListener('abort', (this.onAbort = () => this.abort(signal.reason as Error)), { once: true });
      opts.scope?.watch(this);
    }
  }

  get isSettled(): boolean {
    return this.settled;
  }

  /** Ends the exchange with `reason` (settling it now) and tells undici to drop the connection's request. */
  abort(reason: Error): void {
    this.fail(reason);
    if (this.controller) this.controller.abort(reason);
    else this.abortReason ??= reason;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.abortReason) controller.abort(this.abortReason);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, status: number, headers: IncomingHttpHeaders): void {
    this.status = status;
    this.headers = headers;
    if (this.opts.skipBody?.(status, headers)) {
      this.dropping = true;
      return this.done(EMPTY);
    }
    const encoding = String(headers['content-encoding'] ?? '')
      .trim()
      .toLowerCase();
    const unzip = encoding ? decoder(encoding) : undefined;
    if (!unzip) return;
    this.unzip = unzip;
    unzip.on('data', (chunk: Buffer) => this.take(chunk));
    unzip.once('error', () => this.abort(new BodyError('corrupt')));
    unzip.once('end', () => this.done());
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.dropping) {
      this.total += chunk.length;
      if (this.total > MAX_DROPPED_BYTES) controller.abort(new BodyError('too-large'));
    } else if (!this.settled) {
      if (this.unzip) this.unzip.write(chunk);
      else this.take(chunk);
    }
  }

  onResponseEnd(): void {
    if (this.settled) return;
    if (this.unzip) this.unzip.end();
    else this.done();
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, err: Error): void {
    this.fail(err);
  }

  private take(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.total <= this.opts.maxBytes) this.chunks.push(chunk);
    else if (this.opts.truncate) this.keepFirst(chunk);
    else this.abort(new BodyError('too-large'));
  }

  /** Settles with the bytes up to maxBytes (this chunk's first part included) and drops the connection. */
  private keepFirst(chunk: Buffer): void {
    const room = chunk.length - (this.total - this.opts.maxBytes);
    if (room > 0) this.chunks.push(chunk.subarray(0, room));
    this.total = this.opts.maxBytes;
    this.unzip?.destroy();
    this.done();
    this.controller?.abort(new BodyError('too-large'));
  }

  private done(body?: Buffer): void {
    if (this.settled) return;
    this.settle();
    const chunks = this.chunks;
    this.resolve({
      status: this.status,
      headers: this.headers,
      body: body ?? (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, this.total)),
    });
  }

  private fail(err: Error): void {
    if (this.settled) return;
    this.settle();
    this.unzip?.destroy();
    this.reject(err);
  }

  private settle(): void {
    this.settled = true;
    clearTimeout(this.timer);
    if (this.onAbort) this.opts.signal!.removeEventListener('abort', this.onAbort);
    this.opts.scope?.unwatch(this);
  }
}
