// The hash of the last key each connection presented is kept (engine/access/identify.ts,
// docs/decisions/request-path-tuning.md): this leans on node:http giving every request of a kept-alive
// connection the same socket object, and on the identify step passing it. If either changes, the key is
// hashed on every request again, silently slower: these tests fail instead. Also that the entry is per
// socket (two connections with different keys never answer for each other) and does not hold the socket.
import crypto from 'node:crypto';
import http from 'node:http';
import v8 from 'node:v8';
import vm from 'node:vm';
import { jest } from '@jest/globals';
import type { Config } from '../../../engine/config.js';
import { createIdentifier } from '../../../engine/access/identify.js';
import { record } from '../../../engine/access/keystore.js';
import { testApp, listen, KEYS, type TestApp } from '../../helpers/app.js';

const config = { freeKey: 'free-key-0001', anonymousKey: 'anonymous-key-0001' } as Config;

function get(url: string, agent: http.Agent): Promise<{ status: number; port: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        const port = res.socket.localPort!;
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, port }));
      })
      .on('error', reject);
  });
}

test('node:http gives every request of a kept-alive connection the same socket object', async () => {
  const sockets: object[] = [];
  const server = http.createServer((req, res) => {
    sockets.push(req.socket);
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    for (let i = 0; i < 3; i++) await get(url, agent);
    expect(sockets).toHaveLength(3);
    expect(new Set(sockets).size).toBe(1);
  } finally {
    agent.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe('through the app', () => {
  let t: TestApp;
  afterEach(async () => {
    jest.restoreAllMocks();
    await t?.close();
  });

  test('a key sent again on a kept-alive connection is hashed once; a new connection hashes it again', async () => {
    t = await testApp();
    const server = await listen(t.app);
    const hashes = jest.spyOn(crypto, 'hash');
    const ofKey = () => hashes.mock.calls.filter(([, data]) => data === KEYS.enterprise).length;
    const url = `${server.url}/api/v1/tools/ccgen?apikey=${KEYS.enterprise}&bin=457173`;
    const kept = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const other = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const ports = new Set<number>();
      for (let i = 0; i < 5; i++) {
        const res = await get(url, kept);
        expect(res.status).toBe(200);
        ports.add(res.port);
      }
      expect(ports.size).toBe(1); // one connection all along
      expect(ofKey()).toBe(1);
      expect((await get(url, other)).status).toBe(200);
      expect(ofKey()).toBe(2);
    } finally {
      kept.destroy();
      other.destroy();
      await server.close();
    }
  });
});

test("each connection keeps its own last key: interleaved, neither answers for the other's", () => {
  const a = record('configured-key-000a', 'enterprise', 'a');
  const b = record('configured-key-000b', 'basic', 'b');
  const identify = createIdentifier(config, { find: async () => undefined }, [a, b]);
  const one = {};
  const other = {};
  for (let i = 0; i < 4; i++) {
    expect(identify('configured-key-000a', one)).toMatchObject({ keyId: a.id });
    expect(identify('configured-key-000b', other)).toMatchObject({ keyId: b.id });
  }
  expect(identify('configured-key-000b', one)).toMatchObject({ keyId: b.id });
  expect(identify('configured-key-000a', other)).toMatchObject({ keyId: a.id });
});

test('the kept hash does not keep a closed connection alive: its entry goes with its socket', async () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const identify = createIdentifier(config, { find: async () => undefined }, [record('configured-key-000a', 'enterprise', 'a')]);
  const ref = (() => {
    const connection = {};
    expect(identify('configured-key-000a', connection)).toMatchObject({ status: 'ok', plan: 'enterprise' });
    return new WeakRef(connection);
  })();
  for (let i = 0; i < 10 && ref.deref() !== undefined; i++) {
    await new Promise((r) => setImmediate(r));
    gc();
  }
  expect(ref.deref()).toBeUndefined();
});
