// The request log (features/request-log/): every API call, what it asked and what it was answered, with its
// secrets redacted, kept in batches: one row holds the calls of one owner and retention day that one writer
// recorded within a moment (at most BATCH_CALLS), as a JSON array of tuples. A call costs the request path
// a tuple in its batch's JSON and no index entry; a page of the inspector reads the owner's newest batches by index and
// unpacks a few. On PostgreSQL the table is partitioned by `drop_day`, so retention drops whole partitions;
// SQLite deletes by the same column's index and keeps the calls themselves in files beside the table, a
// day's files dropped whole (engine/db/call-files.ts). Why batches: docs/decisions/request-log.md.
import type { CallsPlace } from '../call-files.js';

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
   * JSON: an array of `CallTuple`s, oldest first; PostgreSQL's column is text. SQLite's writer keeps them in
   * a file beside the table (the three columns below; this one then empty); rows it wrote before hold the
   * bytes of that text (a BLOB).
   */
  calls: string | Uint8Array;
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

/**
 * A call in a batch's JSON, in this order; what the batch holds (owner, drop day) and the id's time are not
 * repeated. Its line is JSON.stringify of the tuple: V8 writes it in one go, with the providers, the
 * parameters and the uploads as the values they are (docs/decisions/request-log.md).
 */
export type CallTuple = [
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
  /**
   * The providers tried ({ upstream, status, code?, ms, breaker? }: engine/pipeline/call.ts ProviderAttempt);
   * a number for the most common list, one provider that answered (status 200) and is `source`: its time in
   * hundredths of a ms (an integer: JSON writes it faster than a fraction).
   */
  providers: readonly object[] | number | null,
  cached: 0 | 1,
  bytesOut: number,
  ip: string | null,
  params: Record<string, unknown> | null,
  /** The uploads ({ field, name, type, size }: features/request-log/redact.ts keptUploads). */
  uploads: readonly object[] | null,
  error: string | null,
];

/** The epoch ms a call id starts with. */
export const atOfId = (id: string) => parseInt(id.slice(0, 9), 36);

/** The calls of a batch row, oldest first. */
export function callsOf(b: Pick<RequestLogBatchTable, 'calls' | 'owner' | 'dropDay'>): LogRow[] {
  const c = b.calls;
  const text = typeof c === 'string' ? c : Buffer.from(c.buffer, c.byteOffset, c.byteLength).toString('utf8');
  return (JSON.parse(text) as CallTuple[]).map((t) => ({
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

const within = (set: Set<string>) => (set.size ? ` ${[...set].join(' ')} ` : ' ');

/** Calls encoded together (CallBatch.encode). */
const GROUP = 32;

/** Buffers of batches written, kept for the next ones (allocating each anew would tell V8 of external memory churn). */
const spare: Buffer[] = [];
const BUFFER_BYTES = 128 * 1024;

/**
 * The calls of one owner and drop day that go into one row: their tuples encoded as JSON, GROUP at a time,
 * into a buffer of the batch's own. Kept as tuples or strings until the write, a moment's calls would outlive
 * the young generation's collections and be copied into the old one, whose collections then mark the whole heap.
 */
export class CallBatch {
  size = 0;
  firstId = '';
  lastId = '';
  /** The oldest call's time. */
  private firstAt = 0;
  /** The request ids of its calls that are the callers' own (see RequestLogNamedTable). */
  readonly named: string[] = [];
  /** `[` and the calls encoded so far with a comma between two (none at first), and room for the `]` that bytes() ends them with. */
  private text = spare.pop() ?? Buffer.allocUnsafe(BUFFER_BYTES);
  private used = 0;
  /** Calls added and not encoded yet: GROUP at a time, one JSON.stringify of many tuples costs a fifth less a call than one each. */
  private pending: CallTuple[] = [];
  private readonly keys = new Set<string>();
  private readonly endpoints = new Set<string>();
  private readonly codes = new Set<string>();
  private readonly statuses = new Set<number>();

  constructor(
    readonly owner: string | null,
    readonly dropDay: number,
  ) {}

  /** Whether a call at `at` may join (the batch neither full nor spanning too long). */
  takes(at: number): boolean {
    return this.size < BATCH_CALLS && (!this.firstId || at - this.firstAt < BATCH_SPAN_MS);
  }

  /** `named`: the call's request id is the caller's own. */
  add(t: CallTuple, named: boolean): void {
    if (named) this.named.push(t[1]);
    const id = t[0];
    if (!this.firstId || id < this.firstId) {
      this.firstId = id;
      this.firstAt = atOfId(id);
    }
    if (id > this.lastId) this.lastId = id;
    if (t[2] !== null) this.keys.add(t[2]);
    this.endpoints.add(t[4]);
    if (t[7] !== null) this.codes.add(t[7]);
    this.statuses.add(t[6]);
    this.size++;
    if (this.pending.push(t) === GROUP) this.encode();
  }

  /** The pending calls into the buffer, as one JSON text of them whose brackets are the batch's. */
  private encode(): void {
    if (!this.pending.length) return;
    const json = JSON.stringify(this.pending);
    this.pending = [];
    // A UTF-16 unit is at most 3 bytes of UTF-8; one byte more for the closing `]`.
    const need = this.used + json.length * 3 + 1;
    if (need > this.text.length) {
      const bigger = Buffer.allocUnsafe(Math.max(need, this.text.length * 2));
      this.text.copy(bigger, 0, 0, this.used);
      this.text = bigger;
    }
    const at = this.used;
    const n = this.text.write(json, at);
    // Its `[` opens the batch's array or is the comma after the calls before it; its `]` is left out.
    if (at > 0) this.text[at] = 0x2c;
    this.used = at + n - 1;
  }

  /** Its calls' own request ids, as rows of the index. */
  names(): RequestLogNamedTable[] {
    return this.named.map((requestId) => ({ requestId, batchId: this.lastId, owner: this.owner, dropDay: this.dropDay }));
  }

  /** Its calls' JSON, as bytes (a view of its buffer until release()). */
  bytes(): Buffer {
    this.encode();
    if (this.used === 0) this.text[this.used++] = 0x5b;
    this.text[this.used] = 0x5d;
    return this.text.subarray(0, this.used + 1);
  }

  /** Its row, with its calls where a file holds them, or in the row as text (PostgreSQL) or bytes. */
  row(calls: CallsPlace | 'text' | 'bytes'): RequestLogBatchTable {
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
      calls: placed ? '' : calls === 'text' ? this.bytes().toString('utf8') : this.bytes(),
      callsFile: placed ? calls.file : null,
      callsAt: placed ? calls.at : null,
      callsBytes: placed ? calls.bytes : null,
    };
  }

  /** Once written: its buffer goes to the next batch. */
  release(): void {
    if (this.text.length === BUFFER_BYTES && spare.length < 16) spare.push(this.text);
  }
}
