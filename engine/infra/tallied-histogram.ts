// A Prometheus histogram with one label whose observations are a few number updates. prom-client's own
// Histogram child builds a label object, validates it and hashes it again on every observe, a cost paid by
// every API request (docs/decisions/engine-request-path.md, "Counters are plain numbers until /metrics is read"). This one keeps plain counts per label value and is
// registered in prom-client's registry as a metric of its own: the registry asks a metric only for
// `get()` (and `reset()`), and what get() gives is the same set of series prom-client's Histogram gives for
// the same observations (tests/engine/infra/tallied-histogram.test.ts compares the two expositions).
import type client from 'prom-client';

/** One label value's series: counts per bucket (each bucket's own, not cumulative), their sum and count. */
export class HistogramSeries {
  private readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    if (i < bounds.length) this.counts[i]++;
    this.sum += value;
    this.count++;
  }

  /** Each bucket's cumulative count, as exposed. */
  cumulative(): number[] {
    let acc = 0;
    return Array.from(this.counts, (n) => (acc += n));
  }

  zero(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
  }
}

interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
}

export class TalliedHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, HistogramSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelName: string,
    private readonly bounds: readonly number[],
    registry: client.Registry,
  ) {
    // Typed as one of prom-client's own classes, read as any object with get() and reset().
    registry.registerMetric(this as unknown as client.Metric);
  }

  /** The series of one label value, made on first use: callers keep it and observe into it. */
  labels(value: string): HistogramSeries {
    let s = this.series.get(value);
    if (s === undefined) this.series.set(value, (s = new HistogramSeries({ [this.labelName]: value }, this.bounds)));
    return s;
  }

  /** The series as prom-client's Histogram exposes them: each bucket, +Inf, the sum and the count. */
  get() {
    const values: Sample[] = [];
    for (const s of this.series.values()) {
      const cumulative = s.cumulative();
      this.bounds.forEach((le, i) => values.push({ labels: { le, ...s.labels }, value: cumulative[i], metricName: `${this.name}_bucket` }));
      values.push(
        { labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: `${this.name}_bucket` },
        { labels: { ...s.labels }, value: s.sum, metricName: `${this.name}_sum` },
        { labels: { ...s.labels }, value: s.count, metricName: `${this.name}_count` },
      );
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator });
  }

  /** The registry's resetMetrics(): every series back to zero (callers keep theirs, so none is dropped). */
  reset(): void {
    for (const s of this.series.values()) s.zero();
  }
}
