// features/media/relay.ts: a media's bytes go to the caller and to the copy being kept (MEDIA_STORE=on) at the
// pace of the slower of the two; each chunk's memory is given back once both have written it, never before,
// and a chunk that shares its memory is left alone; a copy that fails is dropped while the caller's stream
// goes on; a caller gone or an upstream cut ends the relay, the answer cut. Through undici, a file of many
// reads, framed by length or chunked, reaches a caller that reads late byte for byte.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable, Writable } from 'node:stream';
import { relay } from '../../../features/media/relay.js';
import { requestFile } from '../../../features/media/upstream-file.js';
import { eventually } from '../../helpers/eventually.js';

const servers: http.Server[] = [];
afterAll(() =>
  Promise.all(
    servers.map((s) => {
      s.closeAllConnections();
      return new Promise((ok) => s.close(ok));
    }),
  ),
);

/** An upstream body the test pushes chunks into. */
const upstream = () => new Readable({ read() {} });

/** A copy whose writes finish only when the test says, each chunk kept as it was given. */
function heldCopy() {
  const got: Buffer[] = [];
  const pending: Array<() => void> = [];
  const out = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _encoding, done) {
      got.push(Buffer.from(chunk));
      pending.push(() => done());
    },
  });
  return { out, got, finishOne: () => pending.shift()!() };
}

/** The caller's GET of a server that relays `body` (and to `copy`): the bytes it got, and the relay's outcome. */
async function exchange(body: Readable, copy?: Writable, callerStallMs = 0) {
  let counted = 0;
  let whole!: Promise<boolean>;
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'video/mp4' }).flushHeaders();
    whole = relay(body, res, copy, (bytes) => (counted += bytes));
  });
  servers.push(server);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const answer = await new Promise<http.IncomingMessage>((ok, fail) =>
    http.get(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, ok).on('error', fail),
  );
  if (callerStallMs) {
    answer.pause();
    setTimeout(() => answer.resume(), callerStallMs);
  }
  const received = new Promise<{ bytes: Buffer; cut: boolean }>((ok) => {
    const chunks: Buffer[] = [];
    answer.on('data', (c: Buffer) => chunks.push(c));
    answer.on('end', () => ok({ bytes: Buffer.concat(chunks), cut: false }));
    answer.on('error', () => ok({ bytes: Buffer.concat(chunks), cut: true }));
  });
  return { answer, received, whole: () => whole, counted: () => counted };
}

test('every chunk reaches both at the pace of the slower, and its memory is given back once both wrote it', async () => {
  const body = upstream();
  const copy = heldCopy();
  const x = await exchange(body, copy.out);
  const a = Buffer.alloc(64 * 1024, 1);
  const b = Buffer.alloc(64 * 1024, 2);
  const slab = Buffer.alloc(1000, 3);
  const shared = slab.subarray(0, 500);
  body.push(a);
  await eventually(async () => copy.got.length === 1);
  // The copy has not finished writing `a`: the body waits, and `a` is still whole whatever the caller did.
  body.push(b);
  await new Promise((ok) => setTimeout(ok, 50));
  expect(body.readableFlowing).toBe(false);
  expect(copy.got).toHaveLength(1);
  expect(a.buffer.byteLength).toBe(64 * 1024);

  copy.finishOne();
  await eventually(async () => copy.got.length === 2);
  await eventually(async () => a.buffer.byteLength === 0);
  copy.finishOne();
  await eventually(async () => b.buffer.byteLength === 0);

  body.push(shared);
  await eventually(async () => copy.got.length === 3);
  copy.finishOne();
  body.push(null);
  expect(await x.whole()).toBe(true);
  // Part of a larger ArrayBuffer: someone else may hold the rest, so it is left to the GC.
  expect(slab.buffer.byteLength).toBe(1000);
  expect(slab.subarray(500).equals(Buffer.alloc(500, 3))).toBe(true);

  const expected = Buffer.concat([Buffer.alloc(64 * 1024, 1), Buffer.alloc(64 * 1024, 2), Buffer.alloc(500, 3)]);
  expect((await x.received).bytes.equals(expected)).toBe(true);
  expect(Buffer.concat(copy.got).equals(expected)).toBe(true);
  expect(x.counted()).toBe(expected.length);
});

test('a copy that fails is dropped, and the caller still gets every byte', async () => {
  const body = upstream();
  const broken = new Writable({ highWaterMark: 1, write: (_chunk, _encoding, done) => done(new Error('disk full')) });
  broken.on('error', () => {});
  const x = await exchange(body, broken);
  const chunks = [1, 2, 3].map((i) => Buffer.alloc(32 * 1024, i));
  const expected = Buffer.concat(chunks);
  for (const c of chunks) body.push(c);
  body.push(null);
  expect(await x.whole()).toBe(true);
  expect((await x.received).bytes.equals(expected)).toBe(true);
});

test('a caller gone stops the upstream', async () => {
  const body = upstream();
  const x = await exchange(body);
  body.push(Buffer.alloc(1024, 1));
  await eventually(async () => x.counted() === 1024);
  x.answer.destroy();
  expect(await x.whole()).toBe(false);
  expect(body.destroyed).toBe(true);
});

test('an upstream cut cuts the answer', async () => {
  const body = upstream();
  body.on('error', () => {});
  const x = await exchange(body);
  body.push(Buffer.alloc(1024, 1));
  await eventually(async () => x.counted() === 1024);
  body.destroy(new Error('the CDN went away'));
  expect(await x.whole()).toBe(false);
  expect((await x.received).cut).toBe(true);
});

test.each(['length', 'chunked'])('through undici, 8 MB framed by %s reach a caller that reads late, byte for byte', async (framing) => {
  const file = randomBytes(8 * 1024 * 1024);
  // Uneven writes: chunked framing falls inside the client's reads.
  const cdn = http.createServer((_req, res) => {
    res.writeHead(200, framing === 'length' ? { 'content-length': file.length } : {});
    let at = 0;
    const more = () => {
      while (at < file.length) {
        const n = 10_000 + (at % 7919);
        const ok = res.write(file.subarray(at, at + n));
        at += n;
        if (!ok) return void res.once('drain', more);
      }
      res.end();
    };
    more();
  });
  servers.push(cdn);
  await new Promise<void>((ok) => cdn.listen(0, '127.0.0.1', ok));
  const fetched = await requestFile({
    url: `http://127.0.0.1:${(cdn.address() as AddressInfo).port}/v.mp4`,
    method: 'GET',
    headers: {},
    trustedOrigin: undefined,
    trustedAgent: () => Promise.reject(new Error('no trusted origin here')),
    allowPrivate: true,
    signal: new AbortController().signal,
    timeoutMs: 10_000,
  });
  expect(fetched.headers['transfer-encoding']).toBe(framing === 'chunked' ? 'chunked' : undefined);
  // The caller reads nothing for a while: the sockets' buffers fill, and the relay's writes finish late.
  const x = await exchange(fetched.body, undefined, 300);
  expect(await x.whole()).toBe(true);
  const got = (await x.received).bytes;
  expect(got.length).toBe(file.length);
  expect(got.equals(file)).toBe(true);
});
