// The access log: one line per answered API request, written straight to the logger's stream as the bytes
// pino itself writes for `log.info({ requestId, endpoint, method, status, ms, keyId }, 'request')`.
// pino's generic path walks the object's keys, looks up a serialiser and a redaction stringifier for each
// and escapes every string by hand (why this is kept, the plain way it stands against and the guard test:
// docs/decisions/request-path-tuning.md, "The access line"). These fields are fixed and none can hold a key, so the line is put
// together directly. Whether it comes out as pino's is checked when the writer is made, against the
// logger's own serialiser (asJson, with its formatters, message key and redaction): a logger it does not
// match (a mixin, a hook, a message prefix, a multistream) is written through log.info as before. Into the
// product's own destination (engine/infra/log-destination.ts) the same bytes go straight into its batch.
import { pino, type Logger } from 'pino';
import { lineBytesOf } from './log-destination.js';
import { remembered } from '../remembered.js';

const { asJsonSym, streamSym, chindingsSym, timeSym, lsCacheSym, endSym, mixinSym, hooksSym, needsMetadataGsym } = pino.symbols;
/** A child's message prefix: in pino.symbols, not in its types. */
const msgPrefixSym = (pino.symbols as Record<string, symbol>).msgPrefixSym;
const INFO = 30;
const MSG = 'request';

/** Writes one access line; `keyId` undefined when the key was missing or invalid; `now`: the epoch ms to log
 * (the caller's reading of the clock, when it has one), used when the logger writes epoch times. */
export type AccessLog = (
  requestId: string,
  endpoint: string,
  method: string,
  status: number,
  ms: number,
  keyId: string | undefined,
  now?: number,
) => void;

/**
 * A string as JSON.stringify writes it: quoted as it is when no character needs escaping (what these fields
 * hold), otherwise by JSON.stringify. A loop over a few dozen characters costs less than JSON.stringify's own
 * entry (docs/decisions/request-path-tuning.md). pino on Node 24 writes a lone surrogate as it is (on Node 25 escaped, as here).
 */
function quote(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(s);
  }
  return `"${s}"`;
}

/** pino's internals, as `pino.symbols` exposes them for integrations. */
type Internals = Record<symbol, unknown>;

export function accessLog(log: Logger): AccessLog {
  const slow: AccessLog = (requestId, endpoint, method, status, ms, keyId) => {
    log.info({ requestId, endpoint, method, status, ms, keyId }, MSG);
  };
  const own = log as unknown as Internals;
  const stream = own[streamSym] as { write(line: string): unknown } & Internals;
  const hooks = own[hooksSym] as { logMethod?: unknown; streamWrite?: unknown } | undefined;
  if (own[mixinSym] || hooks?.logMethod || hooks?.streamWrite || own[msgPrefixSym] || stream[needsMetadataGsym] === true) return slow;

  const head = (own[lsCacheSym] as Record<number, string>)[INFO];
  const time = own[timeSym] as () => string;
  const tail = `,"msg":"${MSG}"${own[endSym] as string}`;
  const line = (requestId: string, endpoint: string, method: string, status: number, ms: number, keyId: string | undefined, at: string) =>
    `${head}${at}${own[chindingsSym] as string},"requestId":${quote(requestId)},"endpoint":${quote(endpoint)},"method":${quote(method)},"status":${status},"ms":${ms}${keyId === undefined ? '' : `,"keyId":${quote(keyId)}`}${tail}`;

  // The same line both ways, once: any difference (formatters, another message key, a redacted field name,
  // a nested key) and pino writes every line itself.
  const asJson = own[asJsonSym] as (obj: object, msg: string, level: number, time: string) => string;
  const at = time.call(log);
  for (const keyId of ['k0"\\\u00e9\n', undefined]) {
    const sample = ['r-1', 'tools/ccgen', 'GET', 200, 3, keyId] as const;
    const theirs = asJson.call(log, { requestId: 'r-1', endpoint: 'tools/ccgen', method: 'GET', status: 200, ms: 3, keyId }, MSG, INFO, at);
    if (line(...sample, at) !== theirs) return slow;
  }

  // pino's default clock: its `,"time":<epoch ms>` written from the caller's reading.
  const epoch = time === pino.stdTimeFunctions.epochTime;
  const direct = epoch ? inBatch(stream, head, own[chindingsSym] as string, tail) : undefined;
  return (requestId, endpoint, method, status, ms, keyId, now) => {
    if (!log.isLevelEnabled('info')) return;
    if (now !== undefined && direct?.(requestId, endpoint, method, status, ms, keyId, now)) return;
    stream.write(line(requestId, endpoint, method, status, ms, keyId, epoch && now !== undefined ? `,"time":${now}` : time.call(log)));
  };
}

/**
 * The same line put together in the log destination's batch (engine/infra/log-destination.ts), when the
 * logger writes to one: no string made, joined and encoded for it (docs/decisions/request-path-tuning.md,
 * "The access line"). Says false, having written nothing, for a line it cannot write so: a
 * request id that JSON would escape or that is not ASCII, a time or figure that is not a whole number.
 */
function inBatch(stream: object, head: string, chindings: string, tail: string) {
  const out = lineBytesOf(stream);
  if (out === undefined) return undefined;
  const bytes = (s: string) => Buffer.from(s, 'utf8');
  const time = bytes(`${head},"time":`);
  const id = bytes(`${chindings},"requestId":"`);
  // The fields that repeat from line to line (the routes', the methods' and the keys' names), with the
  // pieces around them, made once each: the request id's closing quote starts the endpoint's piece.
  const endpointPiece = remembered((endpoint) => bytes(`","endpoint":${quote(endpoint)},"method":`));
  const methodPiece = remembered((method) => bytes(`${quote(method)},"status":`));
  const keyIdPiece = remembered((keyId) => bytes(`,"keyId":${quote(keyId)}`));
  const msKey = bytes(',"ms":');
  const end = bytes(tail);
  const fixed = time.length + id.length + msKey.length + end.length;
  const whole = (n: number) => Number.isSafeInteger(n) && n >= 0;
  return (requestId: string, endpoint: string, method: string, status: number, ms: number, keyId: string | undefined, now: number) => {
    if (!whole(now) || !whole(status) || !whole(ms)) return false;
    const e = endpointPiece(endpoint);
    const m = methodPiece(method);
    const k = keyId === undefined ? undefined : keyIdPiece(keyId);
    // The request id is one byte a character or refused; each figure at most 16 digits.
    if (!out.open(fixed + requestId.length + e.length + m.length + (k?.length ?? 0) + 48)) return false;
    out.bytes(time);
    out.int(now);
    out.bytes(id);
    if (!out.text(requestId)) {
      out.cancel();
      return false;
    }
    out.bytes(e);
    out.bytes(m);
    out.int(status);
    out.bytes(msKey);
    out.int(ms);
    if (k !== undefined) out.bytes(k);
    out.bytes(end);
    out.close();
    return true;
  };
}
