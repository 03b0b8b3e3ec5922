// The API's door (engine/pipeline/api.ts): /api/ requests are served by node:http before Express, and must be
// answered as Express served them: request lines in absolute form, paths that only look like the API, a
// URL no parser reads, HEAD, wrong methods, and the client address behind TRUST_PROXY.
import net from 'node:net';
import request from 'supertest';
import { testApp, listen, KEYS, type TestApp } from '../../helpers/app.js';

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
beforeAll(async () => {
  t = await testApp({ TRUST_PROXY: '1' });
  server = await listen(t.app);
});
afterAll(async () => {
  await server.close();
  await t.close();
});

/** One raw request line on its own connection: the status line, the headers and the body as they came. */
function raw(line: string, headers: string[] = []): Promise<{ status: number; head: string; body: string }> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const s = net.connect(Number(port), '127.0.0.1', () =>
      s.write(`${line} HTTP/1.1\r\nHost: x\r\n${headers.map((h) => `${h}\r\n`).join('')}Connection: close\r\n\r\n`),
    );
    let data = '';
    s.setEncoding('utf8');
    s.on('data', (c: string) => {
      data += c;
    });
    s.on('end', () => {
      const cut = data.indexOf('\r\n\r\n');
      resolve({ status: Number(data.split(' ')[1]), head: data.slice(0, cut).toLowerCase(), body: data.slice(cut + 4) });
    });
    s.on('error', reject);
  });
}

const ccgen = `/api/v1/tools/ccgen?apikey=${KEYS.premium}&bin=457173`;

test('a request line in absolute form reaches the API, as Express routed it', async () => {
  const res = await raw(`GET http://example.test${ccgen}`);
  expect(res.status).toBe(200);
  expect(JSON.parse(res.body)).toMatchObject({ success: true, metadata: { endpoint: 'tools/ccgen' } });
  expect(res.head).toContain('x-ratelimit-remaining:');
});

test('a URL no parser reads gets a 400 in the envelope, and the server goes on', async () => {
  const res = await raw('GET http://[::1/api');
  expect(res.status).toBe(400);
  expect(JSON.parse(res.body)).toEqual({ success: false, error: 'Malformed request URL', code: 'bad_input' });
  expect((await raw(`GET ${ccgen}`)).status).toBe(200);
});

test("/api/ paths are the API's (metered 404 and 405); /api and //api are pages", async () => {
  const unknown = await raw('GET /api/');
  expect(unknown.status).toBe(404);
  expect(JSON.parse(unknown.body)).toEqual({ success: false, error: 'No such endpoint: GET /api/', code: 'not_found' });
  expect(unknown.head).toContain('ratelimit-policy:');
  const wrong = await raw('DELETE /api/v1/tools/ccgen/');
  expect(wrong.status).toBe(405);
  expect(wrong.head).toContain('allow: get');
  for (const page of ['/api', '//api/v1/tools/ccgen']) {
    const res = await raw(`GET ${page}`);
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toEqual({ success: false, error: `No such page: GET ${page}`, code: 'not_found' });
    expect(res.head).not.toContain('ratelimit-policy:');
  }
});

test('HEAD of a GET endpoint: the headers of the GET and no body', async () => {
  const res = await raw(`HEAD ${ccgen}`);
  expect(res.status).toBe(200);
  expect(res.body).toBe('');
  expect(Number(/content-length: (\d+)/.exec(res.head)?.[1])).toBeGreaterThan(100);
});

test('behind TRUST_PROXY=1 the client is the address the proxy names (its own counter of failed keys)', async () => {
  const policy = (r: { head: string }) => /ratelimit-policy: (.*)/.exec(r.head)?.[1];
  const a1 = await raw('GET /api/v1/tools/ccgen?apikey=wrong-key-000001&bin=457173', ['X-Forwarded-For: 203.0.113.7']);
  const a2 = await raw('GET /api/v1/tools/ccgen?apikey=wrong-key-000001&bin=457173', ['X-Forwarded-For: 203.0.113.7']);
  const b = await raw('GET /api/v1/tools/ccgen?apikey=wrong-key-000001&bin=457173', ['X-Forwarded-For: 198.51.100.9']);
  expect(a1.status).toBe(401);
  expect(policy(a1)).toBe(policy(a2));
  expect(policy(b)).not.toBe(policy(a1));
  // Two proxies deep, only the nearest one is trusted: the address it names counts, not the one before it.
  const spoofed = await raw('GET /api/v1/tools/ccgen?apikey=wrong-key-000001&bin=457173', ['X-Forwarded-For: 10.9.9.9, 203.0.113.7']);
  expect(policy(spoofed)).toBe(policy(a1));
});

test('without TRUST_PROXY the client is the socket peer, whatever X-Forwarded-For says', async () => {
  const own = await testApp();
  try {
    const guess = (xff: string) =>
      request(own.app).get('/api/v1/tools/ccgen').query({ apikey: 'wrong-key-000001', bin: '457173' }).set('X-Forwarded-For', xff);
    const a = await guess('203.0.113.7');
    const b = await guess('198.51.100.9');
    expect(a.status).toBe(401);
    expect(b.headers['ratelimit-policy']).toBe(a.headers['ratelimit-policy']);
    expect(Number(b.headers['x-ratelimit-remaining'])).toBe(Number(a.headers['x-ratelimit-remaining']) - 1);
  } finally {
    await own.close();
  }
});
