// The request log (features/request-log/): every API call, what it asked and what it was answered, with its
// secrets redacted, kept in batches: one row holds the calls of one owner and retention day that one writer
// recorded within a moment (at most BATCH_CALLS), as bytes (request-log-calls.ts). A call costs the request
// path its fields copied into its batch's buffer and no index entry; a page of the inspector reads the owner's
// newest batches by index and unpacks a few. On PostgreSQL the table is partitioned by `drop_day`, so retention drops whole partitions;
// SQLite deletes by the same column's index and keeps the calls themselves in files beside the table, a
// day's files dropped whole (engine/db/call-files.ts). Why batches: docs/decisions/request-log.md.
import crypto from 'node:crypto';
import type { CallsPlace } from '../call-files.js';
import { blankCall, CallsWriter, FORMAT, readCalls, type CallRecord } from './request-log-calls.js';

export { blankCall, type CallRecord };

/** At most this many calls in one batch: a page reads a few batches whole. */
const BATCH_CALLS = 500;
/** A batch spans at most this much time from its oldest call to its newest (a look-up's window). */
export const BATCH_SPAN_MS = 60_000;

export interface RequestLogBatchTable {
  /** The newest call's id (calls' ids: `callId`): the batches' order and the cursor's index. */
  id: string;
  /** The oldest call's id. */
  firstId: string;
  /** The day (days since the epoch, UTC) from which the batch is gone. */
  dropDay: number;
  /** Whose calls these are: an account's id, `key:<id>` for a personal key of no account, null for shared keys. */
  owner: string | null;
  size: number;
  /** What the filters skip batches by, each a space-separated set with a space at both ends (` a b `). */
  keys: string;
  endpoints: string;
  codes: string;
  statuses: string;
  /**
   * The calls of rows written before, as JSON (a list of tuples, oldest first; SQLite's as its bytes); empty
   * for the others, whose calls are in `callsBin` (PostgreSQL) or a file beside the table (SQLite).
   */
  calls: string | Uint8Array;
  /** The calls' bytes (request-log-calls.ts) when the row holds them. */
  callsBin: Uint8Array | null;
  /** Where the calls are when a file holds them (engine/db/call-files.ts): its name, their offset and length. */
  callsFile: string | null;
  callsAt: number | null;
  callsBytes: number | null;
}

/**
 * The batch of each call whose request id is the caller's own (X-Request-Id): those ids carry no time to
 * narrow a look-up to a few batches, so they are indexed here (the service's own UUIDv7s are not).
 */
export interface RequestLogNamedTable {
  requestId: string;
  batchId: string;
  owner: string | null;
  dropDay: number;
}

export interface RequestLogTables {
  requestLogBatch: RequestLogBatchTable;
  requestLogNamed: RequestLogNamedTable;
}

/** One call as the inspector reads it. */
export interface LogRow {
  /** The call's time in base 36 (9 characters), its place within the millisecond (2) and 8 random ones: unique, and in time order (the cursor). */
  id: string;
  dropDay: number;
  /** Epoch ms (the id's first 9 characters). */
  at: number;
  /** The caller's X-Request-Id, or the one the service gave: what every answer carries as metadata.requestId. */
  requestId: string;
  owner: string | null;
  keyId: string | null;
  plan: string | null;
  endpoint: string;
  method: string;
  status: number;
  statusClass: number;
  code: string | null;
  ms: number;
  /** The provider that answered. */
  source: string | null;
  /** JSON: the providers tried, in order ({ upstream, status, code?, ms, breaker? }). */
  providers: string | null;
  /** 0 or 1. */
  cached: number;
  bytesOut: number;
  /** The client address, truncated unless REQUEST_LOG_IP=full. */
  ip: string | null;
  /** JSON of the parameters, secrets redacted, at most 8 KB. */
  params: string | null;
  /** JSON of the uploads (field, name, type, size), at most 8 KB. */
  uploads: string | null;
  /** The error envelope's message, at most 8 KB. */
  error: string | null;
}

/** A call in the JSON of rows written before (a list of these, oldest first). */
type JsonTuple = [
  id: string,
  requestId: string,
  keyId: string | null,
  plan: string | null,
  endpoint: string,
  method: string,
  status: number,
  code: string | null,
  ms: number,
  source: string | null,
  /** A number: the one provider that answered, `source`, its time in hundredths of a ms. */
  providers: readonly object[] | number | null,
  cached: 0 | 1,
  bytesOut: number,
  ip: string | null,
  params: Record<string, unknown> | null,
  uploads: readonly object[] | null,
  error: string | null,
];

/** The epoch ms a call id starts with. */
export const atOfId = (id: string) => parseInt(id.slice(0, 9), 36);

/** The first 9 characters of the ids of calls recorded at `ms` (the time order of ids). */
export const idAt = (ms: number) => Math.max(0, Math.floor(ms)).toString(36).padStart(9, '0');

/**
 * A call's id: its time (idAt), its place within the millisecond (2 characters), then its writer's random
 * tag (unique across instances and restarts), so ids keep the calls' order.
 */
export const callId = (at: number, seq: number, tag: string) =>
  `${idAt(at)}${seq < 36 ? `0${seq.toString(36)}` : Math.min(seq, 1295).toString(36)}${tag}`;

/** A writer's clock of call ids: its tag, and each call's place among its calls of the same millisecond. */
export class CallClock {
  readonly tag = crypto.randomBytes(6).toString('base64url');
  private lastMs = -1;
  private seq = 0;

  next(at: number): number {
    if (at === this.lastMs) return ++this.seq;
    this.lastMs = at;
    return (this.seq = 0);
  }
}

/** The calls of a batch row, oldest first: in the calls' own layout (request-log-calls.ts) or JSON. */
export function callsOf(b: Pick<RequestLogBatchTable, 'calls' | 'owner' | 'dropDay'>): LogRow[] {
  const c = b.calls;
  if (typeof c !== 'string' && c[0] === FORMAT) {
    const { tag, calls } = readCalls(c);
    return calls.map((r) => {
      const id = r.idTail === undefined ? callId(r.at, r.seq, tag) : `${idAt(r.at)}${r.idTail}`;
      const { seq: _s, idTail: _t, ...rest } = r;
      return { id, dropDay: b.dropDay, owner: b.owner, statusClass: Math.floor(r.status / 100), ...rest };
    });
  }
  const text = typeof c === 'string' ? c : Buffer.from(c.buffer, c.byteOffset, c.byteLength).toString('utf8');
  return (JSON.parse(text) as JsonTuple[]).map((t) => ({
    id: t[0],
    dropDay: b.dropDay,
    at: atOfId(t[0]),
    requestId: t[1],
    owner: b.owner,
    keyId: t[2],
    plan: t[3],
    endpoint: t[4],
    method: t[5],
    status: t[6],
    statusClass: Math.floor(t[6] / 100),
    code: t[7],
    ms: t[8],
    source: t[9],
    providers:
      t[10] === null ? null : JSON.stringify(typeof t[10] === 'number' ? [{ upstream: t[9], status: 200, ms: t[10] / 100 }] : t[10]),
    cached: t[11],
    bytesOut: t[12],
    ip: t[13],
    // Read back as the values they were; the inspector takes them as JSON texts.
    params: t[14] === null ? null : JSON.stringify(t[14]),
    uploads: t[15] === null ? null : JSON.stringify(t[15]),
    error: t[16],
  }));
}

/** Calls as the JSON of rows written before (what the one-row-a-call table's migration writes). */
function callsAsJson(rows: LogRow[]): string {
  const parsed = (s: string | null) => (s === null ? null : (JSON.parse(s) as unknown));
  return JSON.stringify(
    rows.map((r) => [
      r.id,
      r.requestId,
      r.keyId,
      r.plan,
      r.endpoint,
      r.method,
      r.status,
      r.code,
      r.ms,
      r.source,
      parsed(r.providers),
      r.cached,
      r.bytesOut,
      r.ip,
      parsed(r.params),
      parsed(r.uploads),
      r.error,
    ]),
  );
}

/** Places within a millisecond that ids tell apart (callId: two characters of base 36). */
const PLACES = 2048;
const idOfKey = (key: number, tag: string) => callId(Math.floor(key / PLACES), key % PLACES, tag);

const within = (set: Set<string>) => (set.size ? ` ${[...set].join(' ')} ` : ' ');

/**
 * The calls of one owner and drop day that go into one row, written into a buffer of the batch's own as they
 * come (request-log-calls.ts). Kept as objects or texts until the write, a moment's calls would outlive the
 * young generation's collections and be copied into the old one, whose collections then mark the whole heap.
 */
export class CallBatch {
  size = 0;
  /** The oldest call's time. */
  private firstAt = 0;
  // The oldest and newest calls' ids: of this writer as their time × PLACES + place (numbers, compared and
  // kept without making anything), of others (idTail) as texts.
  private first = Infinity;
  private last = -Infinity;
  private firstOther = '';
  private lastOther = '';
  /** The request ids of its calls that are the callers' own (see RequestLogNamedTable). */
  readonly named: string[] = [];
  private readonly writer: CallsWriter;
  private readonly keys = new Set<string>();
  private readonly endpoints = new Set<string>();
  private readonly codes = new Set<string>();
  private readonly statuses = new Set<number>();
  /** The last call's values of those sets (none yet: values no call has). */
  private readonly prev: { keyId?: string | null; endpoint?: string; code?: string | null; status?: number } = {
    keyId: undefined,
    endpoint: undefined,
    code: undefined,
    status: undefined,
  };

  /** `tag`: its writer's (CallClock). */
  constructor(
    readonly owner: string | null,
    readonly dropDay: number,
    private readonly tag: string,
  ) {
    this.writer = new CallsWriter(tag);
  }

  /** Whether a call at `at` may join (the batch neither full nor spanning too long). */
  takes(at: number): boolean {
    return this.size < BATCH_CALLS && (this.size === 0 || at - this.firstAt < BATCH_SPAN_MS);
  }

  /** `named`: the call's request id is the caller's own. */
  add(c: CallRecord, named: boolean): void {
    if (named) this.named.push(c.requestId);
    if (this.size === 0 || c.at < this.firstAt) this.firstAt = c.at;
    if (c.idTail !== undefined) {
      const id = `${idAt(c.at)}${c.idTail}`;
      if (!this.firstOther || id < this.firstOther) this.firstOther = id;
      if (id > this.lastOther) this.lastOther = id;
    } else {
      const key = Math.floor(c.at) * PLACES + Math.min(c.seq, PLACES - 1);
      if (key < this.first) this.first = key;
      if (key > this.last) this.last = key;
    }
    // A set is looked up only for a value other than the call's before (nearly every call's are the same).
    const prev = this.prev;
    if (c.keyId !== prev.keyId && c.keyId !== null) this.keys.add(c.keyId);
    if (c.endpoint !== prev.endpoint) this.endpoints.add(c.endpoint);
    if (c.code !== prev.code && c.code !== null) this.codes.add(c.code);
    if (c.status !== prev.status) this.statuses.add(c.status);
    prev.keyId = c.keyId;
    prev.endpoint = c.endpoint;
    prev.code = c.code;
    prev.status = c.status;
    this.size++;
    this.writer.add(c);
  }

  /** The oldest call's id. */
  get firstId(): string {
    const mine = this.first === Infinity ? undefined : idOfKey(this.first, this.tag);
    return mine === undefined || (this.firstOther && this.firstOther < mine) ? this.firstOther : mine;
  }

  /** The newest call's id. */
  get lastId(): string {
    const mine = this.last === -Infinity ? undefined : idOfKey(this.last, this.tag);
    return mine === undefined || this.lastOther > mine ? this.lastOther : mine;
  }

  /** Its calls' own request ids, as rows of the index. */
  names(): RequestLogNamedTable[] {
    const batchId = this.lastId;
    return this.named.map((requestId) => ({ requestId, batchId, owner: this.owner, dropDay: this.dropDay }));
  }

  /** Its calls' bytes (a view of its buffer until release()). */
  bytes(): Buffer {
    return this.writer.bytes();
  }

  /**
   * Its row, its calls where a file holds them (SQLite), in the row as bytes (PostgreSQL), or as the JSON of
   * rows written before (the migration from the one-row-a-call table, whose engines had no column for bytes yet).
   */
  row(calls: CallsPlace | 'bytes' | 'json'): RequestLogBatchTable {
    const placed = typeof calls === 'object';
    return {
      id: this.lastId,
      firstId: this.firstId,
      dropDay: this.dropDay,
      owner: this.owner,
      size: this.size,
      keys: within(this.keys),
      endpoints: within(this.endpoints),
      codes: within(this.codes),
      statuses: within(new Set([...this.statuses].map(String))),
      calls: calls === 'json' ? callsAsJson(callsOf({ calls: this.bytes(), owner: this.owner, dropDay: this.dropDay })) : '',
      // A copy: the row may outlive the batch's buffer, which goes to the next batch at release().
      callsBin: calls === 'bytes' ? Buffer.from(this.bytes()) : null,
      callsFile: placed ? calls.file : null,
      callsAt: placed ? calls.at : null,
      callsBytes: placed ? calls.bytes : null,
    };
  }

  /** Once written: its buffer goes to the next batch. */
  release(): void {
    this.writer.release();
  }
}
