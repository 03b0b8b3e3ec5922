// What Node's HTTP parser refuses before Express sees it still gets the JSON error envelope: an over-long
// URL a 414, an over-long header block a 431, a malformed request a 400, a request without Host a 400,
// CONNECT a 405, and a client address over its connection cap a 429.
import http from 'node:http';
import net from 'node:net';
import { guardEdges } from '../../../engine/pipeline/client-error.js';
import { testApp, listen, KEYS, type TestApp } from '../../helpers/app.js';

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
beforeAll(async () => {
  t = await testApp();
  server = await listen(t.app);
});
afterAll(async () => {
  await server.close();
  await t.close();
});

/** Sends raw bytes and reads the whole answer until the server closes. */
function raw(
  bytes: string,
  port = (server.server.address() as net.AddressInfo).port,
): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (c: string) => {
      text += c;
    });
    // A reset after the answer (a refused connection's unread request) still leaves the answer to read.
    socket.on('error', (err) => (text ? undefined : reject(err)));
    socket.on('close', () => {
      const [head, body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), headers: head, body });
    });
  });
}

test('an over-long URL is a 414 in the error envelope', async () => {
  const res = await raw(`GET /api/v1/tools/ccgen?apikey=${KEYS.premium}&bin=${'4'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
  expect(res.status).toBe(414);
  expect(res.headers).toMatch(/content-type: application\/json; charset=utf-8/i);
  expect(JSON.parse(res.body)).toEqual({
    success: false,
    error: 'The URL is too long: send long values in a POST body',
    code: 'uri_too_long',
  });
});

test('an over-long header block is a 431 in the error envelope', async () => {
  const res = await raw(
    `GET /api/v1/tools/ccgen?bin=457173 HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${KEYS.premium}\r\nX-Filler: ${'a'.repeat(20_000)}\r\n\r\n`,
  );
  expect(res.status).toBe(431);
  expect(JSON.parse(res.body)).toEqual({ success: false, error: 'The request headers are too large', code: 'headers_too_large' });
});

test('a malformed request is a 400 in the error envelope', async () => {
  const res = await raw('NOT HTTP AT ALL\r\n\r\n');
  expect(res.status).toBe(400);
  expect(JSON.parse(res.body)).toMatchObject({ success: false, code: 'bad_input', error: 'Malformed HTTP request' });
});

test('the server keeps answering after them', async () => {
  const res = await raw(`GET /api/v1/tools/ccgen?apikey=${KEYS.premium}&bin=457173 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  expect(res.status).toBe(200);
});

test('an HTTP/1.1 request without Host is a 400 in the envelope, not an empty answer', async () => {
  const res = await raw(`GET /api/v1/tools/ccgen?apikey=${KEYS.premium}&bin=457173 HTTP/1.1\r\n\r\n`);
  expect(res.status).toBe(400);
  expect(res.headers).toMatch(/content-type: application\/json/i);
  expect(JSON.parse(res.body)).toEqual({ success: false, error: 'Missing Host header', code: 'bad_input' });
  // HTTP/1.0 has no Host to miss.
  expect((await raw(`GET /api/v1/tools/ccgen?apikey=${KEYS.premium}&bin=457173 HTTP/1.0\r\n\r\n`)).status).toBe(200);
});

test('CONNECT is a 405 in the envelope, not a closed connection', async () => {
  const res = await raw('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
  expect(res.status).toBe(405);
  expect(res.headers).toMatch(/^allow: GET, HEAD, POST$/im);
  expect(JSON.parse(res.body)).toEqual({ success: false, error: 'Method CONNECT is not allowed', code: 'method_not_allowed' });
});

test('a client address past its connection cap is answered 429 in the envelope; a closed connection frees a place', async () => {
  const capped = http.createServer((_req, res) => res.end('ok')).listen(0, '127.0.0.1');
  guardEdges(capped, { bodyIdleMs: 30_000, requestMs: 60_000, connectionsPerAddress: 2, uncapped: () => false });
  await new Promise((r) => capped.once('listening', r));
  const { port } = capped.address() as net.AddressInfo;
  const open = await Promise.all(
    [1, 2].map(
      () =>
        new Promise<net.Socket>((r) => {
          const s = net.connect(port, '127.0.0.1', () => r(s));
        }),
    ),
  );
  await new Promise((r) => setTimeout(r, 50));
  const third = await raw('GET / HTTP/1.1\r\nHost: x\r\n\r\n', port);
  expect(third.status).toBe(429);
  expect(third.headers).toMatch(/^retry-after: 1$/im);
  expect(JSON.parse(third.body)).toEqual({
    success: false,
    error: 'Too many connections from your address: at most 2 at once',
    code: 'quota',
  });
  open[0].destroy();
  await new Promise((r) => setTimeout(r, 50));
  expect((await raw('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', port)).status).toBe(200);
  open[1].destroy();
  capped.closeAllConnections();
  await new Promise((r) => capped.close(r));
});
