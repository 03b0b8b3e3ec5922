// Latency as a histogram of fixed buckets, which several instances can add up and from which the median and
// the 95th percentile are read (to the bucket's upper bound, or, with the bucket's sum of latencies, to the
// mean of its calls, which never exceeds the slowest call): the usage history and the endpoints' health
// history keep their latency so.
/** Upper bounds of the latency buckets, in milliseconds (the last one catches everything slower). */
export const LATENCY_BUCKETS = [
  1,
  2,
  3,
  5,
  7,
  10,
  15,
  20,
  30,
  50,
  75,
  100,
  150,
  200,
  300,
  500,
  750,
  1000,
  2000,
  5000,
  10000,
  30000,
  Infinity,
];

/**
 * Quantile q of a histogram, or null without samples: the mean of the calls in the bucket that holds it
 * when `sums` (each bucket's total milliseconds) know that bucket, else the bucket's upper bound.
 */
export function quantile(histogram: number[], q: number, sums?: number[]): number | null {
  const total = histogram.reduce((s, n) => s + n, 0);
  if (!total) return null;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i];
    if (seen < rank) continue;
    // Kept within the bucket's bounds: calls recorded before sums were kept add to its count, not its sum.
    if (sums !== undefined && sums[i] > 0)
      return Math.min(Math.max(Math.round(sums[i] / histogram[i]), i ? LATENCY_BUCKETS[i - 1] : 0), LATENCY_BUCKETS[i]);
    return Number.isFinite(LATENCY_BUCKETS[i]) ? LATENCY_BUCKETS[i] : LATENCY_BUCKETS[i - 1];
  }
  return null;
}
