// Guard for the key's hash kept per connection (engine/access/identify.ts, docs/decisions/request-path-tuning.md):
// it relies on node:http handing every request of a kept-alive connection the same socket object, and each
// connection its own. Were that to change, each request would hash its key again (slower, never wrong); this
// test says so first.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

test('guard: requests of one kept-alive connection share req.socket; another connection has its own', async () => {
  const sockets: unknown[] = [];
  const server = http.createServer((req, res) => {
    sockets.push(req.socket);
    res.end('ok');
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  const get = (agent: http.Agent) =>
    new Promise<void>((ok, fail) => {
      http
        .get({ host: '127.0.0.1', port, agent }, (res) => {
          res.resume();
          res.on('end', ok);
        })
        .on('error', fail);
    });
  const one = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const other = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    await get(one);
    await get(one);
    await get(other);
    expect(sockets).toHaveLength(3);
    expect(sockets[1]).toBe(sockets[0]);
    expect(sockets[2]).not.toBe(sockets[0]);
  } finally {
    one.destroy();
    other.destroy();
    await new Promise((ok) => server.close(ok));
  }
});
