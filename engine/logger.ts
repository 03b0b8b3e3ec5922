// pino, with every place a key could hide redacted: keys never reach the logs.
import { pino, type Logger } from 'pino';

// Buffered, asynchronous writes: a synchronous write per access-log line costs a tenth of a request.
const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
// A quiet server must not hold its lines until 4 KiB have gathered: what is buffered is written at least
// once a second (pino's advice for asynchronous destinations). Unref'd, so it never keeps the process up.
setInterval(() => {
  try { destination.flush(); } catch { /* not open yet, or closed at shutdown */ }
}, 1000).unref();

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
