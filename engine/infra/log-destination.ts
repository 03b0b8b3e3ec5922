// Where pino's lines go: encoded into one reusable buffer as they come and written to a file descriptor with
// one synchronous write per batch, when 16 KiB have gathered or at most FLUSH_MS after the first line of a
// batch.
//
// Our own rather than sonic-boom (pino.destination), measured (docs/decisions/upstream-path.md, "The access log is written in batches"): sonic-boom
// measures the byte length of its whole pending string on every line, and in its asynchronous mode hands
// each write to libuv's thread pool, whose thread shares the server's core; the access log then cost several
// times this writer's CPU a line (figures in that decision). A line is encoded at once, while it is
// fresh in the CPU's cache, rather than joined with the others and encoded when the batch is written. A line
// of fixed shape (the access line) can be put together in the batch itself, with no string at all (LineBytes).
import fs from 'node:fs';

const BATCH_BYTES = 16 * 1024;
const INT32_MAX = 0x7fffffff;
/** Room for a batch and the line that completes it; a longer line is written on its own. */
const BUFFER_BYTES = 64 * 1024;
const FLUSH_MS = 250;
/** What may wait while the descriptor refuses writes (a full non-blocking pipe); newer lines are dropped beyond. */
const MAX_PENDING_BYTES = 8 * 1024 * 1024;

export interface LogDestination {
  write(line: string): void;
  /** Writes everything gathered now (shutdown, tests). */
  flushSync(): void;
}

/**
 * A line put together in the batch itself, piece by piece, for a line of fixed shape (the access line,
 * engine/infra/access-log.ts): no string is made, joined or encoded for it. open(), the pieces, then close();
 * a piece it cannot take as it is (`text` false) ends the line with cancel(), and the caller writes it as a
 * string instead.
 */
export interface LineBytes {
  /** Starts a line of at most `maxBytes`; false when it must come as a string (the output is backed up, or
   * the line is longer than a batch). */
  open(maxBytes: number): boolean;
  /** Bytes as they are (constant pieces, encoded once by the caller). */
  bytes(b: Uint8Array): void;
  /** A string of printable ASCII without `"` or `\`, as JSON writes it inside quotes; false for any other. */
  text(s: string): boolean;
  /** A non-negative safe integer, in decimal (at most 16 digits). */
  int(n: number): void;
  close(): void;
  /** Forgets the line begun by open(). */
  cancel(): void;
}

export function logDestination(fd: number): LogDestination {
  const batch = Buffer.allocUnsafe(BUFFER_BYTES);
  let used = 0;
  /** What a full pipe refused, and what came after it, oldest first: written before anything newer. */
  const backlog: Buffer[] = [];
  let backlogBytes = 0;
  let dropped = 0;
  let timer: NodeJS.Timeout | undefined;

  /** Writes `bytes` whole, or up to where a full pipe refuses more: then the rest, a view of `bytes`. */
  const writeOut = (bytes: Buffer): Buffer | undefined => {
    let at = 0;
    try {
      while (at < bytes.length) at += fs.writeSync(fd, bytes, at);
    } catch (err) {
      // A log line never fails a request: an output that is gone (EPIPE, EBADF) loses the batch.
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') return bytes.subarray(at);
    }
    return undefined;
  };

  const keep = (bytes: Buffer) => {
    backlog.push(bytes);
    backlogBytes += bytes.length;
  };

  /** The batch goes out, or behind the backlog; what waits is copied, as the batch's buffer is reused. */
  const sendBatch = () => {
    const rest = backlog.length ? batch.subarray(0, used) : writeOut(batch.subarray(0, used));
    used = 0;
    if (rest) keep(Buffer.from(rest));
  };

  const flushSync = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (dropped) {
      const note = `{"level":40,"time":${Date.now()},"msg":"log lines dropped: the output did not keep up","dropped":${dropped}}\n`;
      dropped = 0;
      add(note);
    }
    if (used) sendBatch();
    while (backlog.length) {
      const rest = writeOut(backlog[0]);
      if (rest) {
        backlogBytes -= backlog[0].length - rest.length;
        backlog[0] = rest;
        break;
      }
      backlogBytes -= backlog[0].length;
      backlog.shift();
    }
    // A non-blocking pipe that is full: what is left waits for the next try.
    if (backlog.length) timer ??= setTimeout(flushSync, FLUSH_MS).unref();
  };

  /** Encodes a line into the batch (a line takes at most 3 bytes per UTF-16 unit). */
  const add = (line: string) => {
    if (used + line.length * 3 > BUFFER_BYTES && used) sendBatch();
    if (line.length * 3 > BUFFER_BYTES) {
      // Too long for the batch: it goes on its own, in its turn.
      const bytes = Buffer.from(line);
      const rest = backlog.length ? bytes : writeOut(bytes);
      if (rest) keep(rest);
      return;
    }
    used += batch.write(line, used);
  };

  /** A whole number below 2^31, in 32-bit arithmetic (a division of a double by ten costs several times more). */
  const small = (n: number) => {
    let digits = 1;
    for (let rest = n; rest >= 10; rest = (rest / 10) | 0) digits++;
    used += digits;
    for (let at = used - 1, rest = n; at >= used - digits; at--, rest = (rest / 10) | 0) batch[at] = 48 + (rest % 10);
  };

  /** Where the line begun by open() starts in the batch. */
  let lineStart = 0;
  /** After a line: out when the batch is full, else within FLUSH_MS. */
  const written = () => {
    // While a full pipe refuses bytes, only the timer tries again.
    if (used >= BATCH_BYTES && !backlog.length) flushSync();
    else timer ??= setTimeout(flushSync, FLUSH_MS).unref();
  };

  const lines: LineBytes = {
    open(maxBytes) {
      // Behind a backlog a line may be dropped, and the note of how many counts lines: as strings, by write().
      if (backlog.length || maxBytes > BUFFER_BYTES) return false;
      if (used + maxBytes > BUFFER_BYTES) sendBatch();
      lineStart = used;
      return true;
    },
    bytes(b) {
      batch.set(b, used);
      used += b.length;
    },
    text(s) {
      const n = s.length;
      for (let i = 0; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return false;
        batch[used + i] = c;
      }
      used += n;
      return true;
    },
    int(n) {
      if (n <= INT32_MAX) return small(n);
      // Beyond 32 bits (an epoch time in ms): the digits above the last eight, then those eight.
      const high = Math.floor(n / 1e8);
      small(high);
      let low = n - high * 1e8;
      for (let at = used + 7; at >= used; at--, low = (low / 10) | 0) batch[at] = 48 + (low % 10);
      used += 8;
    },
    close: written,
    cancel() {
      used = lineStart;
    },
  };
  const destination: LogDestination = {
    write(line) {
      if (backlog.length && backlogBytes + used + line.length * 3 > MAX_PENDING_BYTES) {
        dropped++;
        return;
      }
      add(line);
      written();
    },
    flushSync,
  };
  direct.set(destination, lines);
  return destination;
}

const direct = new WeakMap<object, LineBytes>();

/** The batch of a stream made by logDestination, to put lines together in; undefined for any other stream. */
export function lineBytesOf(stream: object): LineBytes | undefined {
  return direct.get(stream);
}
