// The TypeScript SDK (sdks/typescript) against the embedded server, every upstream faked on loopback
// (helpers/fake-world): every documented example request, the typed error of a wrong key, a 429 with
// Retry-After waited out and tried again once, the key from UUA_API_KEY, and raw media saved byte for byte.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebStream } from 'node:stream/web';
import type { AddressInfo } from 'node:net';
import { testApp, listen } from '../helpers/app.js';
import { fakeWorld } from '../helpers/fake-world/index.js';
import { makeExampleCall, type Doc } from '../helpers/openapi-client.js';
import { sdkExamples } from '../helpers/sdk-examples.js';
import { ApiError, createClient, CONTRACT_VERSION, type Client } from '../../sdks/typescript/src/index.js';

// Top-level await: the operations to call come from the running service's document.
const world = await fakeWorld();
const t = await testApp({ ...world.env, AUTH_FAIL_LIMIT: '100000' });
const server = await listen(t.app);
const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as Doc;
await makeExampleCall(doc, server.url, t.key, () => t.api.requestLog!.flush());
const examples = sdkExamples(doc);
const api = createClient({ apiKey: t.key, baseUrl: server.url });
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-sdk-ts-'));

afterAll(async () => {
  await server.close();
  await t.close();
  await world.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

type Method = (params: Record<string, unknown>) => Promise<{ success: boolean; metadata?: { requestId: string } }>;
const methodOf = (client: Client, names: { group: string; method: string }) =>
  (client as unknown as Record<string, Record<string, Method>>)[names.group]?.[names.method];

test('the SDK has a function for every documented operation, and its contract version is the server’s', async () => {
  expect(examples.length).toBeGreaterThanOrEqual(80);
  expect(examples.filter((e) => typeof methodOf(api, e.ts) !== 'function').map((e) => e.name)).toEqual([]);
  const res = await fetch(`${server.url}/api/v1/tools/ccgen?bin=457173`, { headers: { 'x-api-key': t.key } });
  expect(res.headers.get('api-version')).toBe(CONTRACT_VERSION);
  expect(api.contractVersion).toBe((doc as unknown as { info: { version: string } }).info.version);
});

describe('every documented example request, through the SDK', () => {
  test.each(examples.map((e) => [e.name, e] as const))('%s', async (_name, e) => {
    const params = { ...e.params };
    for (const field of e.files) params[field] = new Blob([String(params[field])], { type: 'text/plain' });
    world.unmatched.length = 0;
    const answer = await methodOf(
      api,
      e.ts,
    )(params).catch((err: unknown) => {
      throw new Error(
        `${err instanceof ApiError ? `${err.status} ${err.code}: ${err.message}` : String(err)}; upstream calls not faked: ${world.unmatched.join(', ')}`,
      );
    });
    expect(answer.success).toBe(true);
    expect(typeof answer.metadata?.requestId).toBe('string');
  });
});

test('a wrong key throws the typed 401 with the request’s id', async () => {
  const wrong = createClient({ apiKey: 'no-such-key', baseUrl: server.url });
  const err = await wrong.tools.ccgen({ bin: '457173' }, { headers: { 'X-Request-Id': 'sdk-wrong-key-1' } }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ApiError);
  expect(err).toMatchObject({ status: 401, code: 'invalid_key', requestId: 'sdk-wrong-key-1', message: 'Invalid apikey' });
});

test('the key is UUA_API_KEY when none is given', async () => {
  const before = process.env.UUA_API_KEY;
  process.env.UUA_API_KEY = t.key;
  try {
    const answer = await createClient({ baseUrl: server.url }).tools.ccgen({ bin: '457173' });
    expect(answer.data.cards.length).toBeGreaterThan(0);
  } finally {
    if (before === undefined) delete process.env.UUA_API_KEY;
    else process.env.UUA_API_KEY = before;
  }
  const err = await createClient({ baseUrl: server.url })
    .tools.ccgen({ bin: '457173' })
    .catch((e: unknown) => e);
  expect(err).toMatchObject({ status: 401, code: 'missing_key' });
});

/** Closed now, kept-alive connections too. */
function closed(server: http.Server) {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(resolve));
}

/** A server that answers 429 with Retry-After: 1 to its first request, and the envelope after. */
async function throttledOnce() {
  const at: number[] = [];
  const fake = http.createServer((req, res) => {
    at.push(Date.now());
    if (at.length === 1) {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1', 'x-request-id': 'throttled-1' });
      return res.end(JSON.stringify({ success: false, error: 'Rate limit exceeded. Try again later.', code: 'rate_limited' }));
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ success: true, creator: 'x', source: 'embedded', data: { cards: ['4571730000000000'] }, metadata: {} }));
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(fake.address() as AddressInfo).port}`, at, close: () => closed(fake) };
}

test('a 429 with Retry-After: 1 is waited out and tried again once, when retries are asked for', async () => {
  const fake = await throttledOnce();
  try {
    const answer = await createClient({ apiKey: 'k', baseUrl: fake.url, retry: true }).tools.ccgen({ bin: '457173' });
    expect(answer.success).toBe(true);
    expect(fake.at).toHaveLength(2);
    expect(fake.at[1] - fake.at[0]).toBeGreaterThanOrEqual(950);
    expect(fake.at[1] - fake.at[0]).toBeLessThan(3000);
  } finally {
    await fake.close();
  }
});

test('without retries, the 429 is thrown with its Retry-After', async () => {
  const fake = await throttledOnce();
  try {
    const err = await createClient({ apiKey: 'k', baseUrl: fake.url })
      .tools.ccgen({ bin: '457173' })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 1, requestId: 'throttled-1' });
    expect(fake.at).toHaveLength(1);
  } finally {
    await fake.close();
  }
});

test('raw media is a stream, saved to a file byte for byte', async () => {
  // 3 MB the test knows, served as the endpoint's raw answer.
  const bytes = crypto.randomBytes(3 * 1024 * 1024);
  const fake = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': bytes.length, 'x-request-id': req.headers.accept ?? '' });
    res.end(bytes);
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  try {
    const media = await createClient({
      apiKey: 'k',
      baseUrl: `http://127.0.0.1:${(fake.address() as AddressInfo).port}`,
    }).tts.generateMedia({
      text: 'Hello world',
    });
    expect(media).toMatchObject({ contentType: 'audio/mpeg', contentLength: bytes.length, requestId: 'audio/mpeg' });
    const file = path.join(scratch, 'fake.mp3');
    await pipeline(Readable.fromWeb(media.stream as WebStream<Uint8Array>), fs.createWriteStream(file));
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
  } finally {
    await closed(fake);
  }
});

test('the server’s raw media arrives as the bytes it announces', async () => {
  const media = await api.tts.generateMedia({ text: 'Hello world' });
  expect(media.contentType).toBe('audio/mpeg');
  const file = path.join(scratch, 'hello.mp3');
  await pipeline(Readable.fromWeb(media.stream as WebStream<Uint8Array>), fs.createWriteStream(file));
  const saved = fs.readFileSync(file);
  expect(saved.length).toBe(media.contentLength);
  // An MP3 frame's sync word (or an ID3 tag) first.
  expect(saved.subarray(0, 3).toString('latin1') === 'ID3' || (saved[0] === 0xff && (saved[1] & 0xe0) === 0xe0)).toBe(true);
});
