// The HTTP edge over a raw socket (engine/pipeline/client-error.ts): a broken chunked body is a 400 in the
// envelope, a body that stops arriving a 408 after the idle time while a slow but steady upload goes on,
// the answer to a valid request is written before the connection closes on the garbage after it, a
// trailing slash names the route, every answer says X-Content-Type-Options: nosniff (and an API answer its
// contract's version, API-Version), and JSON nested
// 50,000 levels deep is a 400, not a stack overflow.
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { testApp, listen, KEYS, type TestApp } from '../../helpers/app.js';
import { CONTRACT_VERSION } from '../../../engine/contract-version.js';

const IDLE_MS = 1000;
let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
beforeAll(async () => {
  t = await testApp();
  server = await listen(t.app, { bodyIdleMs: IDLE_MS });
});
afterAll(async () => {
  await server.close();
  await t.close();
});

interface Answer {
  status: number;
  head: string;
  body: string;
}

/** Splits what the server wrote into its answers (each with a Content-Length, as ours all have). */
function answersIn(text: string): Answer[] {
  const out: Answer[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n');
    const head = rest.slice(0, end);
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
    out.push({ status: Number(head.slice(9, 12)), head, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
  return out;
}

/** Writes each part in turn (waiting `gapMs` between them) and reads every answer until the server closes. */
function raw(parts: string[], gapMs = 0): Promise<{ answers: Answer[]; ms: number }> {
  const { port } = server.server.address() as net.AddressInfo;
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const write = async () => {
      for (const [i, part] of parts.entries()) {
        if (i > 0 && gapMs) await sleep(gapMs);
        if (!socket.writable) break;
        socket.write(part);
      }
    };
    const socket = net.connect(port, '127.0.0.1', () => void write());
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (c: string) => {
      text += c;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve({ answers: answersIn(text), ms: Date.now() - started }));
  });
}

const envelope = (a: Answer) => JSON.parse(a.body) as { success: boolean; error: string; code: string };
const json = 'Content-Type: application/json';

test('a malformed chunked body is a 400 in the error envelope, not a silent close', async () => {
  const { answers } = await raw([
    `POST /api/v1/cloud-storage/paste-host HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEYS.premium}\r\n${json}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
  ]);
  expect(answers).toHaveLength(1);
  expect(answers[0].status).toBe(400);
  expect(answers[0].head).toMatch(/x-content-type-options: nosniff/i);
  expect(envelope(answers[0])).toEqual({
    success: false,
    code: 'bad_input',
    error: 'Malformed request body: the chunked encoding is broken',
  });
});

test('a body that stops arriving is answered 408 in the envelope after the idle time', async () => {
  const { answers, ms } = await raw([
    `POST /api/v1/cloud-storage/paste-host HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEYS.premium}\r\n${json}\r\nContent-Length: 100\r\n\r\n{"paste":`,
  ]);
  expect(answers.map((a) => a.status)).toEqual([408]);
  expect(envelope(answers[0])).toMatchObject({ success: false, code: 'request_timeout' });
  expect(answers[0].head).toMatch(/connection: close/i);
  expect(ms).toBeGreaterThanOrEqual(IDLE_MS - 50);
});

test('a stalled body on the second request of a keep-alive connection is a 408 too', async () => {
  const { answers } = await raw(
    [
      `GET /api/v1/tools/ccgen?bin=457173 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEYS.premium}\r\n\r\n`,
      `POST /api/v1/cloud-storage/paste-host HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEYS.premium}\r\n${json}\r\nContent-Length: 100\r\n\r\n{`,
    ],
    300,
  );
  expect(answers.map((a) => a.status)).toEqual([200, 408]);
});

test('a slow but steady upload keeps going past the idle time and is answered', async () => {
  const body = JSON.stringify({ paste: 'Sent a few bytes at a time.' });
  const parts = [
    `POST /api/v1/cloud-storage/paste-host HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEYS.premium}\r\n${json}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    ...body.match(/.{1,4}/g)!,
  ];
  const { answers, ms } = await raw(parts, IDLE_MS / 3);
  expect(ms).toBeGreaterThan(IDLE_MS * 2);
  expect(answers.map((a) => a.status)).toEqual([200]);
});

test('the answer to a valid request is written before the connection closes on the garbage after it', async () => {
  // Content-Length says 2 bytes; the rest of the body reads as a malformed next request.
  const { answers } = await raw([
    `GET /api/v1/tools/ccgen?bin=457173 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEYS.premium}\r\nContent-Length: 2\r\n\r\n{}garbage that is no request\r\n\r\n`,
  ]);
  expect(answers.map((a) => a.status)).toEqual([200, 400]);
  expect(JSON.parse(answers[0].body)).toMatchObject({ success: true });
  expect(envelope(answers[1])).toMatchObject({ code: 'bad_input', error: 'Malformed HTTP request' });
});

test('a trailing slash is served as the route', async () => {
  const { answers } = await raw([
    `GET /api/v1/tools/ccgen/?bin=457173 HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEYS.premium}\r\nConnection: close\r\n\r\n`,
  ]);
  expect(answers.map((a) => a.status)).toEqual([200]);
  expect(JSON.parse(answers[0].body)).toMatchObject({ success: true, metadata: { endpoint: 'tools/ccgen' } });
});

test.each([
  ['an API answer', `GET /api/v1/tools/ccgen?bin=457173`, 200],
  ['an API error', `GET /api/v1/tools/no-such`, 404],
  ['the service document', `GET /`, 200],
  ['/health', `GET /health`, 200],
  ['a missing page', `GET /no-such-page`, 404],
  ['/mcp refusing a GET', `GET /mcp`, 405],
])('%s says X-Content-Type-Options: nosniff', async (_what, line, status) => {
  const { answers } = await raw([
    `${line} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEYS.premium}\r\nAccept: application/json\r\nConnection: close\r\n\r\n`,
  ]);
  expect(answers[0].status).toBe(status);
  expect(answers[0].head).toMatch(/\r\nx-content-type-options: nosniff/i);
});

test.each([
  ['a success', `GET /api/v1/tools/ccgen?bin=457173 HTTP/1.1\r\nX-API-Key: ${KEYS.premium}`, 200],
  ['a missing key', `GET /api/v1/tools/ccgen?bin=457173 HTTP/1.1`, 401],
  ['an unknown endpoint', `GET /api/v1/tools/no-such HTTP/1.1\r\nX-API-Key: ${KEYS.premium}`, 404],
  ['a URL too long for the server', `GET /api/v1/tools/ccgen?q=${'x'.repeat(20_000)} HTTP/1.1`, 414],
  [
    'a malformed chunked body',
    `POST /api/v1/cloud-storage/paste-host HTTP/1.1\r\n${json}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0`,
    400,
  ],
])('%s names the contract version (API-Version)', async (_what, head, status) => {
  const { answers } = await raw([`${head}\r\nHost: x\r\nConnection: close\r\n\r\n`]);
  expect(answers[0].status).toBe(status);
  expect(answers[0].head).toContain(`\r\nAPI-Version: ${CONTRACT_VERSION}`);
});

test('pages say which browser features they never use (Permissions-Policy)', async () => {
  const { answers } = await raw([`GET /signup HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\nConnection: close\r\n\r\n`]);
  expect(answers[0].status).toBe(200);
  expect(answers[0].head).toMatch(/\r\npermissions-policy: [^\r]*camera=\(\)/i);
});

test('JSON nested 50,000 levels deep is a 400 in the envelope, before it is parsed', async () => {
  const deep = '['.repeat(50_000) + ']'.repeat(50_000);
  for (const body of [`{"text":${deep}}`, `{"text":"a","lang":{"x":${deep}}}`]) {
    const res = await fetch(`${server.url}/api/v1/tts/generate?apikey=${KEYS.premium}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ success: false, code: 'bad_input', error: 'Malformed JSON body: nested deeper than 64 levels' });
  }
  // Brackets inside strings are text, not nesting.
  const text = await fetch(`${server.url}/api/v1/tts/generate?apikey=${KEYS.premium}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: `${'['.repeat(100)} \\" ${'{'.repeat(100)}`, lang: 'xx-not-a-language' }),
  });
  expect(((await text.json()) as { error: string }).error).not.toMatch(/nested/);
});
