// How answers leave the engine: at the end of the event-loop turn, each to its own request, once; a HEAD
// answer keeps its Content-Length; the caller's X-Request-Id is honoured when sane; every answered request
// is logged and counted exactly once.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { testApp, listen, KEYS, type TestApp } from '../../helpers/app.js';
import { Call } from '../../../engine/pipeline/call.js';
import { failCall, sendData, sendMedia } from '../../../engine/pipeline/respond.js';
import { createLogger } from '../../../engine/infra/logger.js';
import { ApiError } from '../../../engine/errors.js';

const ccgen = '/api/v1/tools/ccgen';
let t: TestApp;
afterEach(async () => {
  await t?.close();
});

function get(url: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      })
      .on('error', reject);
  });
}

test('answers batched at the end of a loop turn each reach their own request', async () => {
  t = await testApp();
  const server = await listen(t.app);
  try {
    const bins = Array.from({ length: 40 }, (_, i) => String(400000 + i * 1371));
    const answers = await Promise.all(
      bins.map((bin, i) => get(`${server.url}${ccgen}?apikey=${KEYS.enterprise}&bin=${bin}`, { 'X-Request-Id': `batch-${i}` })),
    );
    answers.forEach((a, i) => {
      expect(a.status).toBe(200);
      const body = JSON.parse(a.body);
      expect(a.headers['x-request-id']).toBe(`batch-${i}`);
      expect(body.metadata.requestId).toBe(`batch-${i}`);
      expect(body.data.bin).toBe(bins[i]);
      expect(body.data.cards.every((c: string) => c.startsWith(bins[i]))).toBe(true);
      expect(Number(a.headers['content-length'])).toBe(Buffer.byteLength(a.body));
    });
  } finally {
    await server.close();
  }
});

test('HEAD on a GET endpoint answers the headers of the GET, Content-Length included, without a body', async () => {
  t = await testApp();
  // ccgen's cards are random and tookMs varies, so no second answer has the same length: the length to
  // compare with is the one of the payload the engine handed to res.end for this very HEAD.
  let payload: string | Buffer | undefined;
  const server = http.createServer((req, res) => {
    const end = res.end.bind(res) as (...a: unknown[]) => http.ServerResponse;
    res.end = ((...args: unknown[]) => {
      if (typeof args[0] === 'string' || Buffer.isBuffer(args[0])) payload = args[0];
      return end(...args);
    }) as typeof res.end;
    t.app(req, res);
  });
  const head = await request(server).head(ccgen).query({ apikey: KEYS.premium, bin: '457173' });
  expect(head.status).toBe(200);
  expect(head.text ?? '').toBe('');
  expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(payload).toBeDefined();
  expect(JSON.parse(String(payload)).data.bin).toBe('457173');
  expect(Number(head.headers['content-length'])).toBe(Buffer.byteLength(payload!));
  expect(head.headers['x-ratelimit-remaining']).toBe('4999');
});

test('a sane X-Request-Id is echoed; anything else is replaced by a new id', async () => {
  t = await testApp();
  const own = await request(t.app).get(ccgen).set('X-Request-Id', 'abc.DEF_123-x').query({ apikey: KEYS.premium, bin: '457173' });
  expect(own.headers['x-request-id']).toBe('abc.DEF_123-x');
  for (const bad of ['has spaces in it', 'x'.repeat(65), 'semi;colon']) {
    const res = await request(t.app).get(ccgen).set('X-Request-Id', bad).query({ apikey: KEYS.premium, bin: '457173' });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.metadata.requestId).toBe(res.headers['x-request-id']);
  }
});

test('an error after an answer is on its way writes nothing more, refunds nothing, and is observed once', async () => {
  const seen: number[] = [];
  let refunds = 0;
  const fail = failCall(createLogger('silent'));
  const server = http.createServer((req, res) => {
    const call = new Call('test/x', '/x', null, req, res, {
      observe: (calls) => calls.forEach((c) => seen.push(c.status)),
      trust: () => false,
    });
    call.refund = () => {
      refunds++;
    };
    sendData(call, 'test', 'embedded', { ok: true }, false);
    fail(new Error('too late'), call);
  });
  const res = await request(server).get('/x');
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ success: true, data: { ok: true } });
  expect(seen).toEqual([200]);
  await new Promise((r) => setImmediate(r));
  expect(refunds).toBe(0);
});

test('once answered, a call took what it took: the envelope, log, metrics and usage read one figure, whenever they read it', async () => {
  const took: number[] = [];
  const server = http.createServer((req, res) => {
    const call = new Call('test/x', '/x', null, req, res, {
      observe: ([c]) => {
        took.push(c.elapsedMs);
        // Later readers (the usage history reads it after the metrics) get the same figure.
        const until = performance.now() + 5;
        while (performance.now() < until);
        took.push(c.elapsedMs);
      },
      trust: () => false,
    });
    sendData(call, 'test', 'embedded', { ok: true }, false);
  });
  const res = await request(server).get('/x');
  expect(took).toHaveLength(2);
  expect(took[1]).toBe(took[0]);
  expect(res.body.metadata.tookMs).toBe(Math.round(took[0] * 100) / 100);
});

test('the answers given in one turn leave together at its end, in the order given', async () => {
  const written: string[] = [];
  for (const name of ['a', 'b', 'c']) {
    const res = { headersSent: false, writeHead: () => {}, end: () => written.push(name) } as unknown as http.ServerResponse;
    const req = { headers: {}, method: 'GET' } as unknown as http.IncomingMessage;
    sendData(new Call(`test/${name}`, '/x', null, req, res, { observe: () => {}, trust: () => false }), 'test', 'embedded', {}, false);
  }
  expect(written).toEqual([]);
  await new Promise((r) => setImmediate(r));
  expect(written).toEqual(['a', 'b', 'c']);
});

test("the observers are told once the turn's answers are written: each site of its calls together, in the order given", async () => {
  const events: string[] = [];
  const told: string[][] = [];
  const sites = [1, 2].map((n) => ({
    observe: (calls: readonly Call[]) => {
      told.push(calls.map((c) => `${n}:${c.endpoint}:${c.status}`));
      for (const c of calls) events.push(`told ${c.endpoint}`);
    },
    trust: () => false,
  }));
  const fail = failCall(createLogger('silent'));
  for (const [name, site] of [
    ['a', 0],
    ['b', 0],
    ['c', 1],
    ['d', 0],
  ] as const) {
    const res = { headersSent: false, writeHead: () => {}, end: () => events.push(`wrote ${name}`) } as unknown as http.ServerResponse;
    const req = { headers: {}, method: 'GET' } as unknown as http.IncomingMessage;
    const call = new Call(name, '/x', null, req, res, sites[site]);
    if (name === 'b') fail(new ApiError('bad_input', 'no'), call);
    else sendData(call, 'test', 'embedded', {}, false);
    // A second answer to a call answered already: neither written nor told.
    sendData(call, 'test', 'embedded', {}, false);
  }
  expect(events).toEqual([]);
  await new Promise((r) => setImmediate(r));
  expect(events).toEqual(['wrote a', 'wrote b', 'wrote c', 'wrote d', 'told a', 'told b', 'told c', 'told d']);
  expect(told).toEqual([['1:a:200', '1:b:400'], ['2:c:200'], ['1:d:200']]);
});

test('a write that throws (a bug) stops none of the others, then leaves the turn as an uncaught exception', async () => {
  // In a process of its own: the exception is the point, and Jest would take it for the test's.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-answers-'));
  const script = path.join(dir, 'throws.mts');
  const from = (file: string) => JSON.stringify(path.resolve(file));
  fs.writeFileSync(
    script,
    `import { Call } from ${from('engine/pipeline/call.ts')};
import { sendData } from ${from('engine/pipeline/respond.ts')};
const written = [];
process.on('uncaughtException', (e) => console.log(JSON.stringify({ written, error: e.message })));
for (const name of ['a', 'b', 'c']) {
  const res = { headersSent: false, writeHead: () => { if (name === 'b') throw new Error('bad header'); }, end: () => written.push(name) };
  sendData(new Call('t/' + name, '/x', null, { headers: {}, method: 'GET' }, res, { observe: () => {}, trust: () => false }), 't', 'e', {}, false);
}
`,
  );
  try {
    const out = execFileSync(path.resolve('node_modules/.bin/tsx'), [script], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ written: ['a', 'c'], error: 'bad header' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the success envelope is the bytes JSON.stringify writes for it, whatever the data', async () => {
  const cases: [string, unknown, string | undefined][] = [
    ['embedded', { card: '4571730000000008', brand: 'visa' }, undefined],
    ['embedded', [1, 'two', null, { three: [3] }], undefined],
    ['up"stream\\é', 'a "string" \u2028 \ud800', undefined],
    ['embedded', 0, undefined],
    ['embedded', null, undefined],
    ['embedded', undefined, undefined],
    ['embedded', { when: new Date(0), big: 1e21, nan: NaN, gone: undefined }, undefined],
    // A cached answer: its data's JSON is sent as it is.
    ['cached-source', undefined, '{"kept":["as",1,"was"]}'],
  ];
  for (const [i, [source, data, dataJson]] of cases.entries()) {
    let body = '';
    const res = { headersSent: false, writeHead: () => {}, end: (b: string) => (body = b) } as unknown as http.ServerResponse;
    const req = { headers: i % 2 ? { 'x-request-id': 'caller.id-1_A' } : {}, method: 'GET' } as unknown as http.IncomingMessage;
    const call = new Call(`test/é"${i}`, '/x', null, req, res, { observe: () => {}, trust: () => false });
    sendData(call, 'Unified "Utility" API', source, data as never, i === 7, dataJson);
    await new Promise((r) => setImmediate(r));
    const { tookMs } = (JSON.parse(body) as { metadata: { tookMs: number } }).metadata;
    const expected = JSON.stringify({
      success: true,
      creator: 'Unified "Utility" API',
      source,
      data: dataJson === undefined ? data : JSON.parse(dataJson),
      metadata: { endpoint: `test/é"${i}`, requestId: call.id, tookMs, cached: i === 7 },
    });
    expect({ i, body }).toEqual({ i, body: expected });
  }
});

// What the batched answers lean on in Node (docs/decisions/request-path-tuning.md): res.end() corks the socket
// by itself until the next tick, so an answer's headers and body reach the socket as one write, whether the
// payload is a string (Node joins it to the headers) or a Buffer (Node queues the headers before it). The
// engine's own cork was removed for that; if Node stops corking, a Buffer answer becomes two writes here.
test('each answer reaches its socket as one write, headers and body together, string or Buffer', async () => {
  const writes: number[] = [];
  const server = http.createServer((req, res) => {
    const socket = req.socket as unknown as { _writeGeneric: (this: unknown, ...a: unknown[]) => unknown };
    if (!Object.hasOwn(socket, '_writeGeneric')) {
      const original = socket._writeGeneric;
      socket._writeGeneric = function (this: unknown, ...a: unknown[]) {
        writes.push(1);
        return original.apply(this, a);
      };
    }
    const call = new Call('test/x', '/x', null, req, res, { observe: () => {}, trust: () => false });
    call.header('X-Test', 'yes');
    if (req.url === '/media') sendMedia(call, Buffer.from('GIF89a'), 'image/gif');
    else sendData(call, 'test', 'embedded', { ok: true }, false);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const fetchOne = (p: string) =>
    new Promise<string>((resolve, reject) => {
      http
        .get(`${base}${p}`, { agent }, (res) => {
          let body = '';
          res.setEncoding('latin1');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => resolve(body));
        })
        .on('error', reject);
    });
  try {
    for (const p of ['/data', '/media', '/data', '/media']) {
      const before = writes.length;
      const body = await fetchOne(p);
      if (p === '/media') expect(body).toBe('GIF89a');
      else expect(JSON.parse(body).data).toEqual({ ok: true });
      expect({ p, writes: writes.length - before }).toEqual({ p, writes: 1 });
    }
  } finally {
    agent.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
