// The parse step: reads the parameters a caller sent, the query string plus for POST a JSON body, a
// urlencoded form or multipart fields and files (files streamed to disk with limits), into call.input.
// A body error is kept there (its one place) and raised by the validate step, after metering, so even a
// malformed request carries the rate-limit headers.
// No body is read before a key (server/api-routes.ts): a request with its key in the X-API-Key header or the
// query is identified, metered and authorized first, so a wrong key is refused unread. A request without one
// there may carry it in its body, which is then read first, but no more than MAX_BODY_KB of it into memory (a
// base64 file needs its key outside the body; a multipart file streams to disk), and a body larger than that, read whole into memory, takes a place among the
// few such bodies in flight (engine/pipeline/large-bodies.ts).
import fs from 'node:fs';
import path from 'node:path';
import { Socket } from 'node:net';
import type { BodyParser } from './body-parsers.js';
import type { EndpointSpec } from '../../catalog/load.js';
import { ApiError, badInput, invalidParam, payloadTooLarge } from '../../errors.js';
import type { UploadedFile } from '../../types.js';
import type { ApiRequest, Call } from '../call.js';
import type { Next, Step } from '../chain.js';
import { LoadOnce } from '../../load-once.js';
import { plainRecord } from '../plain-record.js';
import { keyOutsideBody } from '../../access/identify.js';
import type { LargeBodies } from '../large-bodies.js';
import { isStorageFull, storageFull } from '../../infra/storage-full.js';

export interface ParseLimits {
  uploadDir: string;
  maxUploadBytes: number;
  maxBodyBytes: number;
  /** Bodies over maxBodyBytes read into memory at once; none when absent (the probes: no such body). */
  largeBodies?: LargeBodies;
}

function bodyError(err: unknown, maxUploadBytes: number, keyless?: number): ApiError {
  const e = err as { type?: string; code?: string; field?: string; status?: number };
  const tooLarge = e.type === 'entity.too.large' || e.code === 'LIMIT_FIELD_VALUE';
  if (tooLarge && keyless !== undefined)
    return payloadTooLarge(
      `Request body is too large to read without a key: send the key in the X-API-Key header or the apikey query parameter with bodies over ${Math.round(keyless / 1024)} KB`,
    );
  if (e.type === 'entity.parse.failed') return badInput('Malformed JSON body');
  if (e.type === 'entity.too.deep') return badInput((err as Error).message);
  if (e.type === 'entity.too.large') return payloadTooLarge('Request body is too large');
  if (e.code === 'LIMIT_FILE_SIZE') return payloadTooLarge(`File is too large: the limit is ${Math.round(maxUploadBytes / 1048576)} MB`);
  if (e.code === 'LIMIT_UNEXPECTED_FILE') return badInput(`Unexpected file field: ${e.field ?? '(unnamed)'}`);
  if (e.code?.startsWith('LIMIT_')) return badInput(`Multipart body exceeds a limit (${e.code.toLowerCase().replace(/_/g, ' ')})`);
  if (e.type === 'charset.unsupported' || e.type === 'encoding.unsupported') return new ApiError('bad_input', 'Unsupported body encoding');
  // An upload the disk had no room for is the server's to fix, not a malformed body.
  if (isStorageFull(err)) return storageFull();
  return badInput('Malformed request body');
}

/** Values as they should reach the validator: strings stay, JSON scalars become strings, the rest is hostile. */
function normalise(value: unknown): unknown {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return value;
}

export function parse(spec: EndpointSpec, opts: ParseLimits): Step {
  const names = Object.keys(spec.params);
  const fileFields = names.filter((n) => spec.params[n].type === 'file').map((name) => ({ name, maxCount: 1 }));
  // A file that may also come as text (base64) needs room for the upload limit, base64-encoded.
  const textLimit = names.some((n) => spec.params[n].orText)
    ? Math.max(opts.maxBodyBytes, Math.ceil((opts.maxUploadBytes * 4) / 3) + 65536)
    : opts.maxBodyBytes;
  // The body parsers, made at the endpoint's first POST (engine/pipeline/steps/body-parsers.ts); those of a
  // request whose key can only be in its body read no more than maxBodyBytes into memory (a multipart file
  // streams to disk, under the upload limit either way, as clients send `-F apikey=… -F file=@…`).
  const parsers = new LoadOnce(() => import('./body-parsers.js').then(({ bodyParsers }) => bodyParsers(opts, textLimit, fileFields)));
  const keylessParsers =
    textLimit === opts.maxBodyBytes
      ? parsers
      : new LoadOnce(() => import('./body-parsers.js').then(({ bodyParsers }) => bodyParsers(opts, opts.maxBodyBytes, fileFields)));

  /** `failed`: the error that ended the reading of the body; the body is then ignored. */
  const merge = (call: Call, next: Next, failed?: ApiError) => {
    const req: ApiRequest = call.req;
    const query = call.query;
    const body = failed ? undefined : req.body;
    let error = failed;
    if (!error && body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
      error = badInput('Request body must be a JSON object');
    }
    const b = (error ? NOTHING : (body ?? NOTHING)) as Record<string, unknown>;
    const raw = plainRecord<unknown>();
    for (const name of names) {
      const fromBody = Object.hasOwn(b, name) ? normalise(b[name]) : undefined;
      raw[name] = fromBody ?? (Object.hasOwn(query, name) ? query[name] : undefined);
    }
    // `q[]=x` or `q[a]=x` spell a parameter as an array or object: refuse it rather than ignore it. A query
    // key holds a `[` only when the query string holds one, as it is or escaped (`%5B`): most hold neither,
    // and their keys are not walked.
    if (call.search.includes('[') || call.search.includes('%')) error ??= bracketed(query, names);
    if (b !== NOTHING) error ??= bracketed(b, names);
    const files = req.files === undefined ? NO_FILES : uploadedFiles(call, req.files as Record<string, Express.Multer.File[]>);
    call.input = { raw, files, error };
    next();
  };
  // Runs the parsers one by one, then merges; the first error ends the reading instead of failing the request now.
  const read = (call: Call, next: Next, each: BodyParser[], keyless: boolean) => {
    let i = 0;
    const step = (err?: unknown) => {
      if (err) {
        // Drain what is left so the connection stays usable and the client gets our answer.
        call.req.resume();
        return merge(call, next, bodyError(err, opts.maxUploadBytes, keyless ? opts.maxBodyBytes : undefined));
      }
      const parser = each[i++];
      if (!parser) return merge(call, next);
      parser(call.req, call.res, step);
    };
    // A body that says it is over the limit is refused now: body-parser would first read it all (and drop it).
    if (declaredOver(call.req, keyless ? opts.maxBodyBytes : textLimit)) return step({ type: 'entity.too.large' });
    // A body read whole into memory past maxBodyBytes waits for no place: it gets one or is refused unread.
    // A request injected in process (an MCP tool call) has no socket: the MCP message that carried it holds one.
    if (
      !keyless &&
      textLimit > opts.maxBodyBytes &&
      opts.largeBodies &&
      call.req.socket instanceof Socket &&
      inMemoryAndLarge(call.req, opts.maxBodyBytes)
    ) {
      const refused = opts.largeBodies.take(call.ip ?? '', call.res);
      if (refused) {
        call.req.resume();
        return merge(call, next, refused);
      }
    }
    step();
  };
  const readBody = (call: Call, next: Next) => {
    const keyless = keyOutsideBody(call.req.headers, call.query) === undefined;
    const once = keyless ? keylessParsers : parsers;
    const loaded = once.value;
    if (loaded) return read(call, next, loaded, keyless);
    once.get().then(
      (loaded) => read(call, next, loaded, keyless),
      (err: Error) => next(err),
    );
  };
  // Read once: by the step before identify when the key can only be in the body, otherwise after authorize.
  if (spec.method !== 'POST') return (call, next) => (call.input ? next() : merge(call, next));
  return (call, next) => (call.input ? next() : readBody(call, next));
}

const isMultipart = (req: ApiRequest) => /^multipart\//i.test(req.headers['content-type'] ?? '');

/** Whether a body is JSON or a form (read into memory, not streamed to disk) and over `limit` bytes or of unknown length. */
function inMemoryAndLarge(req: ApiRequest, limit: number): boolean {
  if (isMultipart(req)) return false;
  const length = req.headers['content-length'];
  return length === undefined ? req.headers['transfer-encoding'] !== undefined : Number(length) > limit;
}

/** Whether a body read into memory declares more than `limit` bytes (a multipart body's limits are its parts'). */
function declaredOver(req: ApiRequest, limit: number): boolean {
  return !isMultipart(req) && Number(req.headers['content-length'] ?? 0) > limit;
}

/**
 * The step before identify: reads the body of a POST whose key is in neither the X-API-Key header nor the
 * query (it may be in the body, as the spec allows); any other request goes on unread.
 */
export function bodyBeforeKey(read: Step): Step {
  return (call, next) => (call.method === 'POST' && keyOutsideBody(call.req.headers, call.query) === undefined ? read(call, next) : next());
}

/** A request without a body or without files: one shared empty object, not a new one per request. */
const NOTHING: Record<string, never> = Object.freeze({});
const NO_FILES: Record<string, UploadedFile> = NOTHING;

/** multer's files as the adapters see them; the temp files are removed once the answer is sent (an adapter
 * that keeps one moves it first). */
function uploadedFiles(call: Call, uploaded: Record<string, Express.Multer.File[]>): Record<string, UploadedFile> {
  const files: Record<string, UploadedFile> = {};
  for (const [field, list] of Object.entries(uploaded)) {
    const f = list[0];
    files[field] = {
      field,
      path: f.path,
      originalName: path.basename(f.originalname || 'upload'),
      size: f.size,
      claimedType: f.mimetype,
    };
  }
  if (Object.keys(files).length) {
    call.res.on('close', () => Object.values(files).forEach((f) => fs.rm(f.path, { force: true }, () => {})));
  }
  return files;
}

/** The error for a parameter spelt as an array or object (`name[]`, `name[key]`), if any. */
function bracketed(values: Record<string, unknown>, names: string[]): ApiError | undefined {
  // for-in, not Object.keys: no array made on every request (the values are plain or null-prototype objects).
  for (const key in values) {
    const at = key.indexOf('[');
    if (at > 0 && names.includes(key.slice(0, at))) return invalidParam(key.slice(0, at), 'must be a single value');
  }
  return undefined;
}
