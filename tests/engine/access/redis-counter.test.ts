// The Redis counter on a real Redis: a turn's hits are one script call and each request gets its own place
// in the count; hits that come while a call is in flight go out together when it is answered; counters on
// two clients share one count exactly; windows open at the first hit and start again once closed;
// counters rate-limit-redis left behind carry on; a script Redis forgot is sent again; a failed call, or
// one a stalled Redis never answers, counts in process, and so do refunds and peeks, each failure told to
// the health check and logged; a call holds up to 256 counters. Through an outage each counter counts from
// the last figure Redis gave, each request weighing one hit per instance, and hands Redis those hits once.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { Writable } from 'node:stream';
import { jest } from '@jest/globals';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { RedisClientType } from 'redis';
import { RedisCounter } from '../../../engine/access/redis-counter.js';
import { connectRedis, type RedisHandle, type RedisHealth } from '../../../engine/infra/redis.js';
import type { Hit } from '../../../engine/access/counter.js';
import { redisAvailable } from '../../helpers/app.js';
import { freePort, missingParts, redisServer, tcpOpen, waitUntil } from '../../helpers/cluster.js';
import { tcpProxy } from '../../helpers/tcp-proxy.js';

const log = pino({ level: 'silent' });
const turn = () => new Promise((resolve) => setImmediate(resolve));

let redisUrl: string | undefined;
const handles: RedisHandle[] = [];
const counters: RedisCounter[] = [];
beforeAll(async () => {
  redisUrl = await redisAvailable();
});
afterAll(async () => {
  await Promise.all(counters.map(async (c) => c.close()));
  await Promise.all(handles.map((h) => h.close()));
});

async function redis(): Promise<RedisHandle> {
  const h = connectRedis(redisUrl!, log);
  handles.push(h);
  await h.whenReady(2000);
  return h;
}

/** The commands a counter sends, on their way to a real client. */
function recording(client: RedisClientType) {
  const sent: string[][] = [];
  const spy = {
    sendCommand: (args: string[]) => {
      sent.push([...args]);
      return client.sendCommand(args);
    },
  } as unknown as RedisClientType;
  return { spy, sent, scripts: () => sent.filter((a) => a[0] === 'EVALSHA' || a[0] === 'EVAL') };
}

function counter(client: RedisClientType, health: RedisHealth, windowMs = 60_000, prefix = `test-${crypto.randomUUID()}:rl:`) {
  const c = new RedisCounter(client, windowMs, prefix, health, log);
  counters.push(c);
  return c;
}

test('the hits of one turn are one script call, and each request gets its own place in the count', async () => {
  if (!redisUrl) return;
  const h = await redis();
  const { spy, scripts } = recording(h.client);
  const c = counter(spy, h);
  const started = Date.now();
  const a = await Promise.all([c.hit('a'), c.hit('a'), c.hit('b'), c.hit('a'), c.hit('a')]);
  expect(a.map((x) => x.hits)).toEqual([1, 2, 1, 3, 4]);
  for (const x of a) {
    expect(x.resetAt).toBeGreaterThanOrEqual(started + 59_000);
    expect(x.resetAt).toBeLessThanOrEqual(Date.now() + 60_000);
  }
  // One call (and the script sent whole once when Redis does not know it yet).
  expect(scripts().filter((x) => x[0] === 'EVALSHA')).toHaveLength(1);
  // The set of applied call ids and two counters; one call (its id, two counters, each with its hits).
  const [, , numKeys, , , , window, , , , m, iA, nA, iB, nB] = scripts()[0];
  expect([numKeys, window, m, iA, nA, iB, nB]).toEqual(['3', '60000', '2', '2', '4', '3', '1']);
});

test('hits that come while a call is in flight wait for it and then go out together', async () => {
  if (!redisUrl) return;
  const h = await redis();
  const { spy, scripts } = recording(h.client);
  const c = counter(spy, h);
  const first = c.hit('k');
  await turn(); // the first turn's call is sent and not yet answered
  const later = [c.hit('k'), c.hit('k')];
  await turn();
  later.push(c.hit('k'));
  const hits = await Promise.all([first, ...later]);
  expect(hits.map((x) => x.hits)).toEqual([1, 2, 3, 4]);
  expect(scripts()).toHaveLength(2);
  expect(scripts()[1].at(-1)).toBe('3');
});

test('counters on two clients share one count exactly under concurrent load', async () => {
  if (!redisUrl) return;
  const [x, y] = [await redis(), await redis()];
  const prefix = `test-${crypto.randomUUID()}:rl:`;
  const [cx, cy] = [counter(x.client, x, 60_000, prefix), counter(y.client, y, 60_000, prefix)];
  const hits: (Hit | Promise<Hit>)[] = [];
  for (let t = 0; t < 20; t++) {
    for (let i = 0; i < 15; i++) hits.push((i % 2 ? cx : cy).hit('shared'));
    await turn();
  }
  const counts = (await Promise.all(hits)).map((x) => x.hits).sort((p, q) => p - q);
  expect(counts).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
});

test('a window opens at the first hit and, once closed, starts again from the hits of the turn', async () => {
  if (!redisUrl) return;
  const h = await redis();
  const prefix = `test-${crypto.randomUUID()}:rl:`;
  const c = counter(h.client, h, 300, prefix);
  expect((await Promise.all([c.hit('w'), c.hit('w')])).map((x) => x.hits)).toEqual([1, 2]);
  const ttl = Number(await h.client.sendCommand(['PTTL', `${prefix}w`]));
  expect(ttl).toBeGreaterThan(0);
  expect(ttl).toBeLessThanOrEqual(300);
  await new Promise((r) => setTimeout(r, 350));
  expect((await Promise.all([c.hit('w'), c.hit('w'), c.hit('w')])).map((x) => x.hits)).toEqual([1, 2, 3]);
});

test('a counter rate-limit-redis left in Redis carries on with its count and its window', async () => {
  if (!redisUrl) return;
  const h = await redis();
  const prefix = `test-${crypto.randomUUID()}:rl:`;
  await h.client.sendCommand(['SET', `${prefix}old`, '7', 'PX', '40000']);
  const hit = await counter(h.client, h, 60_000, prefix).hit('old');
  expect(hit.hits).toBe(8);
  expect(hit.resetAt).toBeLessThanOrEqual(Date.now() + 40_000);
  expect(hit.resetAt).toBeGreaterThan(Date.now() + 39_000);
});

test('a script Redis has forgotten (a restart, SCRIPT FLUSH) is sent whole once and then run by its hash', async () => {
  if (!redisUrl) return;
  const h = await redis();
  const { spy, scripts } = recording(h.client);
  const c = counter(spy, h);
  await c.hit('s');
  await h.client.sendCommand(['SCRIPT', 'FLUSH']);
  expect((await c.hit('s')).hits).toBe(2);
  expect((await c.hit('s')).hits).toBe(3);
  expect(scripts().map((a) => a[0])).toEqual(['EVALSHA', 'EVALSHA', 'EVAL', 'EVALSHA']);
});

test('peek shows a window without counting; a refund gives one request back', async () => {
  if (!redisUrl) return;
  const h = await redis();
  const c = counter(h.client, h);
  expect(await c.peek('p')).toBeUndefined();
  await Promise.all([c.hit('p'), c.hit('p'), c.hit('p')]);
  const seen = await c.peek('p');
  expect(seen?.hits).toBe(3);
  expect(seen!.resetAt).toBeGreaterThan(Date.now() + 59_000);
  await c.refund('p');
  expect((await c.peek('p'))?.hits).toBe(2);
  expect((await c.hit('p')).hits).toBe(3);
});

test('a failed call counts its hits in process and tells the health check; the next call tries Redis again', async () => {
  if (!redisUrl) return;
  const h = await redis();
  let fail = true;
  const failures: unknown[] = [];
  const flaky = {
    sendCommand: (args: string[]) => (fail ? Promise.reject(new Error('connection lost')) : h.client.sendCommand(args)),
  } as unknown as RedisClientType;
  const c = counter(flaky, { ready: () => true, failed: (err) => failures.push(err) });
  const during = await Promise.all([c.hit('f'), c.hit('f')]);
  expect(during.map((x) => x.hits)).toEqual([1, 2]);
  expect(failures).toHaveLength(1);
  fail = false;
  expect((await c.hit('f')).hits).toBe(3); // the failed turn's two hits are handed to Redis first
});

test('a reply of another shape counts the whole turn in process, no request answered twice', async () => {
  const failures: unknown[] = [];
  const odd = { sendCommand: () => Promise.resolve([5, 60_000]) } as unknown as RedisClientType;
  const c = counter(odd, { ready: () => true, failed: (err) => failures.push(err) });
  const hits = await Promise.all([c.hit('x'), c.hit('y')]);
  expect(hits.map((x) => x.hits)).toEqual([1, 1]);
  expect(String(failures[0])).toMatch(/unexpected reply/);
});

test('a Redis that stops answering (SIGSTOP) is given up on within about a second; counting goes back to it after', async () => {
  if (!redisUrl || missingParts().some((p) => p.startsWith('redis-server'))) return;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'uua-stall-'));
  const port = await freePort();
  const server = redisServer(dir, port).start();
  try {
    await waitUntil('redis-server listening', () => tcpOpen(port));
    const h = connectRedis(`redis://127.0.0.1:${port}`, log);
    handles.push(h);
    await h.whenReady(2000);
    const failures: unknown[] = [];
    const c = counter(h.client, { ready: () => h.ready(), failed: (err) => failures.push(err) });
    expect((await c.hit('s')).hits).toBe(1);

    server.child!.kill('SIGSTOP');
    const started = Date.now();
    const stalled = await Promise.all([c.hit('s'), c.hit('s')]);
    expect(Date.now() - started).toBeLessThan(2500);
    expect(stalled.map((x) => x.hits)).toEqual([2, 3]); // counted in process, from Redis's last figure
    expect(String(failures[0])).toMatch(/took longer than 1000 ms/);

    server.child!.kill('SIGCONT');
    // The stalled call was written and now runs too: Redis's count is 3; sent again under its id, it is
    // not counted twice, and the next hit is the 4th.
    await waitUntil('redis answering again', async () => (await h.client.ping().catch(() => '')) === 'PONG');
    expect((await c.hit('s')).hits).toBe(4);
  } finally {
    server.child?.kill('SIGCONT');
    await server.stop('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('while Redis is not ready, hits are counted in process at once, without a promise', () => {
  const c = counter({} as RedisClientType, { ready: () => false, failed: () => {} });
  expect(c.hit('n')).toEqual({ hits: 1, resetAt: expect.any(Number) });
  expect(c.hit('n')).toMatchObject({ hits: 2 });
});

/** A logger that keeps what it writes, parsed. */
function keptLog() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level: 'warn' }, sink), lines };
}

test('while Redis is not ready, refunds and peeks stay in process and tell the health check nothing', async () => {
  const failures: unknown[] = [];
  const c = counter({} as RedisClientType, { ready: () => false, failed: (err) => failures.push(err) });
  void c.hit('n');
  void c.hit('n');
  await c.refund('n');
  expect(await c.peek('n')).toMatchObject({ hits: 1 });
  expect(await c.peek('other')).toBeUndefined();
  expect(failures).toEqual([]);
});

test('a refund or a peek that fails falls back to the in-process counter, tells the health check and logs it', async () => {
  const failures: unknown[] = [];
  const { log: kept, lines } = keptLog();
  const broken = { sendCommand: () => Promise.reject(new Error('connection lost')) } as unknown as RedisClientType;
  const c = new RedisCounter(broken, 60_000, 'test:rl:', { ready: () => true, failed: (err) => failures.push(err) }, kept);
  counters.push(c);
  expect((await Promise.all([c.hit('f'), c.hit('f')])).map((x) => x.hits)).toEqual([1, 2]);
  await c.refund('f');
  expect(await c.peek('f')).toMatchObject({ hits: 1 });
  expect(failures.map(String)).toEqual(['Error: connection lost', 'Error: connection lost', 'Error: connection lost']);
  const message = 'rate-limit counter: Redis failed, counting in process';
  expect(lines.map(({ level, op, prefix, err, msg }) => ({ level, op, prefix, err, msg }))).toEqual(
    ['increment', 'decrement', 'get'].map((op) => ({ level: 40, op, prefix: 'test:rl:', err: 'connection lost', msg: message })),
  );
});

test('a Redis that never answers: the script, DECR and GET are each given up on after a second, named', async () => {
  const failures: unknown[] = [];
  const silent = { sendCommand: () => new Promise(() => {}) } as unknown as RedisClientType;
  const c = counter(silent, { ready: () => true, failed: (err) => failures.push(err) });
  expect((await c.hit('s')).hits).toBe(1);
  const [, peeked] = await Promise.all([c.refund('s'), c.peek('s')]);
  expect(peeked).toMatchObject({ hits: 0 }); // the refund, given up on first, was counted in process
  expect(failures.map(String)).toEqual([
    'Error: redis counter script took longer than 1000 ms',
    'Error: redis DECR took longer than 1000 ms',
    'Error: redis counter GET took longer than 1000 ms',
  ]);
});

test('a reply with a value that is not an integer falls back whole, and is quoted in 100 characters at most', async () => {
  const failures: unknown[] = [];
  const junk = [1, 'x'.repeat(200)];
  const odd = { sendCommand: () => Promise.resolve(junk) } as unknown as RedisClientType;
  const c = counter(odd, { ready: () => true, failed: (err) => failures.push(err) });
  expect((await c.hit('x')).hits).toBe(1);
  expect(String(failures[0])).toBe(`Error: unexpected reply to the counters' script: ${String(junk).slice(0, 100)}`);
});

test("a turn's counts are Redis's own: nothing falls back, and Redis holds them", async () => {
  if (!redisUrl) return;
  const h = await redis();
  const failures: unknown[] = [];
  const prefix = `test-${crypto.randomUUID()}:rl:`;
  const c = counter(h.client, { ready: () => h.ready(), failed: (err) => failures.push(err) }, 60_000, prefix);
  expect((await Promise.all([c.hit('a'), c.hit('b'), c.hit('b')])).map((x) => x.hits)).toEqual([1, 1, 2]);
  expect(failures).toEqual([]);
  expect(await h.client.mGet([`${prefix}a`, `${prefix}b`])).toEqual(['1', '2']);
});

test('a call holds up to 256 counters: 256 go in one call, 257 in two', async () => {
  if (!redisUrl) return;
  const h = await redis();
  const failures: unknown[] = [];
  for (const [n, perCall] of [
    [256, [256]],
    [257, [256, 1]],
  ] as const) {
    const { spy, scripts } = recording(h.client);
    const c = counter(spy, { ready: () => h.ready(), failed: (err) => failures.push(err) });
    const hits = await Promise.all(Array.from({ length: n }, (_, i) => c.hit(`k${i}`)));
    expect(hits.every((x) => x.hits === 1)).toBe(true);
    // One EVALSHA per call (followed by an EVAL when Redis has forgotten the script), with its counters
    // beside the set of applied call ids.
    const sent = scripts().filter((a) => a[0] === 'EVALSHA');
    expect(sent.map((a) => Number(a[2]) - 1)).toEqual(perCall);
  }
  expect(failures).toEqual([]);
});

test('a counter left without an expiry (a refund after its window closed) is no open window, and opens one at the next hit', async () => {
  if (!redisUrl) return;
  const h = await redis();
  const prefix = `test-${crypto.randomUUID()}:rl:`;
  await h.client.set(`${prefix}stale`, '5');
  const c = counter(h.client, h, 60_000, prefix);
  expect(await c.peek('stale')).toBeUndefined();
  expect((await c.hit('stale')).hits).toBe(1);
  expect(Number(await h.client.pTTL(`${prefix}stale`))).toBeGreaterThan(0);
});

test('close() stops the in-process counter it falls back on', () => {
  jest.useFakeTimers();
  try {
    const before = jest.getTimerCount();
    const c = new RedisCounter({} as RedisClientType, 60_000, 'test:rl:', { ready: () => false, failed: () => {} }, log);
    expect(jest.getTimerCount()).toBe(before + 2); // its sweeper and the repayment of counts owed
    void c.close(); // stops its timers before its first await
    expect(jest.getTimerCount()).toBe(before);
  } finally {
    jest.useRealTimers();
  }
});

test('Redis cut off: each instance counts from the last figure it saw, weighing its peers, and Redis gets every hit once back', async () => {
  if (!redisUrl) return;
  const target = new URL(redisUrl);
  const proxy = await tcpProxy(target.hostname, Number(target.port || 6379));
  try {
    const prefix = `test-${crypto.randomUUID()}:rl:`;
    const [hx, hy] = [connectRedis(proxy.url, log), connectRedis(proxy.url, log)];
    handles.push(hx, hy);
    await Promise.all([hx.whenReady(2000), hy.whenReady(2000)]);
    const two = (h: RedisHandle): RedisHealth => ({ ready: () => h.ready(), failed: () => {}, peers: () => 2 });
    const [x, y] = [counter(hx.client, two(hx), 60_000, prefix), counter(hy.client, two(hy), 60_000, prefix)];
    await hx.client.sendCommand(['SET', `${prefix}k`, '250', 'PX', '60000']);
    expect((await x.hit('k')).hits).toBe(251);
    expect((await y.hit('k')).hits).toBe(252);

    await proxy.cut();
    await waitUntil('both clients see the outage', () => !hx.ready() && !hy.ready());
    // Each request weighs two hits (two instances), from the figure each saw last: never from zero.
    expect([x.hit('k'), x.hit('k'), x.hit('k')].map((h) => (h as Hit).hits)).toEqual([253, 255, 257]);
    expect([y.hit('k'), y.hit('k')].map((h) => (h as Hit).hits)).toEqual([254, 256]);
    await y.refund('k'); // a 5xx during the outage gives its hit back
    expect((await y.peek('k'))?.hits).toBe(254);

    await proxy.restore();
    await waitUntil('both clients back', () => hx.ready() && hy.ready());
    // Handed over within a second of coming back, without a request to carry them: 252 + 3 + 2 - 1.
    const inRedis = async () => Number(await hx.client.get(`${prefix}k`));
    await waitUntil('the counts made meanwhile are in Redis', async () => (await inRedis()) === 256, 5000);
    await new Promise((r) => setTimeout(r, 1200)); // and not twice, a repayment later
    expect(await inRedis()).toBe(256);
    expect((await x.hit('k')).hits).toBe(257);
  } finally {
    await proxy.close();
  }
}, 20_000);

test('a repayment whose answer is lost after it ran is sent again under its id and counts once', async () => {
  if (!redisUrl) return;
  const h = await redis();
  let up = false;
  let lose = false;
  const failures: unknown[] = [];
  const lossy = {
    sendCommand: (args: string[]) =>
      lose
        ? h.client.sendCommand(args).then(() => {
            throw new Error('connection lost after the call ran');
          })
        : h.client.sendCommand(args),
  } as unknown as RedisClientType;
  const prefix = `test-${crypto.randomUUID()}:rl:`;
  const c = counter(lossy, { ready: () => up, failed: (err) => failures.push(err) }, 60_000, prefix);
  expect([c.hit('r'), c.hit('r'), c.hit('r')].map((x) => (x as Hit).hits)).toEqual([1, 2, 3]);
  up = true;
  lose = true;
  await waitUntil('a repayment was tried', () => failures.length > 0, 3000);
  expect(String(failures[0])).toMatch(/connection lost after the call ran/);
  expect(await h.client.get(`${prefix}r`)).toBe('3'); // it ran
  lose = false;
  expect((await c.hit('r')).hits).toBe(4); // sent again first, skipped as applied: 3, then this one
});
