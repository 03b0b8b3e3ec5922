// pino, with every place a key could hide redacted: keys never reach the logs.
import { pino, type Logger, type LoggerOptions } from 'pino';
import { logDestination } from './log-destination.js';

// Lines are written to stdout in batches (engine/infra/log-destination.ts), and what is gathered when the
// process exits is written then.
const destination = logDestination(1);
process.once('exit', () => destination.flushSync());

/** Writes what is gathered; called on shutdown. */
export function flushLogs(): void {
  destination.flushSync();
}

export function createLogger(level: string): Logger {
  return pino(loggerOptions(level), destination);
}

/** The product's logger settings: its level, and where a key could hide, redacted. */
export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: {
      paths: [
        'apikey',
        'upstream_key',
        'key',
        'token',
        'password',
        'req.headers["x-api-key"]',
        'req.headers.authorization',
        'headers["x-api-key"]',
        'headers.authorization',
      ],
      censor: '[redacted]',
    },
  };
}
