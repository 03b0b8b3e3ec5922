// The ring behind the usage history's recent calls and the monitor's recent answers (engine/reused-ring.ts):
// the newest entries, oldest first, and once full the oldest object handed out again instead of a new one.
import { ReusedRing } from '../../engine/reused-ring.js';

test('keeps the newest entries, oldest first, reusing the oldest object once full', () => {
  let made = 0;
  const ring = new ReusedRing(3, () => ({ n: -1, serial: made++ }));
  const put = (n: number) => {
    ring.slot().n = n;
  };
  put(1);
  put(2);
  expect(ring.entries().map((e) => e.n)).toEqual([1, 2]);
  put(3);
  const full = ring.entries();
  expect(full.map((e) => e.n)).toEqual([1, 2, 3]);
  put(4);
  put(5);
  expect(ring.entries().map((e) => e.n)).toEqual([3, 4, 5]);
  // Three objects ever made: 4 and 5 were written into the ones that held 1 and 2.
  expect(made).toBe(3);
  expect(ring.entries().map((e) => e.serial)).toEqual([2, 0, 1]);
  expect(ring.entries()[1]).toBe(full[0]);
  for (let n = 6; n <= 100; n++) put(n);
  expect(ring.entries().map((e) => e.n)).toEqual([98, 99, 100]);
  expect(made).toBe(3);
});
