// Where pino's lines go: gathered in memory and written to a file descriptor with one synchronous write
// per batch, when 16 KiB have gathered or at most FLUSH_MS after the first line of a batch.
//
// Our own rather than sonic-boom (pino.destination), measured (docs/decisions.md, "Access log"): sonic-boom
// measures the byte length of its whole pending string on every line, and in its asynchronous mode hands
// each write to libuv's thread pool, whose thread shares the server's core; the access log then cost 2.6 µs
// a line in isolation and up to a tenth of an uncached upstream call. This costs 1.0 µs (0.75 of it pino's
// own serialising).
import fs from 'node:fs';

const BATCH_BYTES = 16 * 1024;
const FLUSH_MS = 250;
/** What may wait while the descriptor refuses writes (a full non-blocking pipe); newer lines are dropped beyond. */
const MAX_PENDING_BYTES = 8 * 1024 * 1024;

export interface LogDestination {
  write(line: string): void;
  /** Writes everything gathered now (shutdown, tests). */
  flushSync(): void;
}

export function logDestination(fd: number): LogDestination {
  let parts: string[] = [];
  let pending = 0;
  let dropped = 0;
  /** Bytes a full pipe refused, written before anything newer. */
  let refused: Buffer | undefined;
  let timer: NodeJS.Timeout | undefined;

  const flushSync = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (dropped) {
      parts.push(`{"level":40,"time":${Date.now()},"msg":"log lines dropped: the output did not keep up","dropped":${dropped}}\n`);
      dropped = 0;
    }
    if (!parts.length && !refused) return;
    const text = Buffer.from(parts.length === 1 ? parts[0] : parts.join(''));
    const bytes = refused ? Buffer.concat([refused, text]) : text;
    parts = [];
    pending = 0;
    refused = undefined;
    let at = 0;
    try {
      while (at < bytes.length) at += fs.writeSync(fd, bytes, at);
    } catch (err) {
      // A log line never fails a request: an output that is gone (EPIPE, EBADF) loses the batch.
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') return;
      // A non-blocking pipe that is full: what is left waits for the next try.
      refused = bytes.subarray(at);
      pending = refused.length;
      timer = setTimeout(flushSync, FLUSH_MS).unref();
    }
  };

  return {
    write(line) {
      if (pending + line.length > MAX_PENDING_BYTES) {
        dropped++;
        return;
      }
      parts.push(line);
      pending += line.length;
      // While a full pipe refuses bytes, only the timer tries again (no copy of the backlog per line).
      if (pending >= BATCH_BYTES && !refused) flushSync();
      else timer ??= setTimeout(flushSync, FLUSH_MS).unref();
    },
    flushSync,
  };
}
