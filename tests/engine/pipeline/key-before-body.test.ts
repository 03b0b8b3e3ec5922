// No work before a key (engine/pipeline/steps/parse.ts, server/api-routes.ts, mcp/router.ts): a body is read
// only once its key passed, or, when the key can only be in the body, up to MAX_BODY_KB. Each request here
// sends its headers and holds its body back: an answer that comes anyway was given with the body unread.
import net from 'node:net';
import { KEYS, listen, testApp, type TestApp } from '../../helpers/app.js';

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let port = 0;
const sockets: net.Socket[] = [];
beforeAll(async () => {
  // Behind a trusted proxy, so that requests can come from several client addresses.
  t = await testApp({ TRUST_PROXY: 'true' });
  server = await listen(t.app);
  port = (server.server.address() as net.AddressInfo).port;
});
afterEach(() => sockets.splice(0).forEach((s) => s.destroy()));
afterAll(async () => {
  await server.close();
  await t.close();
});

const MB = 1024 * 1024;
const IMAGE_HOST = '/api/v1/cloud-storage/image-host';
/** The start of a large JSON body: a base64 image, its end held back. */
const PART = `{"image":"${'A'.repeat(64 * 1024)}`;

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: { success: boolean; error?: string; code?: string };
}

/** Sends a request's headers and the start of its body, and resolves with the answer, if one comes. */
function held(path: string, headers: Record<string, string>, length: number, start = ''): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      const lines = Object.entries({ host: 'x', 'content-type': 'application/json', 'content-length': String(length), ...headers });
      socket.write(`POST ${path} HTTP/1.1\r\n${lines.map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`);
      if (start) socket.write(start);
    });
    sockets.push(socket);
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (c: string) => {
      text += c;
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = text.slice(0, end).split('\r\n');
      const fields = Object.fromEntries(
        head.slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      const body = text.slice(end + 4);
      if (body.length < Number(fields['content-length'])) return;
      resolve({ status: Number(head[0].split(' ')[1]), headers: fields, body: JSON.parse(body) as Answer['body'] });
    });
    socket.on('error', reject);
  });
}

test('a 40 MB body without a key in the header or query is refused unread: 413 saying where the key goes, metered', async () => {
  const a = await held(IMAGE_HOST, {}, 40 * MB);
  expect(a.status).toBe(413);
  expect(a.body).toEqual({
    success: false,
    code: 'payload_too_large',
    error:
      'Request body is too large to read without a key: send the key in the X-API-Key header or the apikey query parameter with bodies over 1024 KB',
  });
  expect(a.headers['x-ratelimit-limit']).toBeDefined();
});

test('a wrong key in the header or the query is refused before its body is read', async () => {
  expect((await held(IMAGE_HOST, { 'x-api-key': 'not-a-key' }, 40 * MB)).body).toMatchObject({
    code: 'invalid_key',
    error: 'Invalid apikey',
  });
  expect((await held(`${IMAGE_HOST}?apikey=not-a-key`, {}, 40 * MB)).status).toBe(401);
});

test('a key in a small body still counts, as the spec allows', async () => {
  const res = await fetch(`${server.url}/api/v1/tts/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apikey: 'not-a-key', text: 'hi' }),
  });
  expect(res.status).toBe(401);
  expect(((await res.json()) as Answer['body']).error).toBe('Invalid apikey');
});

test('large bodies are read one at a time per client address (429), and a few at a time in all (503)', async () => {
  const key = { 'x-api-key': KEYS.premium };
  const from = (ip: string) => ({ ...key, 'x-forwarded-for': ip });
  // The first holds its place while its body is still arriving.
  void held(IMAGE_HOST, from('203.0.113.1'), 2 * MB, PART).catch(() => {});
  await new Promise((r) => setTimeout(r, 100));
  const again = await held(IMAGE_HOST, from('203.0.113.1'), 2 * MB);
  expect(again.status).toBe(429);
  expect(again.headers['retry-after']).toBe('1');
  expect(again.body.error).toBe('Too many large request bodies at once from your address: send at most 1 at a time');
  // A body under MAX_BODY_KB takes no place.
  expect((await held(IMAGE_HOST, from('203.0.113.1'), 2, '{}')).status).toBe(400);
  void held(IMAGE_HOST, from('203.0.113.2'), 2 * MB, PART).catch(() => {});
  await new Promise((r) => setTimeout(r, 100));
  const third = await held(IMAGE_HOST, from('203.0.113.3'), 2 * MB);
  expect(third.status).toBe(503);
  expect(third.headers['retry-after']).toBe('1');
  // Places come back when their requests end.
  sockets.splice(0).forEach((s) => s.destroy());
  await new Promise((r) => setTimeout(r, 100));
  const after = await Promise.race([
    held(IMAGE_HOST, from('203.0.113.3'), 2 * MB, PART).then(() => 'answered'),
    new Promise((r) => setTimeout(() => r('still reading'), 300)),
  ]);
  expect(after).toBe('still reading');
}, 15_000);

test('/mcp checks the key before reading the message: a missing or wrong one is a 401 with the body unread', async () => {
  const missing = await held('/mcp', { accept: 'application/json, text/event-stream' }, 40 * MB);
  expect(missing.status).toBe(401);
  expect(missing.body).toMatchObject({ success: false, error: 'Missing apikey parameter' });
  const wrong = await held('/mcp', { accept: 'application/json, text/event-stream', 'x-api-key': 'not-a-key' }, 40 * MB);
  expect(wrong.body).toMatchObject({ error: 'Invalid apikey' });
});

test('/mcp reads no message over MAX_BODY_KB but through a large-body place', async () => {
  const key = { accept: 'application/json, text/event-stream', 'x-api-key': KEYS.premium, 'x-forwarded-for': '203.0.113.9' };
  void held('/mcp', key, 2 * MB, '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"image":"').catch(
    () => {},
  );
  await new Promise((r) => setTimeout(r, 100));
  expect((await held('/mcp', key, 2 * MB)).status).toBe(429);
});
