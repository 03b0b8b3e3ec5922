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
const net = process.getBuiltinModule('node:net');
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

// Draining (SIGTERM from an orchestrator, SIGINT from a terminal), without a reset: /health answers 503 at
// once so the balancer takes the instance out, while the server keeps serving as before for DRAIN_DELAY.
// Then it stops accepting, and every answer from then on (those already in the works too) says
// `Connection: close` and closes its connection after it. An idle kept-alive connection is never closed
// under a client that may be sending on it: it is closed after its next answer, or by the client (Node's
// agent closes a second before the `Keep-Alive: timeout` the server announced; nginx's pool is set shorter),
// or by the server's own keep-alive timeout, as any idle connection is. Then the process exits.
// SHUTDOWN_TIMEOUT bounds the whole (docs/decisions/cluster.md, "Draining").
const closeAfterAnswer = (_req: IncomingMessage, res: ServerResponse) => {
  if (!res.headersSent) res.setHeader('Connection', 'close');
};
// The open connections (a Set add per connection, nothing per request), so that the answers already in
// the works when accepting stops are told `Connection: close` too.
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
    setTimeout(() => {
      log.warn({ timeoutMs: config.shutdownTimeoutMs }, 'requests still in flight at the shutdown timeout: exiting');
      flushLogs();
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
    void sleep(config.drainDelayMs).then(() => {
      server.prependListener('request', closeAfterAnswer);
      for (const socket of sockets) {
        const res = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
        if (res) closeAfterAnswer(res.req, res);
      }
      // net.Server's close, not http.Server's: the latter also closes every idle connection at once, and a
      // client sending on one at that moment gets a reset. The callback runs once the last connection ends.
      net.Server.prototype.close.call(server, () => {
        void started.close().then(
          () => {
            log.info('drained: exiting');
            flushLogs();
            process.exit(0);
          },
          (err: Error) => {
            log.error({ err: err.message }, 'shutdown: not everything could be kept');
            flushLogs();
            process.exit(1);
          },
        );
      });
      // A connection still idle a keep-alive timeout later was opened and never used (the used ones have
      // timed out by then): closing it now is what its keep-alive timeout would do.
      setTimeout(() => server.closeIdleConnections(), server.keepAliveTimeout + 1000).unref();
    });
  });
}
