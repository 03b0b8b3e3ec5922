// An endpoint's deadlines (engine/pipeline/deadlines.ts): each piece of work runs out at its own start plus the
// endpoint's time, oldest first, whatever was stopped in between, with one timer for the list; a stopped
// clock never runs out, and a clock runs out once. On fake timers (they move performance.now() too), so a
// busy machine cannot make a deadline early or late.
import { jest } from '@jest/globals';
import { Deadlines, Timed } from '../../../engine/pipeline/deadlines.js';

class Work extends Timed {
  constructor(
    readonly name: string,
    private readonly ranOut: string[],
  ) {
    super();
  }
  expire(): void {
    this.ranOut.push(`${this.name}@${Math.round(performance.now() - start)}`);
  }
}

let start: number;
beforeEach(() => {
  jest.useFakeTimers();
  start = performance.now();
});
afterEach(() => {
  jest.useRealTimers();
});

test('each runs out at its start plus the time, oldest first; stopped ones never', () => {
  const ranOut: string[] = [];
  const deadlines = new Deadlines(100);
  const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((n) => new Work(n, ranOut));
  deadlines.start(a);
  jest.advanceTimersByTime(30);
  deadlines.start(b);
  deadlines.start(c);
  jest.advanceTimersByTime(30);
  deadlines.start(d);
  expect(a.stop()).toBe(true); // the oldest answered: the list's head moves on
  expect(c.stop()).toBe(true); // one in the middle answered
  jest.advanceTimersByTime(200);
  expect(ranOut).toEqual(['b@130', 'd@160']);
  expect(deadlines.empty).toBe(true);
});

test('a clock runs out once, and cannot be stopped afterwards; a stopped one cannot be stopped again', () => {
  const ranOut: string[] = [];
  const deadlines = new Deadlines(50);
  const a = new Work('a', ranOut);
  const b = new Work('b', ranOut);
  deadlines.start(a);
  deadlines.start(b);
  expect(b.stop()).toBe(true);
  expect(b.stop()).toBe(false);
  jest.advanceTimersByTime(1000);
  expect(a.stop()).toBe(false);
  expect(ranOut).toEqual(['a@50']);
});

test('work started again after it ran out gets a new clock; one started twice at once is refused', () => {
  const ranOut: string[] = [];
  const deadlines = new Deadlines(20);
  const a = new Work('a', ranOut);
  deadlines.start(a);
  expect(() => deadlines.start(a)).toThrow('already running');
  jest.advanceTimersByTime(20);
  deadlines.start(a);
  jest.advanceTimersByTime(20);
  expect(ranOut).toEqual(['a@20', 'a@40']);
});

test('one timer serves the list however many clocks run, and none is left once all are stopped', () => {
  const deadlines = new Deadlines(1000);
  const works = Array.from({ length: 500 }, (_, i) => new Work(String(i), []));
  for (const w of works) deadlines.start(w);
  expect(jest.getTimerCount()).toBe(1);
  for (const w of works) w.stop();
  // The timer fires once at the oldest's time, finds nothing due, and is not set again.
  jest.advanceTimersByTime(1000);
  expect(jest.getTimerCount()).toBe(0);
  expect(deadlines.empty).toBe(true);
});

test('the timer does not keep the process up', () => {
  jest.useRealTimers();
  const spy = jest.spyOn(globalThis, 'setTimeout');
  const deadlines = new Deadlines(60_000);
  const a = new Work('a', []);
  deadlines.start(a);
  const timer = spy.mock.results[0].value as NodeJS.Timeout;
  spy.mockRestore();
  expect(timer.hasRef()).toBe(false);
  a.stop();
  clearTimeout(timer);
});

// What the list leans on in Node (docs/decisions/request-path-tuning.md): a timer may fire a little before
// performance.now() reaches the time it was set for (libuv keeps the loop's time in whole milliseconds), so
// the due check reads the clock and sets the timer again. On real timers, then on a clock made to lag.
test('on real timers none runs out before its time by performance.now(), and all run out in the order started', async () => {
  jest.useRealTimers();
  const deadlines = new Deadlines(15);
  const ranOut: { name: number; early: number }[] = [];
  class Clocked extends Timed {
    constructor(readonly name: number) {
      super();
    }
    expire(): void {
      ranOut.push({ name: this.name, early: Math.max(0, this.dueAt - performance.now()) });
    }
  }
  for (let i = 0; i < 20; i++) {
    deadlines.start(new Clocked(i));
    // Starts spread over fractions of milliseconds, so some fall between two of the loop's whole ones.
    const until = performance.now() + 0.3 + (i % 3) * 0.25;
    while (performance.now() < until);
    if (i % 5 === 4) await new Promise((r) => setTimeout(r, 1));
  }
  await new Promise((r) => setTimeout(r, 200));
  expect(ranOut.map((r) => r.name)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  expect(ranOut.filter((r) => r.early > 0)).toEqual([]);
  expect(deadlines.empty).toBe(true);
});

test('a timer that fires before the clock says the time is up is set again, and the work runs out then', () => {
  const now = performance.now.bind(performance);
  let lag = 0;
  jest.spyOn(performance, 'now').mockImplementation(() => now() - lag);
  const ranOut: string[] = [];
  const deadlines = new Deadlines(100);
  deadlines.start(new Work('a', ranOut));
  lag = 0.5; // the timer fires at 100 ms by the loop, 99.5 by the clock
  jest.advanceTimersByTime(100);
  expect(ranOut).toEqual([]);
  expect(jest.getTimerCount()).toBe(1);
  jest.advanceTimersByTime(1);
  expect(ranOut).toHaveLength(1);
  expect(deadlines.empty).toBe(true);
});
