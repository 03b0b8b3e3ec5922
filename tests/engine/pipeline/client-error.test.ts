// What Node's HTTP parser refuses before Express sees it still gets the JSON error envelope: an over-long
// URL a 414, an over-long header block a 431, a malformed request a 400.
import net from 'node:net';
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
function raw(bytes: string): Promise<{ status: number; headers: string; body: string }> {
  const { port } = server.server.address() as net.AddressInfo;
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (c: string) => {
      text += c;
    });
    socket.on('error', reject);
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
