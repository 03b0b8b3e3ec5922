// A TCP proxy on loopback in front of a real server, that a test can cut and restore to simulate an
// outage or a restart of that server without touching the server itself.
import net from 'node:net';

export async function tcpProxy(targetHost: string, targetPort: number) {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  const start = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(targetPort, targetHost);
        sockets.add(client).add(upstream);
        client.pipe(upstream).pipe(client);
        const drop = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on('error', drop).on('close', drop);
        upstream.on('error', drop).on('close', drop);
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as net.AddressInfo).port;
        resolve();
      });
    });
  await start();
  return {
    get url() {
      return `redis://127.0.0.1:${port}`;
    },
    /** Closes the listener and every connection: the target looks down. */
    cut: () =>
      new Promise<void>((resolve) => {
        sockets.forEach((s) => s.destroy());
        sockets.clear();
        server!.close(() => resolve());
      }),
    /** Listens again on the same port: the target is back. */
    restore: start,
    close: () =>
      new Promise<void>((resolve) => {
        sockets.forEach((s) => s.destroy());
        server?.close(() => resolve());
      }),
  };
}
