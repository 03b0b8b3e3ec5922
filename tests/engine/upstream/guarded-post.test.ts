// A POST to a URL an account gave (engine/upstream/guarded-post.ts), against a real loopback server: the
// body and headers arrive; any answer's status and first bytes come back, a redirect unfollowed; private
// addresses are refused before connecting unless allowed, by literal or by name; failures in words.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { postUrl, PostFailed, type PostOptions } from '../../../engine/upstream/guarded-post.js';
import type { ResolveHost } from '../../../engine/upstream/guarded-fetch.js';

interface Seen {
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
const seen: Seen[] = [];
let answer: (res: http.ServerResponse) => void = (res) => res.end('ok');
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    seen.push({ url: req.url ?? '', headers: req.headers, body });
    answer(res);
  });
});
let base = '';
let port = 0;
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => (seen.length = 0));

const opts = (o: Partial<PostOptions> = {}): PostOptions => ({ headers: {}, timeoutMs: 2000, keepBytes: 64, allowPrivate: true, ...o });

const NO_PUBLIC_HOST = 'the host was not found, is unreachable or is not a public address';

async function failure(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PostFailed);
  return (err as Error).message;
}

test('the body and headers arrive; the status and the first bytes of the answer come back, a 5xx too', async () => {
  answer = (res) => res.writeHead(503, { 'retry-after': '7' }).end('x'.repeat(100) + 'tail');
  const a = await postUrl(`${base}/hook?a=1`, '{"n":1}', opts({ headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1' } }));
  expect(a.status).toBe(503);
  expect(a.headers['retry-after']).toBe('7');
  expect(a.body.toString()).toBe('x'.repeat(64));
  expect(seen).toEqual([
    { url: '/hook?a=1', headers: expect.objectContaining({ 'content-type': 'application/json', 'webhook-id': 'msg_1' }), body: '{"n":1}' },
  ]);
});

test('a redirect is answered as it is, never followed', async () => {
  answer = (res) => res.writeHead(302, { location: '/elsewhere' }).end();
  expect((await postUrl(`${base}/moved`, '{}', opts())).status).toBe(302);
  expect(seen.map((s) => s.url)).toEqual(['/moved']);
});

test('private addresses are refused before connecting unless allowed: a literal, and a name that resolves to one', async () => {
  const resolve: ResolveHost = async () => [{ address: '127.0.0.1', family: 4 }];
  const refused = NO_PUBLIC_HOST;
  expect(await failure(postUrl(`${base}/`, '{}', opts({ allowPrivate: false })))).toMatch(refused);
  expect(await failure(postUrl(`http://hooks.example.com:${port}/`, '{}', opts({ allowPrivate: false, resolve })))).toMatch(refused);
  expect(await failure(postUrl('https://169.254.169.254/latest', '{}', opts({ allowPrivate: false })))).toMatch(refused);
  expect(seen).toEqual([]);
  answer = (res) => res.end('ok');
  expect((await postUrl(`http://hooks.example.com:${port}/`, '{}', opts({ resolve }))).status).toBe(200);
});

test('failures without an answer say why: no answer in time, connection refused', async () => {
  answer = () => {}; // never answers
  expect(await failure(postUrl(`${base}/slow`, '{}', opts({ timeoutMs: 150 })))).toBe('no answer within 150 ms');
  const closed = await new Promise<number>((r) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => r(p));
    });
  });
  expect(await failure(postUrl(`http://127.0.0.1:${closed}/`, '{}', opts()))).toBe('connection refused');
});

test('an unknown name, an unreachable network and a private address read alike: the log maps no internal host', async () => {
  const failing =
    (code: string): ResolveHost =>
    () =>
      Promise.reject(Object.assign(new Error(`getaddrinfo ${code}`), { code }));
  const internal: ResolveHost = async () => [{ address: '10.0.0.7', family: 4 }];
  const messages = [
    await failure(postUrl('https://no-such-host.example/', '{}', opts({ resolve: failing('ENOTFOUND'), allowPrivate: false }))),
    await failure(postUrl('https://slow-dns.example/', '{}', opts({ resolve: failing('EAI_AGAIN'), allowPrivate: false }))),
    await failure(postUrl('https://db.internal.example/', '{}', opts({ resolve: internal, allowPrivate: false }))),
    await failure(postUrl('https://[::ffff:0:10.0.0.7]/', '{}', opts({ allowPrivate: false }))),
    await failure(postUrl('https://[64:ff9b:1::a00:7]/', '{}', opts({ allowPrivate: false }))),
  ];
  expect(messages).toEqual(Array(5).fill(NO_PUBLIC_HOST));
});

test('a host that takes the connection but never finishes TLS fails at the connect timeout, not the whole attempt', async () => {
  const accepted: net.Socket[] = [];
  const mute = net.createServer((s) => accepted.push(s)); // accepts, never answers the TLS hello
  await new Promise<void>((r) => mute.listen(0, '127.0.0.1', r));
  const { port: mutePort } = mute.address() as AddressInfo;
  const started = Date.now();
  const message = await failure(postUrl(`https://127.0.0.1:${mutePort}/`, '{}', opts({ timeoutMs: 5000, connectTimeoutMs: 200 })));
  expect(message).toBe('connection timed out');
  expect(Date.now() - started).toBeLessThan(2000);
  accepted.forEach((s) => s.destroy());
  await new Promise((r) => mute.close(r));
});

test("the caller's signal cancels with its own reason", async () => {
  answer = () => {};
  const stop = new Error('closing');
  const ctl = new AbortController();
  setTimeout(() => ctl.abort(stop), 30);
  await expect(postUrl(`${base}/slow`, '{}', opts({ signal: ctl.signal }))).rejects.toBe(stop);
});
