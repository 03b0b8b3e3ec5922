// An HTTP answer read whole through undici's handler API (engine/upstream/whole-answer.ts), against a real loopback
// server: chunks, encodings, the decoded-size limit, corrupt and cut bodies, the timer, the caller's
// signal, and bodies dropped for redirects.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { Agent } from 'undici';
import { BodyError, TIMED_OUT, wholeAnswer, type WholeOptions } from '../../../engine/upstream/whole-answer.js';

const text = 'the quick brown fox '.repeat(100);
type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void;
const routes = new Map<string, Route>();
const server = http.createServer((req, res) => routes.get(req.url ?? '')?.(req, res));
const agent = new Agent({ keepAliveTimeout: 1000 });
let origin = '';
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await agent.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const get = (path: string, opts: Partial<WholeOptions> = {}) =>
  wholeAnswer(agent, { origin, path, method: 'GET', headers: {} }, { maxBytes: 1e6, timeoutMs: 5000, ...opts });

async function bodyError(p: Promise<unknown>): Promise<BodyError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BodyError);
  return err as BodyError;
}

test('plain, in several chunks, with its status and headers', async () => {
  routes.set('/plain', (_req, res) => {
    res.writeHead(203, { 'x-one': '1' });
    res.write(text.slice(0, 10));
    setTimeout(() => res.end(text.slice(10)), 5);
  });
  const a = await get('/plain');
  expect(a.status).toBe(203);
  expect(a.headers['x-one']).toBe('1');
  expect(a.body.toString()).toBe(text);
});

test.each([
  ['gzip', zlib.gzipSync],
  ['x-gzip', zlib.gzipSync],
  ['deflate', zlib.deflateSync],
  ['br', zlib.brotliCompressSync],
])('%s is decoded', async (encoding, zip) => {
  routes.set(`/zip-${encoding}`, (_req, res) =>
    res.writeHead(200, { 'content-encoding': ` ${encoding.toUpperCase()} ` }).end(zip(Buffer.from(text))),
  );
  expect((await get(`/zip-${encoding}`)).body.toString()).toBe(text);
});

test('the limit counts decoded bytes: a small bomb stops at it, and so does a plain body', async () => {
  const bomb = zlib.gzipSync(Buffer.alloc(8 * 1024 * 1024));
  expect(bomb.length).toBeLessThan(64 * 1024);
  routes.set('/bomb', (_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(bomb));
  routes.set('/big', (_req, res) => res.end(Buffer.alloc(2000)));
  expect((await bodyError(get('/bomb', { maxBytes: 1024 * 1024 }))).reason).toBe('too-large');
  expect((await bodyError(get('/big', { maxBytes: 1000 }))).reason).toBe('too-large');
});

test('a body that does not decode is corrupt; a cut transfer keeps its own error', async () => {
  routes.set('/corrupt', (_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end('not gzip at all'));
  routes.set('/cut', (_req, res) => {
    res.writeHead(200, { 'content-length': '1000' });
    res.write('only part of it');
    setTimeout(() => res.destroy(), 5);
  });
  expect((await bodyError(get('/corrupt'))).reason).toBe('corrupt');
  await expect(get('/cut')).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
});

test('the timer covers the body: a trickle past it rejects with TIMED_OUT', async () => {
  routes.set('/trickle', (_req, res) => {
    res.writeHead(200);
    const t = setInterval(() => res.write('.'), 20);
    res.on('close', () => clearInterval(t));
  });
  await expect(get('/trickle', { timeoutMs: 150 })).rejects.toBe(TIMED_OUT);
});

test("the caller's signal cancels it with its reason, before and during the exchange", async () => {
  routes.set('/slow', (_req, res) => {
    setTimeout(() => res.end('late'), 2000).unref();
  });
  const gone = new Error('client gone');
  await expect(get('/slow', { signal: AbortSignal.abort(gone) })).rejects.toBe(gone);
  const ctl = new AbortController();
  setTimeout(() => ctl.abort(gone), 30);
  await expect(get('/slow', { signal: ctl.signal })).rejects.toBe(gone);
});

test('a body not wanted (a redirect to follow) is dropped: settled at the head, the connection still usable', async () => {
  routes.set('/moved', (_req, res) => res.writeHead(302, { location: '/plain' }).end('x'.repeat(5000)));
  const a = await get('/moved', { skipBody: (status) => status === 302 });
  expect(a.status).toBe(302);
  expect(a.headers.location).toBe('/plain');
  expect(a.body.length).toBe(0);
  expect((await get('/plain')).body.toString()).toBe(text);
});

test('with truncate, a body past the limit settles with its first bytes, plain or decoded, across chunks', async () => {
  routes.set('/long', (_req, res) => {
    res.writeHead(500);
    res.write(text.slice(0, 7));
    setTimeout(() => res.end(text.slice(7)), 5);
  });
  routes.set('/long-gzip', (_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(zlib.gzipSync(Buffer.from(text))));
  const a = await get('/long', { maxBytes: 10, truncate: true });
  expect(a.status).toBe(500);
  expect(a.body.toString()).toBe(text.slice(0, 10));
  expect((await get('/long-gzip', { maxBytes: 25, truncate: true })).body.toString()).toBe(text.slice(0, 25));
  expect((await get('/plain', { maxBytes: text.length, truncate: true })).body.toString()).toBe(text);
});
