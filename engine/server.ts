// Entry point of `npm start`.
import { createApp } from './app.js';
import { flushLogs } from './logger.js';
import { answerClientErrors } from './client-error.js';

const started = await createApp().catch((err: Error) => {
  console.error(`Cannot start: ${err.message}`);
  process.exit(1);
});
const { app, config, log } = started;
const server = app.listen(config.port, config.host, () => {
  log.info({ url: config.publicUrl, port: config.port, redis: config.redisUrl ? 'configured' : 'in-process' }, `${config.serviceName} listening`);
});
answerClientErrors(server);
server.requestTimeout = 10 * 60_000; // generation endpoints may take minutes
server.headersTimeout = 60_000;

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    server.close(() => void started.close().finally(() => { flushLogs(); process.exit(0); }));
    setTimeout(() => { flushLogs(); process.exit(0); }, 10_000).unref();
  });
}
