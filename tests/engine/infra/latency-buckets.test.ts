// The latency histogram's quantiles, read to the upper bound of the bucket that holds them.
import { quantile, LATENCY_BUCKETS } from '../../../engine/infra/latency-buckets.js';

test('latency quantiles are read from the histogram buckets', () => {
  const h = new Array(LATENCY_BUCKETS.length).fill(0);
  expect(quantile(h, 0.5)).toBeNull();
  h[0] = 90; // ≤ 1 ms
  h[9] = 10; // ≤ 50 ms
  expect(quantile(h, 0.5)).toBe(1);
  expect(quantile(h, 0.95)).toBe(50);
  h[h.length - 1] = 1000; // slower than the last bound: reported as that bound
  expect(quantile(h, 0.95)).toBe(30000);
});

test("with each bucket's sum, a quantile is its bucket's mean: never above the slowest call, never outside its bucket", () => {
  const h = new Array(LATENCY_BUCKETS.length).fill(0);
  const sums = new Array(LATENCY_BUCKETS.length).fill(0);
  const at500 = LATENCY_BUCKETS.indexOf(500);
  // Six fast calls and one of 426 ms: the 95th percentile is that call, not its bucket's bound (500).
  h[0] = 6;
  sums[0] = 3;
  h[at500] = 1;
  sums[at500] = 426;
  expect(quantile(h, 0.95, sums)).toBe(426);
  expect(quantile(h, 0.95)).toBe(500);
  expect(quantile(h, 0.5, sums)).toBe(1); // 0.5 ms on average, rounded
  // Calls counted before sums were kept: the mean of the summed ones is kept within the bucket (300, 500].
  h[at500] = 4;
  expect(quantile(h, 0.95, sums)).toBe(300);
});
