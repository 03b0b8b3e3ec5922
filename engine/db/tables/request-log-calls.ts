// A batch's calls as bytes (engine/db/tables/request-log.ts): the writer copies each call's fields straight
// into the batch's buffer (numbers as varints, a batch's repeated texts such as its key, endpoint and
// parameters' names as numbers of a word list at its end), so recording a call makes no object, no text and
// no JSON. Rows written before hold their calls as JSON (a list of tuples, `[` their first byte): both are
// read. Why: docs/decisions/request-log.md.
//
// Layout: FORMAT, the offset of the trailer (u32 LE), the calls one after another, then the trailer: the
// writer's tag, the first call's time (epoch ms), the number of words and the words. A call: its time's
// distance from the first call's (ms, zigzag: a clock set back makes it negative), its place among the
// writer's calls of that millisecond plus one (0: the rest of its id follows as a text, an id of another writer), request id,
// key, plan, endpoint, method, status, code, duration (hundredths of a ms), source, FLAGS, the providers,
// the client address, the parameters, the uploads and the error (the last four as FLAGS say). A text is its
// UTF-8 length (u16 LE) and its bytes; a word is its number in the list plus one (0: null); a number is an
// unsigned LEB128 varint.

/** The first byte of a batch's bytes in this layout (JSON's is `[`). */
export const FORMAT = 0x01;
const HEAD = 5;
/** A text's bytes at most (the log caps what it keeps at 8 KB: engine/../redact.ts). */
const MAX_TEXT = 0xffff;
/**
 * Texts up to this many characters are copied by hand when they are ASCII (CallsWriter.text); a longer one
 * costs less through Buffer's UTF-8 writer (a micro-benchmark on 2026-11-30: 6–10 characters 30 ns by hand,
 * 50–60 by the writer; 36 characters 114–241 by hand, 65–201 by the writer).
 */
const SHORT = 12;
/** The fields whose last word a writer remembers: seven, then the parameters' names by their place. */
const SLOTS = 16;
const NAMES = 7;

// FLAGS: whether the answer was cached, then how the providers, parameters, uploads and error are kept.
const CACHED = 1;
/** The providers: none, the one that answered as its time, or the list as JSON. */
const PROVIDERS_TIME = 2;
const PROVIDERS_JSON = 4;
/** The parameters: none, texts by name, or JSON. */
const PARAMS_TEXTS = 8;
const PARAMS_JSON = 16;
const UPLOADS = 32;
const ERROR = 64;

/** One call as the writer hands it to its batch, which copies it out at once. */
export interface CallRecord {
  /** Epoch ms. */
  at: number;
  /** Its place among its writer's calls of the same millisecond (CallClock). */
  seq: number;
  /** Set for a call of another writer (an earlier table's row): its id after its time, as it was. */
  idTail?: string;
  requestId: string;
  keyId: string | null;
  plan: string | null;
  endpoint: string;
  method: string;
  status: number;
  code: string | null;
  ms: number;
  source: string | null;
  /**
   * The providers tried ({ upstream, status, code?, ms, breaker? }: engine/pipeline/call.ts ProviderAttempt);
   * a number for the most common list, one provider that answered (status 200) and is `source`: its time in
   * hundredths of a ms.
   */
  providers: readonly object[] | number | null;
  cached: boolean;
  bytesOut: number;
  ip: string | null;
  /** The parameters: an object, or texts only as a list of their names and values in turn. */
  params: Record<string, unknown> | readonly string[] | null;
  /** The uploads ({ field, name, type, size }: features/request-log/redact.ts keptUploads). */
  uploads: readonly object[] | null;
  error: string | null;
}

/** A call as read back: its id's parts, and its providers, parameters and uploads as JSON texts. */
export type ReadCall = Omit<CallRecord, 'idTail' | 'providers' | 'params' | 'uploads' | 'cached'> & {
  idTail: string | undefined;
  providers: string | null;
  params: string | null;
  uploads: string | null;
  /** 0 or 1. */
  cached: number;
};

/** A call with nothing in it yet, to be filled. */
export const blankCall = (): CallRecord => ({
  at: 0,
  seq: 0,
  requestId: '',
  keyId: null,
  plan: null,
  endpoint: '',
  method: '',
  status: 0,
  code: null,
  ms: 0,
  source: null,
  providers: null,
  cached: false,
  bytesOut: 0,
  ip: null,
  params: null,
  uploads: null,
  error: null,
});

/** A whole non-negative number, 0 for anything else (NaN and the infinities are not kept). */
const whole = (n: number) => (n >= 0 && n <= Number.MAX_SAFE_INTEGER ? Math.round(n) : 0);

/** Buffers of batches written, kept for the next ones (allocating each anew would tell V8 of external memory churn). */
const spare: Buffer[] = [];
const BUFFER_BYTES = 128 * 1024;

/** The bytes of one batch's calls, written as they come. */
export class CallsWriter {
  private buf = spare.pop() ?? Buffer.allocUnsafe(BUFFER_BYTES);
  private used = HEAD;
  private readonly words = new Map<string, number>();
  private readonly list: string[] = [];
  /**
   * Each field's last word and its number (SLOTS: the key, plan, ..., the parameters' names by place): a
   * batch's calls nearly all share each, answered without a look-up in the word table.
   */
  private readonly lastWords: (string | undefined)[] = new Array<string | undefined>(SLOTS).fill(undefined);
  private readonly lastNumbers: number[] = new Array<number>(SLOTS).fill(0);
  /** The first call's time: the others' are kept as their distance from it. */
  private base = -1;

  constructor(private readonly tag: string) {}

  add(c: CallRecord): void {
    this.room(64);
    const at = Math.floor(c.at);
    if (this.base < 0) this.base = at;
    // Zigzag: a clock set back makes a call older than the first.
    const d = at - this.base;
    this.uint(d >= 0 ? d * 2 : -d * 2 - 1);
    if (c.idTail === undefined) this.uint(c.seq + 1);
    else {
      this.uint(0);
      this.text(c.idTail);
    }
    this.text(c.requestId);
    this.room(64);
    this.word(c.keyId, 0);
    this.word(c.plan, 1);
    this.word(c.endpoint, 2);
    this.word(c.method, 3);
    this.uint(c.status);
    this.word(c.code, 4);
    this.uint(whole(c.ms * 100));
    this.word(c.source, 5);
    const p = c.providers;
    const params = c.params;
    const texts = params === null ? -1 : Array.isArray(params) ? params.length / 2 : textsIn(params as Record<string, unknown>);
    this.buf[this.used++] =
      (c.cached ? CACHED : 0) |
      (p === null ? 0 : typeof p === 'number' ? PROVIDERS_TIME : PROVIDERS_JSON) |
      (params === null ? 0 : texts >= 0 ? PARAMS_TEXTS : PARAMS_JSON) |
      (c.uploads === null ? 0 : UPLOADS) |
      (c.error === null ? 0 : ERROR);
    if (typeof p === 'number') this.uint(whole(p));
    else if (p !== null) this.text(JSON.stringify(p));
    this.room(32);
    this.uint(whole(c.bytesOut));
    this.word(c.ip, 6);
    if (params !== null) {
      if (texts >= 0) {
        this.uint(texts);
        if (Array.isArray(params))
          for (let i = 0; i < params.length; i += 2) {
            this.room(16);
            this.word(params[i] as string, NAMES + Math.min(i / 2, SLOTS - NAMES - 1));
            this.text(params[i + 1] as string);
          }
        else {
          let i = 0;
          const named = params as Record<string, unknown>;
          for (const name in named) {
            this.room(16);
            this.word(name, NAMES + Math.min(i++, SLOTS - NAMES - 1));
            this.text(named[name] as string);
          }
        }
      } else this.text(JSON.stringify(params));
    }
    if (c.uploads !== null) this.text(JSON.stringify(c.uploads));
    if (c.error !== null) this.text(c.error);
  }

  /** The calls' bytes, the word list after them (a view of the writer's buffer until release()). */
  bytes(): Buffer {
    const end = this.used;
    this.buf[0] = FORMAT;
    this.buf.writeUInt32LE(end, 1);
    this.text(this.tag);
    this.room(16);
    this.uint(Math.max(0, this.base));
    this.uint(this.list.length);
    for (const w of this.list) this.text(w);
    const out = this.buf.subarray(0, this.used);
    // Written again at the next call of bytes(), with any calls added since.
    this.used = end;
    return out;
  }

  /** Once written: its buffer goes to the next batch. */
  release(): void {
    if (this.buf.length === BUFFER_BYTES && spare.length < 16) spare.push(this.buf);
  }

  /** At least `n` bytes free. */
  private room(n: number): void {
    if (this.used + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.used + n, this.buf.length * 2));
    this.buf.copy(bigger, 0, 0, this.used);
    this.buf = bigger;
  }

  private uint(n: number): void {
    const b = this.buf;
    let o = this.used;
    if (n <= 0x7fffffff)
      while (n >= 0x80) {
        b[o++] = (n & 0x7f) | 0x80;
        n >>>= 7;
      }
    else
      while (n >= 0x80) {
        b[o++] = (n % 0x80) | 0x80;
        n = Math.floor(n / 0x80);
      }
    b[o++] = n;
    this.used = o;
  }

  private text(s: string): void {
    const o = this.used;
    const b = this.buf;
    // A short text of ASCII (a query's value, a code: nearly all) is copied here, cheaper than a call of
    // Buffer's UTF-8 writer; any other goes to the writer.
    if (s.length <= SHORT && o + 2 + SHORT <= b.length) {
      let i = 0;
      for (; i < s.length; i++) {
        const ch = s.charCodeAt(i);
        if (ch >= 0x80) break;
        b[o + 2 + i] = ch;
      }
      if (i === s.length) {
        b[o] = i;
        b[o + 1] = 0;
        this.used = o + 2 + i;
        return;
      }
    }
    // A UTF-16 unit is at most 3 bytes of UTF-8.
    this.room(Math.min(s.length * 3, MAX_TEXT) + 2);
    const n = this.buf.write(s, o + 2, MAX_TEXT, 'utf8');
    this.buf.writeUInt16LE(n, o);
    this.used = o + 2 + n;
  }

  /** `slot`: the field's place, whose last word is remembered. */
  private word(s: string | null, slot: number): void {
    if (s === null) this.buf[this.used++] = 0;
    else if (s === this.lastWords[slot]) this.uint(this.lastNumbers[slot]);
    else {
      const n = this.numberOf(s);
      this.lastWords[slot] = s;
      this.lastNumbers[slot] = n;
      this.uint(n);
    }
  }

  /** A word's number in the list (plus one), added to the list if new. */
  private numberOf(s: string): number {
    let n = this.words.get(s);
    if (n === undefined) {
      this.list.push(s);
      this.words.set(s, (n = this.list.length));
    }
    return n;
  }
}

/** How many values when every one is a text (a query string's, a form's: nearly every call's), else -1. */
function textsIn(params: Record<string, unknown>): number {
  let n = 0;
  for (const name in params) {
    if (typeof params[name] !== 'string') return -1;
    n++;
  }
  return n;
}

/** What a search for a request id looks for in a batch's bytes in this layout (its text, length first). */
export function requestIdBytes(requestId: string): Buffer {
  const b = Buffer.from(`\0\0${requestId}`);
  b.writeUInt16LE(b.length - 2, 0);
  return b;
}

/** The calls in a batch's bytes of this layout, oldest first, and its writer's tag. */
export function readCalls(bytes: Uint8Array): { tag: string; calls: ReadCall[] } {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let o = 0;
  const uint = () => {
    let n = 0;
    let scale = 1;
    for (;;) {
      const byte = b[o++];
      n += (byte & 0x7f) * scale;
      if (byte < 0x80) return n;
      scale *= 0x80;
    }
  };
  const text = () => {
    const n = b.readUInt16LE(o);
    o += 2 + n;
    return b.toString('utf8', o - n, o);
  };
  const end = b.readUInt32LE(1);
  o = end;
  const tag = text();
  const base = uint();
  const words = Array.from({ length: uint() }, text);
  const word = () => {
    const n = uint();
    return n === 0 ? null : words[n - 1];
  };
  const calls: ReadCall[] = [];
  o = HEAD;
  while (o < end) {
    const z = uint();
    const at = base + (z % 2 === 0 ? z / 2 : -(z + 1) / 2);
    const seq = uint();
    const idTail = seq === 0 ? text() : undefined;
    const requestId = text();
    const keyId = word();
    const plan = word();
    const endpoint = word()!;
    const method = word()!;
    const status = uint();
    const code = word();
    const ms = uint() / 100;
    const source = word();
    const flags = b[o++];
    const providers =
      flags & PROVIDERS_TIME
        ? JSON.stringify([{ upstream: source, status: 200, ms: uint() / 100 }])
        : flags & PROVIDERS_JSON
          ? text()
          : null;
    const bytesOut = uint();
    const ip = word();
    let params: string | null = null;
    if (flags & PARAMS_TEXTS) {
      const pairs: string[] = [];
      for (let n = uint(); n > 0; n--) pairs.push(`${JSON.stringify(word())}:${JSON.stringify(text())}`);
      params = `{${pairs.join(',')}}`;
    } else if (flags & PARAMS_JSON) params = text();
    const uploads = flags & UPLOADS ? text() : null;
    const error = flags & ERROR ? text() : null;
    calls.push({
      at,
      seq: seq - 1,
      idTail,
      requestId,
      keyId,
      plan,
      endpoint,
      method,
      status,
      code,
      ms,
      source,
      providers,
      cached: flags & CACHED ? 1 : 0,
      bytesOut,
      ip,
      params,
      uploads,
      error,
    });
  }
  return { tag, calls };
}
