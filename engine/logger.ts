// pino, with every place a key could hide redacted: keys never reach the logs.
import { pino, type Logger } from 'pino';

export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: {
      paths: ['apikey', 'upstream_key', 'key', 'token', 'password', 'req.headers["x-api-key"]', 'req.headers.authorization', 'headers["x-api-key"]', 'headers.authorization'],
      censor: '[redacted]',
    },
  });
}
