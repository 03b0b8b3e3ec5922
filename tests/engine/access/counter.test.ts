// The in-process request counter: fixed windows that open at a client's first request, refunds that give
// one request back within the window only, a look at the open window without counting, and closed windows
// swept away (by the sweeper itself too, on fake timers).
//
// The counter reads Date.now(); the tests move that clock themselves instead of sleeping past a short real
// window, so a busy machine that pauses the process for a while cannot close a window mid-test.
import { jest } from '@jest/globals';
import { MemoryCounter } from '../../../engine/access/counter.js';

let counter: MemoryCounter;
let now: number;
/** Moves the counter's clock on by `ms`. */
const advance = (ms: number) => {
  now += ms;
};
beforeEach(() => {
  now = Date.now();
  jest.spyOn(Date, 'now').mockImplementation(() => now);
});
afterEach(() => {
  counter?.close();
  jest.restoreAllMocks();
});

test('counts per key within a window that opens at the first request', () => {
  counter = new MemoryCounter(60_000);
  const first = counter.hit('a');
  expect(first).toEqual({ hits: 1, resetAt: now + 60_000 });
  advance(59_999);
  expect(counter.hit('a')).toEqual({ hits: 2, resetAt: first.resetAt });
  expect(counter.hit('b')).toEqual({ hits: 1, resetAt: now + 60_000 });
});

test('a closed window starts again from one', () => {
  counter = new MemoryCounter(40);
  counter.hit('a');
  const second = counter.hit('a');
  expect(second.hits).toBe(2);
  advance(40); // the window closes at resetAt itself
  const fresh = counter.hit('a');
  expect(fresh).toEqual({ hits: 1, resetAt: second.resetAt + 40 });
});

test('a refund gives one request back, never below zero, and not after the window closed', () => {
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
  advance(60);
  counter.refund('a'); // its window has closed: the next one is not touched
  expect(counter.hit('a').hits).toBe(1);
});

test('the answer is a copy: counting again does not change an answer already given', () => {
  counter = new MemoryCounter(60_000);
  const first = counter.hit('a');
  counter.hit('a');
  expect(first.hits).toBe(1);
});

test('closed windows are swept, open ones kept', () => {
  counter = new MemoryCounter(40);
  counter.hit('old-1');
  counter.hit('old-2');
  advance(60);
  counter.hit('new');
  expect(counter.size).toBe(3);
  counter.sweep();
  expect(counter.size).toBe(1);
  expect(counter.hit('new').hits).toBe(2);
});

test('a window closes at resetAt itself: swept then, not a millisecond before', () => {
  counter = new MemoryCounter(40);
  counter.hit('a');
  advance(39);
  counter.sweep();
  expect(counter.size).toBe(1);
  advance(1);
  counter.sweep();
  expect(counter.size).toBe(0);
});

test('peek tells the open window without counting, and nothing for a closed or unknown one', () => {
  counter = new MemoryCounter(40);
  expect(counter.peek('a')).toBeUndefined();
  const hit = counter.hit('a');
  expect(counter.peek('a')).toEqual(hit);
  expect(counter.peek('a')).toEqual(hit); // peeking does not count
  const seen = counter.peek('a')!;
  counter.hit('a');
  expect(seen.hits).toBe(1); // a copy, like hit's answer
  advance(39);
  expect(counter.peek('a')).toEqual({ hits: 2, resetAt: hit.resetAt });
  advance(1);
  expect(counter.peek('a')).toBeUndefined();
});

test('restore opens a window as it was read back; a closed or empty one is not restored', () => {
  counter = new MemoryCounter(60_000);
  counter.restore('open', { hits: 7, resetAt: now + 30_000 });
  counter.restore('closed', { hits: 3, resetAt: now });
  counter.restore('empty', { hits: 0, resetAt: now + 30_000 });
  expect(counter.peek('open')).toEqual({ hits: 7, resetAt: now + 30_000 });
  expect(counter.size).toBe(1);
  // The restored window goes on counting, with its own reset, and closes at it.
  expect(counter.hit('open')).toEqual({ hits: 8, resetAt: now + 30_000 });
  expect(counter.hit('closed')).toEqual({ hits: 1, resetAt: now + 60_000 });
  advance(30_000);
  expect(counter.hit('open')).toEqual({ hits: 1, resetAt: now + 60_000 });
});

test('restore keeps a copy: changing what was read back changes nothing', () => {
  counter = new MemoryCounter(60_000);
  const read = { hits: 2, resetAt: now + 1000 };
  counter.restore('k', read);
  read.hits = 99;
  expect(counter.peek('k')?.hits).toBe(2);
});

test('the sweeper does not keep the process alive', () => {
  counter = new MemoryCounter(60_000);
  expect((counter as unknown as { sweeper: NodeJS.Timeout }).sweeper.hasRef()).toBe(false);
});

describe('the sweeper, on fake timers', () => {
  beforeEach(() => {
    jest.restoreAllMocks();
    jest.useFakeTimers({ now: 1_700_000_000_000 });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  test('closed windows are swept by themselves, every window when it is shorter than a minute', () => {
    counter = new MemoryCounter(40);
    counter.hit('a');
    jest.advanceTimersByTime(39);
    expect(counter.size).toBe(1);
    jest.advanceTimersByTime(1);
    expect(counter.size).toBe(0);
  });

  test('and every minute for longer windows', () => {
    counter = new MemoryCounter(90_000);
    counter.hit('a');
    jest.advanceTimersByTime(90_000);
    expect(counter.size).toBe(1); // closed, but the sweep comes at the next minute
    jest.advanceTimersByTime(30_000);
    expect(counter.size).toBe(0);
  });

  test('close() stops the sweeps', () => {
    counter = new MemoryCounter(40);
    expect(jest.getTimerCount()).toBe(1);
    counter.close();
    expect(jest.getTimerCount()).toBe(0);
  });
});
