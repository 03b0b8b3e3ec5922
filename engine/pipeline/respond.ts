// The one place that writes answers: the success envelope, raw media on a matching Accept header, and
// the terminal error handler that maps the error vocabulary to HTTP while hiding internals.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, Response, NextFunction } from 'express';
import type { Logger } from 'pino';
import { ApiError } from '../errors.js';
import { isStorageFull, storageFull } from '../infra/storage-full.js';
import type { AdapterData } from '../types.js';
import type { Call } from './call.js';
import type { Fail } from './chain.js';
import type { CacheCodec } from '../upstream/response-cache.js';
import { CONTRACT_VERSION, VERSION_HEADER } from '../contract-version.js';

const JSON_TYPE = 'application/json; charset=utf-8';
/** From the module itself, not an `import`: see server/main.ts and docs/decisions/bounded-heap.md. */
const { validateHeaderValue } = process.getBuiltinModule('node:http');

/** A page's JSON answer (Express's res.json adds content negotiation and charset parsing we never need). */
function sendJson(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', JSON_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  setImmediate(endPage, res, text);
}

/** The answers given in this turn of the event loop, as call, payload, … (the status is the call's): one setImmediate writes them
 * all, in order (not an Immediate per answer, each an object and a pass of Node's immediate queue). */
let leaving: unknown[] = [];

/**
 * An API call's answer. Answers leave at the end of the event-loop turn (setImmediate), once the server
 * has read every socket that was ready, instead of one by one in between those reads: on a busy server
 * the peers are woken once per batch and the same code runs many times in a row (figures, the plain way it
 * stands against and the guard tests: docs/decisions/request-path-tuning.md, "Answers per loop turn"); on
 * an idle one it costs a loop turn. The headers the steps gathered on the call go out in one writeHead. The
 * answer counts as given now (its time stops here); the observers (log, metrics, usage) are told once the
 * turn's answers are written, all the turn's calls at once, so each runs for one call after another ("Observers
 * after the answers").
 */
function answer(call: Call, status: number, contentType: string, payload: string | Buffer) {
  if (call.answered) return; // one answer a call: the first stands
  call.header('Content-Type', contentType);
  const bytes = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
  call.bytesOut = bytes;
  // Always given: Node would leave it out of a HEAD answer.
  call.header('Content-Length', String(bytes));
  call.done(status);
  if (leaving.length === 0) setImmediate(writeLeaving);
  leaving.push(call, payload);
}

function writeLeaving() {
  const batch = leaving;
  leaving = [];
  let thrown: Error | undefined;
  for (let i = 0; i < batch.length; i += 2) {
    try {
      endCall(batch[i] as Call, batch[i + 1] as string | Buffer);
    } catch (err) {
      // A bug: the others are written all the same, then it is thrown as before, outside any request.
      thrown ??= err as Error;
    }
  }
  // Then the observers, each site's (one an app) with its calls of the turn, in order.
  let calls: Call[] = [];
  for (let i = 0; i < batch.length; i += 2) {
    const call = batch[i] as Call;
    if (calls.length && call.site !== calls[0].site) {
      thrown ??= observe(calls);
      calls = [];
    }
    calls.push(call);
  }
  if (calls.length) thrown ??= observe(calls);
  if (thrown !== undefined) throw thrown;
}

/** The calls' observer told of them; what it threw, if anything (a bug: the turn's other answers still count). */
function observe(calls: Call[]): Error | undefined {
  try {
    calls[0].site.observe(calls);
  } catch (err) {
    return err as Error;
  }
}

// Node drops the write by itself when the client has gone in the meantime (and the body of a HEAD answer).
// Nothing else writes an API answer, but a throw here would be outside any request: writeHead only once.
function endCall(call: Call, payload: string | Buffer) {
  const res = call.res;
  if (!res.headersSent) res.writeHead(call.status, call.headers);
  res.end(payload);
}

function endPage(res: ServerResponse, payload: string) {
  res.end(payload);
}

/** The success envelope; `dataJson`, when given, is `data` serialised already (a cached answer). */
export function sendData(call: Call, creator: string, source: string, data: AdapterData, cached: boolean, dataJson?: string) {
  const metadata = { endpoint: call.endpoint, requestId: call.id, tookMs: Math.round(call.stopClock() * 100) / 100, cached };
  if (dataJson === undefined) return answer(call, 200, JSON_TYPE, JSON.stringify({ success: true, creator, source, data, metadata }));
  // Spliced in, not parsed and written again: the same bytes JSON.stringify would give for the envelope.
  answer(
    call,
    200,
    JSON_TYPE,
    `{"success":true,"creator":${JSON.stringify(creator)},"source":${JSON.stringify(source)},"data":${dataJson},"metadata":${JSON.stringify(metadata)}}`,
  );
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
export function wantsMedia(req: IncomingMessage, contentType: string): boolean {
  const accept = req.headers.accept;
  if (!accept || accept.includes('application/json')) return false;
  const family = contentType.split('/')[0];
  return accept.split(',').some((part) => {
    const t = part.split(';')[0].trim().toLowerCase();
    return t === contentType || t === `${family}/*`;
  });
}

export function sendMedia(call: Call, bytes: Buffer, contentType: string) {
  // Checked now, in the step, so a bad type is this request's error and not a throw when the answer leaves.
  validateHeaderValue('Content-Type', contentType);
  answer(call, 200, contentType, bytes);
}

/** The error vocabulary's answer to whatever was raised; anything unforeseen is logged and hidden as a 500. */
function apiErrorOf(err: unknown, log: Logger, path: string, requestId: string | undefined): ApiError {
  if (err instanceof ApiError) {
    if (err.status >= 500) log.warn({ code: err.code, path, requestId }, err.message);
    return err;
  }
  // Express's body parsers (the pages, /mcp): their refusals are the caller's.
  const parser = err as { type?: string; status?: number } | undefined;
  if (parser?.type === 'entity.parse.failed') return new ApiError('bad_input', 'Malformed JSON body');
  if (parser?.type === 'entity.too.large') return new ApiError('payload_too_large', 'Request body is too large');
  if (parser?.type === 'entity.too.deep') return new ApiError('bad_input', (err as Error).message);
  if (typeof parser?.type === 'string' && parser.status !== undefined && parser.status >= 400 && parser.status < 500)
    return new ApiError('bad_input', 'Malformed request body');
  if (isStorageFull(err)) {
    log.error({ err: (err as Error).message, path, requestId }, 'a write found no space left: answered 507 storage_full');
    return storageFull();
  }
  log.error({ err, path, requestId }, 'unhandled error');
  return new ApiError('internal', 'Internal server error');
}

const errorBody = (e: ApiError) => ({ success: false, error: e.message, code: e.code });

/** Every 503 says when to try again (the document lists Retry-After as required): a minute where the error cannot tell. */
function headersOf(e: ApiError): Record<string, string> {
  return e.status === 503 && !e.headers['Retry-After'] ? { ...e.headers, 'Retry-After': '60' } : e.headers;
}

/** The error envelope of `e`, with its headers (Allow, WWW-Authenticate), for a page or a URL no route reads. */
export function sendError(res: ServerResponse, e: ApiError) {
  if (res.headersSent) return res.end();
  res.setHeader(VERSION_HEADER, CONTRACT_VERSION);
  for (const [name, value] of Object.entries(headersOf(e))) res.setHeader(name, value);
  sendJson(res, e.status, errorBody(e));
}

/** Answers an API call with the error one of its steps raised. */
export function failCall(log: Logger): Fail {
  return (err, call) => {
    const e = apiErrorOf(err, log, call.path, call.id);
    if (call.answered) return; // an answer is already on its way: it stands, and so does its count
    // The refund is immediate in process and a promise in Redis; a failed refund only costs the caller one.
    if (e.status >= 500 && call.refund)
      Promise.resolve()
        .then(call.refund)
        .catch(() => {});
    for (const [name, value] of Object.entries(headersOf(e))) call.header(name, value);
    call.errorCode = e.code;
    call.errorMessage = e.message;
    answer(call, e.status, JSON_TYPE, JSON.stringify(errorBody(e)));
  };
}

/** Express's terminal error handler, for the pages (portal, hosted files, /health, /metrics). */
export function errorHandler(log: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    sendError(res, apiErrorOf(err, log, req.path, undefined));
  };
}
