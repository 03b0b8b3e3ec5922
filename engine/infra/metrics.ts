// Prometheus metrics at /metrics, for the operator of one instance or of a cluster: requests by endpoint
// and status, by plan, latency; upstream calls, their latency and failures; response-cache hits and misses;
// whether Redis and the object store answer. Every label child is looked up once and kept. A request adds
// 1 to plain numbers (Tally) that are handed to prom-client's counters when /metrics is read, and its
// latency to a TalliedHistogram's counts: prom-client's own increment and observe re-hash the labels on
// every call (docs/decisions/engine-request-path.md).
import crypto from 'node:crypto';
import client from 'prom-client';
import { TalliedHistogram, type HistogramSeries } from './tallied-histogram.js';

/** Read when /metrics is scraped; absent when the part is not configured (no series then). */
export interface MetricsProbes {
  redisUp?: () => boolean;
  objectStoreUp?: () => boolean;
}

const CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;

/** The increments of one counter series since the last scrape. */
class Tally {
  n = 0;
  constructor(readonly series: client.Counter.Internal) {}
}

export function createMetrics(probes: MetricsProbes = {}) {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const tallies: Tally[] = [];
  const tally = (series: client.Counter.Internal) => {
    const t = new Tally(series);
    tallies.push(t);
    return t;
  };
  // Run by each counter as it is read: whichever comes first hands over every tally.
  const collect = () => {
    for (const t of tallies) {
      if (t.n === 0) continue;
      t.series.inc(t.n);
      t.n = 0;
    }
  };
  // Every series of this registry: the counters hand over the tallies as they are read.
  const counter = (name: string, help: string, labelNames: string[]) => new client.Counter({ name, help, labelNames, registers, collect });
  const histogram = (name: string, help: string, labelName: string, buckets: number[]) =>
    new TalliedHistogram(name, help, labelName, buckets, registry);
  /** 1 or 0, asked of the probe when /metrics is read. */
  const upGauge = (name: string, help: string, up: () => boolean) =>
    new client.Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(up() ? 1 : 0);
      },
    });
  const requests = counter('uua_requests_total', 'Requests by endpoint and status', ['endpoint', 'status']);
  const latency = histogram('uua_request_seconds', 'Request latency by endpoint', 'endpoint', [0.005, 0.02, 0.1, 0.5, 2, 10, 60]);
  const byPlan = counter('uua_plan_requests_total', 'API requests by plan of the key (none: missing or invalid key) and status class', [
    'plan',
    'class',
  ]);
  const upstreamCalls = counter('uua_upstream_requests_total', 'Upstream calls by upstream and outcome (ok, or the error code answered)', [
    'upstream',
    'outcome',
  ]);
  const upstreamLatency = histogram(
    'uua_upstream_seconds',
    'Upstream call latency, retries included',
    'upstream',
    [0.05, 0.2, 0.5, 1, 2, 5, 15, 60],
  );
  const cacheLookups = counter('uua_cache_requests_total', 'Response-cache look-ups by result (hit ratio: hit / (hit + miss))', ['result']);
  const cacheHit = tally(cacheLookups.labels('hit'));
  const cacheMiss = tally(cacheLookups.labels('miss'));
  if (probes.redisUp) upGauge('uua_redis_up', '1 while the Redis client is connected and ready', probes.redisUp);
  if (probes.objectStoreUp)
    upGauge('uua_object_store_up', '1 while the object store of hosted content answered its last call', probes.objectStoreUp);

  // Endpoint → its latency and its count by status: looked up by the strings and numbers the call holds,
  // so counting a request makes no string.
  const endpointChildren = new Map<string, { latency: HistogramSeries; byStatus: Map<number, Tally> }>();
  const planChildren = new Map<string, Tally[]>();
  const upstreamChildren = new Map<string, { latency: HistogramSeries; outcomes: Map<string, Tally> }>();

  return {
    registry,
    /** One answered API request; `plan` undefined when the key was missing or invalid. */
    observe(endpoint: string, status: number, seconds: number, plan: string | undefined) {
      let e = endpointChildren.get(endpoint);
      if (!e) endpointChildren.set(endpoint, (e = { latency: latency.labels(endpoint), byStatus: new Map() }));
      let count = e.byStatus.get(status);
      if (!count) e.byStatus.set(status, (count = tally(requests.labels(endpoint, String(status)))));
      count.n++;
      e.latency.observe(seconds);
      const p = plan ?? 'none';
      let byClass = planChildren.get(p);
      if (!byClass) planChildren.set(p, (byClass = CLASSES.map((cls) => tally(byPlan.labels(p, cls)))));
      byClass[Math.min(Math.max(Math.floor(status / 100), 1), 5) - 1].n++;
    },
    /** One upstream call (createUpstreams' `observe`: handed over on its own, so an arrow function). */
    upstream: (upstreamId: string, outcome: string, seconds: number) => {
      let u = upstreamChildren.get(upstreamId);
      if (!u) upstreamChildren.set(upstreamId, (u = { latency: upstreamLatency.labels(upstreamId), outcomes: new Map() }));
      let c = u.outcomes.get(outcome);
      if (!c) u.outcomes.set(outcome, (c = tally(upstreamCalls.labels(upstreamId, outcome))));
      c.n++;
      u.latency.observe(seconds);
    },
    /** One response-cache look-up (the cached step's `lookedUp`: handed over on its own, so an arrow function). */
    cache: (hit: boolean) => {
      (hit ? cacheHit : cacheMiss).n++;
    },
  };
}

/**
 * Whether a request may read /metrics: always when no METRICS_TOKEN is set, otherwise only with
 * `Authorization: Bearer <token>`. Compared as SHA-256 digests, in constant time.
 */
export function metricsAccess(token: string | undefined, authorization: string | undefined): 'ok' | 'missing' | 'wrong' {
  if (!token) return 'ok';
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!m) return 'missing';
  const digest = (s: string) => crypto.createHash('sha256').update(s).digest();
  return crypto.timingSafeEqual(digest(m[1]), digest(token)) ? 'ok' : 'wrong';
}
