// Latency as a histogram of fixed buckets, which several instances can add up and from which the median and
// the 95th percentile are read (to the bucket's upper bound): the usage history and the endpoints' health
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

/** The upper bound of the bucket holding quantile q, or null without samples. */
export function quantile(histogram: number[], q: number): number | null {
  const total = histogram.reduce((s, n) => s + n, 0);
  if (!total) return null;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i];
    if (seen >= rank) return Number.isFinite(LATENCY_BUCKETS[i]) ? LATENCY_BUCKETS[i] : LATENCY_BUCKETS[i - 1];
  }
  return null;
}
