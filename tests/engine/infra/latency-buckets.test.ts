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
