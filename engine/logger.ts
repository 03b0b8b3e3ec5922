// pino, with every place a key could hide redacted: keys never reach the logs.
import { pino, type Logger } from 'pino';

// Buffered, asynchronous writes: a synchronous write per access-log line costs a tenth of a request. A
// quiet server must not hold its lines until 4 KiB have gathered, so what is buffered is also written at
// least once a second (sonic-boom's periodic flush: unref'd, stopped when the stream closes).
const destination = pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 1000 });

/** Writes what is buffered; called on shutdown. */
export function flushLogs(): void {
  try { destination.flushSync(); } catch { /* not yet open */ }
}

export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: {
      paths: ['apikey', 'upstream_key', 'key', 'token', 'password', 'req.headers["x-api-key"]', 'req.headers.authorization', 'headers["x-api-key"]', 'headers.authorization'],
      censor: '[redacted]',
    },
  }, destination);
}
