// The one place that writes answers: the success envelope, raw media on a matching Accept header, and
// the terminal error handler that maps the error vocabulary to HTTP while hiding internals.
import type { Request, Response, NextFunction } from 'express';
import type { Logger } from 'pino';
import { ApiError } from './errors.js';
import type { AdapterData } from './types.js';
import { maybeCallOf } from './call.js';
import type { CacheCodec } from './response-cache.js';

export interface Meta {
  endpoint: string;
  requestId: string;
  elapsedMs: number;
  cached: boolean;
}

/** Writes JSON directly: Express's res.json adds content negotiation and charset parsing we never need. */
export function sendJson(res: Response, status: number, body: unknown) {
  sendJsonText(res, status, JSON.stringify(body));
}

function sendJsonText(res: Response, status: number, text: string) {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text)); // Node would leave it out of a HEAD answer
  deliver(res, text);
}

/**
 * Answers leave at the end of the event-loop turn (setImmediate), once the server has read every socket
 * that was ready, instead of one by one in between those reads. On a busy server that batching nearly
 * halves the CPU of a request (fewer wake-ups of the peers, warmer caches: docs/decisions.md); on an idle
 * one it costs a loop turn of microseconds. The answer counts as given now: it is logged and counted here.
 */
function deliver(res: Response, payload: string | Buffer) {
  maybeCallOf(res)?.done(res.statusCode);
  setImmediate(endAnswer, res, payload);
}

// Node drops the write by itself when the client has gone in the meantime.
function endAnswer(res: Response, payload: string | Buffer) {
  res.end(payload);
}

/** The success envelope; `dataJson`, when given, is `data` serialised already (a cached answer). */
export function sendData(res: Response, creator: string, source: string, data: AdapterData, meta: Meta, dataJson?: string) {
  const metadata = { endpoint: meta.endpoint, requestId: meta.requestId, tookMs: Math.round(meta.elapsedMs * 100) / 100, cached: meta.cached };
  if (dataJson === undefined) return sendJson(res, 200, { success: true, creator, source, data, metadata });
  // Spliced in, not parsed and written again: the same bytes JSON.stringify would give for the envelope.
  sendJsonText(res, 200, `{"success":true,"creator":${JSON.stringify(creator)},"source":${JSON.stringify(source)},"data":${dataJson},"metadata":${JSON.stringify(metadata)}}`);
}

/** What the response cache keeps of an answer: its source and its data serialised, never parsed again. */
export interface CachedAnswer {
  source: string;
  data: AdapterData;
  /** `data` serialised: set by encode() on the call that produced it, and all a decoded answer carries. */
  dataJson?: string;
}

/** The response cache's codec for answers: `<source>\n<data as JSON>` (a source is a catalog id, no newline). */
export function answerCodec<T extends CachedAnswer>(): CacheCodec<T> {
  return {
    encode(answer) {
      const json = (answer.dataJson ??= JSON.stringify(answer.data));
      if (json === undefined) throw new Error('the answer has no data');
      return `${answer.source}\n${json}`;
    },
    // A decoded answer is sent by sendData from dataJson alone: its data is never read.
    decode(text) {
      const cut = text.indexOf('\n');
      // An entry written before answers were kept this way (plain JSON, no newline): a miss, then replaced.
      if (cut < 0) throw new Error('not a cached answer');
      return { source: text.slice(0, cut), dataJson: text.slice(cut + 1), data: undefined, cacheable: true } as unknown as T;
    },
  };
}

/** True when the client asked for this media type (or its family) rather than JSON. */
export function wantsMedia(req: Request, contentType: string): boolean {
  const accept = req.get('accept');
  if (!accept || accept.includes('application/json')) return false;
  const family = contentType.split('/')[0];
  return accept.split(',').some((part) => {
    const t = part.split(';')[0].trim().toLowerCase();
    return t === contentType || t === `${family}/*`;
  });
}

export function sendMedia(res: Response, bytes: Buffer, contentType: string) {
  res.status(200).type(contentType).set('Content-Length', String(bytes.length));
  deliver(res, bytes);
}

export function errorHandler(log: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const call = maybeCallOf(res);
    let e: ApiError;
    if (err instanceof ApiError) e = err;
    else if ((err as { type?: string })?.type === 'entity.parse.failed') e = new ApiError('bad_input', 'Malformed JSON body');
    else {
      log.error({ err, path: req.path, requestId: call?.id }, 'unhandled error');
      e = new ApiError('internal', 'Internal server error');
    }
    if (call?.answered) return; // an answer is already on its way: it stands, and so does its count
    // The refund is immediate in process and a promise in Redis; a failed refund only costs the caller one.
    if (e.status >= 500 && call?.refund) Promise.resolve().then(call.refund).catch(() => {});
    if (e.status >= 500 && e.code !== 'internal') log.warn({ code: e.code, path: req.path, requestId: call?.id }, e.message);
    if (res.headersSent) return res.end();
    res.set(e.headers);
    sendJson(res, e.status, { success: false, error: e.message, code: e.code });
  };
}
