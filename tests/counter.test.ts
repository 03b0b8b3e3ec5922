// The in-process request counter: fixed windows that open at a client's first request, refunds that give
// one request back within the window only, and closed windows swept away.
import { MemoryCounter } from '../engine/counter.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let counter: MemoryCounter;
afterEach(() => counter?.close());

test('counts per key within a window that opens at the first request', () => {
  counter = new MemoryCounter(60_000);
  const before = Date.now();
  const first = counter.hit('a');
  expect(first.hits).toBe(1);
  expect(first.resetAt).toBeGreaterThanOrEqual(before + 60_000);
  expect(first.resetAt).toBeLessThanOrEqual(Date.now() + 60_000);
  expect(counter.hit('a')).toEqual({ hits: 2, resetAt: first.resetAt });
  expect(counter.hit('b').hits).toBe(1);
});

test('a closed window starts again from one', async () => {
  counter = new MemoryCounter(40);
  counter.hit('a');
  const second = counter.hit('a');
  expect(second.hits).toBe(2);
  await sleep(60);
  const fresh = counter.hit('a');
  expect(fresh.hits).toBe(1);
  expect(fresh.resetAt).toBeGreaterThan(second.resetAt);
});

test('a refund gives one request back, never below zero, and not after the window closed', async () => {
  counter = new MemoryCounter(40);
  counter.hit('a');
  counter.hit('a');
  counter.refund('a');
  expect(counter.hit('a').hits).toBe(2);
  counter.refund('a');
  counter.refund('a');
  counter.refund('a');
  expect(counter.hit('a').hits).toBe(1);
  counter.refund('unknown'); // nothing to give back
  await sleep(60);
  counter.refund('a'); // its window has closed: the next one is not touched
  expect(counter.hit('a').hits).toBe(1);
});

test('the answer is a copy: counting again does not change an answer already given', () => {
  counter = new MemoryCounter(60_000);
  const first = counter.hit('a');
  counter.hit('a');
  expect(first.hits).toBe(1);
});

test('closed windows are swept, open ones kept', async () => {
  counter = new MemoryCounter(40);
  counter.hit('old-1');
  counter.hit('old-2');
  await sleep(60);
  counter.hit('new');
  counter.sweep();
  expect(counter.size).toBe(1);
  expect(counter.hit('new').hits).toBe(2);
});
