// The server: built, listening and draining (started by server/launch.ts, which checks Node's version first).
import { setTimeout as sleep } from 'node:timers/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { createApp } from './app.js';
import { flushLogs } from '../engine/infra/logger.js';
import { guardEdges } from '../engine/pipeline/client-error.js';
import { metricsExposed } from './config.js';

const started = await createApp().catch((err: Error) => {
  console.error(`Cannot start: ${err.message}`);
  process.exit(1);
});
const { app, config, log } = started;
// node:http is taken with process.getBuiltinModule, never an `import`: an ES import of a built-in reads every
// export, and node:http's WebSocket, CloseEvent and MessageEvent getters load Node's bundled undici, a few
// MB resident that nothing here uses (eslint.config.js forbids the import).
const http = process.getBuiltinModule('node:http');
const server = http.createServer(app);
// A port another process holds is the operator's to fix: one line, not a stack.
server.once('error', (err: NodeJS.ErrnoException) => {
  const why =
    err.code === 'EADDRINUSE'
      ? `port ${config.port} on ${config.host} is in use by another process (set PORT to another one)`
      : err.code === 'EACCES'
        ? `port ${config.port} on ${config.host} may not be opened by this user (set PORT above 1023)`
        : err.message;
  console.error(`Cannot start: ${why}`);
  flushLogs();
  process.exit(1);
});
server.listen(config.port, config.host, () => {
  log.info(
    { url: config.publicUrl, port: config.port, redis: config.redisUrl ? 'configured' : 'in-process' },
    `${config.serviceName} listening`,
  );
  if (metricsExposed(config)) log.warn({ host: config.host }, 'GET /metrics is public on a non-loopback address: set METRICS_TOKEN');
  // The pages and every adapter's module load now, in the background: a request meanwhile waits for
  // what it needs (/health says what is still warming). What cannot be loaded stops the server, as it
  // stopped the boot when everything loaded before listening: a broken deployment is not left half up.
  started.warm().catch((err: Error) => {
    console.error(`Cannot start: ${err.message}`);
    flushLogs();
    process.exit(1);
  });
});
// The time to send a request, not to answer it: a generation may take minutes once its request is in.
guardEdges(server, { bodyIdleMs: config.bodyIdleTimeoutMs, requestMs: 5 * 60_000, connectionsPerAddress: config.connectionsPerAddress });

// Draining (SIGTERM from an orchestrator, SIGINT from a terminal): /health answers 503 at once so the
// balancer takes the instance out; after DRAIN_DELAY the server stops accepting; every request in flight
// is answered, and a keep-alive connection is closed after its current request instead of waiting idle;
// then the process exits. SHUTDOWN_TIMEOUT bounds the whole.
const closeAfterAnswer = (_req: IncomingMessage, res: ServerResponse) => {
  if (!res.headersSent) res.setHeader('Connection', 'close');
};
// The open connections (a Set add per connection, nothing per request), so that the answers already in
// the works when draining starts are told `Connection: close` too.
const sockets = new Set<Socket>();
server.on('connection', (socket: Socket) => {
  sockets.add(socket);
  socket.once('close', () => sockets.delete(socket));
});
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, drainDelayMs: config.drainDelayMs }, 'shutting down');
    started.startDraining();
    server.prependListener('request', closeAfterAnswer);
    for (const socket of sockets) {
      const res = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
      if (res) closeAfterAnswer(res.req, res);
    }
    setTimeout(() => {
      log.warn({ timeoutMs: config.shutdownTimeoutMs }, 'requests still in flight at the shutdown timeout: exiting');
      flushLogs();
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
    void sleep(config.drainDelayMs).then(() => {
      server.close(
        () =>
          void started.close().finally(() => {
            log.info('drained: exiting');
            flushLogs();
            process.exit(0);
          }),
      );
      server.closeIdleConnections();
    });
  });
}
